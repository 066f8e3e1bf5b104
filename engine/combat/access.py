"""Looking things up for a combat command, refusing with the rule id when they are not there."""

from __future__ import annotations

from engine.combat.state import Combat, Combatant, Fight
from engine.errors import CommandRejected
from engine.state import TableState


def combat_of(state: TableState) -> Combat:
    if state.combat is None:
        raise CommandRejected(
            "this table has no combatants",
            rule="C2",
            code="illegal",
            fix="add [[combatants]] to the table file, or start_combat with add=[…]",
        )
    return state.combat


def fight_of(state: TableState) -> tuple[Combat, Fight]:
    combat = combat_of(state)
    if combat.fight is None:
        raise CommandRejected("no fight is running", rule="C2", fix="start_combat first")
    return combat, combat.fight


def combatant(
    combat: Combat, cid: str | None, key: str = "combatant", *, in_fight: bool = False
) -> Combatant:
    """The combatant ``cid`` (a command's field ``key``: its refusal names it), known, and in the
    fight when ``in_fight``."""
    c = combat.roster.get(cid) if cid is not None else None
    if c is None:
        known = ", ".join(sorted(combat.roster)) or "none"
        raise CommandRejected(
            f"unknown combatant {cid!r}", field=key, code="unknown", fix=f"combatants: {known}"
        )
    if in_fight and (combat.fight is None or combat.fight.token(c.id) is None):
        raise CommandRejected(
            f"{c.name} is not in this fight",
            rule="C2",
            field=key,
            fix="choose a combatant with a token on the wheel",
        )
    return c


def living(c: Combatant, key: str) -> Combatant:
    if c.dead:
        raise CommandRejected(
            f"{c.name} is dead", rule="C9", field=key, fix="choose a living combatant"
        )
    return c
