"""``rhuna-table``: the command line. Each subcommand lives in its own module.

A subcommand module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed args and returning an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand modules, in the order ``--help`` lists them
SUBCOMMANDS = [
    "companion.cli.replay",
    "companion.cli.schema",
    "companion.cli.demo",
    "companion.cli.odds",
    "companion.cli.preview",
    "companion.cli.run",
    "companion.cli.enroll",
    "companion.cli.accounts",
    "companion.cli.history",
    "companion.cli.export",
    "companion.cli.sheet",
    "companion.cli.doctor",
]


def _version() -> str:
    """The installed distribution's version (pyproject.toml), or "unknown" from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rhuna-table")
    except PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rhuna-table", description="The Rhuna table companion.")
    parser.add_argument("--version", action="version", version=f"rhuna-table {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from engine.errors import ConfigError

    try:
        return int(args.func(args) or 0)
    except ConfigError as e:
        for line in str(e).splitlines() or [type(e).__name__]:  # ConfigErrors: one a line
            print(f"rhuna-table: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rhuna-table replay … | head`: the reader left, not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
