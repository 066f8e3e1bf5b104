"""The fight: start it, act on the wheel, lose sight of a target, end it (C1–C7).

``act`` is the heart: the combatant whose turn it is declares one action,
it resolves, and the token moves forward by the action's cost (C4). Refusals
name the rule: acting out of turn (C4), a fourth Aim tick (C5), Dash while
Prone (C7), an action a condition forbids (C10), dice that are not d6 values or
not the right number of them (C3, C6, C8).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.combat import access, attack, flow, initiative, pools, wheel
from engine.combat.roster import (
    ROSTER_RULE,
    RosterError,
    hero_names,
    parse_combatant,
    roster_room,
)
from engine.combat.rules import CombatRules
from engine.combat.state import ARITY, ActionKind, Combat, Combatant, Fight, WheelToken
from engine.contracts import events as ev
from engine.contracts.commands import (
    ActArgs,
    EndCombatArgs,
    StartCombatArgs,
    TargetLeavesSightArgs,
)
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.state import Applied, TableState
from engine.vocabulary import CommandSpec, Field, command


def _seed(rule: str) -> Field:
    return Field(
        "integer",
        "roll the dice not entered from this seed (scripts, the demo)",
        bound="seed",
        rule=rule,
    )


def _dice_field(what: str, rule: str) -> Field:
    """Entered dice of one roll: each a d6 face, at most ``bounds.roll`` of them (I-C2a)."""
    return Field(
        "array",
        f"{what}: physical d6 values, one per die",
        items="integer",
        bound="die",
        length="roll",
        rule=rule,
    )


# --- start ---------------------------------------------------------------------------


def _fighters(state: TableState, args: StartCombatArgs) -> tuple[Combat, list[Combatant]]:
    """The roster with inline combatants added, and who fights, in the order given."""
    combat = state.combat or Combat()
    added: list[Combatant] = []
    for i, entry in enumerate(args.get("add") or ()):
        try:
            c = parse_combatant(entry, f"add[{i}]", state.rules, hero_names(state))
        except RosterError as e:
            raise CommandRejected(str(e), rule=e.rule, field="add", code="malformed") from None
        if c.id in combat.roster or c.id in {a.id for a in added}:
            raise CommandRejected(
                f"add[{i}]: a combatant {c.id!r} already exists",
                field="add",
                fix='name it in "combatants" instead, or give the new one another id',
            )
        added.append(c)
    too_many = roster_room(state.rules, len(combat.roster) + len(added)) if added else None
    if too_many:
        raise CommandRejected(
            too_many,
            rule=ROSTER_RULE,
            field="add",
            fix='name combatants already on the roster in "combatants" instead of adding new'
            " ones, or start the next session with --new-session",
        )
    for c in added:
        combat = combat.with_combatant(c)
    new = [c.id for c in added]
    ids = list(args.get("combatants") or ())
    if not ids:
        ids = [cid for cid, c in combat.roster.items() if not c.dead and cid not in new]
    ids += [cid for cid in new if cid not in ids]
    if len(set(ids)) != len(ids):
        raise CommandRejected("a combatant is named twice", field="combatants", code="malformed")
    fighters = []
    for cid in ids:
        c = access.living(access.combatant(combat, cid, "combatants"), "combatants")
        fighters.append(c)
    if len(fighters) < 2:
        raise CommandRejected(
            "a fight needs at least two combatants",
            rule="C2",
            field="combatants",
            fix="name two or more combatants (or add some)",
        )
    return combat, fighters


def _mapping(args: Mapping[str, Any], key: str, ids: set[str]) -> Mapping[str, Any]:
    value = args.get(key) or {}
    for cid in value:
        if cid not in ids:
            raise CommandRejected(
                f"{key}: {cid!r} is not in this fight",
                rule="C3",
                field=key,
                code="unknown",
                fix=f"fighters: {', '.join(sorted(ids))}",
            )
    out: Mapping[str, Any] = value
    return out


@command(
    CommandSpec(
        "start_combat",
        "Start a fight: every combatant rolls REFLEX initiative (or enters the dice), tokens go"
        " on the six-tick wheel, ties on a tick roll off.",
        "combat",
        ("C2", "C3", "I-C3"),
        {
            "combatants": Field(
                "array", "combatant ids (default: every living combatant)", items="string"
            ),
            "add": Field(
                "array",
                "inline combatant sheets joining the roster (same keys as [[combatants]])",
                items="object",
            ),
            "initiative": Field("object", "entered REFLEX dice per combatant: {id: [d6, …]}"),
            "rolloff": Field(
                "object", "entered roll-off dice per combatant: {id: [[d6, …], …]}, one per tie"
            ),
            "seed": _seed("C3"),
        },
    )
)
def start_combat(state: TableState, args: StartCombatArgs) -> Applied:
    if state.combat is not None and state.combat.fight is not None:
        raise CommandRejected(
            f"fight {state.combat.fight.number} is still running",
            rule="C2",
            fix="end_combat first",
        )
    r = CombatRules(state.rules)
    combat, fighters = _fighters(state, args)
    ids = {c.id for c in fighters}
    rng = None if args.get("seed") is None else random.Random(args["seed"])
    ranked, events = initiative.roll_initiative(
        fighters, r, _mapping(args, "initiative", ids), _mapping(args, "rolloff", ids), rng
    )
    number = combat.fights + 1
    tokens = wheel.place(ranked, r.wheel_ticks)
    fight = Fight(number=number, now=1, tokens=tokens)
    combat = replace(combat, fight=fight, fights=number)
    events = [
        ev.combat_started({"fight": number, "combatants": [c.id for c in fighters]}),
        *events,
        ev.tokens_placed(
            {
                "placement": [
                    {"combatant": t.combatant, "tick": t.time, "initiative": t.initiative}
                    for t in tokens
                ],
                "rule": "I-C3",
            },
        ),
    ]
    combat, more = flow.settle(combat, None, r)
    return replace(state, combat=combat), events + more


# --- act -----------------------------------------------------------------------------


def _check_turn(combat: Combat, fight: Fight, c: Combatant, r: CombatRules) -> WheelToken:
    """Only the first combatant waiting on the tick now acting may act (C4, I-C3)."""
    access.living(c, "combatant")
    stopped = pools.incapacitating(c, r)
    if stopped is not None:
        raise CommandRejected(
            f"{c.name} cannot act while {stopped}",
            rule="C10",
            field="combatant",
            fix=f"remove_combat_condition {stopped} first",
        )
    now = wheel.acting(combat, fight, r)
    token = fight.token(c.id)
    assert token is not None
    if not now or now[0] != c.id:
        n = r.wheel_ticks
        at = f"round {wheel.round_of(fight.now, n)}, tick {wheel.tick_of(fight.now, n)}"
        mine = f"round {wheel.round_of(token.time, n)}, tick {wheel.tick_of(token.time, n)}"
        first = combat.roster[now[0]].name if now else None
        raise CommandRejected(
            f"it is {first}'s turn ({at}), not {c.name}'s" if first else "nobody can act now",
            rule="C4",
            field="combatant",
            fix=f"{c.name} acts on {mine}" + (f", after {first}" if c.id in now else ""),
        )
    return token


def _check_action(c: Combatant, action: ActionKind, r: CombatRules) -> None:
    if action is ActionKind.DASH:
        down = pools.lying_down(c, r)
        if down is not None:
            raise CommandRejected(
                f"{c.name} is {down}: Dash must start standing",
                rule="C7",
                field="action",
                fix="Move instead, or stand up first (remove_combat_condition)",
            )
    blocked = pools.blocking(c, r, action.value)
    if blocked is not None:
        raise CommandRejected(
            f"{c.name} is {blocked} and cannot {action.value}",
            rule="C10",
            field="action",
            fix="choose another action",
        )


def _check_fields(args: Mapping[str, Any], action: ActionKind) -> None:
    arity = ARITY[action]
    if arity.target and args.get("target") is None:
        raise CommandRejected(
            f"{action.value} needs a target",
            rule=arity.rule,
            field="target",
            code="malformed",
            fix='add "target": "<combatant id>"',
        )
    extra = [] if arity.target else ["target"]
    if not arity.rolls:
        extra += [*attack.DICE_FIELDS, "defense", "seed", "bonus_dice", "injury", "detail"]
    for key in extra:
        if args.get(key) is not None:
            raise CommandRejected(
                f"{action.value} takes no {key}",
                field=key,
                code="malformed",
                fix=f"leave out {key}",
            )


def _target(combat: Combat, c: Combatant, args: ActArgs) -> Combatant:
    target = access.living(
        access.combatant(combat, args["target"], "target", in_fight=True), "target"
    )
    if target.id == c.id:
        raise CommandRejected(
            f"{c.name} cannot target itself", field="target", fix="choose another combatant"
        )
    return target


def _aim_lost(token: WheelToken, reason: str) -> Event:
    """Only a token that aims loses its Aim: its ``aim_target`` is set."""
    assert token.aim_target is not None
    return ev.aim_lost(
        {"combatant": token.combatant, "target": token.aim_target, "reason": reason, "rule": "C5"},
    )


@command(
    CommandSpec(
        "act",
        "The combatant whose turn it is declares and resolves one action; its token moves on by"
        " the action's cost (Aim 1, Attack 3, Dash 3, Guard 3, Move 2). Attack dice are entered"
        " or rolled from the seed.",
        "combat",
        ("C1", "C4", "C5", "C6", "C7", "C8", "C9", "I-C5", "I-C6", "I-C7", "I-C8"),
        {
            "combatant": Field("string", "who acts (the first combatant on the tick)", True),
            "action": Field("string", "the action", True, enum=tuple(ActionKind)),
            "target": Field("string", "Aim and Attack: the target combatant"),
            "defense": Field(
                "string",
                "Attack: the target's DEFENSE roll (default: rules)",
                enum=("dodge", "parry"),
            ),
            "attack_dice": _dice_field("ATTACK roll", "C6"),
            "defense_dice": _dice_field("DEFENSE roll", "C6"),
            "damage_dice": _dice_field(
                "DAMAGE roll (weapon dice + one per attacker success)", "C8"
            ),
            "fortitude_dice": _dice_field("FORTITUDE roll", "C8"),
            "bonus_dice": Field(
                "integer", "Attack: aptitude bonus dice (+) or penalty (−)", bound="bonus_dice"
            ),
            "injury": Field("string", "Attack: injury type caused (default: the weapon's)"),
            "detail": Field("string", "Attack: where the injury is (a Sprained leg …)"),
            "seed": _seed("C6"),
        },
    )
)
def act(state: TableState, args: ActArgs) -> Applied:
    combat, fight = access.fight_of(state)
    r = CombatRules(state.rules)
    c = access.combatant(combat, args["combatant"], in_fight=True)
    token = _check_turn(combat, fight, c, r)
    action = ActionKind(args["action"])
    _check_action(c, action, r)
    _check_fields(args, action)
    events: list[Event] = []
    # Guard lasts until the combatant acts again (C7).
    token = replace(token, guarding=False)
    target = _target(combat, c, args) if args.get("target") is not None else None
    if action is ActionKind.AIM:
        assert target is not None
        token, more = _aim(token, target, r)
        events += more
    elif action is ActionKind.ATTACK:
        assert target is not None
        same = token.aim_target == target.id
        bonus = r.aim_bonus(token.aim) if same else 0
        if token.aim and not same:
            events.append(_aim_lost(token, f"attacked {target.name} instead"))
        token = replace(token, aim=0, aim_target=None)
        combat, more = attack.resolve(
            replace(combat, fight=fight.with_token(token)), c, target, bonus, args, r
        )
        events += more
    else:
        if token.aim and not r.aim_kept_through_other_actions:
            events.append(_aim_lost(token, action.value))
            token = replace(token, aim=0, aim_target=None)
        if action is ActionKind.GUARD:
            token = replace(token, guarding=True)
            events.append(ev.guarding({"combatant": c.id, "rule": "C7"}))
        else:
            distance = pools.speed(c, r) * r.speed_multiple(action.value)
            events.append(
                ev.moved(
                    {"combatant": c.id, "action": action.value, "distance": distance, "rule": "C7"},
                )
            )
    cost = r.cost(action.value)
    n = r.wheel_ticks
    moved = replace(token, time=token.time + cost, actions=token.actions + 1)
    events.append(
        ev.token_moved(
            {
                "combatant": c.id,
                "action": action.value,
                "cost": cost,
                "from_tick": wheel.tick_of(token.time, n),
                "to_tick": wheel.tick_of(moved.time, n),
                "round": wheel.round_of(token.time, n),
                "rule": "C4",
            },
        )
    )
    assert combat.fight is not None
    combat = replace(combat, fight=combat.fight.with_token(moved))
    combat, more = flow.settle(combat, fight, r, always=True)
    return replace(state, combat=combat), events + more


def _aim(token: WheelToken, target: Combatant, r: CombatRules) -> tuple[WheelToken, list[Event]]:
    """One more tick of Aim at ``target`` (C5), at most ``max_ticks``."""
    events: list[Event] = []
    if token.aim_target == target.id:
        if token.aim >= r.aim_max_ticks:
            raise CommandRejected(
                f"already aimed {token.aim} ticks at {target.name}: Aim counts up to"
                f" {r.aim_max_ticks}",
                rule="C5",
                field="action",
                fix="attack now, or take another action",
            )
        ticks = token.aim + 1
    else:
        if token.aim:
            events.append(_aim_lost(token, f"aimed at {target.name} instead"))
        ticks = 1
    token = replace(token, aim=ticks, aim_target=target.id)
    events.append(
        ev.aimed(
            {
                "combatant": token.combatant,
                "target": target.id,
                "ticks": ticks,
                "bonus": r.aim_bonus(ticks),
                "rule": "C5",
            },
        )
    )
    return token, events


# --- sight, end ----------------------------------------------------------------------


@command(
    CommandSpec(
        "target_leaves_sight",
        "A target leaves sight: Aim at it is lost (everyone's, or one combatant's).",
        "combat",
        ("C5",),
        {
            "target": Field("string", "the combatant who left sight", True),
            "combatant": Field("string", "only this combatant loses sight (default: everyone)"),
        },
    )
)
def target_leaves_sight(state: TableState, args: TargetLeavesSightArgs) -> Applied:
    combat, fight = access.fight_of(state)
    target = access.combatant(combat, args["target"], "target", in_fight=True)
    who = None
    if args.get("combatant") is not None:
        who = access.combatant(combat, args["combatant"], in_fight=True).id
    losing = [
        t
        for t in fight.tokens
        if t.aim and t.aim_target == target.id and (who is None or t.combatant == who)
    ]
    if not losing:
        raise CommandRejected(
            f"nobody{' of those named' if who else ''} is aiming at {target.name}",
            rule="C5",
            field="combatant" if who else "target",
            fix="nothing to lose",
        )
    events = []
    for t in losing:
        events.append(_aim_lost(t, "target left sight"))
        fight = fight.with_token(replace(t, aim=0, aim_target=None))
    return replace(state, combat=replace(combat, fight=fight)), events


@command(
    CommandSpec(
        "end_combat",
        "End the fight: tokens leave the wheel; injuries, armour wear, conditions and renown stay.",
        "combat",
        ("C2",),
    )
)
def end_combat(state: TableState, args: EndCombatArgs) -> Applied:
    combat, fight = access.fight_of(state)
    n = CombatRules(state.rules).wheel_ticks
    fighters = [combat.roster[t.combatant] for t in fight.tokens]
    event = ev.combat_ended(
        {
            "fight": fight.number,
            "rounds": wheel.round_of(fight.now, n),
            "survivors": [c.id for c in fighters if not c.dead],
            "dead": [c.id for c in fighters if c.dead],
            "injuries": {c.id: c.injury_count for c in fighters},
            "rule": "C2",
        },
    )
    return replace(state, combat=replace(combat, fight=None)), [event]
