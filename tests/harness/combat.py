"""Helpers for the combat tests: inline combatant sheets on the example table."""

from __future__ import annotations

from typing import Any

from engine import apply
from engine.state import TableState


def sheet(cid: str, **stats: Any) -> dict[str, Any]:
    """A combatant sheet with small default pools; override any key."""
    out: dict[str, Any] = {
        "id": cid,
        "reflex": 1,
        "might": 2,
        "dodge": 2,
        "parry": 1,
        "fortitude": 2,
        "speed": 5,
        "weapon": {"name": "club", "damage": 1, "injury": "concussion"},
    }
    out.update(stats)
    return out


def fight(
    state: TableState, *sheets: dict[str, Any], initiative: dict[str, list[int]], **extra: Any
) -> TableState:
    """Start a fight of inline combatants with entered initiative dice."""
    state, _ = apply(
        state, {"cmd": "start_combat", "add": list(sheets), "initiative": initiative, **extra}
    )
    return state


def token(state: TableState, cid: str) -> Any:
    assert state.combat is not None and state.combat.fight is not None
    t = state.combat.fight.token(cid)
    assert t is not None
    return t


def combatant(state: TableState, cid: str) -> Any:
    assert state.combat is not None
    return state.combat.roster[cid]


def acting(state: TableState) -> list[str]:
    from engine.combat import wheel
    from engine.combat.rules import CombatRules

    assert state.combat is not None and state.combat.fight is not None
    return wheel.acting(state.combat, state.combat.fight, CombatRules(state.rules))
