"""The table as the outside world sees it: a history-free JSON view with derived values.

The display, MQTT and the overlay read this, never the raw state: it adds what
people want to see (token values, running totals, draws left, outcomes) and
leaves out what they do not (the Undo history, the rules data). The core gives
the table, its heroes and its bags; each rule family adds its own sections (the
Performance, odds, the Time Board, combat) through :func:`view_section`, so the
core imports no family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engine.contracts.view import HeroView, TableView
from engine.registry import Registry
from engine.state import TableState

ViewSection = Callable[[TableState], Any]
SECTIONS: Registry[ViewSection] = Registry("view section")


def view_section(name: str) -> Callable[[ViewSection], ViewSection]:
    """Register an extra top-level key of the view (for example ``odds``)."""

    def register(fn: ViewSection) -> ViewSection:
        SECTIONS.add(name, fn)
        return fn

    return register


def table_view(state: TableState) -> TableView:
    """Everything a panel or an overlay shows, as JSON data (typed: :class:`TableView`)."""
    out: dict[str, Any] = {
        "table": state.table_id,
        "heroes": {h.id: hero_view(state, h.id) for h in state.heroes.values()},
        "bags": {
            b.id: {
                "name": b.name,
                "owner": b.owner,
                "count": len(b.contents),
                # what is in the bag now: a remote can draw by picking one (a missed tag)
                "tokens": [{"id": t, "name": state.tokens[t].name} for t in b.contents],
            }
            for b in state.bags.values()
        },
        "awakened": list(state.awakened),
        "escalation": state.escalation,
        "can_undo": len(state.history),
    }
    for name, fn in SECTIONS.items():
        out[name] = fn(state)
    return cast(TableView, out)  # the sections' own types: test_contracts ties them


def hero_view(state: TableState, hero_id: str) -> HeroView:
    h = state.heroes[hero_id]
    return {
        "id": h.id,
        "name": h.name,
        "fatigue": h.fatigue,
        "fatigue_capacity": h.fatigue_capacity,
        "strain": h.strain,
        "strain_capacity": h.strain_capacity,
        "wounds": h.wounds,
        "favor": h.favor,
        "redraws": h.redraws,
        "training": {k: v.value for k, v in sorted(h.training.items())},
        "pathways": list(h.pathways),
        "active_reserve": sorted(t for t in state.active_reserve if state.tokens[t].bag == h.bag),
        "bag_count": len(state.bags[h.bag].contents),
    }
