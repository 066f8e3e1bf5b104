"""How long the exact attack odds take (C6–C8): the panel shows them while the attacker declares.

Cold = the cache of comparison counts cleared before every call (the first declaration of a
pairing); warm = the same call again (the panel redrawing). Each attack includes every DAMAGE
pool the successes can lead to. Medians of many runs; the machine is shared, so expect noise.

    .venv/bin/python -m benchmarks.combat [--quick]   (--quick: a smoke run, one of each)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import engine
from companion.cli.replay import read_session
from engine.combat.forecast import attack_forecast
from engine.combat.odds import attack_odds, success_counts

ROOT = Path(__file__).resolve().parent.parent

CASES: list[tuple[str, dict[str, int]]] = [
    ("3d6 vs 3d6", {"attack": 3, "defense": 3, "damage": 2, "fortitude": 3}),
    ("5d6 vs 4d6 + Guard", {"attack": 5, "defense": 4, "damage": 2, "fortitude": 3, "guard": 1}),
    (
        "5d6 +4 Aim vs 4d6, armour 1",
        {"attack": 5, "defense": 4, "damage": 2, "fortitude": 3, "aim_bonus": 4, "armour": 1},
    ),
    ("8d6 vs 8d6", {"attack": 8, "defense": 8, "damage": 3, "fortitude": 4}),
    ("10d6 vs 10d6", {"attack": 10, "defense": 10, "damage": 3, "fortitude": 5}),
]


def median_ms(fn: Callable[[], object], runs: int, cold: bool) -> float:
    times = []
    for _ in range(runs):
        if cold:
            success_counts.cache_clear()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: one call of each")
    quick = ap.parse_args().quick
    print(f"{'attack odds (exact)':32} {'cold ms':>9} {'warm ms':>9}  P(no damage)  E[injuries]")
    for label, setup in CASES:
        runs = 1 if quick else 30 if setup["attack"] < 10 else 10

        def call(setup: dict[str, int] = setup) -> object:
            return attack_odds(**setup)

        cold = median_ms(call, runs, cold=True)
        warm = median_ms(call, runs, cold=False)
        odds = attack_odds(**setup)
        print(
            f"{label:32} {cold:9.2f} {warm:9.2f}  {float(odds.no_damage):12.4f}"
            f"  {float(odds.expected_injuries):11.3f}"
        )
    state = engine.load_table(ROOT / "examples" / "fight.toml")
    for _, cmd in read_session(ROOT / "examples" / "fight.jsonl")[:8]:
        state, _ = engine.apply(state, cmd)
    cold = median_ms(
        lambda: attack_forecast(state, "bren", "captain"), 1 if quick else 30, cold=True
    )
    print(f"{'attack_forecast (example table)':32} {cold:9.2f}")


if __name__ == "__main__":
    main()
