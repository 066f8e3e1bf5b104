"""The tick loop (C2, C4, I-C3, I-C10a): who acts now, and where play goes next.

Time is counted in ticks from the start of the fight, so the wheel never needs
"laps": a token at time *t* sits on tick ``(t-1) % 6 + 1`` of round
``(t-1) // 6 + 1``. No action costs more than a full turn of the wheel (the
rules check refuses such costs), so this is the same as moving tokens round a
physical wheel — play simply moves to the smallest time holding a waiting token. Tokens sharing a tick act in starting
initiative order (I-C3, roll-offs C3).

A token whose combatant is dead or cannot act (I-C10a) does not wait: play
passes it by. When it can act again it waits on the tick now acting.
"""

from __future__ import annotations

from engine.combat import pools
from engine.combat.rules import CombatRules
from engine.combat.state import Combat, Fight, WheelToken
from engine.immutable import replace


def tick_of(time: int, ticks: int) -> int:
    """The wheel's tick (1…ticks) for a time counted from 1 (C2)."""
    return (time - 1) % ticks + 1


def round_of(time: int, ticks: int) -> int:
    return (time - 1) // ticks + 1


def place(ranked: list[tuple[str, int]], ticks: int) -> tuple[WheelToken, ...]:
    """Starting tokens from ``(combatant, initiative)`` ranked first to last (C3, I-C3).

    The highest initiative goes on tick 1; each lower distinct value on the next
    tick, wrapping after the last; equal values share a tick.
    """
    tokens = []
    step = -1
    previous: int | None = None
    for order, (combatant, score) in enumerate(ranked):
        if score != previous:
            step += 1
            previous = score
        tokens.append(WheelToken(combatant, step % ticks + 1, score, order))
    return tuple(tokens)


def waiting(combat: Combat, r: CombatRules, token: WheelToken) -> bool:
    return pools.can_act(combat.roster[token.combatant], r)


def settle(combat: Combat, fight: Fight, r: CombatRules) -> Fight:
    """Bring tokens that can act again up to now, then move play to the next waiting token (C4)."""
    tokens = tuple(
        replace(t, time=fight.now) if t.time < fight.now and waiting(combat, r, t) else t
        for t in fight.tokens
    )
    times = [t.time for t in tokens if waiting(combat, r, t)]
    now = min(times) if times else fight.now
    return replace(fight, tokens=tokens, now=now)


def acting(combat: Combat, fight: Fight, r: CombatRules) -> list[str]:
    """Whose turn it is, first to last: tokens waiting on the tick now acting."""
    return [t.combatant for t in fight.tokens if t.time == fight.now and waiting(combat, r, t)]
