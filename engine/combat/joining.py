"""Combatants the WorldKeeper brings in during the session, and joining a fight already running.

``add_combatant`` puts a new sheet on the roster (a foe improvised at the table),
with the same keys and checks as the table file's ``[[combatants]]``, flattened so
a form can fill it in. ``join_combat`` brings a roster combatant into the running
fight. The seed is silent on both; the engine's reading (I-C3b, rules data
``[combat.joining]``): the newcomer rolls REFLEX initiative (C3) and its token
waits ``delay_ticks`` after the tick now acting (default 1, so the turn now acting
is never cut). On a tick it shares it acts by starting initiative (I-C3), after
any token already there with the same initiative: there is no roll-off with a
fight already placed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.combat import access, dice, flow, initiative, pools, wheel
from engine.combat.roster import (
    ROSTER_RULE,
    RosterError,
    hero_names,
    parse_combatant,
    roster_room,
)
from engine.combat.rules import CombatRules
from engine.combat.state import ATTRIBUTES, Combat, Combatant, Fight, WheelToken
from engine.contracts import events as ev
from engine.contracts.commands import AddCombatantArgs, JoinCombatArgs
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.state import Applied, TableState
from engine.vocabulary import CommandSpec, Field, command

_INITIATIVE = Field(
    "array",
    "entered REFLEX dice (physical d6 values), else rolled",
    items="integer",
    bound="die",
    length="roll",
    rule="C3",
)
_SEED = Field("integer", "roll the REFLEX dice not entered from this seed", bound="seed", rule="C3")

#: the flat command fields → where they go in a ``[[combatants]]`` sheet
_WEAPON = {
    "weapon": "name",
    "damage": "damage",
    "injury": "injury",
    "weapon_attribute": "attribute",
}
_ARMOUR = {"armour": "name", "reduction": "reduction", "durability": "durability"}


def _sheet(args: Mapping[str, Any]) -> dict[str, Any]:
    """The command's flat fields as a ``[[combatants]]`` entry (for the one sheet parser)."""
    keys = ("name", "hero", "side", *ATTRIBUTES, "speed", "renown")
    sheet: dict[str, Any] = {"id": args["combatant"]}
    sheet.update({k: args[k] for k in keys if args.get(k) is not None})
    weapon = {sub: args[k] for k, sub in _WEAPON.items() if args.get(k) is not None}
    armour = {sub: args[k] for k, sub in _ARMOUR.items() if args.get(k) is not None}
    if weapon:
        sheet["weapon"] = weapon
    if armour:
        sheet["armour"] = armour
    return sheet


def _field_of(message: str) -> str | None:
    """The command field a sheet error is about (``combatant.weapon.damage …`` → ``damage``)."""
    head = message.split(":", 1)[0].split(" ", 1)[0]
    parts = head.split(".")
    if len(parts) >= 3 and parts[1] in ("weapon", "armour"):
        sub = {v: k for k, v in (_WEAPON if parts[1] == "weapon" else _ARMOUR).items()}
        return sub.get(parts[2].split("=")[0].strip())
    if len(parts) == 2:
        name = parts[1].split("=")[0].strip()
        return "combatant" if name == "id" else name
    for word in ("reflex", "might", "dodge", "parry", "fortitude", "speed"):
        if f"add {word} =" in message:
            return word
    return None


def join(
    combat: Combat, fight: Fight, c: Combatant, args: Mapping[str, Any], r: CombatRules
) -> tuple[Combat, list[Event]]:
    """``c``'s token onto the running wheel (C3, I-C3, I-C3b); the events record its dice."""
    access.living(c, "combatant")
    if fight.token(c.id) is not None:
        raise CommandRejected(
            f"{c.name} is already in fight {fight.number}",
            rule="C2",
            field="combatant",
            fix="choose a combatant without a token on the wheel",
        )
    given, seed = args.get("initiative"), args.get("seed")
    count = pools.reflex_pool(c, r)
    if given is None and seed is None and count > 0:
        raise CommandRejected(
            f"initiative: roll {dice.many(count, 'REFLEX')} for {c.name}",
            rule="C3",
            field="initiative",
            fix=f'add "initiative": [{count} values 1–6] or a "seed"',
        )
    rng = None if seed is None else random.Random(seed)
    entered = {} if given is None else {c.id: given}
    ranked, events = initiative.roll_initiative([c], r, entered, {}, rng)
    score = ranked[0][1]
    time = fight.now + r.join_delay
    # tuple order is acting order within a tick (I-C3): after every token with an initiative
    # at least as high (ties: after those already placed, I-C3b), before the lower ones
    at = sum(1 for t in fight.tokens if t.initiative >= score)
    tokens = [*fight.tokens[:at], WheelToken(c.id, time, score, 0), *fight.tokens[at:]]
    tokens = [replace(t, order=i) for i, t in enumerate(tokens)]
    joined = replace(fight, tokens=tuple(tokens))
    n = r.wheel_ticks
    events.append(
        ev.combatant_joined(
            {
                "combatant": c.id,
                "fight": fight.number,
                "initiative": score,
                "tick": wheel.tick_of(time, n),
                "round": wheel.round_of(time, n),
                "rule": "I-C3b",
            },
        )
    )
    combat, more = flow.settle(replace(combat, fight=joined), fight, r)
    return combat, events + more


@command(
    CommandSpec(
        "add_combatant",
        "Add a combatant during the session (a foe the WorldKeeper improvises): the same sheet as"
        " [[combatants]], flattened; with join, it also joins the fight now running.",
        "combat",
        ("C2", "C3", "I-C3b"),
        {
            "combatant": Field("string", "the new combatant's id, short, no dots: goblin3", True),
            "name": Field("string", "the name shown (default: the id, or the hero's name)"),
            "hero": Field("string", "the hero this combatant is, if any"),
            "side": Field("string", "its side, for the panel and the forecast (foes, heroes…)"),
            "reflex": Field("integer", "REFLEX dice (initiative, C3)", True, bound="pool"),
            "might": Field("integer", "MIGHT dice (the ATTACK roll, C6)", True, bound="pool"),
            "dodge": Field("integer", "DODGE dice (DEFENSE, C6)", True, bound="pool"),
            "parry": Field("integer", "PARRY dice (DEFENSE, C6)", True, bound="pool"),
            "fortitude": Field("integer", "FORTITUDE dice (C8)", True, bound="pool"),
            "speed": Field("integer", "how far a Move goes (C7)", True, bound="speed"),
            "renown": Field("integer", "starting renown (C11)", bound="renown"),
            "weapon": Field("string", "the weapon's name"),
            "damage": Field("integer", "the weapon's DAMAGE dice (C6)", bound="pool"),
            "injury": Field("string", "the injury type the weapon causes (C9)"),
            "weapon_attribute": Field(
                "string", "the ATTACK attribute (default: the rules')", enum=ATTRIBUTES
            ),
            "armour": Field("string", "the armour's name"),
            "reduction": Field("integer", "armour reduction in DAMAGE dice (I-C8)", bound="pool"),
            "durability": Field("integer", "armour durability (I-C8a)", bound="durability"),
            "join": Field("boolean", "also join the fight now running (I-C3b)"),
            "initiative": _INITIATIVE,
            "seed": _SEED,
        },
    )
)
def add_combatant(state: TableState, args: AddCombatantArgs) -> Applied:
    combat = state.combat or Combat()
    try:
        c = parse_combatant(_sheet(args), "combatant", state.rules, hero_names(state))
    except RosterError as e:
        field = _field_of(str(e))
        raise CommandRejected(
            str(e),
            rule="C9" if field == "injury" else e.rule,
            field=field,
            code="malformed",
            fix="correct that field",
        ) from None
    if c.id in combat.roster:
        raise CommandRejected(
            f"a combatant {c.id!r} already exists",
            rule="C2",
            field="combatant",
            fix="give the new one another id (join_combat brings an existing one in)",
        )
    too_many = roster_room(state.rules, len(combat.roster) + 1)
    if too_many:
        raise CommandRejected(
            too_many,
            rule=ROSTER_RULE,
            field="combatant",
            fix="bring in one already on the roster with join_combat, or start the next session"
            " with --new-session (a combatant added during a session is not carried)",
        )
    wants_join = bool(args.get("join"))
    if not wants_join and (args.get("initiative") is not None or args.get("seed") is not None):
        raise CommandRejected(
            "initiative and seed are for joining a fight",
            field="initiative" if args.get("initiative") is not None else "seed",
            code="malformed",
            fix='add "join": true, or leave them out',
        )
    if wants_join and (combat.fight is None):
        raise CommandRejected(
            "no fight is running to join",
            rule="C2",
            field="join",
            fix="leave out join (start_combat can name it later)",
        )
    combat = combat.with_combatant(c)
    events = [ev.combatant_added({"combatant": c.id, "name": c.name, "side": c.side, "rule": "C2"})]
    if wants_join:
        assert combat.fight is not None
        combat, more = join(combat, combat.fight, c, args, CombatRules(state.rules))
        events += more
    return replace(state, combat=combat), events


@command(
    CommandSpec(
        "join_combat",
        "A combatant of the roster joins the fight now running: it rolls REFLEX initiative (or"
        " enters the dice) and waits on the wheel after the tick now acting.",
        "combat",
        ("C2", "C3", "I-C3", "I-C3b"),
        {
            "combatant": Field("string", "who joins (a living combatant not in the fight)", True),
            "initiative": _INITIATIVE,
            "seed": _SEED,
        },
    )
)
def join_combat(state: TableState, args: JoinCombatArgs) -> Applied:
    combat, fight = access.fight_of(state)
    c = access.combatant(combat, args["combatant"])
    combat, events = join(combat, fight, c, args, CombatRules(state.rules))
    return replace(state, combat=combat), events
