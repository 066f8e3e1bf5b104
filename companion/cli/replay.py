"""``rhuna-table replay TABLE.toml SESSION.jsonl [--json]``: apply a script of commands.

SESSION.jsonl is one command a line (examples/session.jsonl), or a record as the table wrote
it: an export's ``events.jsonl`` (each line's ``command`` object) or ``rhuna-table history
--json`` (each line's ``command`` text, read back with
:func:`companion.record.narrate.parse_command_text`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import CommandRejected, ConfigError, apply, load_table
from engine.narrate import describe
from engine.state import TableState
from settings.textfile import read_text


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="apply a session file of commands to a table and narrate it")
    p.add_argument("table", help="table TOML file")
    p.add_argument(
        "session",
        help="JSON-lines file: one command object per line (# comments), or an export's"
        " events.jsonl, or the output of history --json",
    )
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="report each refused command and carry on (the exit status is still 1 if any was"
        " refused; default: stop at the first)",
    )
    p.set_defaults(func=run)


def read_session(path: Path) -> list[tuple[int, Any]]:
    """The commands of a session file with their line numbers; blank and # lines skipped."""
    try:
        lines = read_text(path).splitlines()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the session file ({e.strerror})") from None
    out = []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            out.append((n, json.loads(text)))
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path}:{n}: not a JSON object ({e.msg})") from None
    return out


def command_of(line: Any, where: str) -> Any:
    """The command of one session line: itself, an ``events.jsonl`` row's ``command`` object,
    or a ``history --json`` line's ``command`` text read back."""
    if not isinstance(line, dict) or "cmd" in line or "command" not in line:
        return line
    command = line["command"]
    if isinstance(command, str):
        from companion.record.narrate import parse_command_text

        try:
            return parse_command_text(command)
        except ValueError as e:
            raise ConfigError(f"{where}: {e} (a history --json line's command)") from None
    return command


def run(args: argparse.Namespace) -> int:
    state: TableState = load_table(args.table)
    out = sys.stderr if args.json else sys.stdout
    refused = 0
    for n, line in read_session(Path(args.session)):
        cmd = command_of(line, f"{args.session}:{n}")
        try:
            state, events = apply(state, cmd)
        except CommandRejected as e:
            refused += 1
            print(f"{args.session}:{n}: refused: {e.violation}", file=out)
            if not args.keep_going:
                return 1
            continue
        for event in events:
            print(describe(state, event), file=out)
    if args.json:
        json.dump(
            state.without_history().to_json(),
            sys.stdout,
            indent=1,
            sort_keys=True,
            ensure_ascii=False,
        )
        print()
    if refused and args.keep_going:
        print(f"{args.session}: {refused} command(s) refused", file=sys.stderr)
    return 1 if refused else 0
