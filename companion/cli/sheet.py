"""``rhuna-table sheet STATE --to table.toml``: the heroes as a session left them, as a table
file that loads to the same heroes (comments and layout of the original kept)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.cli.history import add_session_arguments, open_session


def register(sub: Any) -> None:
    p = sub.add_parser("sheet", help="write the heroes as a session left them back as a table file")
    add_session_arguments(p, required=True)
    p.add_argument(
        "--to",
        required=True,
        metavar="FILE",
        help="the table file to write: a new one (--force: replace one that exists)",
    )
    p.add_argument("--force", action="store_true", help="replace --to if it exists")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.record.export import what_is_there
    from companion.record.journal import JournalError
    from companion.record.sheet import write_sheet

    to = Path(args.to)
    with open_session(args) as journal:
        table = journal.table_file(args.table)
        if to.resolve() == table.resolve():
            raise JournalError(
                f"--to {to}: that is the table file the journal was started with — write a new"
                " file (the service refuses a journal whose table file changed)"
            )
        there = what_is_there(to, folder=False)
        if there is not None and (to.is_dir() or not args.force):
            fix = "give a new file name"
            if not to.is_dir():
                fix += ", or add --force to replace it"
            raise JournalError(f"--to {to}: {there} — nothing written; {fix}")
        state = journal.last_state(args.table)
        write_sheet(table, state, to)
    names = ", ".join(h.name for h in state.heroes.values())
    print(f"{to}: {names}")
    return 0
