"""One Attack, resolved: ATTACK vs DEFENSE, then DAMAGE through armour vs FORTITUDE (C6–C9).

The dice come from the command — physical dice typed in, or rolled from its
seed, in the order ATTACK, DEFENSE, DAMAGE, FORTITUDE — and every value goes
into the events, so a replay is exact. Refusals come before any change: a
wrong number of dice names the pool, its size and why.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.combat import afflictions, dice, pools
from engine.combat.rules import CombatRules
from engine.combat.state import Combat, Combatant, Injury, WheelToken
from engine.contracts import events as ev
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace

DICE_FIELDS = ("attack_dice", "defense_dice", "damage_dice", "fortitude_dice")


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
            f"{what}: roll {count} dice",
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
    """Resolve an attack; return the combat with armour worn and injuries taken."""
    fight = combat.fight
    assert fight is not None
    target_token = fight.token(target.id)
    assert isinstance(target_token, WheelToken)
    kind = args.get("defense") or pools.best_defense(target, r)
    guard = r.guard_dice if target_token.guarding else 0
    injury_kind = attacker.weapon.injury
    if args.get("injury") is not None:
        injury_kind = afflictions.injury_type_of(r, args["injury"], "injury")
    rng = None if args.get("seed") is None else random.Random(args["seed"])
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
    events = [
        ev.attack_resolved(
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
    ]
    successes = opposed.attacker_successes
    if successes == 0:
        for key in ("damage_dice", "fortitude_dice"):
            if args.get(key) is not None:
                raise CommandRejected(
                    "no attacker success: no DAMAGE or FORTITUDE roll",
                    rule="C6",
                    field=key,
                    fix=f"leave out {key}",
                )
        return combat, events
    dmg_pool = pools.damage_pool(attacker, r, successes)
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
    removed = len(hurt.removed)
    armour = replace(target.armour, durability=target.armour.durability - removed)
    target = replace(target, armour=armour)
    events.append(
        ev.damage_resolved(
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
    )
    combat = combat.with_combatant(target)
    if hits:
        injury = Injury(injury_kind, hits, args.get("detail"), attacker.id)
        combat, more = afflictions.injure(combat, target, injury, r)
        events += more
    return combat, events
