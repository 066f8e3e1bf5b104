"""Cold odds beside icepool in one run: as drawn, best play, and the whole view.

    .venv/bin/python -m benchmarks.odds [--samples N] [--processes M]

"Cold" means the first query for that bag: every memo is cleared before each
sample (ours, and icepool's evaluator cache), and separately each of M fresh
processes answers the question once (no cache can survive that). The 40-token
bag is Vesna's from tests/engine/data/odds_big_bag.toml (table format only), Shade
Control, Capability skill, WEIGHT MASS, Difficulty 6, draw 4, 2 Redraws, 1 Favor.

- as drawn: ours (from the state: the 40 tokens valued, then the exact odds) against
  icepool's ``Deck(...).deal(4).sum()`` on the same values; the ratio ours / icepool.
- best play: the same bag with 2 Redraws and Favor called only if still short, from the
  state (issue 13 target: < 5 ms); checked against the general expectimax, exactly.
- the whole view (``table_view``) of a Performance on examples/table.toml where Aria,
  Bren and Cass have each declared, with the odds of every hero (target: < 20 ms);
- the whole view of Aria Intersecting with Bren, both with Redraws and Favor (the general
  expectimax; no target, reported so the cost is known).

The script checks that the answers agree exactly and exits non-zero if they do not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
from icepool.evaluator.basic import sum_evaluator

import engine
from benchmarks import positive
from engine.performance import combinatorics
from engine.performance.combinatorics import as_drawn, best_play, counts_of
from engine.performance.commands import value_of
from engine.performance.odds import clear_caches, group_of
from engine.state import TableState
from engine.view import table_view

ROOT = Path(__file__).resolve().parent.parent

BIG = ROOT / "tests" / "engine" / "data" / "odds_big_bag.toml"
EXAMPLE = ROOT / "examples" / "table.toml"
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


def three_heroes() -> TableState:
    """examples/table.toml: Aria (Adept, 2 Redraws), Bren (Master, 1 Redraw), Cass (Trained),
    each declared with Favor to call, WEIGHT MASS, Difficulty 6."""
    state = engine.load_table(EXAMPLE)
    state, _ = engine.apply(
        state, {"cmd": "begin_performance", "difficulty": DIFFICULTY, "weight": "mass"}
    )
    for hero, shade, capability in (
        ("aria", "control", "skill"),
        ("bren", "impulse", "steel"),
        ("cass", "impulse", "shadow"),
    ):
        declare = {"cmd": "declare", "hero": hero, "shade": shade, "capability": capability}
        state, _ = engine.apply(state, {**declare, "action": "target"})
    return state


def intersect() -> TableState:
    """examples/table.toml: Aria Intersecting with Bren (both with Redraws and a Favor call),
    WEIGHT MASS, Difficulty 8: the general expectimax, no shortcut (no target: reported)."""
    state = engine.load_table(EXAMPLE)
    for cmd in (
        {"cmd": "begin_performance", "difficulty": 8, "weight": "mass"},
        {"cmd": "declare", "hero": "bren", "shade": "impulse", "capability": "steel"}
        | {"action": "target"},
        {"cmd": "declare", "hero": "aria", "shade": "impulse", "capability": "skill"}
        | {"action": "target", "intersect": "bren"},
    ):
        state, _ = engine.apply(state, cmd)
    return state


def bag_counts(state: TableState) -> dict[int, int]:
    """The bag as icepool gets it: value → count (valued by the engine, outside the timing)."""
    assert state.performance is not None
    c = state.performance.contributions[0]
    return dict(counts_of([value_of(state, c, t) for t in state.bags[HERO].contents]))


def ours_as_drawn(state: TableState) -> Fraction:
    """From the state: value the 40 tokens, then the exact odds with no more choices."""
    return as_drawn(group_of(state, (HERO,))[0]).at_least(DIFFICULTY)


def ours_best(state: TableState) -> Fraction:
    """From the state: best play with 2 Redraws and Favor only if still short."""
    return best_play(group_of(state, (HERO,))[0], DIFFICULTY)


def general_best(state: TableState) -> Fraction:
    """The same question through the general expectimax (not timed: the exact check)."""
    (s,) = group_of(state, (HERO,))[0].sides
    g = group_of(state, (HERO,))[0]
    start = ((s.board, s.bag, s.draws, s.redraws, s.calls, True),)
    return combinatorics._solve(start, g.favor_bag, DIFFICULTY, (s.favor,), True, False)


def ours_view(state: TableState) -> Fraction:
    """The whole view; its answer: the product of every group's best play (for the check)."""
    view = table_view(state)
    out = Fraction(1)
    for g in view["odds"]["groups"]:
        out *= Fraction(g["best_play"]["num"], g["best_play"]["den"])
    return out


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


def _questions() -> dict[str, Callable[[], Fraction]]:
    big, table = big_state(), three_heroes()
    counts = bag_counts(big)
    return {
        "as_drawn": lambda: ours_as_drawn(big),
        "best": lambda: ours_best(big),
        "view": lambda: ours_view(table),
        "icepool": lambda: theirs(counts),
    }


def one_process(which: str) -> None:
    """Child mode: answer one question once, cold, and print the time as JSON."""
    fn = _questions()[which]
    t0 = time.perf_counter()
    answer = fn()
    print(json.dumps({"seconds": time.perf_counter() - t0, "answer": str(answer)}))


def fresh(which: str, processes: int) -> tuple[list[float], set[str]]:
    times, answers = [], set()
    for _ in range(processes):
        out = subprocess.run(  # as a module from the root: a path would put benchmarks/ first
            [sys.executable, "-m", "benchmarks.odds", "--child", which],
            cwd=ROOT,
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
    parser.add_argument("--samples", type=positive, default=201)
    parser.add_argument("--processes", type=positive, default=15)
    parser.add_argument("--intersect-samples", type=positive, default=5)
    parser.add_argument("--child", choices=["as_drawn", "best", "view", "icepool"])
    args = parser.parse_args()
    if args.child:
        one_process(args.child)
        return 0

    q = _questions()
    big = big_state()
    counts = bag_counts(big)
    print(f"bag: {sum(counts.values())} tokens, values {counts}; draw 4, 2 Redraws, 1 Favor call;")
    print(f"     Difficulty {DIFFICULTY}; load average {os.getloadavg()[0]:.2f} (2 cores shared)")
    answers = {k: fn() for k, fn in q.items()}
    exact = general_best(big)
    print(f"as drawn: ours {answers['as_drawn']}, icepool {answers['icepool']}")
    print(f"best play: {answers['best']} = {float(answers['best']):.6f}; expectimax {exact}")
    ok = answers["as_drawn"] == answers["icepool"] and answers["best"] == exact

    n = args.samples
    t = {k: cold(fn, clear_icepool if k == "icepool" else clear_caches, n) for k, fn in q.items()}
    print(f"\ncold, caches cleared, median of {n}:")
    print(f"  ours, as drawn               {ms(t['as_drawn'])}")
    print(f"  icepool, as drawn            {ms(t['icepool'])}")
    ratio = statistics.median(t["icepool"]) / statistics.median(t["as_drawn"])
    print(f"  icepool / ours, as drawn     {ratio:7.2f}x")
    print(f"  ours, best play              {ms(t['best'])}   (target < 5 ms)")
    print(f"  ours, whole view, 3 heroes   {ms(t['view'])}   (target < 20 ms)")

    group = intersect()
    k = args.intersect_samples
    t_group = cold(lambda: ours_view(group), clear_caches, k)
    print(f"  ours, whole view, Intersect  {ms(t_group)}   (median of {k}; Aria + Bren)")

    m = args.processes
    print(f"\nfirst query in a fresh process, median of {m}:")
    results = {w: fresh(w, m) for w in q}
    for which, label in (
        ("as_drawn", "ours, as drawn            "),
        ("icepool", "icepool, as drawn         "),
        ("best", "ours, best play           "),
        ("view", "ours, whole view, 3 heroes"),
    ):
        print(f"  {label}   {ms(results[which][0])}")
    fresh_ratio = statistics.median(results["icepool"][0]) / statistics.median(
        results["as_drawn"][0]
    )
    print(f"  icepool / ours, as drawn     {fresh_ratio:7.2f}x")
    for k in q:
        ok = ok and results[k][1] == {str(answers[k])}
    print(f"\nagree: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
