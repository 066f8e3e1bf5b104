"""d6 pools: rolling from a seed, checking entered physical dice, and the opposed comparison.

Every opposed roll in combat (ATTACK vs DEFENSE, DAMAGE vs FORTITUDE) is one
comparison: both pools sorted highest first and compared pair by pair (C6, C8).
The knobs are the interpretations in the rules data: ties (I-C6), a die with no
opposing die (I-C6a), Guard's always-winning dice (I-C7), the Aim bonus on the
highest die (I-C5) and armour removing the highest DAMAGE dice (I-C8).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import CommandRejected

FACES = 6

#: how a Guard die is written in events: it beats any die (I-C7)
GUARD_DIE = "guard"


def many(count: int, what: str = "") -> str:
    """``1 die``, ``3 dice``, ``2 REFLEX dice``: a count of dice in words.

    >>> many(1), many(5), many(1, "REFLEX")
    ('1 die', '5 dice', '1 REFLEX die')
    """
    kind = f"{what} " if what else ""
    return f"{count} {kind}{'die' if count == 1 else 'dice'}"


def roll(rng: random.Random, count: int) -> tuple[int, ...]:
    """``count`` d6 from ``rng`` (the caller's seeded generator keeps replays exact)."""
    return tuple(rng.randint(1, FACES) for _ in range(count))


def entered(values: Any, count: int, *, field: str, rule: str, what: str) -> tuple[int, ...]:
    """Check physical dice typed in for a pool of ``count`` d6; refuse with the rule id."""
    if not isinstance(values, list | tuple) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise CommandRejected(
            f"{what}: dice must be a list of whole numbers",
            rule=rule,
            field=field,
            fix=f"give {count} values from 1 to {FACES}",
        )
    bad = [v for v in values if not 1 <= v <= FACES]
    if bad:
        raise CommandRejected(
            f"{what}: {bad[0]} is not a d6 face",
            rule=rule,
            field=field,
            fix=f"every die shows 1 to {FACES}",
        )
    if len(values) != count:
        raise CommandRejected(
            f"{what} is {many(count)}, {len(values)} given",
            rule=rule,
            field=field,
            fix=f"give exactly {count} value{'' if count == 1 else 's'}"
            if count
            else f"leave out {field}: no dice to roll",
        )
    return tuple(int(v) for v in values)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One opposed roll, compared.

    ``attacker`` is the sorted attacker pool after armour removed its highest
    dice and after the Aim bonus; ``defender`` the sorted defender pool with
    Guard dice first. ``pairs`` lists ``(attacker die, defender die, winner)``
    with ``None`` for a missing die and ``winner`` ``"attacker"``,
    ``"defender"`` or ``None`` (an unmatched die that counts for nobody).
    """

    attacker: tuple[int, ...]
    defender: tuple[int | str, ...]
    removed: tuple[int, ...]
    pairs: tuple[tuple[int | None, int | str | None, str | None], ...]
    attacker_successes: int
    defender_successes: int


def compare(
    attacker: Sequence[int],
    defender: Sequence[int],
    *,
    auto: int = 0,
    bonus: int = 0,
    drop: int = 0,
    ties_to_attacker: bool = False,
    unmatched_wins: bool = True,
) -> Comparison:
    """Sort both pools highest first and compare pairwise (C6, C8).

    ``auto`` Guard dice go first in the defender's roll and always win (I-C7);
    ``drop`` removes the attacker's highest dice (armour, I-C8); ``bonus`` is
    added to the attacker's highest remaining die (Aim, I-C5).
    """
    if bonus < 0 or drop < 0 or auto < 0:
        raise ValueError("bonus, drop and auto are never negative")
    ordered = sorted(attacker, reverse=True)
    removed, att = tuple(ordered[:drop]), ordered[drop:]
    if att and bonus:
        att[0] += bonus
    dfn: list[int | str] = [GUARD_DIE] * auto
    dfn += sorted(defender, reverse=True)
    pairs: list[tuple[int | None, int | str | None, str | None]] = []
    a_wins = d_wins = 0
    for i in range(max(len(att), len(dfn))):
        a = att[i] if i < len(att) else None
        d = dfn[i] if i < len(dfn) else None
        winner: str | None
        if a is None or d is None:
            winner = None if not unmatched_wins else ("attacker" if d is None else "defender")
        elif d == GUARD_DIE:
            winner = "defender"
        else:
            assert isinstance(d, int)
            beats = a >= d if ties_to_attacker else a > d
            winner = "attacker" if beats else "defender"
        a_wins += winner == "attacker"
        d_wins += winner == "defender"
        pairs.append((a, d, winner))
    return Comparison(tuple(att), tuple(dfn), removed, tuple(pairs), a_wins, d_wins)
