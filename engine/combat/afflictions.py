"""Injuries, death, conditions and renown on the combatant sheets (C8–C11).

The attack resolution calls :func:`injure`; the GM's own commands here add
injuries from failed saves, heal them, put conditions on and off and move
renown. Every change settles the wheel, since a combatant who dies or cannot
act stops waiting for its turn (I-C10a).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.combat import access, flow, pools
from engine.combat.rules import CombatRules
from engine.combat.state import ATTRIBUTES, Combat, Combatant, Condition, Injury
from engine.contracts import events as ev
from engine.contracts.commands import (
    AddCombatConditionArgs,
    AdjustRenownArgs,
    HealInjuriesArgs,
    InjureArgs,
    RemoveCombatConditionArgs,
    SetArmourArgs,
)
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.state import Applied, TableState
from engine.vocabulary import CommandSpec, Field, command

_COMBATANT = Field("string", "combatant id", required=True)


def injure(
    combat: Combat,
    c: Combatant,
    injury: Injury,
    r: CombatRules,
) -> tuple[Combat, list[Event]]:
    """Add an injury record; past the death limit the combatant dies (C9)."""
    c = replace(c, injuries=(*c.injuries, injury))
    limit = pools.death_limit(c, r)
    events = [
        ev.combatant_injured(
            {
                "combatant": c.id,
                "injury": injury.type,
                "hits": injury.hits,
                "detail": injury.detail,
                "source": injury.source,
                "injuries": c.injury_count,
                "fortitude_dice": pools.fortitude_pool(c, r),
                "death_limit": limit,
                "rule": "C8",
            },
        )
    ]
    if c.injury_count > limit:
        c = replace(c, dead=True)
        events.append(
            ev.combatant_died(
                {"combatant": c.id, "injuries": c.injury_count, "limit": limit, "rule": "C9"},
            )
        )
    return combat.with_combatant(c), events


def injury_type_of(r: CombatRules, value: Any, key: str) -> str:
    if value not in r.injury_types:
        raise CommandRejected(
            f"{value!r} is not an injury type",
            rule="C9",
            field=key,
            code="unknown",
            fix=f"use one of: {', '.join(r.injury_types)}",
        )
    return str(value)


def _done(state: TableState, combat: Combat, events: list[Event]) -> Applied:
    r = CombatRules(state.rules)
    before = state.combat.fight if state.combat is not None else None
    combat, more = flow.settle(combat, before, r)
    return replace(state, combat=combat), events + more


@command(
    CommandSpec(
        "injure",
        "Give a combatant injuries outside an attack (a failed Bleeding save, a fall)."
        " More than twice FORTITUDE injuries kills (C9).",
        "combat",
        ("C8", "C9"),
        {
            "combatant": _COMBATANT,
            "type": Field("string", "injury type (bleeding, concussion, …)", required=True),
            "hits": Field("integer", "how many injuries", default=1, bound="hits"),
            "detail": Field("string", "where, when it matters (a Sprained leg halves speed)"),
            "cause": Field("string", "why, for the log"),
        },
    )
)
def injure_command(state: TableState, args: InjureArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.living(access.combatant(combat, args["combatant"]), "combatant")
    r = CombatRules(state.rules)
    kind = injury_type_of(r, args["type"], "type")
    injury = Injury(kind, args["hits"], args.get("detail"), args.get("cause"))
    combat, events = injure(combat, c, injury, r)
    return _done(state, combat, events)


@command(
    CommandSpec(
        "heal_injuries",
        "Take injuries off a living combatant, newest first (of one type if given).",
        "combat",
        ("C8", "C9"),
        {
            "combatant": _COMBATANT,
            "hits": Field("integer", "how many injuries to heal", default=1, bound="hits"),
            "type": Field("string", "heal only this injury type"),
        },
    )
)
def heal_injuries(state: TableState, args: HealInjuriesArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.living(access.combatant(combat, args["combatant"]), "combatant")
    r = CombatRules(state.rules)
    kind = None if args.get("type") is None else injury_type_of(r, args["type"], "type")
    left = args["hits"]
    have = sum(i.hits for i in c.injuries if kind is None or i.type == kind)
    if have < left:
        raise CommandRejected(
            f"{c.name} has {have} {kind or ''} injuries, cannot heal {left}".replace("  ", " "),
            rule="C8",
            field="hits",
            fix=f"heal at most {have}",
        )
    kept: list[Injury] = []
    for injury in reversed(c.injuries):
        if left and (kind is None or injury.type == kind):
            take = min(left, injury.hits)
            left -= take
            if injury.hits > take:
                kept.append(replace(injury, hits=injury.hits - take))
        else:
            kept.append(injury)
    c = replace(c, injuries=tuple(reversed(kept)))
    event = ev.injuries_healed(
        {"combatant": c.id, "hits": args["hits"], "type": kind, "injuries": c.injury_count},
    )
    return _done(state, combat.with_combatant(c), [event])


def _condition_name(r: CombatRules, value: Any) -> str:
    if value not in r.condition_names:
        raise CommandRejected(
            f"{value!r} is not a condition",
            rule="C10",
            field="condition",
            code="unknown",
            fix=f"use one of: {', '.join(r.condition_names)}",
        )
    return str(value)


def _attribute(r: CombatRules, name: str, args: Mapping[str, Any]) -> str | None:
    attribute = args.get("attribute")
    curses = int(r.condition(name)["attribute_dice"]) > 0
    if curses and attribute is None:
        raise CommandRejected(
            f"{name} takes dice from one attribute: say which",
            rule="C10",
            field="attribute",
            code="malformed",
            fix=f"add attribute: one of {', '.join(ATTRIBUTES)}",
        )
    if not curses and attribute is not None:
        raise CommandRejected(
            f"{name} does not name an attribute",
            rule="C10",
            field="attribute",
            code="malformed",
            fix="leave out attribute",
        )
    return None if attribute is None else str(attribute)


@command(
    CommandSpec(
        "add_combat_condition",
        "Put a condition on a combatant (Fatigued and Cursed stack levels). Conditions that stop"
        " acting make the wheel pass the token by.",
        "combat",
        ("C10", "I-C10a"),
        {
            "combatant": _COMBATANT,
            "condition": Field("string", "blinded, confused, cursed, … (C10)", required=True),
            "level": Field(
                "integer",
                "levels to add (Fatigued: up to six)",
                default=1,
                bound="condition_level",
            ),
            "attribute": Field("string", "Cursed: the attribute it lowers", enum=ATTRIBUTES),
            "source": Field("string", "the source (of fear, of the curse), for the log"),
        },
    )
)
def add_condition(state: TableState, args: AddCombatConditionArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.living(access.combatant(combat, args["combatant"]), "combatant")
    r = CombatRules(state.rules)
    name = _condition_name(r, args["condition"])
    attribute = _attribute(r, name, args)
    top = int(r.condition(name)["max_level"])
    old = c.condition(name, attribute)
    level = (old.level if old else 0) + args["level"]
    if level > top:
        raise CommandRejected(
            f"{c.name} would have {level} levels of {name}; it has at most {top}"
            if top > 1
            else f"{c.name} is already {name}",
            rule="C10",
            field="level",
            fix="nothing to add"
            if old and old.level >= top
            else f"add at most {top - level + args['level']}",
        )
    new = Condition(name, level, attribute, args.get("source"))
    if old is None:
        conditions = (*c.conditions, new)
    else:
        conditions = tuple(new if k is old else k for k in c.conditions)
    c = replace(c, conditions=conditions)
    event = ev.condition_added(
        {
            "combatant": c.id,
            "condition": name,
            "level": level,
            "attribute": attribute,
            "rule": "C10",
        },
    )
    return _done(state, combat.with_combatant(c), [event])


@command(
    CommandSpec(
        "remove_combat_condition",
        "Take a condition (or some of its levels) off a combatant.",
        "combat",
        ("C10",),
        {
            "combatant": _COMBATANT,
            "condition": Field("string", "the condition", required=True),
            "level": Field("integer", "levels to remove (default: all)", bound="condition_level"),
            "attribute": Field("string", "Cursed: which curse", enum=ATTRIBUTES),
        },
    )
)
def remove_condition(state: TableState, args: RemoveCombatConditionArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.combatant(combat, args["combatant"])
    r = CombatRules(state.rules)
    name = _condition_name(r, args["condition"])
    old = c.condition(name, args.get("attribute"))
    if old is None:
        raise CommandRejected(
            f"{c.name} is not {name}", rule="C10", field="condition", fix="nothing to remove"
        )
    asked = args.get("level")
    drop = old.level if asked is None else min(old.level, asked)
    level = old.level - drop
    if level:
        conditions = tuple(replace(k, level=level) if k is old else k for k in c.conditions)
    else:
        conditions = tuple(k for k in c.conditions if k is not old)
    c = replace(c, conditions=conditions)
    event = ev.condition_removed(
        {"combatant": c.id, "condition": name, "level": level, "attribute": old.attribute},
    )
    return _done(state, combat.with_combatant(c), [event])


@command(
    CommandSpec(
        "adjust_renown",
        "Renown rises or falls with a deed, at the GM's call (C11).",
        "combat",
        ("C11",),
        {
            "combatant": _COMBATANT,
            "change": Field(
                "integer", "renown to add (+) or take away (−)", required=True, bound="renown"
            ),
            "reason": Field("string", "the deed, for the log"),
        },
    )
)
def adjust_renown(state: TableState, args: AdjustRenownArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.combatant(combat, args["combatant"])
    if args["change"] == 0:
        raise CommandRejected(
            "a renown change of 0 changes nothing", rule="C11", field="change", code="malformed"
        )
    c = replace(c, renown=c.renown + args["change"])
    event = ev.renown_changed(
        {
            "combatant": c.id,
            "change": args["change"],
            "renown": c.renown,
            # an omitted reason is sent as null, which the contract (str) does not allow:
            # kept as it was (the published JSON stays); the contract should say str | None
            "reason": args.get("reason"),  # type: ignore[typeddict-item]
            "rule": "C11",
        },
    )
    return replace(state, combat=combat.with_combatant(c)), [event]


@command(
    CommandSpec(
        "set_armour",
        "Set the durability left on a combatant's worn armour (I-C8): a carried session keeps"
        " it as the last one wore it, or the WorldKeeper mends it. Its name and reduction stay"
        " the sheet's.",
        "combat",
        ("C8", "I-C8", "I-C8a"),
        {
            "combatant": _COMBATANT,
            "durability": Field(
                "integer", "the durability it has left", required=True, bound="durability"
            ),
            "cause": Field("string", "why (worn last session, mended), for the log"),
        },
    )
)
def set_armour(state: TableState, args: SetArmourArgs) -> Applied:
    combat = access.combat_of(state)
    c = access.combatant(combat, args["combatant"])
    armour = c.armour
    if armour.name == "none" and armour.reduction == 0:
        raise CommandRejected(
            f"{c.name} wears no armour",
            rule="I-C8",
            field="combatant",
            fix="give it armour = { name, reduction, durability } in its [[combatants]] entry",
        )
    durability = args["durability"]
    if durability == armour.durability:
        raise CommandRejected(
            f"{c.name}'s {armour.name} already has durability {durability}",
            rule="I-C8",
            field="durability",
            code="malformed",
            fix="nothing to set",
        )
    c = replace(c, armour=replace(armour, durability=durability))
    event = ev.armour_set(
        {
            "combatant": c.id,
            "armour": armour.name,
            "durability": durability,
            "was": armour.durability,
            "cause": args.get("cause"),
            "rule": "I-C8",
        },
    )
    return replace(state, combat=combat.with_combatant(c)), [event]
