"""Exact odds of an attack: how many attacker successes, how many injuries (C6–C8).

Exact, not sampled, and quick enough to show on the panel while the attacker
is still declaring. The trick is a dynamic programme over the die faces, from
6 down to 1, instead of over every roll: place each pool's dice showing the
current face, and since both pools are sorted highest first, position *i* of
the pairwise comparison is won by whichever side fills it first (ties decided
by which side places a face first, I-C6). The state is (attacker dice placed,
defender dice placed) with a vector of counts by attacker successes so far, so
8d6 against 8d6 is a few thousand integer operations, not 6¹⁶ rolls. Counts
are integers over 6ⁿ and become :class:`~fractions.Fraction` only at the end.

The modifiers are the ones the engine resolves with (:func:`engine.combat.dice.compare`):
Guard's always-winning dice (I-C7), Aim's bonus on the attacker's highest die
(I-C5) and armour removing the highest DAMAGE dice (I-C8). Tests cross-check
every one against brute-force enumeration of all rolls.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.combat.dice import FACES
from engine.work import spend

_Key = tuple[int, int, int]


@functools.lru_cache(maxsize=4096)
def success_counts(
    attacker: int,
    defender: int,
    *,
    auto: int = 0,
    bonus: int = 0,
    drop: int = 0,
    ties_to_attacker: bool = False,
    unmatched_wins: bool = True,
) -> tuple[int, ...]:
    """``counts[k]``: how many of the 6^(attacker+defender) rolls give the attacker k successes.

    Same arguments as :func:`engine.combat.dice.compare` with pool sizes in
    place of dice. The defender's successes follow: :func:`compared_positions`
    minus the attacker's.
    """
    if min(attacker, defender, auto, bonus, drop) < 0:
        raise ValueError("pool sizes and modifiers are never negative")
    an = max(0, attacker - drop)
    dn = defender + auto
    total = FACES ** (attacker + defender)
    if an == 0:
        return (total,)
    # Aim only matters when the attacker's top die meets a real defender die.
    aim = bonus > 0 and dn > 0 and auto == 0
    halves = ("attacker", "defender") if ties_to_attacker else ("defender", "attacker")
    # (attacker dice placed, defender dice placed incl. Guard, pending defender top face) → counts
    states: dict[_Key, list[int]] = {(0, auto, 0): [1] + [0] * an}
    for face in range(FACES, 0, -1):
        last = face == 1
        for side in halves:
            nxt: dict[_Key, list[int]] = {}
            spend(len(states) * (an + 1))  # each state's vector, once per face and side
            for (pa, pd, pending), vec in states.items():
                if side == "defender":
                    rem = defender - (pd - auto)
                    for c in (rem,) if last else range(rem + 1):
                        top = pending
                        if aim and c and pd == 0 and pa <= drop:
                            top = face  # the defender's highest die waits for the Aimed die
                        _add(nxt, (pa, pd + c, top), vec, math.comb(rem, c), 0)
                    continue
                rem = attacker - pa
                ea = max(0, pa - drop)
                for c in (rem,) if last else range(rem + 1):
                    ea2 = max(0, pa + c - drop)
                    hi = ea2 if unmatched_wins else min(ea2, dn)
                    if aim and ea == 0 and ea2 > 0:
                        # position 0: the Aimed die (face + bonus) against the defender's top
                        if pd == 0:
                            won = 1  # the defender's top die is lower (or not placed yet)
                        else:
                            won = int(
                                face + bonus >= pending
                                if ties_to_attacker
                                else face + bonus > pending
                            )
                        delta = won + max(0, hi - max(1, pd))
                        key = (pa + c, pd, 0)
                    else:
                        delta = max(0, hi - max(ea, pd))
                        key = (pa + c, pd, pending if ea2 == 0 else 0)
                    _add(nxt, key, vec, math.comb(rem, c), delta)
            states = nxt
    counts = [0] * (an + 1)
    for vec in states.values():
        for k, n in enumerate(vec):
            counts[k] += n
    assert sum(counts) == total
    return tuple(counts)


def _add(into: dict[_Key, list[int]], key: _Key, vec: list[int], weight: int, shift: int) -> None:
    target = into.get(key)
    if target is None:
        target = into[key] = [0] * len(vec)
    for k in range(len(vec) - shift):
        n = vec[k]
        if n:
            target[k + shift] += weight * n


def compared_positions(attacker: int, defender: int, unmatched_wins: bool = True) -> int:
    """How many positions of the comparison count for someone (I-C6a)."""
    return max(attacker, defender) if unmatched_wins else min(attacker, defender)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """The exact outcome distribution of one attack.

    ``successes[k]`` is P(k attacker successes); ``injuries[n]`` is P(n injuries
    after armour, FORTITUDE and the defender's negating successes).
    """

    successes: tuple[Fraction, ...]
    injuries: tuple[Fraction, ...]

    @property
    def no_damage(self) -> Fraction:
        """C6: no attacker success, so no DAMAGE roll at all."""
        return self.successes[0]

    @property
    def no_injury(self) -> Fraction:
        return self.injuries[0]

    @property
    def expected_injuries(self) -> Fraction:
        return sum((n * p for n, p in enumerate(self.injuries)), Fraction(0))

    def at_least(self, injuries: int) -> Fraction:
        """P(the attack inflicts ``injuries`` or more); 1 for zero or fewer."""
        return sum(self.injuries[max(0, injuries) :], Fraction(0))

    def to_json(self) -> dict[str, Any]:
        """Probabilities as floats for panels and MQTT (the fractions stay in Python)."""
        return {
            "no_damage": float(self.no_damage),
            "no_injury": float(self.no_injury),
            "expected_injuries": float(self.expected_injuries),
            "successes": [float(p) for p in self.successes],
            "injuries": [float(p) for p in self.injuries],
        }


def attack_odds(
    attack: int,
    defense: int,
    *,
    damage: int,
    fortitude: int,
    guard: int = 0,
    aim_bonus: int = 0,
    armour: int = 0,
    extra_damage_per_success: int = 1,
    ties_to_attacker: bool = False,
    unmatched_wins: bool = True,
    damage_unmatched_wins: bool = True,
) -> AttackOdds:
    """Exact odds of ATTACK vs DEFENSE, then DAMAGE (less armour) vs FORTITUDE (C6, C8).

    Pool sizes are dice counts after every penalty; ``armour`` is the number of
    DAMAGE dice the armour removes (its reduction, limited by durability).
    ``unmatched_wins`` and ``damage_unmatched_wins`` are I-C6a for the two rolls.

    One die against one: the attacker wins 15 of 36 rolls (a tie is the defender's,
    I-C6); a success adds a DAMAGE die (C6), so both DAMAGE dice meet no FORTITUDE
    and each is an injury (I-C6a): never exactly one injury.

    >>> odds = attack_odds(1, 1, damage=1, fortitude=0)
    >>> odds.no_damage, odds.injuries
    (Fraction(7, 12), (Fraction(7, 12), Fraction(0, 1), Fraction(5, 12)))
    """
    hits = success_counts(
        attack,
        defense,
        auto=guard,
        bonus=aim_bonus,
        ties_to_attacker=ties_to_attacker,
        unmatched_wins=unmatched_wins,
    )
    positions = compared_positions(attack, defense + guard, unmatched_wins)
    most_damage = damage + extra_damage_per_success * attack
    injuries: dict[int, int] = {0: 0}
    den = FACES ** (attack + defense + most_damage + fortitude)
    for k, ways in enumerate(hits):
        if not ways:
            continue
        if k == 0:
            injuries[0] += ways * FACES ** (most_damage + fortitude)
            continue
        pool = damage + extra_damage_per_success * k
        negated = positions - k  # each defender success negates an injury (C6)
        scale = ways * FACES ** (most_damage - pool)
        outcome = success_counts(
            pool,
            fortitude,
            drop=armour,
            ties_to_attacker=ties_to_attacker,
            unmatched_wins=damage_unmatched_wins,
        )
        for h, n in enumerate(outcome):
            if n:
                hurt = max(0, h - negated)
                injuries[hurt] = injuries.get(hurt, 0) + scale * n
    top = max(injuries)
    total_hits = FACES ** (attack + defense)
    return AttackOdds(
        successes=tuple(Fraction(n, total_hits) for n in hits),
        injuries=tuple(Fraction(injuries.get(n, 0), den) for n in range(top + 1)),
    )
