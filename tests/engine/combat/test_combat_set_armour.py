"""``set_armour``: the durability left on a combatant's worn armour (I-C8), the command a
carried session starts with (issue 41 item 12) and the WorldKeeper mends armour with. Its
number is bounded by the rules data (``bounds.durability``, I-C2a); each refusal names the
field, the rule and the fix; Undo takes it back and says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import CommandRejected, apply, load_table, load_table_text
from engine.narrate import describe
from engine.state import TableState
from engine.view import table_view
from tests.harness.combat import combatant

FIGHT = "examples/fight.toml"


def refusal(state: TableState, cmd: dict[str, Any]) -> Any:
    with pytest.raises(CommandRejected) as refused:
        apply(state, cmd)
    return refused.value.violation


def test_set_armour_sets_the_durability_left_and_says_so_i_c8() -> None:
    state = load_table(FIGHT)
    before = combatant(state, "bren").armour
    after, events = apply(
        state, {"cmd": "set_armour", "combatant": "bren", "durability": 2, "cause": "carried"}
    )
    armour = combatant(after, "bren").armour
    assert (armour.name, armour.reduction, armour.durability) == (
        before.name,
        before.reduction,
        2,
    )
    [event] = events
    assert event.type == "armour_set"
    assert event.data == {
        "combatant": "bren",
        "armour": before.name,
        "durability": 2,
        "was": before.durability,
        "cause": "carried",
        "rule": "I-C8",
    }
    assert describe(after, event) == f"Bren's mail: durability {before.durability} → 2 (carried)"
    # a worn-out piece stops nothing until mended: 0 is a durability
    worn_out, _ = apply(after, {"cmd": "set_armour", "combatant": "bren", "durability": 0})
    assert combatant(worn_out, "bren").armour.durability == 0


def test_undo_takes_set_armour_back_and_names_it() -> None:
    state = load_table(FIGHT)
    after, _ = apply(state, {"cmd": "set_armour", "combatant": "aria", "durability": 1})
    named = table_view(after)["undo"]
    assert named is not None and named["cmd"] == "set_armour"
    back, [undone] = apply(after, {"cmd": "undo"})
    assert undone.data["cmd"] == "set_armour" and "leather" in undone.data["what"]
    assert back.to_json() == state.without_history().to_json()


def test_the_dead_keep_their_armour_as_worn_c9_i_c8() -> None:
    """A dead combatant's sheet still has its armour (the sheet writes it), so the carry sets
    it on the dead too: set_armour is not refused on the dead."""
    state = load_table(FIGHT)
    state, _ = apply(state, {"cmd": "injure", "combatant": "raider", "type": "burned", "hits": 9})
    assert combatant(state, "raider").dead
    state, _ = apply(state, {"cmd": "set_armour", "combatant": "raider", "durability": 0})
    assert combatant(state, "raider").armour.durability == 0


@pytest.mark.parametrize("durability", [-1, 100])
def test_a_durability_past_the_rules_bound_is_refused_with_the_rule_and_the_fix(
    durability: int,
) -> None:
    v = refusal(
        load_table(FIGHT), {"cmd": "set_armour", "combatant": "aria", "durability": durability}
    )
    assert v.rule == "I-C2a" and v.field == "durability"
    assert "bounds.durability" in str(v) and v.fix and "0 to 99" in v.fix


def test_a_table_that_raises_the_bound_takes_more() -> None:
    text = Path(FIGHT).read_text("utf-8")
    raised = text + "\n[rules.bounds.durability]\nmaximum = 200\n"
    state = load_table_text(raised, "raised.toml")
    state, _ = apply(state, {"cmd": "set_armour", "combatant": "aria", "durability": 150})
    assert combatant(state, "aria").armour.durability == 150


def test_no_armour_nothing_to_change_and_an_unknown_combatant_are_refused() -> None:
    state = load_table_text(
        """
[capabilities]
pathways = ["skill", "lore", "wild"]
[[heroes]]
id = "aria"
pathways = { skill = "control", lore = "versatility", wild = "impulse" }

[[combatants]]
id = "gob"
reflex = 1
might = 2
dodge = 2
parry = 1
fortitude = 1
speed = 4
""",
        "t.toml",
    )
    v = refusal(state, {"cmd": "set_armour", "combatant": "gob", "durability": 2})
    assert v.rule == "I-C8" and v.field == "combatant" and "no armour" in str(v)
    assert v.fix and "[[combatants]]" in v.fix
    fight = load_table(FIGHT)
    same = combatant(fight, "aria").armour.durability
    v = refusal(fight, {"cmd": "set_armour", "combatant": "aria", "durability": same})
    assert v.rule == "I-C8" and v.field == "durability" and v.fix == "nothing to set"
    v = refusal(fight, {"cmd": "set_armour", "combatant": "nobody", "durability": 1})
    assert v.field == "combatant" and v.fix and "aria" in v.fix
