"""``rhuna-table``: the command line. Each subcommand lives in its own module.

A subcommand module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed args and returning an exit code.

``rhuna-table NAME …`` imports only NAME's module (a cold ``rhuna-table odds`` should not pay
for the schema's, the demo's or the service's imports); anything else (``--help``, an unknown
name, an option before the name) builds the whole parser, so its help and errors are as before.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

#: subcommand modules, in the order ``--help`` lists them
SUBCOMMANDS = [
    "companion.cli.replay",
    "companion.cli.schema",
    "companion.cli.demo",
    "companion.cli.play",
    "companion.cli.odds",
    "companion.cli.preview",
    "companion.cli.run",
    "companion.cli.enroll",
    "companion.cli.audit",
    "companion.cli.accounts",
    "companion.cli.venue",
    "companion.cli.history",
    "companion.cli.export",
    "companion.cli.sheet",
    "companion.cli.doctor",
    "companion.cli.note",
    "companion.cli.recover",
]

#: subcommands whose module is not ``companion.cli.<name>``
_MODULE_OF = {"check-config": "companion.cli.run"}


def _version() -> str:
    """The installed distribution's version (pyproject.toml), or "unknown" from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rhuna-table")
    except PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


class _Version(argparse._VersionAction):
    """``--version``, the distribution's metadata read only when asked (importlib.metadata
    is a cold start's largest import after the subcommand's own)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        self.version = f"rhuna-table {_version()}"
        super().__call__(parser, *args, **kwargs)


def plain(doc: str | None) -> str | None:
    """A module docstring as ``--help`` text: reST's ``code`` and *emphasis* marks dropped.

    >>> plain("``rhuna-table accounts``: see docs/web.md, *Accounts*.")
    'rhuna-table accounts: see docs/web.md, Accounts.'
    """
    if doc is None:
        return None
    import re

    return re.sub(r"\*([^*\s][^*]*)\*", r"\1", re.sub(r"``(.+?)``", r"\1", doc))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, a subcommand's name, just that subcommand's
    parser (its module alone imported), or the whole one when no module registers it."""
    modules = SUBCOMMANDS
    if only is not None:
        module = _MODULE_OF.get(only, f"companion.cli.{only}")
        modules = [module] if module in SUBCOMMANDS else SUBCOMMANDS
    parser = argparse.ArgumentParser(prog="rhuna-table", description="The Rhuna table companion.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    if only is not None and only not in sub.choices and modules != SUBCOMMANDS:
        return build_parser()
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # the subcommand first: nothing before it for the top-level parser to act on
    parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from settings.errors import ConfigError

    try:
        return int(args.func(args) or 0)
    except ConfigError as e:
        for line in str(e).splitlines() or [type(e).__name__]:  # ConfigErrors: one a line
            print(f"rhuna-table: {line}", file=sys.stderr)
        # 2: no retry cures it (systemd's RestartPreventExitStatus=2); a full or read-only
        # disk says another status (companion.table.journal_file.StoreUnavailable: 75)
        return int(getattr(e, "exit_status", 2))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rhuna-table replay … | head`: the reader left, not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
