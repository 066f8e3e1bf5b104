"""engine/luck.py: the night's successes placed exactly in the Poisson-binomial distribution."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from engine.luck import distribution, percentile


def _brute(odds: list[F]) -> list[F]:
    out = [F(0)] * (len(odds) + 1)
    for outcome in itertools.product((0, 1), repeat=len(odds)):
        p = F(1)
        for hit, q in zip(outcome, odds, strict=True):
            p *= q if hit else 1 - q
        out[sum(outcome)] += p
    return out


def test_the_distribution_is_every_night_these_odds_allow_counted_exactly() -> None:
    odds = [F(1, 3), F(3, 4), F(5, 11), F(12, 25), F(1), F(0)]
    assert distribution(odds) == _brute(odds)
    assert sum(distribution(odds)) == 1


def test_the_percentile_is_mid_rank() -> None:
    odds = [F(1, 2)] * 4
    assert percentile(odds, 2) == F(1, 2)  # just as the odds said
    assert percentile(odds, 4) == 1 - F(1, 32)  # all four: luckier than all but the tie
    assert percentile(odds, 0) == F(1, 32)
    assert percentile([F(9, 10)], 0) == F(1, 20)  # the cruellest miss
    assert percentile([], 0) is None
    with pytest.raises(ValueError):
        percentile([F(1, 2)], 2)
