"""The engine's odds for one hero's group, as the table showed them: best play and as drawn.

Nothing is computed here: the numbers are the engine's, for the one group the hero
resolves in (I-P10) — a night's export asks thousands of times, so it skips the other
groups and the view's wording. tests/test_record_export.py checks every figure against
the odds section of the view. ``best play`` is the headline the table shows (every
choice still open used well); ``as drawn`` uses none.

The engine's odds API is being reshaped (issue 13: ``hero_odds(state, hero)`` with
``best_play`` / ``as_drawn``); until it lands this asks today's functions (``hero_draw``
and ``group_numbers``, whose ``with_redraws`` is the best play with Redraws, P11).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.performance import odds as engine_odds
from engine.performance.commands import groups
from engine.state import TableState


@dataclass(frozen=True, slots=True)
class GroupOdds:
    """P(success) of the group a hero resolves in, exact."""

    heroes: tuple[str, ...]
    best_play: Fraction
    as_drawn: Fraction


def group_odds(state: TableState, hero: str) -> GroupOdds | None:
    """The odds of ``hero``'s group right now; None when no Performance is open for them."""
    ask: Any = getattr(engine_odds, "hero_odds", None)
    if ask is not None:
        found = ask(state, hero)
        if found is None:
            return None
        return GroupOdds(tuple(found.heroes), found.best_play, found.as_drawn)
    return _from_group_numbers(state, hero)


def _from_group_numbers(state: TableState, hero: str) -> GroupOdds | None:
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    hero_draw: Any = getattr(engine_odds, "hero_draw")  # noqa: B009  (see the module doc)
    group_numbers: Any = getattr(engine_odds, "group_numbers")  # noqa: B009
    for heroes in groups(perf, state.rules["intersect"]["mode"]):
        if hero not in heroes:
            continue
        contributions = [perf.contribution(h) for h in heroes]
        draws = tuple(hero_draw(state, c) for c in contributions if c is not None)
        nums = group_numbers(draws, perf.difficulty, bool(state.rules["redraw"]["set_aside"]))
        best = nums.success if nums.with_redraws is None else nums.with_redraws
        return GroupOdds(tuple(heroes), best, nums.success)
    return None
