"""Cold odds for a 40-token bag drawing 4, against icepool on the same question.

    .venv/bin/python benchmarks/odds.py [--samples N] [--processes M]

"Cold" means the first query for that bag: every memo is cleared before each
sample (ours, and icepool's evaluator cache), and separately each of M fresh
processes answers the question once (no cache can survive that). The bag is
Vesna's from tests/data/odds_big_bag.toml (table format only, 40 tokens),
Shade Control, Capability skill, WEIGHT MASS, Difficulty 6.

Targets (issue 7): < 2 ms without Redraw; < 10 ms with Redraw and Favor;
ours / icepool < 1 on the no-Redraw question. The script checks that both
answers agree exactly and exits non-zero if they do not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import icepool  # noqa: E402
from icepool.evaluator.basic import sum_evaluator  # noqa: E402

import engine  # noqa: E402
from engine.performance.combinatorics import counts_of  # noqa: E402
from engine.performance.commands import value_of  # noqa: E402
from engine.performance.odds import clear_caches, odds_view, plan_odds  # noqa: E402
from engine.state import TableState  # noqa: E402

BIG = ROOT / "tests" / "data" / "odds_big_bag.toml"
DIFFICULTY = 6
HERO = "vesna"


def big_state() -> TableState:
    state = engine.load_table(BIG)
    for cmd in (
        {"cmd": "begin_performance", "difficulty": DIFFICULTY, "weight": "mass"},
        {"cmd": "declare", "hero": HERO, "shade": "control", "capability": "skill"}
        | {"action": "target"},
    ):
        state, _ = engine.apply(state, cmd)
    return state


def bag_counts(state: TableState) -> dict[int, int]:
    """The bag as icepool gets it: value → count (valued by the engine, outside the timing)."""
    assert state.performance is not None
    c = state.performance.contributions[0]
    return dict(counts_of([value_of(state, c, t) for t in state.bags[HERO].contents]))


def ours_plain(state: TableState) -> Fraction:
    """From the state: value the 40 tokens, then the exact odds without Redraw."""
    return plan_odds(state, HERO, (DIFFICULTY,)).with_plan[DIFFICULTY]


def ours_plan(state: TableState) -> Fraction:
    """The same with Vesna's 2 Redraws (best replace-or-keep) and a Favor call."""
    odds = plan_odds(state, HERO, (DIFFICULTY,), redraw=True, favor=True)
    return odds.with_plan[DIFFICULTY]


def ours_view(state: TableState) -> Fraction:
    """What the panel asks: as drawn, with Redraws, and the Call Favor advice."""
    view = odds_view(state)
    assert view is not None
    s = view["groups"][0]["success"]
    return Fraction(s["num"], s["den"])


def theirs(counts: dict[int, int]) -> Fraction:
    return Fraction(icepool.Deck(counts).deal(4).sum().probability(">=", DIFFICULTY))


def clear_icepool() -> None:
    for attr in ("_cache", "ascending_cache", "descending_cache"):
        if hasattr(sum_evaluator, attr):
            delattr(sum_evaluator, attr)
    icepool.math.comb_row_cache.clear()


def cold(fn: Callable[[], Fraction], clear: Callable[[], None], samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        clear()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def one_process(which: str) -> None:
    """Child mode: answer one question once, cold, and print the time as JSON."""
    state = big_state()
    counts = bag_counts(state)
    fn: Callable[[], Fraction] = {
        "plain": lambda: ours_plain(state),
        "plan": lambda: ours_plan(state),
        "view": lambda: ours_view(state),
        "icepool": lambda: theirs(counts),
    }[which]
    t0 = time.perf_counter()
    answer = fn()
    print(json.dumps({"seconds": time.perf_counter() - t0, "answer": str(answer)}))


def fresh(which: str, processes: int) -> tuple[list[float], set[str]]:
    times, answers = [], set()
    for _ in range(processes):
        out = subprocess.run(
            [sys.executable, __file__, "--child", which],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        data: dict[str, Any] = json.loads(out)
        times.append(data["seconds"])
        answers.add(data["answer"])
    return times, answers


def ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:7.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=201)
    parser.add_argument("--processes", type=int, default=15)
    parser.add_argument("--child", choices=["plain", "plan", "view", "icepool"])
    args = parser.parse_args()
    if args.child:
        one_process(args.child)
        return 0

    state = big_state()
    counts = bag_counts(state)
    print(f"bag: {sum(counts.values())} tokens, values {counts}; draw 4; Difficulty {DIFFICULTY}")
    plain, plan, view, ice = ours_plain(state), ours_plan(state), ours_view(state), theirs(counts)
    print(f"answers: ours {plain} = {float(plain):.6f}, icepool {ice} = {float(ice):.6f}")
    print(f"         with 2 Redraws + Favor: {plan} = {float(plan):.6f}; view as drawn {view}")
    ok = plain == ice == view

    n = args.samples
    t_plain = cold(lambda: ours_plain(state), clear_caches, n)
    t_plan = cold(lambda: ours_plan(state), clear_caches, n)
    t_view = cold(lambda: ours_view(state), clear_caches, n)
    t_ice = cold(lambda: theirs(counts), clear_icepool, n)
    print(f"\ncold, caches cleared, median of {n}:")
    print(f"  ours, no Redraw        {ms(t_plain)}   (target < 2 ms)")
    print(f"  ours, Redraw + Favor   {ms(t_plan)}   (target < 10 ms)")
    print(f"  ours, whole view       {ms(t_view)}   (as drawn + with Redraws + advice)")
    print(f"  icepool, no Redraw     {ms(t_ice)}")
    ratio = statistics.median(t_plain) / statistics.median(t_ice)
    print(f"  ratio ours / icepool   {ratio:7.3f}    (target < 1)")

    m = args.processes
    print(f"\nfirst query in a fresh process, median of {m}:")
    results = {w: fresh(w, m) for w in ("plain", "plan", "view", "icepool")}
    for which, label in (
        ("plain", "ours, no Redraw      "),
        ("plan", "ours, Redraw + Favor "),
        ("view", "ours, whole view     "),
        ("icepool", "icepool, no Redraw   "),
    ):
        print(f"  {label}  {ms(results[which][0])}")
    fresh_ratio = statistics.median(results["plain"][0]) / statistics.median(results["icepool"][0])
    print(f"  ratio ours / icepool   {fresh_ratio:7.3f}    (target < 1)")
    ok = ok and results["plain"][1] == results["icepool"][1] == {str(plain)}
    ok = ok and results["plan"][1] == {str(plan)}
    print(f"\nagree: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
