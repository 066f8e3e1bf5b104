"""The ``combat`` key of the table view: the wheel as a panel or an overlay draws it.

``None`` when no fight is running. Otherwise the round, the tick now acting,
who acts (in order), each tick's tokens, and one entry per combatant with the
keys the display builds on: id, name, tick, initiative, injuries,
injury_list, conditions, armour, aim, guarding, dead (and a few more).
"""

from __future__ import annotations

from engine.combat import pools, wheel
from engine.combat.forecast import attack_forecast
from engine.combat.rules import CombatRules
from engine.combat.state import ARITY
from engine.contracts.view import (
    CombatActionView,
    CombatantView,
    CombatTerms,
    CombatView,
    ForecastView,
    RosterEntry,
)
from engine.state import TableState
from engine.view import answer, view_section


@view_section("combat")
def combat_view(state: TableState) -> CombatView | None:
    combat = state.combat
    if combat is None or combat.fight is None:
        return None
    fight = combat.fight
    r = CombatRules(state.rules)
    n = r.wheel_ticks
    ticks: dict[str, list[str]] = {str(t): [] for t in range(1, n + 1)}
    combatants: list[CombatantView] = []
    for t in fight.tokens:
        c = combat.roster[t.combatant]
        tick = wheel.tick_of(t.time, n)
        ticks[str(tick)].append(c.id)
        combatants.append(
            {
                "id": c.id,
                "name": c.name,
                "side": c.side,
                "tick": tick,
                "round": wheel.round_of(t.time, n),
                "initiative": t.initiative,
                "injuries": c.injury_count,
                "death_limit": pools.death_limit(c, r),
                "injury_list": [
                    {"type": i.type, "hits": i.hits, "detail": i.detail, "source": i.source}
                    for i in c.injuries
                ],
                "conditions": [
                    {"name": k.name, "level": k.level, "attribute": k.attribute}
                    for k in c.conditions
                ],
                "armour": {
                    "name": c.armour.name,
                    "reduction": c.armour.reduction,
                    "durability": c.armour.durability,
                },
                "aim": t.aim,
                "aim_target": t.aim_target,
                "aim_bonus": r.aim_bonus(t.aim),
                "guarding": t.guarding,
                "dead": c.dead,
                "can_act": pools.can_act(c, r),
                "fortitude_dice": pools.fortitude_pool(c, r),
                "speed": pools.speed(c, r),
                "renown": c.renown,
            }
        )
    acting = wheel.acting(combat, fight, r)
    none: list[ForecastView] = []
    forecast, status = answer(
        "forecast", lambda: forecasts(state, acting[0]) if acting else none, none
    )
    return {
        "fight": fight.number,
        "round": wheel.round_of(fight.now, n),
        "tick": wheel.tick_of(fight.now, n),
        "acting": acting,
        "wheel": ticks,
        "combatants": combatants,
        "forecast": forecast,
        "forecast_status": status,
        "actions": actions(r),
    }


def actions(r: CombatRules) -> list[CombatActionView]:
    """Each action, what it takes (ARITY, the ``act`` command's own table) and its cost (C1)."""
    return [
        {
            "action": kind.value,
            "target": arity.target,
            "rolls": arity.rolls,
            "ticks": r.cost(kind.value),
            "rule": arity.rule,
        }
        for kind, arity in ARITY.items()
    ]


def forecasts(state: TableState, attacker: str) -> list[ForecastView]:
    """Exact odds of an Attack by the combatant whose turn it is, on each foe it could pick
    (C6, C8, C9): shown while the attacker declares. Its Aim target first, then the likeliest
    to be hurt. Foes: living combatants on another side (any other, when sides are not set)."""
    combat = state.combat
    assert combat is not None
    me = combat.roster[attacker]
    out: list[ForecastView] = []
    for c in combat.roster.values():
        if c.id == attacker or c.dead or (me.side is not None and c.side == me.side):
            continue
        f = attack_forecast(state, attacker, c.id)
        out.append(
            {
                "attacker": attacker,
                "target": c.id,
                "target_name": c.name,
                "damage": round(1 - f["no_damage"], 4),
                "expected_injuries": round(f["expected_injuries"], 3),
                "death": round(f["death"], 4),
                "aim_bonus": f["aim_bonus"],
                "guard": f["guard"],
            }
        )
    token = combat.fight.token(attacker) if combat.fight else None
    aimed = token.aim_target if token else None
    out.sort(key=lambda x: (x["target"] != aimed, -x["damage"], x["target"]))
    return out


@view_section("roster")
def roster_view(state: TableState) -> list[RosterEntry]:
    """Every combatant of the roster, in or out of a fight: whom a fight can start with or take
    in (C2, I-C3b). Empty when the table has none."""
    combat = state.combat
    if combat is None:
        return []
    fight = combat.fight
    return [
        {
            "id": c.id,
            "name": c.name,
            "side": c.side,
            "hero": c.hero,
            "dead": c.dead,
            "in_fight": fight is not None and fight.token(c.id) is not None,
            "injuries": c.injury_count,
            "injury_list": [
                {"type": i.type, "hits": i.hits, "detail": i.detail, "source": i.source}
                for i in c.injuries
            ],
            "conditions": [
                {"name": k.name, "level": k.level, "attribute": k.attribute} for k in c.conditions
            ],
            "reflex": c.reflex,
            "renown": c.renown,
        }
        for c in combat.roster.values()
    ]


@view_section("combat_terms")
def combat_terms_view(state: TableState) -> CombatTerms:
    """The injury types (C9) and conditions (C10) this table's rules know: what a remote offers
    for ``injure``'s type or ``add_combat_condition``'s condition instead of a blank field."""
    r = CombatRules(state.rules)
    return {"injuries": list(r.injury_types), "conditions": list(r.condition_names)}
