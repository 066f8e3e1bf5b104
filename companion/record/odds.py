"""The engine's odds for one hero's group, as the table showed them: best play and as drawn.

Nothing is computed here: :func:`engine.performance.odds.hero_odds` gives the two
figures of the group the hero resolves in (I-P10) — best play, the headline the table
shows (every Redraw and Favor call still open used well, P11, P18, I-P18a), and as
drawn (none used). tests/companion/record/test_record_export.py checks every exported figure against
the odds section of the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.performance.odds import hero_odds
from engine.state import TableState


@dataclass(frozen=True, slots=True)
class GroupOdds:
    """P(success) of the group a hero resolves in, exact."""

    heroes: tuple[str, ...]
    best_play: Fraction
    as_drawn: Fraction


def group_odds(state: TableState, hero: str) -> GroupOdds | None:
    """The odds of ``hero``'s group right now; None when no Performance is open for them."""
    found = hero_odds(state, hero)
    if found is None:
        return None
    return GroupOdds(tuple(found.heroes), found.best_play, found.as_drawn)
