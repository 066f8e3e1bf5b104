"""Initiative: the REFLEX roll that places each token, and roll-offs for ties (C3, I-C3).

Dice come from the command: typed-in physical dice per combatant, or rolled
from the command's seed. Every roll is returned in the events, so a replay of
the journal places the tokens exactly as they were placed at the table.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.combat import dice, pools
from engine.combat.rules import CombatRules
from engine.combat.state import Combatant
from engine.contracts import events as ev
from engine.errors import CommandRejected
from engine.events import Event


def score(values: Sequence[int], r: CombatRules) -> int:
    """A REFLEX roll's number (I-C3a): the sum of the dice, or the highest die."""
    if not values:
        return 0
    return max(values) if r.initiative_score == "highest" else sum(values)


def _roll(
    c: Combatant,
    r: CombatRules,
    given: Any,
    rng: random.Random | None,
    field: str,
    what: str,
) -> tuple[tuple[int, ...], bool]:
    """One REFLEX roll for ``c``: the dice typed in, or rolled from the seed; (dice, rolled?)."""
    count = pools.reflex_pool(c, r)
    if given is not None:
        return dice.entered(given, count, field=field, rule="C3", what=what), False
    if count == 0:
        return (), False
    if rng is None:
        shape = f"[{count} values 1–6]" if field == "initiative" else f"[[{count} values 1–6]]"
        raise CommandRejected(
            f"{what}: roll {dice.many(count, 'REFLEX')} for {c.name}",
            rule="C3",
            field=field,
            fix=f'add "{field}": {{"{c.id}": {shape}}} or a "seed"',
        )
    return dice.roll(rng, count), True


def roll_initiative(
    fighters: Sequence[Combatant],
    r: CombatRules,
    entered: Mapping[str, Any],
    rolloffs: Mapping[str, Any],
    rng: random.Random | None,
) -> tuple[list[tuple[str, int]], list[Event]]:
    """Rank the fighters first to last with their initiative; the events record every die."""
    events: list[Event] = []
    scores: dict[str, int] = {}
    for c in fighters:
        values, rolled = _roll(c, r, entered.get(c.id), rng, "initiative", "initiative")
        penalty = pools.initiative_penalty(c, r)
        scores[c.id] = score(values, r) - penalty
        events.append(
            ev.initiative_rolled(
                {
                    "combatant": c.id,
                    "dice": list(values),
                    "penalty": penalty,
                    "score": scores[c.id],
                    "rolled": rolled,
                    "rule": "C3",
                },
            )
        )
    by_id = {c.id: c for c in fighters}
    used: dict[str, int] = {}
    ranked: list[tuple[str, int]] = []
    for value in sorted(set(scores.values()), reverse=True):
        tied = [c for c in fighters if scores[c.id] == value]
        for cid in _roll_off(tied, 0, r, rolloffs, rng, used, events):
            ranked.append((cid, value))
    for cid, rolls in rolloffs.items():
        if cid not in by_id:
            raise CommandRejected(
                f"rolloff: {cid!r} is not in this fight", rule="C3", field="rolloff", code="unknown"
            )
        if not isinstance(rolls, list | tuple) or len(rolls) > used.get(cid, 0):
            raise CommandRejected(
                f"rolloff: {by_id[cid].name} has {used.get(cid, 0)} roll-off rolls to make,"
                f" {len(rolls) if isinstance(rolls, list | tuple) else '?'} given",
                rule="C3",
                field="rolloff",
                fix="roll off only tokens with the same starting initiative, once per tie",
            )
    return ranked, events


def _roll_off(
    tied: list[Combatant],
    depth: int,
    r: CombatRules,
    rolloffs: Mapping[str, Any],
    rng: random.Random | None,
    used: dict[str, int],
    events: list[Event],
) -> list[str]:
    """Order tokens with the same starting initiative: REFLEX roll-offs until untied (C3)."""
    if len(tied) == 1:
        return [tied[0].id]
    if depth >= r.rolloff_limit or all(pools.reflex_pool(c, r) == 0 for c in tied):
        return [c.id for c in tied]  # nothing left to roll: table order stands
    rolls: dict[str, list[int]] = {}
    for c in tied:
        given = rolloffs.get(c.id)
        if given is not None and not isinstance(given, list | tuple):
            raise CommandRejected(
                "rolloff: give each combatant a list of rolls, one list of dice per roll-off",
                rule="C3",
                field="rolloff",
                code="malformed",
                fix='"rolloff": {"aria": [[5, 2]], "bren": [[3, 3]]}',
            )
        this = given[depth] if given is not None and depth < len(given) else None
        values, _ = _roll(c, r, this, rng, "rolloff", f"roll-off {depth + 1}")
        used[c.id] = depth + 1
        rolls[c.id] = list(values)
    events.append(
        ev.rolled_off(
            {
                "combatants": [c.id for c in tied],
                "roll": depth + 1,
                "dice": rolls,
                "scores": {cid: score(v, r) for cid, v in rolls.items()},
                "rule": "C3",
            },
        )
    )
    order: list[str] = []
    for value in sorted({score(v, r) for v in rolls.values()}, reverse=True):
        again = [c for c in tied if score(rolls[c.id], r) == value]
        order += _roll_off(again, depth + 1, r, rolloffs, rng, used, events)
    return order
