"""The wheel keeps no rule of its own (issue 18 item 1): the Reserve ring, the Intersect ring and
what makes a check are the engine's answers, on gpiozero's MockFactory pins (P3, P7, P8, P10,
P12, P17); and neither the wheel's modules nor the display's name a rule.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import apply, check
from engine.performance.questions import reserve_choices, reserve_choices_in_view
from engine.tokens import Action
from engine.view import table_view
from tests.harness import ARIA, ROOT, run
from tests.harness.gpio import MockTable

#: P19: a Performance against Difficulty 4 (tests.harness.BEGIN's is 5)
BEGIN_4 = {"cmd": "begin_performance", "difficulty": 4}
#: Bren declaring in Steel with no Action yet: each test adds the one it dials
BREN_STEEL = {"cmd": "declare", "hero": "bren", "shade": "impulse", "capability": "steel"}
EXEMPLAR = {"cmd": "set_training", "hero": "bren", "capability": "steel", "level": "exemplar"}


def dial_bren(t: MockTable, action: str) -> None:
    """Hero (Bren), Shade, Capability (Steel, his first Pathway), the Action ring turned to
    ``action``, pushed; then Training (his sheet's)."""
    t.hand.turn(+1)  # Bren
    for _ in range(3):
        t.hand.push()
    t.hand.turn([a.value for a in Action].index(action))
    t.hand.push()
    t.hand.push()


def test_p12_p17_a_gain_is_never_offered_a_potential_out_of_play(example_state):
    """An Exemplar's second Ember takes a plain Potential out of play (P12): the engine refuses
    it as a Gain's Reserve (P17), so the Reserve ring does not offer it."""
    state, _ = run(example_state, EXEMPLAR, BEGIN_4)
    gone = "bren.potential.steel.2"
    assert state.location(gone) == "supply"
    t = MockTable(state)
    try:
        dial_bren(t, "gain")
        sel = t.controls.selection()
        assert sel["ring"] == "reserve"
        assert "bren.potential.steel.1" in sel["options"] and gone not in sel["options"]
        for option in sel["options"]:
            reserve = None if option == "none" else option
            declare = {**BREN_STEEL, "action": "gain", "reserve": reserve}
            assert check(state, {k: v for k, v in declare.items() if v is not None}) is None
    finally:
        t.close()


@pytest.mark.parametrize("action", [a.value for a in Action])
def test_p3_p8_p17_the_reserve_ring_is_the_engine_s_answer(example_state, action):
    """Target and Defend name no Reserve (P3): no ring. A Gain may leave it out or name a
    Potential (P17); a Spend names an Active Reserve token (P8). The ring offers exactly
    what the engine accepts."""
    state, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "bren", "token": "bren.potential.wild.1", "active": True},
        BEGIN_4,
    )
    answer = reserve_choices(state, "bren", "steel", action)
    t = MockTable(state)
    try:
        dial_bren(t, action)
        sel = t.controls.selection()
        if answer is None:
            assert "reserve" not in sel["rings"] and action in ("target", "defend")
            return
        assert sel["ring"] == "reserve"
        assert sel["options"] == ["none" if c is None else c for c in answer.choices]
        t.hand.turn(len(answer.choices) - 1)  # the last one offered
        t.hand.push()
        (declare,) = t.take()  # strict: the engine accepted it
        assert declare.get("reserve") == answer.choices[-1]
    finally:
        t.close()


def test_p8_spend_without_an_active_reserve_is_held_on_the_action_ring(example_state):
    """The engine accepts no Reserve for that Spend; its refusal (P8) keeps the dial there."""
    state, _ = run(example_state, BEGIN_4)
    answer = reserve_choices(state, "bren", "steel", "spend")
    assert answer is not None and answer.choices == () and answer.refusal.rule == "P8"
    t = MockTable(state)
    try:
        dial_bren(t, "spend")
        sel = t.controls.selection()
        assert (sel["ring"], sel["rule"]) == ("action", "P8") and t.take() == []
    finally:
        t.close()


@pytest.mark.parametrize("through_view", [False, True])
def test_p7_a_gain_is_offered_no_intersect_partner(example_state, through_view):
    """Aria has declared Target in Skill: a Target by Bren may Intersect with her (P10), a
    Gain makes no check and may not (P7); read from the state or from the view."""
    state, _ = run(example_state, BEGIN_4, ARIA)
    for action, rings in (("target", ["intersect"]), ("gain", ["reserve"])):
        t = MockTable(state, table=(lambda loop: table_view(loop.state)) if through_view else None)
        try:
            dial_bren(t, action)
            sel = t.controls.selection()
            assert sel["rings"][5:] == rings, action
            if action == "target":
                assert sel["options"] == ["none", "aria"]
        finally:
            t.close()


def test_p8_p17_the_view_s_reserve_answer_is_the_state_s_as_far_as_the_view_goes(example_state):
    """A hero's view lists the Active Reserve (a Spend's choices, P8) but not the Potential
    tokens: from it a Gain may only leave its Reserve out (P17)."""
    state, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "aria", "token": "aria.potential.skill.2", "active": True},
        BEGIN_4,
    )
    view = table_view(state)
    for hero in state.heroes:
        for action in Action:
            full = reserve_choices(state, hero, "skill", action.value)
            seen = reserve_choices_in_view(view["heroes"][hero], action.value)
            assert (full is None) == (seen is None), (hero, action)
            if full is None or seen is None:
                continue
            if action is Action.SPEND:
                assert seen.choices == full.choices
            else:
                assert seen.choices == full.choices[:1] == (None,)


def test_p7_what_makes_a_check_is_the_engine_s(example_state):
    """The facts' ``checks`` (the focus hero for Redraw and Favor) is the engine's."""
    from hardware.facts import table_facts

    state, _ = run(example_state, BEGIN_4, {**BREN_STEEL, "action": "gain"})
    (c,) = state.performance.contributions
    for facts in (table_facts(state), table_facts(table_view(state))):
        assert [f.checks for f in facts.contributions] == [c.checks] == [False]
    state, _ = apply(state, {"cmd": "undo"})
    state, _ = apply(state, {**BREN_STEEL, "action": "target"})
    assert [f.checks for f in table_facts(state).contributions] == [True]


#: the wheel's modules and the display's: none names a rule (an Action that is not the ring's
#: starting point, a Training level, a token kind, a rules key) — those are the engine's and
#: the rules data's
WHEEL = [
    f"hardware/{m}.py"
    for m in ("wheel", "moves", "dial", "notices", "picks", "facts", "controls", "encoder")
]
DISPLAY = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "display").rglob("*.py"))
RULE_LOGIC = re.compile(
    r"Action\.(GAIN|SPEND|DEFEND)|Training\.[A-Z]|TokenKind\.|_minimum|exert_only"
    r"|[\"'](gain|spend|defend|untrained|trained|adept|master|exemplar)[\"']"
)


@pytest.mark.parametrize("module", WHEEL + DISPLAY)
def test_the_wheel_s_and_the_display_s_modules_name_no_rule(module):
    source = (ROOT / module).read_text(encoding="utf-8")
    code = "\n".join(line.split("#")[0] for line in source.splitlines() if ">>>" not in line)
    found = sorted({m.group(0) for m in RULE_LOGIC.finditer(_without_docstrings(code))})
    assert found == [], f"{module} names {found}: ask the engine instead"


def _without_docstrings(code: str) -> str:
    return re.sub(r'"""[\s\S]*?"""', "", code)


def test_the_guard_sees_a_rule_when_there_is_one():
    """The guard above can fail: the old wheel's own Reserve rule is caught."""
    old = 'if self.value(ACTION, dial) in (Action.GAIN, Action.SPEND):\n    rings.append("reserve")'
    assert RULE_LOGIC.search(_without_docstrings(old))
    assert RULE_LOGIC.search('return c.get("action") == "gain"')  # the display's, before
    assert len(DISPLAY) > 10 and all(Path(ROOT / m).exists() for m in WHEEL)
