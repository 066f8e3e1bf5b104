"""The wheel's cost per input: one detent turned and the panel's selection() read, on each ring.

Every input reads the table (``table_facts``), asks the engine what it needs (the Reserve
choices, the Intersect partners, a dry-run ``check`` before a push) and steps the wheel's
frozen state. A hand spins an encoder at some 50 detents a second at most, so the target is
generous: ≤ 1 ms per turn + selection() on the 2-core dev machine (a Pi 4 is a few times
slower).

    .venv/bin/python -m benchmarks.wheel [--runs 7] [--number 2000]

Prints the best of several runs per ring (the machines are shared and noisy).
"""

from __future__ import annotations

import argparse
import timeit
from pathlib import Path

from benchmarks import positive
from engine import apply, load_table
from hardware.wheel import Wheel

ROOT = Path(__file__).resolve().parent.parent

TARGET_US = 1000.0
#: (what, pushes from the first ring, detents on the Action ring): Bren, Steel
PLACES = {
    "difficulty (no Performance)": None,
    "hero": (0, 0),
    "training": (4, 0),
    "reserve (Gain)": (5, 2),
    "intersect (Aria declared)": (5, 0),
}


def wheel_at(place: tuple[int, int] | None) -> Wheel:
    state = load_table(ROOT / "examples" / "table.toml")
    if place is not None:
        state, _ = apply(state, {"cmd": "begin_performance", "difficulty": 4})
        aria = {"hero": "aria", "shade": "control", "capability": "skill", "action": "target"}
        state, _ = apply(state, {"cmd": "declare", **aria})
    wheel = Wheel(lambda: state)
    if place is not None:
        pushes, action = place
        wheel.turn(+1)  # Bren (Aria has declared: the wheel offers Bren first anyway)
        for i in range(pushes):
            if i == 3:
                wheel.turn(action)
            wheel.push()
    return wheel


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=positive, default=7)
    ap.add_argument("--number", type=positive, default=2000)
    args = ap.parse_args()
    worst = 0.0
    for what, place in PLACES.items():
        wheel = wheel_at(place)
        ring = wheel.selection()["ring"]
        best = min(
            timeit.repeat(
                lambda w=wheel: (w.turn(+1), w.selection()), number=args.number, repeat=args.runs
            )
        )
        us = best / args.number * 1e6
        worst = max(worst, us)
        print(f"{what:30} ring={ring:10} turn + selection(): {us:7.1f} us")
    print(f"worst {worst:.1f} us per input  target ≤ {TARGET_US:.0f} us")
    print("PASS" if worst <= TARGET_US else "BELOW TARGET")


if __name__ == "__main__":
    main()
