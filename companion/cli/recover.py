"""``rhuna-table recover --state DIR``: rebuild a journal the service refused to open.

When the journal's write-ahead log is damaged (a frame or its header) with committed frames
after the damage, or ``journal.sqlite`` is missing or empty beside its log, the service does
not start (exit 2) and names this command. It replays every good frame into a new journal
(companion/table/recover.py), keeps the old files in ``<state>/archive/recovered-<time>/``,
and says how many commands it kept. Stop the service first. ``--config`` instead of
``--state`` takes the state folder from the config. Exit codes: 0 rebuilt (or nothing to
do), 2 nothing could be rebuilt (the message says why).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from settings.errors import ConfigError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "recover", help="rebuild a journal from a damaged write-ahead log (the service stopped)"
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--state", metavar="DIR", help="the state folder ([state] dir)")
    where.add_argument("--config", help="the service config (its [state] dir)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.table.guard import JournalRefused, check
    from companion.table.journal import JOURNAL
    from companion.table.recover import recover

    if args.state is not None:
        state_dir = Path(args.state)
    else:
        from companion.config import load_config

        state_dir = load_config(args.config).state_dir
    if not state_dir.is_dir():
        raise ConfigError(f"recover --state {state_dir}: no such folder")
    try:
        check(state_dir, keep=False)
    except JournalRefused:
        pass
    else:
        print(f"{state_dir / JOURNAL}: nothing to recover (the service starts on it as it is)")
        return 0
    done = recover(state_dir)
    print(done.summary(state_dir))
    return 0
