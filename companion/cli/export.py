"""``rhuna-table export SESSION_OR_STATE_DIR --to DIR``: events.jsonl, draws.csv,
performances.csv, recap.html (the players' recap, to share) and recap-worldkeeper.html (the
WorldKeeper's, everything; ``--format md``: recap.md and recap-worldkeeper.md). The journal
is read-only."""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli.history import add_session_arguments, open_session


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export", help="a session as events.jsonl, draws.csv, performances.csv and a recap"
    )
    add_session_arguments(p, required=True)
    p.add_argument(
        "--to",
        required=True,
        metavar="DIR",
        help="folder to write the files into: a new or empty one (--force: replace the"
        " export's files in a folder that has some)",
    )
    p.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    p.add_argument(
        "--format",
        choices=["html", "md"],
        default="html",
        help="the recaps: self-contained recap.html (the players', to share) and"
        " recap-worldkeeper.html (default), or recap.md and recap-worldkeeper.md",
    )
    p.add_argument(
        "--frames",
        metavar="DIR",
        help="embed the panel's PNG frames from this folder (its out_dir)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.record.export import export, what_is_there
    from companion.record.journal import JournalError

    to = Path(args.to)
    with open_session(args) as journal:  # a session that cannot be read is said first
        there = what_is_there(to, folder=True)
        if there is not None and (to.is_file() or not args.force):
            fix = "give a new or empty folder"
            if not to.is_file():
                fix += ", or add --force to replace the export's files there"
            raise JournalError(f"--to {to}: {there} — nothing written; {fix}")
        removed: list[Path] = []
        paths = export(
            journal, to, table=args.table, fmt=args.format, frames=args.frames, removed=removed
        )
    for path in paths:
        print(path)
    for path in removed:
        print(f"removed {path} (the earlier export's recap, in the other format)")
    return 0
