"""The engine's odds for one hero's group, as the table showed them: best play and as drawn.

Nothing is computed here: the numbers are the engine's odds section of the view
(:func:`engine.performance.odds.odds_view`), read for the group the hero resolves in. The
``best play`` figure assumes every Redraw and Favor call still open is used well;
``as drawn`` assumes none is.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.performance.odds import odds_view
from engine.state import TableState


@dataclass(frozen=True, slots=True)
class GroupOdds:
    """P(success) of the group a hero resolves in, exact."""

    heroes: tuple[str, ...]
    best_play: Fraction
    as_drawn: Fraction


def _fraction(value: dict[str, Any]) -> Fraction:
    return Fraction(int(value["num"]), int(value["den"]))


def group_odds(state: TableState, hero: str) -> GroupOdds | None:
    """The odds of ``hero``'s group right now; None when no Performance is open for them."""
    view = odds_view(state)
    if view is None:
        return None
    for group in view["groups"]:
        if hero in group["heroes"]:
            as_drawn = _fraction(group["success"])
            best = group.get("with_redraws")
            return GroupOdds(
                tuple(group["heroes"]),
                as_drawn if best is None else _fraction(best),
                as_drawn,
            )
    return None
