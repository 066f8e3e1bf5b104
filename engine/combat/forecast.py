"""Exact odds of an attack between two combatants as the table stands (C5–C9).

:func:`attack_forecast` reads the pools, Guard, Aim and armour from the state and
hands them to the exact calculation in :mod:`engine.combat.odds`. The ``combat``
view (:func:`engine.combat.view.forecasts`) calls it for the combatant acting now
against each foe, so the panel shows the odds while the attacker declares.
"""

from __future__ import annotations

from typing import Any

from engine.combat import pools
from engine.combat.odds import AttackOdds, attack_odds
from engine.combat.rules import CombatRules
from engine.errors import CommandRejected
from engine.state import TableState


def attack_forecast(
    state: TableState,
    attacker: str,
    target: str,
    defense: str | None = None,
    bonus_dice: int = 0,
) -> dict[str, Any]:
    """What an attack by ``attacker`` on ``target`` would do, exactly, as JSON data.

    Includes the pools used and the chance that the target dies (C9).
    """
    combat = state.combat
    if combat is None or attacker not in combat.roster or target not in combat.roster:
        raise CommandRejected("unknown combatant", field="target", code="unknown")
    r = CombatRules(state.rules)
    a, t = combat.roster[attacker], combat.roster[target]
    fight = combat.fight
    a_token = fight.token(attacker) if fight else None
    t_token = fight.token(target) if fight else None
    kind = defense or pools.best_defense(t, r)
    aim = r.aim_bonus(a_token.aim) if a_token and a_token.aim_target == target else 0
    guard = r.guard_dice if t_token and t_token.guarding else 0
    setup = {
        "attack": pools.attack_pool(a, r, bonus_dice),
        "defense": pools.defense_pool(t, r, kind),
        "damage": a.weapon.damage,
        "fortitude": pools.fortitude_pool(t, r),
        "guard": guard,
        "aim_bonus": aim,
        "armour": pools.armour_dice(t, r),
    }
    odds: AttackOdds = attack_odds(
        setup["attack"],
        setup["defense"],
        damage=setup["damage"],
        fortitude=setup["fortitude"],
        guard=guard,
        aim_bonus=aim,
        armour=setup["armour"],
        extra_damage_per_success=r.damage_dice_per_success,
        ties_to_attacker=r.ties_to_attacker,
        unmatched_wins=r.unmatched_wins("attack"),
        damage_unmatched_wins=r.unmatched_wins("damage"),
    )
    survive = pools.death_limit(t, r) - t.injury_count
    return {
        "attacker": attacker,
        "target": target,
        "defense_kind": kind,
        **setup,
        **odds.to_json(),
        "death": float(odds.at_least(survive + 1)) if not t.dead else 0.0,
    }
