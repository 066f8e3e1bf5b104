"""The odds combinatorics against brute force over every ordered draw (P6, P11, I-P10, P18, P19).

The oracle (tests/odds_oracle.py) walks tokens by identity through the whole game
tree — draws, Redraws at any moment (mid-draw too), Favor at any moment — so it
checks the shortcuts engine.performance.combinatorics takes (grouping equal values, Redraw only
after the last draw, replacing the lowest token) rather than repeating them.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import permutations
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.performance.combinatorics import (
    Dist,
    Redrawer,
    counts_of,
    draw_sum,
    game_success,
    hands,
    plan_success,
    redraw_final,
    redraw_reach,
    size,
)
from engine.performance.odds import HeroDraw, plan_curve, plan_dist, total_dist
from tests.odds_oracle import Player, game_value

VALUES = st.sampled_from([-4, -1, 0, 1, 2, 3, 4])


def ordered_totals(bag: list[int], k: int) -> Dist:
    """Every ordered draw of k tokens (by identity), counted."""
    totals: Counter[int] = Counter()
    n = 0
    for seq in permutations(range(len(bag)), k):
        totals[sum(bag[i] for i in seq)] += 1
        n += 1
    return Dist(tuple(sorted(totals.items())), n)


def same(a: Dist, b: Dist) -> bool:
    return a.probabilities() == b.probabilities()


@settings(max_examples=60, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=7), st.data())
def test_p6_draw_sum_matches_every_ordered_draw(bag: list[int], data: st.DataObject) -> None:
    k = data.draw(st.integers(0, len(bag)))
    assert same(draw_sum(counts_of(bag), k), ordered_totals(bag, k))


@settings(max_examples=40, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=9), st.data())
def test_p6_hands_weigh_to_the_binomial(bag: list[int], data: st.DataObject) -> None:
    """Π C(nᵢ, cᵢ) over all hands adds up to C(N, k) (docs/odds.md, "How the numbers are made")."""
    k = data.draw(st.integers(0, len(bag)))
    counts = counts_of(bag)
    found = hands(counts, k)
    assert sum(w for _, w in found) == comb(len(bag), k)
    assert all(sum(picked) == k for picked, _ in found)


def test_p19_dist_convolution_is_the_sum_of_independent_totals() -> None:
    a = draw_sum(counts_of([0, 1, 2, 2]), 2)
    favor = Dist.of(counts_of([-4, 0, 1, 2, 2, 4]))
    conv = a.convolve(favor)
    brute: Counter[int] = Counter()
    for x, wx in a.ways:
        for y, wy in favor.ways:
            brute[x + y] += wx * wy
    assert conv.ways == tuple(sorted(brute.items()))
    assert conv.den == a.den * favor.den
    assert sum(p for _, p in conv.probabilities()) == 1


redraw_case = st.tuples(
    st.lists(VALUES, min_size=2, max_size=6),  # bag
    st.lists(st.integers(-1, 3), max_size=2),  # board
    st.integers(1, 3),  # redraws
    st.integers(-2, 10),  # target
)


@settings(max_examples=120, deadline=None)
@given(redraw_case, st.data())
def test_p11_i_p11_redraw_plan_is_the_best_play_of_the_whole_game(
    case: tuple[list[int], list[int], int, int], data: st.DataObject
) -> None:
    """Best replace-or-keep, set aside (I-P11): equals the full game tree with Redraws at any
    moment, including bags too short for every draw and Redraw."""
    bag, board, r, target = case
    k = data.draw(st.integers(0 if board else 1, min(len(bag) - 1, 4)))
    hero = HeroDraw("h", tuple(board), 0, counts_of(bag), k, r, ())
    mine = plan_curve((hero,), frozenset({"h"}), frozenset(), (target,), True)[target]
    oracle = game_value((Player(tuple(bag), tuple(board), k, r),), target)
    assert mine == oracle


@settings(max_examples=60, deadline=None)
@given(redraw_case, st.data())
def test_i_p11_redraw_that_returns_the_token_is_exact_too(
    case: tuple[list[int], list[int], int, int], data: st.DataObject
) -> None:
    """A table that turns I-P11 off (the replaced token goes back in the bag)."""
    bag, board, r, target = case
    k = data.draw(st.integers(0 if board else 1, min(len(bag) - 1, 4)))
    hero = HeroDraw("h", tuple(board), 0, counts_of(bag), k, r, ())
    mine = plan_curve((hero,), frozenset({"h"}), frozenset(), (target,), False)[target]
    oracle = game_value((Player(tuple(bag), tuple(board), k, r),), target, set_aside=False)
    assert mine == oracle


def test_i_p11_the_set_aside_token_cannot_come_back() -> None:
    """Board {0}, bag {3, 0}, one Redraw, target 3: set aside, the 0 replaced is gone and the
    pool is {3, 0} (1/2); returned to the bag (I-P11 off) the pool is {3, 0, 0} (1/3)."""
    hero = HeroDraw("h", (0,), 0, counts_of([3, 0]), 0, 1, ())
    set_aside = plan_curve((hero,), frozenset({"h"}), frozenset(), (3,), True)[3]
    returned = plan_curve((hero,), frozenset({"h"}), frozenset(), (3,), False)[3]
    assert set_aside == Fraction(1, 2)
    assert returned == Fraction(1, 3)


def test_p11_replacing_the_lowest_beats_any_other_choice() -> None:
    """On a bag where the choice matters, the lowest-token shortcuts (reach, tree, after-draw
    expectimax) all equal the oracle, which tries every token at every moment."""
    values = [2, 2, 1, 0, 0, -1, 1, 3]
    bag = counts_of(values)
    for target in range(0, 9):
        reach = redraw_reach(bag, (), 4, 2, 20).at_least(target)
        tree = game_success((Redrawer(bag, (), 4, 2),), Dist.point(0), target, True)
        after = plan_success((Redrawer(bag, (), 4, 2),), Dist.point(0), target, True)
        oracle = game_value((Player(tuple(values), (), 4, 2),), target)
        assert reach == tree == after == oracle


@settings(max_examples=25, deadline=None)
@given(
    st.lists(VALUES, min_size=2, max_size=4),
    st.lists(VALUES, min_size=2, max_size=4),
    st.integers(0, 9),
    st.integers(1, 2),
)
def test_i_p10_intersecting_redrawers_choose_together(
    a: list[int], b: list[int], target: int, r: int
) -> None:
    """Two Adept heroes Intersecting (sum of totals): who redraws which token is decided
    jointly; the expectimax equals the joint game tree."""
    ha = HeroDraw("a", (), 0, counts_of(a), len(a) - 1, r, ())
    hb = HeroDraw("b", (), 0, counts_of(b), 1, 1, ())
    mine = plan_curve((ha, hb), frozenset({"a", "b"}), frozenset(), (target,), True)[target]
    oracle = game_value((Player(tuple(a), (), len(a) - 1, r), Player(tuple(b), (), 1, 1)), target)
    assert mine == oracle


@settings(max_examples=40, deadline=None)
@given(
    st.lists(VALUES, min_size=2, max_size=5),
    st.lists(st.sampled_from([-4, 0, 1, 2, 4]), min_size=1, max_size=5),
    st.integers(0, 2),
    st.integers(-2, 10),
)
def test_p18_favor_called_first_is_the_best_timing(
    bag: list[int], favor: list[int], r: int, target: int
) -> None:
    """A plan that Calls Favor: the independent Favor token convolved in, Redraws knowing it.
    The oracle may call it at any moment; calling it first is never worse."""
    k = len(bag) - 1
    hero = HeroDraw("h", (), 0, counts_of(bag), k, r, counts_of(favor))
    mine = plan_curve((hero,), frozenset({"h"} if r else ()), frozenset({"h"}), (target,), True)
    oracle = game_value((Player(tuple(bag), (), k, r, tuple(favor)),), target)
    assert mine[target] == oracle


@settings(max_examples=40, deadline=None)
@given(redraw_case, st.data())
def test_p11_plan_distribution_adds_up_and_matches_the_odds(
    case: tuple[list[int], list[int], int, int], data: st.DataObject
) -> None:
    """The distribution shown beside a plan aimed at a Difficulty gives that plan's odds."""
    bag, board, r, target = case
    k = data.draw(st.integers(0 if board else 1, min(len(bag) - 1, 4)))
    hero = HeroDraw("h", tuple(board), 0, counts_of(bag), k, r, ())
    dist = plan_dist((hero,), frozenset({"h"}), frozenset(), target, True)
    odds = plan_curve((hero,), frozenset({"h"}), frozenset(), (target,), True)[target]
    if dist is None:  # a bag too short for the after-the-draw plan: odds only
        assert size(hero.bag) < k + r
        return
    assert sum(p for _, p in dist.probabilities()) == 1
    assert dist.at_least(target) == odds


def test_p11_redraw_final_stops_once_the_target_is_met() -> None:
    bag = counts_of([0, 0, 3, 3])
    final = redraw_final(bag, (3,), 0, 1, 3)
    assert final.probabilities() == [(3, Fraction(1))]  # already there: keep
    final = redraw_final(bag, (0,), 0, 1, 3)
    assert final.probabilities() == [(0, Fraction(1, 2)), (3, Fraction(1, 2))]


def test_p6_no_draws_left_means_the_board_total() -> None:
    hero = HeroDraw("h", (2, 1), 1, counts_of([4, 4]), 0, 0, ())
    assert total_dist((hero,)).probabilities() == [(4, Fraction(1))]
