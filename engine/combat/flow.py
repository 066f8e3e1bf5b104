"""After every combat change: settle the wheel and say what happens next (C4, C9).

Play moves to the next tick holding a waiting token; crossing into a new round
prompts the per-round FORTITUDE saves of Bleeding, Burned and Poisoned (C9).
"""

from __future__ import annotations

from engine.combat import pools, wheel
from engine.combat.rules import CombatRules
from engine.combat.state import Combat, Fight
from engine.contracts import events as ev
from engine.events import Event
from engine.immutable import replace


def turn_event(combat: Combat, fight: Fight, r: CombatRules) -> Event:
    n = r.wheel_ticks
    return ev.combat_turn(
        {
            "round": wheel.round_of(fight.now, n),
            "tick": wheel.tick_of(fight.now, n),
            "acting": wheel.acting(combat, fight, r),
            "rule": "C4",
        },
    )


def settle(
    combat: Combat, before: Fight | None, r: CombatRules, *, always: bool = False
) -> tuple[Combat, list[Event]]:
    """Move play on after a change; report the new turn (when it changed, or ``always``)."""
    fight = combat.fight
    if fight is None:
        return combat, []
    fight = wheel.settle(combat, fight, r)
    combat = replace(combat, fight=fight)
    events: list[Event] = []
    n = r.wheel_ticks
    if before is not None and wheel.round_of(fight.now, n) > wheel.round_of(before.now, n):
        events += round_events(combat, fight, r)
    changed = before is None or (
        (before.now, wheel.acting(combat, before, r)) != (fight.now, wheel.acting(combat, fight, r))
    )
    if always or changed:
        events.append(turn_event(combat, fight, r))
    return combat, events


def round_events(combat: Combat, fight: Fight, r: CombatRules) -> list[Event]:
    events = [ev.combat_round({"round": wheel.round_of(fight.now, r.wheel_ticks), "rule": "C2"})]
    for t in fight.tokens:
        c = combat.roster[t.combatant]
        if c.dead:
            continue
        for kind in r.injury_types:
            hits = c.hits_of(kind)
            if hits and r.injury(kind)["round_save"]:
                events.append(
                    ev.injury_save_prompt(
                        {
                            "combatant": c.id,
                            "injury": kind,
                            "hits": hits,
                            "fortitude_dice": pools.fortitude_pool(c, r),
                            "rule": "C9",
                        },
                    )
                )
    return events
