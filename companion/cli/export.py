"""``rhuna-table export SESSION_OR_STATE_DIR --to DIR``: events.jsonl, draws.csv,
performances.csv and recap.html (``--format md``: recap.md). The journal is read-only."""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli.history import add_session_arguments, open_session


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export", help="a session as events.jsonl, draws.csv, performances.csv and a recap"
    )
    add_session_arguments(p, required=True)
    p.add_argument("--to", required=True, metavar="DIR", help="folder to write the files into")
    p.add_argument(
        "--format",
        choices=["html", "md"],
        default="html",
        help="the recap: one self-contained recap.html (default) or recap.md",
    )
    p.add_argument(
        "--frames",
        metavar="DIR",
        help="embed the panel's PNG frames from this folder (its out_dir)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.record.export import export

    with open_session(args) as journal:
        paths = export(journal, args.to, table=args.table, fmt=args.format, frames=args.frames)
    for path in paths:
        print(path)
    return 0
