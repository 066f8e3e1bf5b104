"""The table as the outside world sees it: a history-free JSON view with derived values.

The display, MQTT and the overlay read this, never the raw state: it adds what
people want to see (token values, running totals, draws left, outcomes) and
leaves out what they do not (the Undo history, the rules data). Extra sections
(odds, the Time Board, combat) are added by the modules that own them through
:func:`view_section`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.performance import contribution_total, groups, value_of
from engine.state import Contribution, TableState

ViewSection = Callable[[TableState], Any]
SECTIONS: dict[str, ViewSection] = {}


def view_section(name: str) -> Callable[[ViewSection], ViewSection]:
    """Register an extra top-level key of the view (for example ``odds``)."""

    def register(fn: ViewSection) -> ViewSection:
        SECTIONS[name] = fn
        return fn

    return register


def table_view(state: TableState) -> dict[str, Any]:
    """Everything a panel or an overlay shows, as JSON data."""
    out: dict[str, Any] = {
        "table": state.table_id,
        "heroes": {h.id: hero_view(state, h.id) for h in state.heroes.values()},
        "bags": {
            b.id: {"name": b.name, "owner": b.owner, "count": len(b.contents)}
            for b in state.bags.values()
        },
        "performance": performance_view(state),
        "awakened": list(state.awakened),
        "escalation": state.escalation,
        "can_undo": len(state.history),
    }
    for name, fn in SECTIONS.items():
        out[name] = fn(state)
    return out


def hero_view(state: TableState, hero_id: str) -> dict[str, Any]:
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


def _token(state: TableState, c: Contribution, token_id: str) -> dict[str, Any]:
    t = state.tokens[token_id]
    return {
        "id": token_id,
        "name": t.name,
        "kind": t.kind.value,
        "shade": t.shade,
        "weight": t.weight,
        "value": value_of(state, c, token_id),
    }


def performance_view(state: TableState) -> dict[str, Any] | None:
    perf = state.performance
    if perf is None:
        return None
    contributions = []
    for c in perf.contributions:
        contributions.append(
            {
                "hero": c.hero,
                "name": state.heroes[c.hero].name,
                "shade": c.shade.value,
                "capability": c.capability,
                "action": c.action.value,
                "training": c.training.value,
                "exert": c.exert,
                "moment": c.moment.value if c.moment else None,
                "intersect": c.intersect,
                "allowed": c.allowed,
                "draws_left": c.draws_left if c.checks else 0,
                "pending_redraw": c.pending_redraw,
                "drawn": [_token(state, c, t) for t in c.drawn],
                "favor": [_token(state, c, t) for t in c.favor],
                "set_aside": list(c.set_aside),
                "total": contribution_total(state, c),
            }
        )
    return {
        "number": perf.number,
        "difficulty": perf.difficulty,
        "weight": perf.weight.value,
        "resolved": perf.resolved,
        "groups": [list(g) for g in groups(perf, state.rules["intersect"]["mode"])],
        "contributions": contributions,
        "results": [
            {
                "heroes": list(r.heroes),
                "total": r.total,
                "difficulty": r.difficulty,
                "success": r.success,
            }
            for r in perf.results
        ],
    }
