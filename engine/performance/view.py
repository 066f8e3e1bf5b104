"""The Performance as the view shows it: each hero's declaration, tokens with their values, totals.

Registered as the view's ``performance`` section (``None`` between Performances), and the
``costs`` section beside it.
"""

from __future__ import annotations

from typing import cast

from engine.codec import to_data
from engine.contracts.view import (
    ContributionView,
    CostsView,
    CostView,
    PerformanceView,
    RedrawView,
    TokenView,
)
from engine.performance.commands import contribution_total, groups, value_of
from engine.performance.costs import describe
from engine.performance.questions import group_total, redraws
from engine.state import Contribution, TableState
from engine.view import view_section


def _token(state: TableState, c: Contribution, token_id: str) -> TokenView:
    t = state.tokens[token_id]
    return {
        "id": token_id,
        "name": t.name,
        "kind": t.kind.value,
        "shade": t.shade,
        "weight": t.weight,
        "value": value_of(state, c, token_id),
    }


@view_section("performance")
def performance_view(state: TableState) -> PerformanceView | None:
    perf = state.performance
    if perf is None:
        return None
    contributions: list[ContributionView] = []
    grouped = groups(perf, state.rules["intersect"]["mode"])
    of_group = {h: g for g in grouped for h in g}
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
                "group_total": group_total(state, perf, of_group.get(c.hero, (c.hero,))),
            }
        )
    return {
        "number": perf.number,
        "difficulty": perf.difficulty,
        "weight": perf.weight.value,
        "resolved": perf.resolved,
        "groups": [list(g) for g in grouped],
        "contributions": contributions,
        "results": [
            {
                "heroes": list(r.heroes),
                "total": r.total,
                "difficulty": r.difficulty,
                "success": r.success,
                "outcome": "success" if r.success else "failure",
                "consequence": "wear" if r.success else "impact",
            }
            for r in perf.results
        ],
        "drawing": perf.drawing,
        "redraw": _redraw_view(state),
    }


def _redraw_view(state: TableState) -> RedrawView:
    """What a Redraw may replace now (P11), and why the other heroes on the board may not."""
    answer = redraws(state)
    return {
        "candidates": [{"hero": h, "token": t} for h, t in answer.candidates],
        "refusals": {h: v.to_json() for h, v in answer.refusals.items()},
    }


@view_section("costs")
def costs_view(state: TableState) -> CostsView | None:
    """What the open Performance has cost each hero so far (P9, P13–P15); None between
    Performances. ``text`` words it for a panel: ``["+2 Fatigue → 1 Strain"]``."""
    perf = state.performance
    if perf is None:
        return None
    return {
        hero: cast(CostView, {**to_data(cost), "text": describe(cost)})
        for hero, cost in perf.costs.items()
        if not cost.empty
    }
