"""How many dice a combatant rolls right now, and what it may do (C6–C10).

Every pool is an attribute less what the combatant's state takes away: the
dice lost to conditions (C10), a curse on that attribute, and for FORTITUDE a
die per injury and per Fatigued level (C8, C10). Pools never go below zero.
"""

from __future__ import annotations

from engine.combat.rules import CombatRules
from engine.combat.state import Combatant


def condition_dice(c: Combatant, r: CombatRules) -> int:
    """Dice lost from ATTACK and DEFENSE rolls to conditions such as Blinded (C10)."""
    return sum(int(r.condition(k.name)["dice"]) * k.level for k in c.conditions)


def curse_dice(c: Combatant, r: CombatRules, attribute: str) -> int:
    """Dice a curse takes from one attribute (C10 Cursed)."""
    return sum(
        int(r.condition(k.name)["attribute_dice"]) * k.level
        for k in c.conditions
        if k.attribute == attribute
    )


def attack_pool(c: Combatant, r: CombatRules, bonus_dice: int = 0) -> int:
    """ATTACK dice: the weapon's attribute (usually MIGHT) plus aptitude bonuses (C6)."""
    attr = c.weapon.attribute
    lost = condition_dice(c, r) + curse_dice(c, r, attr)
    return max(0, c.attribute(attr) - lost + bonus_dice)


def defense_pool(c: Combatant, r: CombatRules, kind: str) -> int:
    """DEFENSE dice with DODGE or PARRY (C6)."""
    return max(0, c.attribute(kind) - condition_dice(c, r) - curse_dice(c, r, kind))


def best_defense(c: Combatant, r: CombatRules) -> str:
    """The defense a combatant rolls when not told: the rules' default, or the larger pool."""
    choice = r.default_defense
    if choice != "best":
        return choice
    return "parry" if defense_pool(c, r, "parry") > defense_pool(c, r, "dodge") else "dodge"


def fortitude_pool(c: Combatant, r: CombatRules) -> int:
    """FORTITUDE dice: −1 per injury (C8), per Fatigued level (C10), and per curse die."""
    lost = c.injury_count * r.fortitude_dice_per_injury
    lost += sum(int(r.condition(k.name)["fortitude_dice"]) * k.level for k in c.conditions)
    lost += curse_dice(c, r, "fortitude")
    return max(0, c.fortitude - lost)


def damage_pool(c: Combatant, r: CombatRules, successes: int) -> int:
    """DAMAGE dice: the weapon's dice plus one per attacker success (C6)."""
    return c.weapon.damage + successes * r.damage_dice_per_success


def armour_dice(c: Combatant, r: CombatRules) -> int:
    """DAMAGE dice the armour removes (I-C8), no more than its durability left (I-C8a)."""
    a = c.armour
    return min(a.reduction, a.durability) if r.armour_limited_by_durability else a.reduction


def reflex_pool(c: Combatant, r: CombatRules) -> int:
    """REFLEX dice for initiative and roll-offs (C3)."""
    return max(0, c.reflex - curse_dice(c, r, "reflex"))


def initiative_penalty(c: Combatant, r: CombatRules) -> int:
    """Flat penalty to the REFLEX initiative score (Frostbite: per hit, C9)."""
    return sum(int(r.injury(i.type)["initiative_penalty"]) * i.hits for i in c.injuries)


def speed(c: Combatant, r: CombatRules) -> int:
    """Speed after injuries (a Sprained leg halves it, C9)."""
    value = c.speed
    for kind in sorted({i.type for i in c.injuries}):
        rule = r.injury(kind)
        divisor = int(rule["speed_divisor"])
        detail = str(rule["speed_detail"])
        if divisor > 1 and any(i.type == kind and (i.detail or "") == detail for i in c.injuries):
            value //= divisor
    return value


def death_limit(c: Combatant, r: CombatRules) -> int:
    """Injuries a combatant survives: more than this and it dies (C9)."""
    return r.death_multiplier * c.fortitude


def incapacitating(c: Combatant, r: CombatRules) -> str | None:
    """The condition that keeps the combatant from acting (I-C10a), if any."""
    for k in c.conditions:
        if not r.condition(k.name)["acts"]:
            return k.name
    return None


def can_act(c: Combatant, r: CombatRules) -> bool:
    return not c.dead and incapacitating(c, r) is None


def lying_down(c: Combatant, r: CombatRules) -> str | None:
    """The condition that keeps the combatant off its feet (Prone, Unconscious), if any."""
    for k in c.conditions:
        if not r.condition(k.name)["standing"]:
            return k.name
    return None


def blocking(c: Combatant, r: CombatRules, action: str) -> str | None:
    """The condition that forbids ``action`` (Blinded: no Aim; Panicked: only move), if any."""
    for k in c.conditions:
        if action in r.condition(k.name)["blocks"]:
            return k.name
    return None
