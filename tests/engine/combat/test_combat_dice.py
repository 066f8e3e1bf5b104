"""The opposed roll itself: sorted pairwise comparison and its modifiers (C6, C8, I-C5…I-C8)."""

from __future__ import annotations

import random

import pytest

from engine.combat.dice import GUARD_DIE, compare, entered, roll
from engine.errors import CommandRejected


def test_c6_pools_are_sorted_highest_first_and_compared_pairwise():
    c = compare([2, 6, 4], [5, 3, 1])
    assert c.attacker == (6, 4, 2) and c.defender == (5, 3, 1)
    assert [p[2] for p in c.pairs] == ["attacker", "attacker", "attacker"]
    c = compare([1, 6], [5, 2])  # 6 > 5, 1 < 2
    assert (c.attacker_successes, c.defender_successes) == (1, 1)


def test_i_c6_ties_go_to_the_defender_unless_the_table_says_otherwise():
    assert compare([4, 3], [4, 3]).attacker_successes == 0
    assert compare([4, 3], [4, 3], ties_to_attacker=True).attacker_successes == 2


def test_i_c6a_an_unopposed_die_wins_for_its_side_or_counts_for_nobody():
    wins = compare([6, 1, 1], [5])
    assert (wins.attacker_successes, wins.defender_successes) == (3, 0)
    ignored = compare([6, 1, 1], [5], unmatched_wins=False)
    assert (ignored.attacker_successes, ignored.defender_successes) == (1, 0)
    more_defence = compare([2], [6, 5, 1])
    assert (more_defence.attacker_successes, more_defence.defender_successes) == (0, 3)


def test_i_c7_a_guard_die_sorts_first_and_always_wins():
    c = compare([6, 6], [1], auto=1)
    assert c.defender == (GUARD_DIE, 1)
    # the attacker's 6 meets the Guard die; the second 6 beats the 1
    assert [p[2] for p in c.pairs] == ["defender", "attacker"]
    assert (c.attacker_successes, c.defender_successes) == (1, 1)


def test_i_c5_aim_bonus_goes_on_the_attackers_highest_die():
    plain = compare([4, 3], [5, 3])
    aimed = compare([4, 3], [5, 3], bonus=2)
    assert plain.attacker_successes == 0
    assert aimed.attacker == (6, 3) and aimed.attacker_successes == 1


def test_i_c8_armour_removes_the_highest_damage_dice():
    c = compare([6, 5, 2], [4], drop=1)
    assert c.removed == (6,) and c.attacker == (5, 2)
    assert c.attacker_successes == 2  # 5 > 4, and the 2 is unopposed (I-C6a)
    assert compare([6], [1], drop=3).attacker == ()


def test_seeded_rolls_repeat_exactly():
    assert roll(random.Random(7), 5) == roll(random.Random(7), 5)
    assert all(1 <= v <= 6 for v in roll(random.Random(1), 200))


@pytest.mark.parametrize(
    ("values", "count", "message"),
    [([1, 7], 2, "7 is not a d6 face"), ([0], 1, "0 is not"), ([1, 2], 3, "3 dice, 2 given")],
)
def test_entered_dice_must_be_d6_faces_and_the_right_count(values, count, message):
    with pytest.raises(CommandRejected) as e:
        entered(values, count, field="attack_dice", rule="C6", what="the ATTACK roll")
    assert message in str(e.value)
    assert e.value.violation.rule == "C6" and e.value.violation.field == "attack_dice"


def test_entered_dice_refuse_non_numbers():
    with pytest.raises(CommandRejected):
        entered([1, True], 2, field="x", rule="C6", what="w")
