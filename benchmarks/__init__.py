"""The figures: each module a benchmark, run from the project root as ``python -m benchmarks.<name>``.

``make bench`` runs :mod:`benchmarks.bench` (every figure in one table, with its target);
``make bench-all`` runs each module's own, longer report. Run as modules, not as scripts, so
``benchmarks/`` is never the first folder Python looks in (where ``engine.py`` would shadow the
engine package).
"""
