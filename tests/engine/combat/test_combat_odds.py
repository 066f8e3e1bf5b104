"""Exact attack odds (C6, C8, I-C5…I-C8) cross-checked against brute-force enumeration."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

from engine import apply
from engine.combat.dice import compare
from engine.combat.forecast import attack_forecast
from engine.combat.odds import attack_odds, compared_positions, success_counts
from tests.harness import run
from tests.harness.combat import combatant, fight, sheet


def _all_rolls(n: int):
    return itertools.product(range(1, 7), repeat=n)


def brute_successes(a: int, d: int, **kw) -> Counter:
    tally: Counter = Counter()
    for att in _all_rolls(a):
        for dfn in _all_rolls(d):
            tally[compare(att, dfn, **kw).attacker_successes] += 1
    return tally


MODIFIERS = [
    {},
    {"auto": 1},
    {"auto": 2},
    {"bonus": 2},
    {"bonus": 6},
    {"bonus": 4, "auto": 1},
    {"drop": 1},
    {"drop": 2},
    {"ties_to_attacker": True},
    {"ties_to_attacker": True, "bonus": 2},
    {"unmatched_wins": False},
    {"unmatched_wins": False, "bonus": 2, "drop": 1},
]


@pytest.mark.parametrize(
    "mods", MODIFIERS, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "plain"
)
def test_c6_success_counts_equal_brute_force_enumeration(mods):
    """Every pool pair up to 3d6 vs 3d6: the DP's counts are exactly the enumerated ones."""
    for a in range(4):
        for d in range(4):
            got = success_counts(a, d, **mods)
            want = brute_successes(a, d, **mods)
            assert sum(got) == 6 ** (a + d)
            assert got == tuple(want.get(k, 0) for k in range(len(got))), (a, d)


def _sorted_rolls(n: int):
    """Every sorted roll of n d6 with how many ordered rolls give it (n! / Π count!)."""
    for dice in itertools.combinations_with_replacement(range(1, 7), n):
        ways = math.factorial(n)
        for c in Counter(dice).values():
            ways //= math.factorial(c)
        yield dice, ways


def test_c6_larger_pools_match_enumeration_of_every_sorted_roll():
    """5d6 vs 4d6 (7.7 million rolls), grouped by sorted roll so it stays quick."""
    for mods in ({}, {"auto": 1, "bonus": 2}, {"bonus": 4}, {"drop": 1}):
        tally: Counter = Counter()
        for att, wa in _sorted_rolls(5):
            for dfn, wd in _sorted_rolls(4):
                tally[compare(att, dfn, **mods).attacker_successes] += wa * wd
        got = success_counts(5, 4, **mods)
        assert got == tuple(tally.get(k, 0) for k in range(len(got)))


def brute_attack(a, d, *, damage, fortitude, guard=0, aim=0, armour=0, unmatched=True):
    """The whole chain by enumeration: ATTACK vs DEFENSE, then DAMAGE vs FORTITUDE (C6, C8)."""
    cache: dict[int, Counter] = {}
    injuries: Counter = Counter()
    total = 0
    positions = compared_positions(a, d + guard, unmatched)
    for att in _all_rolls(a):
        for dfn in _all_rolls(d):
            c = compare(att, dfn, auto=guard, bonus=aim, unmatched_wins=unmatched)
            k = c.attacker_successes
            assert c.defender_successes == positions - k
            if k == 0:
                injuries[0] += 6 ** (damage + a + fortitude)
                total += 6 ** (damage + a + fortitude)
                continue
            pool = damage + k
            if k not in cache:
                cache[k] = Counter()
                for dmg in _all_rolls(pool):
                    for fort in _all_rolls(fortitude):
                        h = compare(dmg, fort, drop=armour, unmatched_wins=unmatched)
                        cache[k][max(0, h.attacker_successes - c.defender_successes)] += 1
            scale = 6 ** (a - k)
            for n, ways in cache[k].items():
                injuries[n] += ways * scale
                total += ways * scale
    return {n: Fraction(w, total) for n, w in injuries.items()}


@pytest.mark.parametrize(
    "setup",
    [
        {"a": 2, "d": 2, "damage": 1, "fortitude": 1},
        {"a": 2, "d": 1, "damage": 1, "fortitude": 2, "armour": 1},
        {"a": 2, "d": 1, "damage": 1, "fortitude": 1, "guard": 1},
        {"a": 1, "d": 2, "damage": 2, "fortitude": 1, "aim": 4},
        {"a": 2, "d": 2, "damage": 1, "fortitude": 0, "unmatched": False},
    ],
)
def test_c8_injury_distribution_equals_brute_force(setup):
    s = dict(setup)
    want = brute_attack(s.pop("a"), s.pop("d"), **s)
    odds = attack_odds(
        setup["a"],
        setup["d"],
        damage=setup["damage"],
        fortitude=setup["fortitude"],
        guard=setup.get("guard", 0),
        aim_bonus=setup.get("aim", 0),
        armour=setup.get("armour", 0),
        unmatched_wins=setup.get("unmatched", True),
        damage_unmatched_wins=setup.get("unmatched", True),
    )
    assert {n: p for n, p in enumerate(odds.injuries) if p} == want
    assert sum(odds.injuries) == 1 and sum(odds.successes) == 1


def test_c6_no_attacker_success_means_no_damage():
    odds = attack_odds(1, 1, damage=3, fortitude=0)
    # 1d6 vs 1d6, ties to the defender: the attacker wins 15 of 36
    assert odds.no_damage == Fraction(21, 36)
    assert odds.no_injury == odds.no_damage  # FORTITUDE 0: any DAMAGE die injures


def test_i_c7_guard_makes_a_lone_attack_die_harmless():
    assert attack_odds(1, 0, damage=2, fortitude=0, guard=1).no_damage == 1


def test_i_c5_aim_only_improves_the_odds():
    base = attack_odds(3, 3, damage=2, fortitude=2)
    aimed = attack_odds(3, 3, damage=2, fortitude=2, aim_bonus=4)
    assert aimed.no_damage < base.no_damage
    assert aimed.expected_injuries > base.expected_injuries


def test_at_least_sums_the_tail():
    odds = attack_odds(3, 2, damage=2, fortitude=1)
    assert odds.at_least(0) == 1
    assert odds.at_least(2) == sum(odds.injuries[2:])
    assert odds.at_least(99) == 0


def test_pool_sizes_are_never_negative():
    with pytest.raises(ValueError):
        success_counts(-1, 2)


# --- the forecast against the engine itself ------------------------------------------------


def _every_roll(n: int):
    """Every sorted roll of n d6 (the engine sorts, C6) with its probability."""
    for dice, ways in _sorted_rolls(n):
        yield list(dice), Fraction(ways, 6**n)


def engine_attack_outcomes(state, attacker: str, target: str):
    """P(k attacker successes), P(n injuries) and P(death) with every roll played by ``act``.

    Nothing here uses engine.combat.odds: the pool sizes are read from a seeded attack's
    events, every ATTACK/DEFENSE roll is applied, and every DAMAGE/FORTITUDE roll is applied
    once per distinct (attacker successes, defender successes) pair the engine reports — the
    only things C6 passes from the first roll to the second. Injuries and death are read
    from the target in the state the engine returns.
    """
    before = combatant(state, target).injury_count
    cmd = {"cmd": "act", "combatant": attacker, "action": "attack", "target": target}
    _, events = apply(state, {**cmd, "seed": 0})
    pools = len(events[0]["attack_dice"]), len(events[0]["defense_dice"])
    successes: Counter = Counter()
    groups: dict[tuple[int, int], list] = {}
    for att, pa in _every_roll(pools[0]):
        for dfn, pd in _every_roll(pools[1]):
            first = {**cmd, "attack_dice": att, "defense_dice": dfn}
            _, events = apply(state, {**first, "seed": 0})
            res = events[0]
            successes[res["attacker_successes"]] += pa * pd
            key = (res["attacker_successes"], res["defender_successes"])
            groups.setdefault(key, [first, Fraction(0), events])[1] += pa * pd
    injuries: Counter = Counter()
    death = Fraction(0)
    for first, p, events in groups.values():
        dmg = next((e for e in events if e.type == "damage_resolved"), None)
        if dmg is None:  # C6: no attacker success, no DAMAGE roll
            injuries[0] += p
            continue
        for m, pm in _every_roll(len(dmg["damage_dice"])):
            for f, pf in _every_roll(len(dmg["fortitude_dice"])):
                after, _ = apply(state, {**first, "damage_dice": m, "fortitude_dice": f})
                hurt = combatant(after, target)
                injuries[hurt.injury_count - before] += p * pm * pf
                death += p * pm * pf * hurt.dead
    return successes, injuries, death


def _nonzero(probabilities) -> dict[int, float]:
    return {n: float(p) for n, p in enumerate(probabilities) if p}


@pytest.mark.parametrize("scenario", ["aim-armour-wounded", "guard-fatigued"])
def test_c6_c9_forecast_equals_every_roll_played_through_the_engine(example_state, scenario):
    """The panel's forecast (pools, Aim, Guard, armour, FORTITUDE less injuries and Fatigued
    levels, the death limit) against every roll resolved by the real ``act`` command
    (C5–C10, I-C5, I-C7, I-C8, I-C8a)."""
    if scenario == "aim-armour-wounded":
        s = fight(
            example_state,
            sheet("a", might=2, weapon={"damage": 2}),
            sheet("b", dodge=1, fortitude=2, armour={"reduction": 1, "durability": 1}),
            initiative={"a": [6], "b": [1]},
        )
        s, _ = run(
            s,
            # 3 injuries: FORTITUDE 2 − 3 → no dice; dead above 4 (C8, C9)
            {"cmd": "injure", "combatant": "b", "type": "burned", "hits": 3},
            {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"},
        )
    else:
        s = fight(
            example_state,
            sheet("a", might=3, weapon={"damage": 1}),
            sheet("b", dodge=1, fortitude=3),
            initiative={"a": [1], "b": [6]},
        )
        s, _ = run(
            s,
            {"cmd": "act", "combatant": "b", "action": "guard"},
            # FORTITUDE 3 − 1 injury − 1 Fatigued level = 1 die (C8, C10)
            {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued"},
            {"cmd": "injure", "combatant": "b", "type": "bleeding"},
        )
    forecast = attack_forecast(s, "a", "b")
    successes, injuries, death = engine_attack_outcomes(s, "a", "b")
    for key, tally in (("successes", successes), ("injuries", injuries)):
        want = _nonzero(tally.get(n, 0) for n in range(max(tally) + 1))
        assert _nonzero(forecast[key]) == pytest.approx(want, abs=1e-12), key
    assert forecast["death"] == pytest.approx(float(death))
    if scenario == "aim-armour-wounded":
        assert forecast["aim_bonus"] == 2 and forecast["armour"] == 1
        assert 0 < death < 1  # the attack can kill, and need not
    else:
        assert forecast["guard"] == 1 and forecast["fortitude"] == 1
