"""A count of dice in words (issue 41 item 13: never "1 dice")."""

from __future__ import annotations

import pytest

from engine import CommandRejected
from engine.combat import dice


def test_one_die_is_a_die_in_a_refusal() -> None:
    with pytest.raises(CommandRejected) as e:
        dice.entered([6, 5], 1, field="damage_dice", rule="C8", what="the DAMAGE roll")
    assert "the DAMAGE roll is 1 die, 2 given" in e.value.violation.message
    with pytest.raises(CommandRejected) as e:
        dice.entered([6], 3, field="damage_dice", rule="C8", what="the DAMAGE roll")
    assert "is 3 dice, 1 given" in e.value.violation.message
    assert dice.many(1, "REFLEX") == "1 REFLEX die"
