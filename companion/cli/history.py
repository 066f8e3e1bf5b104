"""``rhuna-table history [SESSION] [--last N] [--follow]``: the journal narrated as it happened.

SESSION is a state directory, a journal file or a session id (``current`` or an
archived one's stamp, with ``--state-dir``); without it, the current journal of
the config's ``[state] dir``. Safe beside a running service (read-only, WAL).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from companion.cli.stopping import exit_status, stop_on_signals

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
    from companion.record.journal import open_journal

    config = args.config if args.session is None or args.state_dir is None else None
    return open_journal(locate(args.session, args.state_dir, config))


def locate(session: str | None, state_dir: str | Path | None, config: str | Path | None) -> Path:
    """The journal a CLI's SESSION / ``--state-dir`` / ``--config`` name (see
    :func:`~companion.record.journal.find_session`).

    With no SESSION, the current journal of ``--state-dir``, else of the config's ``[state] dir``.
    """
    from companion.config import load_config
    from companion.record.journal import JournalError, find_session
    from settings.errors import ConfigError

    if state_dir is None and (session is None or not Path(session).exists()) and config:
        try:
            state_dir = load_config(config).state_dir
        except ConfigError:
            if session is None:
                raise
            # a mistyped path, most likely: say that, not that the default config is missing
    if session is None:
        if state_dir is None:
            raise JournalError("give a session: a state directory, a journal file or --state-dir")
        return find_session(state_dir)
    return find_session(session, state_dir)


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
    from settings.errors import ConfigError

    if args.last is not None and args.last < 0:
        raise ConfigError(f"--last {args.last}: give a number of commands, 0 or more")
    stop = threading.Event()
    with open_session(args) as journal, stop_on_signals(stop) as got:
        history(
            journal,
            sys.stdout,
            table=args.table,
            last=args.last,
            follow=args.follow,
            as_json=args.json,
            stop=stop,
        )
    return exit_status(got)
