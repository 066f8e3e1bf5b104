"""The engine's odds for one hero's group, as the table showed them: best play and as drawn.

Nothing is computed here: the numbers are the engine's (:func:`engine.performance.odds.
group_numbers` on :func:`~engine.performance.odds.hero_draw` of each contribution, the
very calls the odds section of the view makes), for the one group the hero resolves in
(I-P10) — a night's export asks thousands of times, so it skips the other groups and
the view's wording. tests/test_record_export.py checks every figure against
``odds_view``. ``best play`` assumes every Redraw still open is used well (P11);
``as drawn`` assumes none is.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.performance.commands import groups
from engine.performance.odds import group_numbers, hero_draw
from engine.state import TableState


@dataclass(frozen=True, slots=True)
class GroupOdds:
    """P(success) of the group a hero resolves in, exact."""

    heroes: tuple[str, ...]
    best_play: Fraction
    as_drawn: Fraction


def group_odds(state: TableState, hero: str) -> GroupOdds | None:
    """The odds of ``hero``'s group right now; None when no Performance is open for them."""
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    for heroes in groups(perf, state.rules["intersect"]["mode"]):
        if hero not in heroes:
            continue
        contributions = [perf.contribution(h) for h in heroes]
        draws = tuple(hero_draw(state, c) for c in contributions if c is not None)
        nums = group_numbers(draws, perf.difficulty, bool(state.rules["redraw"]["set_aside"]))
        best = nums.success if nums.with_redraws is None else nums.with_redraws
        return GroupOdds(tuple(heroes), best, nums.success)
    return None
