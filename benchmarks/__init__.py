"""The figures: each module a benchmark, run from the project root as ``python -m benchmarks.<name>``.

``make bench`` runs :mod:`benchmarks.bench` (every figure in one table, with its target);
``make bench-all`` runs each module's own, longer report. Run as modules, not as scripts, so
``benchmarks/`` is never the first folder Python looks in (where a module named after a package
would shadow it: tests/test_layout.py refuses such a name, and
tests/benchmarks/test_run_as_modules.py runs each so). A count a benchmark is given is
:func:`positive`: 0 or ``x`` is argparse's one-line refusal, not a traceback later.
"""

import argparse


def positive(text: str) -> int:
    """A count a benchmark is given (samples, runs, commands): a whole number, at least 1.

    >>> positive("3")
    3
    >>> positive("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 0: give at least 1
    """
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: give at least 1")
    return n
