"""icepool's Deck / deal as an independent oracle for drawing without replacement (P6, P18, P19).

icepool is a pinned test-only dependency (the ``test`` extra). In CI a missing
icepool fails the run instead of skipping it.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.performance.combinatorics import counts_of, draw_sum
from engine.performance.odds import plan_odds
from tests.harness.big_bag import bag_values, big_state

if os.environ.get("CI") == "true":
    import icepool
else:  # a developer without the test extra still runs the rest
    icepool = pytest.importorskip("icepool")


def icepool_probs(die: Any) -> list[tuple[int, Fraction]]:
    den = die.denominator()
    return [(int(t), Fraction(q, den)) for t, q in die.items() if q]


def deal_sum(values: list[int], k: int) -> Any:
    return icepool.Deck(dict(counts_of(values))).deal(k).sum()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=30), st.data())
def test_p6_draw_sum_agrees_with_icepool_deal(values: list[int], data: st.DataObject) -> None:
    k = data.draw(st.integers(1, min(len(values), 5)))
    mine = draw_sum(counts_of(values), k)
    assert mine.probabilities() == icepool_probs(deal_sum(values, k))


@pytest.mark.parametrize("favor", [False, True])
def test_p18_p19_forty_token_bag_and_favor_if_short_agree_with_icepool(favor: bool) -> None:
    """Vesna without Redraws: as drawn is icepool's deal; best play with a Favor call made
    only when still short (I-P18a) succeeds when the draw plus max(Favor, 0) meets the
    Difficulty — icepool's deal plus the Favor die floored at 0."""
    state = big_state(difficulty=3)
    state, _ = engine.apply(state, {"cmd": "adjust_hero", "hero": "vesna", "redraws": -2})
    if not favor:
        state, _ = engine.apply(state, {"cmd": "adjust_hero", "hero": "vesna", "favor": -3})
    odds = plan_odds(state, "vesna", tuple(range(3, 9)))
    drawn = deal_sum(bag_values(state, "vesna"), 4)
    best = drawn
    if favor:
        best = drawn + deal_sum(bag_values(state, "favor"), 1).map(lambda f: max(f, 0))
    for d in range(3, 9):
        assert odds.as_drawn[d] == Fraction(drawn.probability(">=", d))
        assert odds.best_play[d] == Fraction(best.probability(">=", d))
    assert odds.distribution.probabilities() == icepool_probs(drawn)
