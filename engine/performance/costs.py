"""What the open Performance has cost each hero: Fatigue → Strain → Wound (P9, P13–P15).

The view shows health as it is *now*; the panel and the overlays also say what
changed in this Performance ("+2 Fatigue → 1 Strain"). The cascade itself runs
in :mod:`engine.performance.health`, which records each step here, in the
Performance, as it happens: so the costs are part of the state (journaled,
restored, taken back by Undo) and the ``costs`` view section publishes them,
instead of an adapter rebuilding them from the events. They start empty with
each Performance and leave with it at Reset.

>>> describe(HeroCost(fatigue=2, fatigue_overflows=1))
['+2 Fatigue → 1 Strain']
>>> describe(HeroCost(fatigue=2, fatigue_overflows=1, chained_wounds=1))
['+2 Fatigue → Strain full → 1 Wound']
"""

from __future__ import annotations

from engine.immutable import replace
from engine.state import HeroCost, TableState


def describe(cost: HeroCost) -> list[str]:
    """``["+2 Fatigue → 1 Strain"]``, ``["+2 Fatigue → Strain full → 1 Wound"]`` …"""
    out = []
    if cost.fatigue:
        text = f"+{cost.fatigue} Fatigue"
        if cost.chained_wounds:
            text += f" → Strain full → {_count(cost.chained_wounds, 'Wound')}"
        elif cost.fatigue_overflows:
            text += f" → {_count(cost.fatigue_overflows, 'Strain')}"
        out.append(text)
    if cost.strain:
        text = f"+{cost.strain} Strain"
        if cost.strain_overflows:
            text += f" → Strain full → {_count(cost.strain_overflows, 'Wound')}"
        out.append(text)
    if cost.wounds:
        out.append(f"+{_count(cost.wounds, 'Wound')}")
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def record(state: TableState, hero_id: str, **added: int) -> TableState:
    """Add to ``hero_id``'s cost in the Performance on the board (none: nothing to record)."""
    perf = state.performance
    if perf is None:
        return state
    old = perf.costs.get(hero_id, HeroCost())
    new = replace(old, **{k: getattr(old, k) + v for k, v in added.items()})
    return replace(state, performance=replace(perf, costs={**perf.costs, hero_id: new}))
