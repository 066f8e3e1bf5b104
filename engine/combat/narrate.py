"""Combat events in plain words (the replay log, the demo, the GM's console)."""

from __future__ import annotations

from typing import Any

from engine.contracts import events as ev
from engine.narrate import say
from engine.state import TableState


def _name(state: TableState, cid: str | None) -> str:
    if cid is None:
        return "?"
    if state.combat is not None and cid in state.combat.roster:
        return state.combat.roster[cid].name
    return cid


def _dice(values: list[Any]) -> str:
    return " ".join(str(v) for v in values) or "—"


def _sorted(values: list[int]) -> str:
    return _dice(sorted(values, reverse=True))


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _turn(s: TableState, d: ev.CombatTurn) -> str:
    who = ", ".join(_name(s, c) for c in d["acting"]) or "nobody can act"
    return f"— round {d['round']}, tick {d['tick']}: {who}"


def _attack(s: TableState, d: ev.AttackResolved) -> str:
    extras = []
    if d["aim_bonus"]:
        extras.append(f"Aim +{d['aim_bonus']}")
    if d["guard"]:
        extras.append("Guard")
    extra = f" ({', '.join(extras)})" if extras else ""
    return (
        f"{_name(s, d['attacker'])} attacks {_name(s, d['target'])}{extra}:"
        f" ATTACK {_dice(d['sorted_attack'])} vs {d['defense'].upper()} {_dice(d['sorted_defense'])}"
        f" → {_plural(d['attacker_successes'], 'success', 'successes')}"
        f" against {d['defender_successes']}" + ("" if d["attacker_successes"] else " — no damage")
    )


def _damage(s: TableState, d: ev.DamageResolved) -> str:
    armour = (
        f", {d['armour']} stops {_dice(d['armour_removed'])} (durability"
        f" {d['armour_durability']}) → {_dice(d['sorted_damage'])}"
        if d["armour_removed"]
        else ""
    )
    # the injuries the defence's successes take away (C6) are said as the defence's: after
    # "vs FORTITUDE —" a bare "2 negated" reads as if FORTITUDE, with no dice, negated them
    negated = f", {d['negated']} negated by the defence's successes" if d["negated"] else ""
    return (
        f"  DAMAGE {_sorted(d['damage_dice'])}{armour} vs FORTITUDE {_sorted(d['fortitude_dice'])}"
        f" → {_plural(d['hits'], 'hit', 'hits')}{negated}:"
        f" {_plural(d['injuries'], 'injury', 'injuries')}"
    )


say(
    ev.combat_started,
    lambda s, d: f"Fight {d['fight']} begins: {', '.join(_name(s, c) for c in d['combatants'])}",
)
say(
    ev.initiative_rolled,
    lambda s, d: (
        f"  {_name(s, d['combatant'])} rolls initiative {_sorted(d['dice'])}"
        + (f" −{d['penalty']} (frostbite)" if d["penalty"] else "")
        + f" = {d['score']}"
    ),
)
say(
    ev.rolled_off,
    lambda s, d: (
        f"  roll-off {d['roll']}: "
        + ", ".join(
            f"{_name(s, c)} {_sorted(d['dice'][c])} = {d['scores'][c]}" for c in d["combatants"]
        )
    ),
)
say(
    ev.tokens_placed,
    lambda s, d: (
        "  wheel: "
        + ", ".join(f"{_name(s, p['combatant'])} on tick {p['tick']}" for p in d["placement"])
    ),
)
say(ev.combat_turn, _turn)
say(
    ev.combatant_added,
    lambda s, d: f"{d['name']} joins the roster" + (f" ({d['side']})" if d["side"] else ""),
)
say(
    ev.combatant_joined,
    lambda s, d: (
        f"{_name(s, d['combatant'])} joins fight {d['fight']} with initiative {d['initiative']}:"
        f" waits on round {d['round']}, tick {d['tick']}"
    ),
)
say(ev.combat_round, lambda s, d: f"Round {d['round']} begins")
say(
    ev.injury_save_prompt,
    lambda s, d: (
        f"  {_name(s, d['combatant'])}: FORTITUDE save ({d['fortitude_dice']} dice)"
        f" against {d['hits']} {d['injury']} hits"
    ),
)
say(
    ev.aimed,
    lambda s, d: (
        f"{_name(s, d['combatant'])} aims at {_name(s, d['target'])}:"
        f" {d['ticks']} tick{'s' if d['ticks'] > 1 else ''}, +{d['bonus']}"
    ),
)
say(
    ev.aim_lost,
    lambda s, d: (
        f"  {_name(s, d['combatant'])} loses Aim at {_name(s, d['target'])} ({d['reason']})"
    ),
)
say(ev.attack_resolved, _attack)
say(ev.damage_resolved, _damage)
say(
    ev.combatant_injured,
    lambda s, d: (
        f"  {_name(s, d['combatant'])} takes {d['hits']} {d['injury']}"
        + (f" ({d['detail']})" if d["detail"] else "")
        + f" → {_plural(d['injuries'], 'injury', 'injuries')} (dies above {d['death_limit']}),"
        f" FORTITUDE {d['fortitude_dice']} dice"
    ),
)
say(
    ev.combatant_died,
    lambda s, d: (
        f"  {_name(s, d['combatant'])} dies ({d['injuries']} injuries, more than {d['limit']})"
    ),
)
say(ev.guarding, lambda s, d: f"{_name(s, d['combatant'])} takes a guarding stance")
say(
    ev.moved,
    lambda s, d: (
        f"{_name(s, d['combatant'])} {'dashes' if d['action'] == 'dash' else 'moves'}"
        f" {d['distance']}"
    ),
)
say(
    ev.token_moved,
    lambda s, d: (
        f"  token {d['from_tick']} → {d['to_tick']} ({d['action']}, {_plural(d['cost'], 'tick', 'ticks')})"
    ),
)
say(
    ev.injuries_healed,
    lambda s, d: f"{_name(s, d['combatant'])} heals {d['hits']} injuries → {d['injuries']}",
)
say(
    ev.condition_added,
    lambda s, d: (
        f"{_name(s, d['combatant'])} is {d['condition']}"
        + (f" ({d['attribute']})" if d["attribute"] else "")
        + (f", level {d['level']}" if d["level"] > 1 else "")
    ),
)
say(
    ev.condition_removed,
    lambda s, d: (
        f"{_name(s, d['combatant'])} "
        + (
            f"is {d['condition']} level {d['level']} now"
            if d["level"]
            else f"is no longer {d['condition']}"
        )
    ),
)
say(
    ev.renown_changed,
    lambda s, d: (
        f"{_name(s, d['combatant'])}'s renown {d['change']:+d} → {d['renown']}"
        + (f" ({d['reason']})" if d["reason"] else "")
    ),
)
say(
    ev.armour_set,
    lambda s, d: (
        f"{_name(s, d['combatant'])}'s {d['armour']}: durability {d['was']} → {d['durability']}"
        + (f" ({d['cause']})" if d["cause"] else "")
    ),
)
say(
    ev.combat_ended,
    lambda s, d: (
        f"Fight {d['fight']} ends after {d['rounds']} rounds;"
        f" standing: {', '.join(_name(s, c) for c in d['survivors']) or 'nobody'}"
        + (f"; dead: {', '.join(_name(s, c) for c in d['dead'])}" if d["dead"] else "")
    ),
)
