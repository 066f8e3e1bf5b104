"""What the open Performance cost each hero, as the panel words it (P9, P13–P15, P18).

The engine keeps the costs in the state and publishes them as the view's
``costs`` section (:mod:`engine.performance.costs`), words included; the panel
adds only the Favor spent, which the Draw Board already shows.

>>> view = {"costs": {"cass": {"fatigue": 2, "text": ["+2 Fatigue → 1 Strain"]}}}
>>> cost_parts({"favor": [{"id": "favor.01"}]}, costs_for(view["costs"], "cass"))
['+2 Fatigue → 1 Strain', 'Favor −1']
>>> costs_for(None, "aria")
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from display.viewmodel import MINUS
from engine.contracts.view import ContributionView


def cost_parts(c: ContributionView | None, cost: Sequence[str]) -> list[str]:
    """What the Performance cost this hero: Fatigue → Strain → Wound (the engine's words), Favor
    spent (none: the hero drew nothing here)."""
    parts = [str(line) for line in cost]
    spent = len(c["favor"]) if c is not None else 0
    if spent:
        parts.append(f"Favor {MINUS}{spent}")
    return parts


def costs_for(costs: Mapping[str, Any] | None, hero: str) -> list[str]:
    """A hero's line(s) of the view's ``costs`` section (``+2 Fatigue → 1 Strain``); none: []."""
    cost = (costs or {}).get(hero) or {}
    return list(cost.get("text") or [])
