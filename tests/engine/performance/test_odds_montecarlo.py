"""A 40-token bag: the exact odds against seeded Monte Carlo (≥ 200,000 draws, 3 standard
errors) — as drawn, and best play (P6, P11, I-P11, P16, P18, P19).

The bag comes from tests/engine/data/odds_big_bag.toml (the table format only). The
simulation draws real token ids from the bag in the state, values them with the
engine (value_of), and for best play follows the engine's own advice at every step
(draw, then Redraw the token it names or Call Favor, each replaced token set aside),
with the tokens coming out of a seeded shuffle: best play is a number a player can
actually reach by doing what the panel says.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

from engine.performance.combinatorics import Group, Side, best_moves, counts_of
from engine.performance.odds import odds_view, plan_odds
from tests.harness.big_bag import bag_values, big_state

DRAWS = 200_000


def within_3_se(exact: Fraction, hits: int, n: int) -> None:
    p = float(exact)
    se = math.sqrt(p * (1 - p) / n)
    assert abs(hits / n - p) <= 3 * se, (hits / n, p, se)


def test_p6_p19_as_drawn_odds_of_a_40_token_bag_match_monte_carlo() -> None:
    state = big_state(difficulty=6)
    view = odds_view(state)
    assert view is not None
    (group,) = view["groups"]
    values = bag_values(state, "vesna")
    assert len(values) == 40
    rng = random.Random(20261130)
    totals = Counter(sum(rng.sample(values, 4)) for _ in range(DRAWS))
    exact = Fraction(group["as_drawn"]["num"], group["as_drawn"]["den"])
    within_3_se(exact, sum(n for t, n in totals.items() if t >= 6), DRAWS)
    # and every bar of the distribution
    for total, p in group["distribution"]:
        se = math.sqrt(p * (1 - p) / DRAWS)
        assert abs(totals[total] / DRAWS - p) <= 3 * se + 1e-12, (total, p)


def test_p11_p18_following_the_advice_reaches_best_play_in_monte_carlo() -> None:
    difficulty = 8
    state = big_state(difficulty)
    odds = plan_odds(state, "vesna", (difficulty,))
    assert odds.redraws == 2 and odds.favor_calls == 1
    bag = bag_values(state, "vesna")
    favor_bag = bag_values(state, "favor")
    memo: dict[object, str] = {}

    def advised(hand: list[int], left: list[int], r: int, calls: int, extra: int) -> str:
        """The engine's best move for this hand (memoised: few hands repeat many times).
        The Favor Bag is given one kind per token, valued for Vesna's Shade."""
        key = (tuple(sorted(hand)), tuple(sorted(left)), r, calls, extra)
        if key not in memo:
            side = Side(key[0], counts_of(left), 0, r, calls, tuple(favor_bag))
            kinds = (calls,) * len(favor_bag)
            memo[key] = best_moves(Group((side,), kinds, extra), difficulty)[0].action
        return memo[key]

    rng = random.Random(7)
    hits = 0
    for _ in range(DRAWS):
        order = rng.sample(bag, len(bag))  # the tokens in the order they come out
        hand, left = order[:4], order[4:]
        r, calls, extra = 2, 1, 0
        while sum(hand) + extra < difficulty:
            move = advised(hand, left, r, calls, extra)
            if move == "redraw":
                hand.remove(min(hand))  # set aside (I-P11): it never returns to the bag
                hand.append(left.pop(0))
                r -= 1
            elif move == "call_favor":
                extra += favor_bag[rng.randrange(len(favor_bag))]
                calls -= 1
            else:
                break
        hits += sum(hand) + extra >= difficulty
    within_3_se(odds.best_play[difficulty], hits, DRAWS)
    assert odds.best_play[difficulty] > odds.as_drawn[difficulty]
