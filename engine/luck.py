"""A hero's luck over a night, exactly: where the successes fall among all the nights the odds allow.

Each check a hero made had its exact best-play odds before the first draw (P10, I-P10).
The number of successes over the night is then a sum of independent Bernoulli trials with
those odds: the Poisson-binomial distribution. :func:`distribution` gives it exactly, as
fractions (dynamic programming over the checks: n(n+1)/2 steps for n checks, bounded by the
checks of one night); :func:`percentile` places the actual count in it, mid-rank:
P(fewer) + ½·P(as many), so a hero who got exactly the expected middle is at 50, every
check succeeding at 100 − ½·P(all), and a night of no checks has no percentile.

Pure: no I/O, no floats until a caller prints one.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def distribution(odds: Sequence[Fraction]) -> list[Fraction]:
    """P(exactly k successes) for k = 0 … len(odds): the Poisson-binomial distribution.

    >>> distribution([Fraction(1, 2), Fraction(1, 2)])
    [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    >>> distribution([])
    [Fraction(1, 1)]
    """
    out = [Fraction(1)]
    for p in odds:
        if not 0 <= p <= 1:
            raise ValueError(f"odds must be between 0 and 1, got {p}")
        q = 1 - p
        nxt = [Fraction(0)] * (len(out) + 1)
        for k, mass in enumerate(out):
            nxt[k] += mass * q
            nxt[k + 1] += mass * p
        out = nxt
    return out


def percentile(odds: Sequence[Fraction], successes: int) -> Fraction | None:
    """Where ``successes`` falls among the nights ``odds`` allow, 0 to 1, mid-rank:
    P(fewer successes) + ½·P(exactly as many). None without a check.

    >>> percentile([Fraction(1, 2), Fraction(1, 2)], 1)
    Fraction(1, 2)
    >>> percentile([Fraction(1, 4)], 1)
    Fraction(7, 8)
    """
    if not odds:
        return None
    dist = distribution(odds)
    if not 0 <= successes < len(dist):
        raise ValueError(f"{successes} successes in {len(odds)} checks")
    return sum(dist[:successes], Fraction(0)) + dist[successes] / 2
