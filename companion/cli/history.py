"""``rhuna-table history [SESSION] [--last N] [--follow]``: the journal narrated as it happened.

SESSION is a state directory, a journal file or a session id (``current`` or an
archived one's stamp, with ``--state-dir``); without it, the current journal of
the config's ``[state] dir``. Safe beside a running service (read-only, WAL).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

SESSION_HELP = (
    "a state directory, a journal file, or a session id (current, or an archived session's"
    " stamp like 20261201T190000Z, looked up in --state-dir)"
)


def add_session_arguments(p: Any, *, required: bool = False) -> None:
    """SESSION, --state-dir, --config and --table: how every journal reader finds its journal."""
    from companion.cli.run import DEFAULT_CONFIG

    if required:
        p.add_argument("session", metavar="SESSION_OR_STATE_DIR", help=SESSION_HELP)
    else:
        p.add_argument("session", nargs="?", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--state-dir", help="the service's state directory (for session ids)")
    p.add_argument(
        "--config",
        default=DEFAULT_CONFIG,
        help=f"service config whose [state] dir to read when no state dir is given (default"
        f" {DEFAULT_CONFIG})",
    )
    p.add_argument(
        "--table",
        help="the table file the session was played with (default: the one its journal names)",
    )


def open_session(args: argparse.Namespace) -> Any:
    from companion.record.journal import locate, open_journal

    config = args.config if args.session is None or args.state_dir is None else None
    return open_journal(locate(args.session, args.state_dir, config))


def register(sub: Any) -> None:
    p = sub.add_parser("history", help="the journal narrated: time, source, command, events")
    add_session_arguments(p)
    p.add_argument("--last", type=int, metavar="N", help="only the last N commands")
    p.add_argument(
        "--follow", action="store_true", help="keep printing new commands as the table plays"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per command")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.record.history import history
    from engine.errors import ConfigError

    if args.last is not None and args.last < 0:
        raise ConfigError(f"--last {args.last}: give a number of commands, 0 or more")
    with open_session(args) as journal:
        history(
            journal,
            sys.stdout,
            table=args.table,
            last=args.last,
            follow=args.follow,
            as_json=args.json,
        )
    return 0
