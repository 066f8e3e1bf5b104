"""A 40-token bag: the exact odds against seeded Monte Carlo (≥ 200,000 draws, 3 standard
errors) — as drawn, and for the Redraw + Favor plan (P6, P11, I-P11, P16, P18, P19).

The bag comes from tests/data/odds_big_bag.toml (the table format only). The
simulation draws real token ids from the bag in the state, values them with the
engine (value_of), and plays the plan the odds describe: Call Favor first, draw,
then replace the lowest token while short, each replaced token set aside.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import engine
from engine.performance.commands import value_of
from engine.performance.odds import odds_view, plan_odds
from engine.state import TableState
from tests.conftest import run

BIG = Path(__file__).parent / "data" / "odds_big_bag.toml"
DRAWS = 200_000


def big_state(difficulty: int) -> TableState:
    state = engine.load_table(BIG)
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": difficulty, "weight": "mass"},
        {
            "cmd": "declare",
            "hero": "vesna",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
    )
    return state


def within_3_se(exact: Fraction, hits: int, n: int) -> None:
    p = float(exact)
    se = math.sqrt(p * (1 - p) / n)
    assert abs(hits / n - p) <= 3 * se, (hits / n, p, se)


def _values(state: TableState, bag: str) -> list[int]:
    assert state.performance is not None
    c = state.performance.contributions[0]
    return [value_of(state, c, t) for t in state.bags[bag].contents]


def test_p6_p19_as_drawn_odds_of_a_40_token_bag_match_monte_carlo() -> None:
    state = big_state(difficulty=6)
    view = odds_view(state)
    assert view is not None
    (group,) = view["groups"]
    values = _values(state, "vesna")
    assert len(values) == 40
    rng = random.Random(20261130)
    totals = Counter(sum(rng.sample(values, 4)) for _ in range(DRAWS))
    exact = Fraction(group["success"]["num"], group["success"]["den"])
    within_3_se(exact, sum(n for t, n in totals.items() if t >= 6), DRAWS)
    # and every bar of the distribution
    for total, p in group["distribution"]:
        se = math.sqrt(p * (1 - p) / DRAWS)
        assert abs(totals[total] / DRAWS - p) <= 3 * se + 1e-12, (total, p)


def test_p11_p18_redraw_and_favor_plan_matches_monte_carlo() -> None:
    difficulty = 8
    state = big_state(difficulty)
    odds = plan_odds(state, "vesna", (difficulty,), redraw=True, favor=True)
    redraws = odds.redraws
    assert redraws == 2
    bag = _values(state, "vesna")
    favor = _values(state, "favor")
    rng = random.Random(7)
    hits = 0
    for _ in range(DRAWS):
        f = favor[rng.randrange(len(favor))]
        order = rng.sample(bag, 4 + redraws)  # the tokens in the order they come out
        hand = order[:4]
        total = sum(hand) + f
        for t in order[4:]:
            if total >= difficulty:
                break
            low = min(hand)
            hand.remove(low)  # set aside (I-P11): it never returns to the bag
            hand.append(t)
            total += t - low
        hits += total >= difficulty
    within_3_se(odds.with_plan[difficulty], hits, DRAWS)
    assert odds.with_plan[difficulty] > odds.as_drawn[difficulty]
