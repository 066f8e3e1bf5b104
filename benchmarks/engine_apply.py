"""Engine speed: commands per second through apply(), and replaying a 10,000-command session.

Targets (issue 2, on the 2-core dev machine): ≥ 20,000 commands/s; replay < 1 s.

    .venv/bin/python -m benchmarks.engine_apply [--runs 5]

Prints the median of several runs (the machines are shared and noisy).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from benchmarks import positive
from engine import apply, load_table
from engine.state import TableState

ROOT = Path(__file__).resolve().parent.parent


def session(n: int) -> list[dict]:
    """A realistic stream: Performances with Redraw, Favor, Exertion, Intersect, Undo."""
    cycle: list[dict] = []
    cycle += [
        {"cmd": "begin_performance", "difficulty": 6, "weight": "mass"},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
        },
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
            "intersect": "bren",
        },
        {
            "cmd": "declare",
            "hero": "cass",
            "shade": "impulse",
            "capability": "charm",
            "action": "defend",
            "exert": True,
        },
    ]
    for i in range(4):
        cycle.append({"cmd": "draw", "hero": "bren", "seed": i})
        cycle.append({"cmd": "draw", "hero": "aria", "seed": 10 + i})
    cycle += [
        {"cmd": "draw", "hero": "cass", "seed": 5},
        {"cmd": "draw", "hero": "cass", "seed": 6},
        {"cmd": "undo"},
        {"cmd": "draw", "hero": "cass", "seed": 7},
        {"cmd": "draw", "hero": "cass", "seed": 8},
        {"cmd": "resolve"},
        {"cmd": "reset"},
        {"cmd": "adjust_hero", "hero": "cass", "fatigue": -2, "cause": "rest"},
        {"cmd": "adjust_hero", "hero": "aria", "favor": 1, "redraws": 1},
    ]
    out: list[dict] = []
    while len(out) < n:
        out.extend(cycle)
    return out[:n]


def run_once(state: TableState, commands: list[dict]) -> float:
    t0 = time.perf_counter()
    for c in commands:
        state, _ = apply(state, c)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=positive, default=5)
    ap.add_argument("--commands", type=positive, default=10_000)
    args = ap.parse_args()
    state = load_table(ROOT / "examples" / "table.toml")
    commands = session(args.commands)
    run_once(state, commands[:500])  # warm-up
    times = [run_once(state, commands) for _ in range(args.runs)]
    med = statistics.median(times)
    rate = len(commands) / med
    print(
        f"replay of {len(commands)} commands: median {med * 1000:.0f} ms "
        f"(runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms)  target < 1000 ms"
    )
    print(f"apply(): {rate:,.0f} commands/s median  target ≥ 20,000/s")
    print("PASS" if rate >= 20_000 and med < 1.0 else "BELOW TARGET")


if __name__ == "__main__":
    main()
