"""One Attack, resolved: ATTACK vs DEFENSE, then DAMAGE through armour vs FORTITUDE (C6–C9).

The dice come from the command — physical dice typed in, or rolled from its
seed, in the order ATTACK, DEFENSE, DAMAGE, FORTITUDE — and every value goes
into the events, so a replay is exact. Refusals come before any change: a
wrong number of dice names the pool, its size and why.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.combat import afflictions, dice, pools
from engine.combat.rules import CombatRules
from engine.combat.state import Combat, Combatant, Injury, WheelToken
from engine.contracts import events as ev
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace

DICE_FIELDS = ("attack_dice", "defense_dice", "damage_dice", "fortitude_dice")


@dataclass(frozen=True, slots=True)
class _Rolls:
    """Where one attack's dice come from: typed in (``args``) or rolled from its seed, in the
    order ATTACK, DEFENSE, DAMAGE, FORTITUDE (one ``rng`` for all four)."""

    args: Mapping[str, Any]
    rng: random.Random | None
    r: CombatRules


def _dice(
    args: Mapping[str, Any],
    key: str,
    count: int,
    rng: random.Random | None,
    rule: str,
    what: str,
) -> tuple[tuple[int, ...], bool]:
    given = args.get(key)
    if given is not None:
        return dice.entered(given, count, field=key, rule=rule, what=what), False
    if count == 0:
        return (), False
    if rng is None:
        raise CommandRejected(
            f"{what}: roll {dice.many(count)}",
            rule=rule,
            field=key,
            fix=f'add "{key}": [{count} values 1–6], or a "seed" to roll them',
        )
    return dice.roll(rng, count), True


def resolve(
    combat: Combat,
    attacker: Combatant,
    target: Combatant,
    aim_bonus: int,
    args: Mapping[str, Any],
    r: CombatRules,
) -> tuple[Combat, list[Event]]:
    """Resolve an attack; return the combat with armour worn and injuries taken.

    The ATTACK vs DEFENSE roll (C6) decides whether there is any damage; only then are the
    DAMAGE and FORTITUDE dice asked for (C8), so a miss takes none. Everything that can be
    refused is refused before the combat changes.
    """
    injury_kind = _injury_kind(attacker, args, r)
    rolls = _Rolls(args, None if args.get("seed") is None else random.Random(args["seed"]), r)
    guard = _guard(combat, target, r)
    opposed, attack_event = _attack_roll(attacker, target, guard, aim_bonus, rolls)
    if opposed.attacker_successes == 0:
        _refuse_damage_dice(args)
        return combat, [attack_event]
    target, hits, damage_event = _damage_roll(attacker, target, opposed, rolls)
    combat = combat.with_combatant(target)
    events = [attack_event, damage_event]
    if hits:
        injury = Injury(injury_kind, hits, args.get("detail"), attacker.id)
        combat, more = afflictions.injure(combat, target, injury, r)
        events += more
    return combat, events


def _injury_kind(attacker: Combatant, args: Mapping[str, Any], r: CombatRules) -> str:
    """The injury a hit deals: the weapon's, unless the command names another (C9)."""
    if args.get("injury") is not None:
        return afflictions.injury_type_of(r, args["injury"], "injury")
    return attacker.weapon.injury


def _guard(combat: Combat, target: Combatant, r: CombatRules) -> int:
    """Guard's automatic DEFENSE successes: only for a target whose token is guarding."""
    fight = combat.fight
    assert fight is not None
    target_token = fight.token(target.id)
    assert isinstance(target_token, WheelToken)
    return r.guard_dice if target_token.guarding else 0


def _attack_roll(
    attacker: Combatant, target: Combatant, guard: int, aim_bonus: int, rolls: _Rolls
) -> tuple[dice.Comparison, Event]:
    """C6: the ATTACK pool against the target's DEFENSE (its best, unless the command names
    one), Guard's automatic successes and Aim's bonus included; the comparison and its event."""
    args, rng, r = rolls.args, rolls.rng, rolls.r
    kind = args.get("defense") or pools.best_defense(target, r)
    a_pool = pools.attack_pool(attacker, r, args.get("bonus_dice") or 0)
    if a_pool > r.max_pool:
        raise CommandRejected(
            f"an ATTACK roll of {a_pool} dice is more than the table allows ({r.max_pool})",
            rule="C6",
            field="bonus_dice",
            fix="check the bonus dice (rules combat.attack.max_pool sets the limit)",
        )
    d_pool = pools.defense_pool(target, r, kind)
    attack, a_rolled = _dice(args, "attack_dice", a_pool, rng, "C6", "the ATTACK roll")
    defense, d_rolled = _dice(args, "defense_dice", d_pool, rng, "C6", f"the {kind.upper()} roll")
    opposed = dice.compare(attack, defense, auto=guard, bonus=aim_bonus, **r.flags())
    event = ev.attack_resolved(
        {
            "attacker": attacker.id,
            "target": target.id,
            "defense": kind,
            "attack_dice": list(attack),
            "defense_dice": list(defense),
            "rolled": [k for k, v in (("attack", a_rolled), ("defense", d_rolled)) if v],
            "aim_bonus": aim_bonus,
            "guard": guard,
            "sorted_attack": list(opposed.attacker),
            "sorted_defense": list(opposed.defender),
            "pairs": [list(p) for p in opposed.pairs],
            "attacker_successes": opposed.attacker_successes,
            "defender_successes": opposed.defender_successes,
            "rule": "C6",
        },
    )
    return opposed, event


def _refuse_damage_dice(args: Mapping[str, Any]) -> None:
    """C6: a miss has no DAMAGE or FORTITUDE roll, so dice typed in for one are a mistake
    (the table rolled them for nothing, or the attack was entered wrong)."""
    for key in ("damage_dice", "fortitude_dice"):
        if args.get(key) is not None:
            raise CommandRejected(
                "no attacker success: no DAMAGE or FORTITUDE roll",
                rule="C6",
                field=key,
                fix=f"leave out {key}",
            )


def _damage_roll(
    attacker: Combatant, target: Combatant, opposed: dice.Comparison, rolls: _Rolls
) -> tuple[Combatant, int, Event]:
    """C8: DAMAGE (the weapon plus dice for successes) against FORTITUDE, armour first
    removing dice and wearing down; the defender's successes negate hits. The target with its
    armour worn, the injuries dealt, and the event."""
    args, rng, r = rolls.args, rolls.rng, rolls.r
    dmg_pool = pools.damage_pool(attacker, r, opposed.attacker_successes)
    fort_pool = pools.fortitude_pool(target, r)
    damage, m_rolled = _dice(
        args,
        "damage_dice",
        dmg_pool,
        rng,
        "C8",
        f"the DAMAGE roll ({attacker.weapon.damage} {attacker.weapon.name}"
        f" + {dmg_pool - attacker.weapon.damage} for successes)",
    )
    fortitude, f_rolled = _dice(
        args,
        "fortitude_dice",
        fort_pool,
        rng,
        "C8",
        f"the FORTITUDE roll ({target.fortitude} less {target.fortitude - fort_pool}"
        " for injuries and conditions)",
    )
    soaked = pools.armour_dice(target, r)
    hurt = dice.compare(damage, fortitude, drop=soaked, **r.flags("damage"))
    hits = max(0, hurt.attacker_successes - opposed.defender_successes)
    armour = replace(target.armour, durability=target.armour.durability - len(hurt.removed))
    event = ev.damage_resolved(
        {
            "attacker": attacker.id,
            "target": target.id,
            "damage_dice": list(damage),
            "fortitude_dice": list(fortitude),
            "rolled": [k for k, v in (("damage", m_rolled), ("fortitude", f_rolled)) if v],
            "armour": armour.name,
            "armour_removed": list(hurt.removed),
            "sorted_damage": list(hurt.attacker),
            "armour_durability": armour.durability,
            "pairs": [list(p) for p in hurt.pairs],
            "hits": hurt.attacker_successes,
            "negated": min(hurt.attacker_successes, opposed.defender_successes),
            "injuries": hits,
            "rule": "C8",
        },
    )
    return replace(target, armour=armour), hits, event
