"""``rhuna-table demo``: the whole example table, with no hardware at all.

For now it replays the shipped example session step by step — each command, what
the rules made of it, and the outcome — and ends with the heroes' sheets. Later
parts of the service (emulated token hub, mock GPIO wheel, PNG panel, MQTT) plug
into the same loop.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine import CommandRejected, apply, load_table
from engine.narrate import describe
from engine.state import TableState

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="run the example table with no hardware (simulated everything)")
    p.add_argument("--table", help="table TOML (default: the shipped examples)")
    p.add_argument(
        "--session",
        action="append",
        help="session file(s) to play on --table (default: the shipped example session and fight)",
    )
    p.set_defaults(func=run)


def _summary(cmd: dict[str, Any]) -> str:
    rest = {k: v for k, v in cmd.items() if k != "cmd"}
    return f"{cmd['cmd']} " + " ".join(f"{k}={json.dumps(v)}" for k, v in rest.items())


def sheets(state: TableState) -> list[str]:
    lines = []
    for h in state.heroes.values():
        lines.append(
            f"  {h.name:<8} Fatigue {h.fatigue}/{h.fatigue_capacity}  "
            f"Strain {h.strain}/{h.strain_capacity}  Wounds {h.wounds}  "
            f"Favor {h.favor}  Redraws {h.redraws}  bag {len(state.bags[h.bag].contents)} tokens"
        )
    return lines


#: what the demo plays by default: (table, sessions)
DEFAULT_PLAYS = [
    (EXAMPLES / "table.toml", [EXAMPLES / "session.jsonl"]),
    (EXAMPLES / "fight.toml", [EXAMPLES / "fight.jsonl"]),
]


def run(args: argparse.Namespace) -> int:
    if args.table:
        plays = [(Path(args.table), [Path(s) for s in args.session or []])]
    else:
        plays = DEFAULT_PLAYS
    for table, sessions in plays:
        if play(table, sessions):
            return 1
    return 0


def play(table: Path, sessions: list[Path]) -> int:
    from companion.cli_replay import read_session

    state = load_table(table)
    print(f"\nRhuna table companion — demo on {table}")
    print(*sheets(state), sep="\n")
    step = 0
    for session in sessions:
        print(f"\n== {session}")
        for line, cmd in read_session(Path(session)):
            step += 1
            try:
                state, events = apply(state, cmd)
            except CommandRejected as e:
                print(
                    f"[{step:3}] {_summary(cmd)}\n      REFUSED ({session}:{line}): {e.violation}"
                )
                return 1
            print(f"[{step:3}] {_summary(cmd)}")
            for event in events:
                print(f"      {describe(state, event)}")
    print("\nAt the end of the session:")
    print(*sheets(state), sep="\n")
    return 0
