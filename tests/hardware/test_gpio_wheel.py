"""The Performance Wheel dialled on gpiozero's MockFactory pins (P1–P4, P7–P11, P19, P23).

Every test turns and pushes real gpiozero devices on mock pins and asserts the
exact commands the controls submitted; the table loop then applies them with
the real engine (a refusal of a wheel command fails the test unless expected).
"""

from __future__ import annotations

import json

import pytest

import engine
from engine.view import table_view
from hardware.config import ButtonConfig, GpioConfig
from tests.harness import BEGIN, BREN, EXAMPLE_TABLE
from tests.harness.gpio import MockTable

#: positions on the example table's Capability ring (the table's order)
CAPS = [
    "skill",
    "lore",
    "wild",
    "faith",
    "steel",
    "shadow",
    "command",
    "charm",
    "sight",
    "intuition",
]


@pytest.fixture
def table(example_state):
    t = MockTable(example_state)
    yield t
    t.close()


@pytest.fixture
def started(example_state):
    t = MockTable(example_state)
    t.script(BEGIN)
    yield t
    t.close()


def test_p19_the_difficulty_ring_begins_a_performance(table):
    """With no Performance the one ring is the Difficulty (P19): 3 + two detents = 5."""
    assert table.ring() == "difficulty"
    table.hand.turn(+2)
    assert table.controls.selection()["difficulty"] == 5
    table.hand.push()
    assert table.take() == [{"cmd": "begin_performance", "difficulty": 5, "weight": "off"}]
    assert table.loop.state.performance.difficulty == 5
    assert table.ring() == "hero"


def test_p19_the_difficulty_ring_reads_the_range_from_the_rules(example_state):
    """No Difficulty is written in the wheel: a table's [rules.difficulty] moves the ring."""
    text = EXAMPLE_TABLE.read_text() + "\n[rules.difficulty]\nminimum = 4\nmaximum = 6\n"
    t = MockTable(engine.load_table_text(text))
    try:
        sel = t.controls.selection()
        assert sel["options"] == ["4", "5", "6"] and sel["difficulty"] == 4
        t.hand.turn(-1)  # wraps round the ring like a printed wheel
        t.hand.push()
        assert t.take() == [{"cmd": "begin_performance", "difficulty": 6, "weight": "off"}]
    finally:
        t.close()


def test_p4_a_full_declaration_dialled_outside_in_is_the_declare_the_engine_accepts(started):
    """Hero → Shade → Capability → Action → Training (P1–P4); the last push declares."""
    t = started
    seen = []
    t.hand.turn(+1)  # Bren
    seen.append(t.ring())
    t.hand.push()
    seen.append(t.ring())
    t.hand.turn(+1)  # Impulse (P1)
    t.hand.push()
    seen.append(t.ring())
    assert t.controls.selection()["capability"] == "steel"  # Bren's first Pathway
    t.hand.turn(-1)  # faith
    t.hand.turn(+1)  # steel again
    t.hand.push()
    seen.append(t.ring())
    t.hand.turn(+1)  # defend (P3)
    t.hand.turn(-1)  # target
    t.hand.push()
    seen.append(t.ring())
    assert t.controls.selection()["training"] == "master"  # from Bren's sheet (P2, P4)
    assert t.take() == []  # nothing is sent until the last ring is pushed
    t.hand.push()
    assert seen == ["hero", "shade", "capability", "action", "training"]
    assert t.take() == [BREN]
    c = t.loop.state.performance.contribution("bren")
    assert (c.shade.value, c.capability, c.action.value, c.training.value, c.allowed) == (
        "impulse",
        "steel",
        "target",
        "master",
        4,
    )
    assert t.sources == ["wheel"] and t.outcomes[-1].source == "wheel"


def test_p23_the_hero_ring_offers_the_next_hero_who_has_not_declared(started):
    t = started
    for _ in range(5):
        t.hand.push()
    assert t.take()[0]["hero"] == "aria"
    assert t.controls.selection()["hero"] == "bren"
    t.hand.turn(-1)  # back to Aria, who has declared
    t.hand.push()
    sel = t.controls.selection()
    assert sel["ring"] == "hero" and sel["rule"] == "P23" and "Aria has declared" in sel["message"]
    assert t.take() == []


def test_selection_is_plain_data_for_the_panel(started):
    t = started
    t.hand.push()
    t.hand.push()
    sel = t.controls.selection()
    assert {k: sel[k] for k in ("ring", "hero", "hero_name", "shade", "capability")} == {
        "ring": "capability",
        "hero": "aria",
        "hero_name": "Aria",
        "shade": "control",
        "capability": "skill",
    }
    assert sel["action"] is None and sel["training"] is None  # rings not reached yet
    assert sel["options"] == CAPS and sel["position"] == 0
    assert sel["sheet_training"] == "adept"
    assert json.loads(json.dumps(sel)) == sel


def dial_aria_skill(t: MockTable, action_turns: int = 0) -> None:
    """Push through Hero (Aria), Shade (Control), Capability (Skill); turn the Action ring."""
    for _ in range(3):
        t.hand.push()
    t.hand.turn(action_turns)


def test_p2_training_ring_refuses_a_dial_that_disagrees_with_the_sheet(started):
    """The engine takes Training from the sheet (P2); a mis-set ring is caught, not sent."""
    t = started
    dial_aria_skill(t)
    t.hand.push()
    t.hand.turn(-1)  # trained, but Aria is Adept in Skill
    sel = t.controls.selection()
    assert sel["training"] == "trained" and sel["sheet_training"] == "adept"
    assert "sheet says Adept" in sel["warning"] and sel["rule"] == "P2"
    t.hand.push()
    assert t.take() == []
    assert "turn to Adept" in t.controls.selection()["message"]
    t.hand.turn(+1)
    assert t.controls.selection()["warning"] is None
    t.hand.push()
    assert t.take() == [
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        }
    ]


def test_p2_training_mismatch_warn_declares_with_the_sheet(example_state):
    t = MockTable(example_state, GpioConfig(training_mismatch="warn"))
    try:
        t.script(BEGIN)
        dial_aria_skill(t)
        t.hand.push()
        t.hand.turn(+1)  # master, the sheet says adept
        assert t.controls.selection()["warning"]
        t.hand.push()
        assert [c["cmd"] for c in t.take()] == ["declare"]
        assert t.loop.state.performance.contribution("aria").training.value == "adept"
    finally:
        t.close()


def test_p9_exert_button_adds_exert_for_an_untrained_hero(started):
    """Cass is Untrained in Charm: Exert draws 3 (P6, P9)."""
    t = started
    t.hand.turn(+2)  # Cass
    t.hand.push()
    t.hand.turn(+1)  # Impulse
    t.hand.push()
    t.hand.turn(CAPS.index("charm") - CAPS.index("shadow"))  # from Cass's first Pathway
    t.hand.push()
    t.hand.push()  # Target
    t.hand.press("exert")
    assert t.controls.selection()["exert"] is True
    assert t.controls.selection()["training"] == "untrained"
    t.hand.push()
    assert t.take() == [
        {
            "cmd": "declare",
            "hero": "cass",
            "shade": "impulse",
            "capability": "charm",
            "action": "target",
            "exert": True,
        }
    ]
    assert t.loop.state.performance.contribution("cass").allowed == 3
    assert t.controls.selection()["exert"] is False  # Exert belongs to that declaration only


def test_p9_exert_for_a_trained_hero_is_held_back_with_the_rule(started):
    t = started
    t.hand.press("exert")
    dial_aria_skill(t)
    t.hand.push()
    sel = t.controls.selection()
    assert sel["rule"] == "P9" and "Untrained" in sel["warning"]
    t.hand.push()
    assert t.take() == []
    t.hand.press("exert")  # drop it
    t.hand.push()
    assert [c.get("exert") for c in t.take()] == [None]


def test_p7_gain_with_a_potential_token_as_reserve(started):
    """Gain makes a Potential token Active Reserve (P7, P17); the Reserve ring follows."""
    t = started
    dial_aria_skill(t, action_turns=+2)  # gain
    t.hand.push()
    t.hand.push()  # Training: Adept
    sel = t.controls.selection()
    assert sel["ring"] == "reserve" and sel["options"][0] == "none"
    t.hand.turn(+3)  # none, lore.1, lore.2, skill.1
    t.hand.push()
    assert t.take() == [
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "gain",
            "reserve": "aria.potential.skill.1",
        }
    ]
    assert "aria.potential.skill.1" in t.loop.state.active_reserve


def test_p8_spend_needs_an_active_reserve(started):
    t = started
    dial_aria_skill(t, action_turns=+3)  # spend
    t.hand.push()
    sel = t.controls.selection()
    assert sel["ring"] == "action" and sel["rule"] == "P8"
    assert t.take() == []
    t.hand.press("undo")  # back to Capability
    t.hand.press("undo")  # back to Shade
    t.script(
        {"cmd": "set_reserve", "hero": "aria", "token": "aria.potential.skill.2", "active": True}
    )
    t.hand.push()
    t.hand.push()
    t.hand.push()  # Spend, now with a Reserve
    t.hand.push()  # Training
    assert t.controls.selection()["options"] == ["aria.potential.skill.2"]
    t.hand.push()
    assert t.take()[0]["reserve"] == "aria.potential.skill.2"


def test_p10_intersect_ring_offers_the_eligible_heroes(started):
    t = started
    t.script(BREN)  # Bren declares first (from MQTT, say)
    assert t.controls.selection()["hero"] == "aria"
    dial_aria_skill(t)
    t.hand.push()
    t.hand.push()  # Training
    sel = t.controls.selection()
    assert sel["ring"] == "intersect" and sel["options"] == ["none", "bren"]
    t.hand.turn(+1)
    t.hand.push()
    assert t.take() == [
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
            "intersect": "bren",
        }
    ]
    assert t.loop.state.performance.contribution("aria").intersect == "bren"


def test_misdial_undo_goes_back_one_ring_keeping_the_choices(started):
    t = started
    dial_aria_skill(t, action_turns=+1)  # defend
    t.hand.push()
    assert t.ring() == "training"
    t.hand.press("undo")
    assert t.ring() == "action" and t.controls.selection()["action"] == "defend"
    t.hand.turn(-1)
    t.hand.push()
    t.hand.push()
    assert t.take()[0]["action"] == "target"


def test_misdial_undo_after_declaring_puts_the_declaration_back_on_the_wheel(started):
    """Undo takes the declare back (engine undo) and the wheel returns to its last ring."""
    t = started
    dial_aria_skill(t, action_turns=+1)  # defend: a mis-dial
    t.hand.push()
    t.hand.push()
    assert t.take()[0]["action"] == "defend"
    t.hand.press("undo")
    assert t.take() == [{"cmd": "undo"}]
    assert t.loop.state.performance.contributions == ()
    sel = t.controls.selection()
    assert (sel["ring"], sel["hero"], sel["action"]) == ("training", "aria", "defend")
    assert "back on the wheel" in sel["message"]
    t.hand.press("undo")  # Action
    t.hand.turn(-1)  # target
    t.hand.push()
    t.hand.push()
    assert t.take()[0] == {
        "cmd": "declare",
        "hero": "aria",
        "shade": "control",
        "capability": "skill",
        "action": "target",
    }


def test_undo_at_the_first_ring_is_the_tables_undo(started):
    t = started
    assert t.ring() == "hero"
    t.hand.press("undo")
    assert t.take() == [{"cmd": "undo"}]
    assert t.loop.state.performance is None  # begin_performance taken back
    assert t.ring() == "difficulty"


def test_p10_a_declaration_the_engine_refuses_comes_back_with_undo(example_state):
    """Read through the view, the wheel knows only the shipped rules: this table's stricter
    Intersect minimum (Adept, P10) is the engine's to refuse. Undo puts the dial back."""
    text = EXAMPLE_TABLE.read_text() + '\n[rules.training]\nintersect_minimum = "adept"\n'
    t = MockTable(engine.load_table_text(text), table=lambda loop: table_view(loop.state))
    try:
        t.script(BEGIN, BREN)
        t.hand.push()  # Aria
        t.hand.push()
        t.hand.turn(+1)  # lore: Aria is Trained there
        t.hand.push()
        t.hand.push()
        t.hand.push()
        t.hand.turn(+1)  # intersect: bren
        t.hand.push()
        assert t.take(strict=False)[0]["intersect"] == "bren"
        assert t.outcomes[-1].error.rule == "P10"
        t.hand.press("undo")  # nothing applied: no engine undo, the dial comes back
        assert t.take() == []
        sel = t.controls.selection()
        assert (sel["ring"], sel["capability"], sel["intersect"]) == ("intersect", "lore", "bren")
        t.hand.turn(-1)  # none
        t.hand.push()
        assert "intersect" not in t.take()[0]
    finally:
        t.close()


def test_the_wheel_reads_a_table_view_dict_as_well(example_state):
    t = MockTable(example_state, table=lambda loop: table_view(loop.state))
    try:
        t.hand.turn(+2)
        t.hand.push()
        t.settle()
        for _ in range(5):
            t.hand.push()
        assert t.take()[1] == {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        }
    finally:
        t.close()


def test_hero_button_instead_of_a_hero_ring(example_state):
    buttons = dict(GpioConfig().buttons)
    buttons["hero"] = ButtonConfig(23, action="hero")
    t = MockTable(example_state, GpioConfig(buttons=buttons, hero_ring=False))
    try:
        t.script(BEGIN)
        assert t.controls.selection()["rings"][0] == "shade"
        t.hand.press("hero")
        assert t.controls.selection()["hero"] == "bren"
        for _ in range(4):  # Control, Steel (Bren's first Pathway), Target, Master
            t.hand.push()
        assert t.take() == [
            {
                "cmd": "declare",
                "hero": "bren",
                "shade": "control",
                "capability": "steel",
                "action": "target",
            }
        ]
    finally:
        t.close()


def test_steps_per_choice_needs_that_many_detents(started):
    t = MockTable(started.loop.state, GpioConfig(steps_per_choice=2))
    try:
        t.hand.turn(+1)
        assert t.controls.selection()["hero"] == "aria"
        t.hand.turn(+1)
        assert t.controls.selection()["hero"] == "bren"
        t.hand.turn(-1)  # half a position back, then forward: no jiggle moves it
        t.hand.turn(+1)
        assert t.controls.selection()["hero"] == "bren"
    finally:
        t.close()


def test_p23_without_a_hero_ring_a_declared_hero_is_caught_at_the_last_ring(example_state):
    t = MockTable(example_state, GpioConfig(hero_ring=False))
    try:
        t.script(BEGIN)
        for _ in range(4):
            t.hand.push()
        assert t.take()[0]["hero"] == "aria"
        assert t.controls.selection()["hero"] == "bren"  # the next hero
        t.controls.wheel.press("hero")  # the wheel's own Hero action (no button wired): Cass
        t.controls.wheel.press("hero")  # round to Aria again
        for _ in range(4):
            t.hand.push()
        sel = t.controls.selection()
        assert sel["ring"] == "training" and sel["rule"] == "P23"
        assert t.take() == []
    finally:
        t.close()


def test_p23_a_new_performance_starts_the_hero_ring_at_the_first_hero(started):
    t = started
    for _ in range(5):
        t.hand.push()
    assert t.take()[0]["hero"] == "aria"
    assert t.controls.selection()["hero"] == "bren"
    t.script({"cmd": "cancel_performance"})
    t.hand.push()  # Difficulty: begin again
    assert t.take()[0]["cmd"] == "begin_performance"
    assert t.controls.selection()["hero"] == "aria"
