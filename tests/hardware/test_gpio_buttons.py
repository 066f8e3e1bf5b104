"""The table buttons on gpiozero's MockFactory pins: Resolve, Reset, Undo, Redraw, Call Favor,
Time, fixed-command buttons (P11, P18, P19, P22, T1, T3)."""

from __future__ import annotations

import pytest

from firmware_bridge.events import Presence, TagEvent
from hardware.config import ButtonConfig, GpioConfig
from tests.harness import ARIA, BEGIN
from tests.harness.gpio import MockTable, random_seed

EMBER, WEIGHT = "aria.ember.skill", "aria.weight.1"


@pytest.fixture
def drawn(example_state):
    """Aria (Adept in Skill, 2 Redraws) has drawn her Skill Ember (2C) and a Weight (0)."""
    t = MockTable(example_state)
    t.script(
        BEGIN,
        ARIA,
        {"cmd": "draw", "hero": "aria", "token": EMBER},
        {"cmd": "draw", "hero": "aria", "token": WEIGHT},
    )
    yield t
    t.close()


def draw_the_rest(t: MockTable) -> None:
    """Aria draws 4 at Adept (P6): two more."""
    t.script(
        *({"cmd": "draw", "hero": "aria", "token": k} for k in ("aria.ember.lore", "aria.weight.0"))
    )


def test_p19_resolve_button(drawn):
    draw_the_rest(drawn)
    drawn.hand.press("resolve")
    assert drawn.take() == [{"cmd": "resolve"}]
    assert drawn.loop.state.performance.resolved


def test_p22_reset_button_and_the_wheel_waits_for_it(drawn):
    t = drawn
    draw_the_rest(t)
    t.hand.press("resolve")
    t.take()
    assert t.ring() is None
    t.hand.push()  # nothing to dial on a resolved Performance
    sel = t.controls.selection()
    assert sel["mode"] == "idle" and sel["rule"] == "P22" and "Reset" in sel["message"]
    assert t.take() == []
    t.hand.press("reset")
    assert t.take() == [{"cmd": "reset"}]
    assert t.loop.state.performance is None
    assert t.ring() == "difficulty"


def test_p11_redraw_takes_the_lowest_value_token_by_default(drawn):
    t = drawn
    t.hand.press("redraw")
    sel = t.controls.selection()
    assert sel["mode"] == "redraw"
    assert sel["redraw"]["replace"] == WEIGHT and sel["redraw"]["value"] == 0
    assert sel["redraw"]["choices"] == [EMBER, WEIGHT]
    assert t.take() == []
    t.hand.press("redraw")  # a second press takes the token shown
    assert t.take() == [{"cmd": "redraw", "hero": "aria", "replace": WEIGHT}]
    c = t.loop.state.performance.contribution("aria")
    assert c.pending_redraw == WEIGHT and t.loop.state.heroes["aria"].redraws == 1


def test_p11_redraw_the_wheel_picks_another_token(drawn):
    t = drawn
    t.hand.press("redraw")
    t.hand.turn(+1)  # wraps from the Weight to the Ember
    assert t.controls.selection()["redraw"]["replace"] == EMBER
    t.hand.push()
    assert t.take() == [{"cmd": "redraw", "hero": "aria", "replace": EMBER}]


def test_p11_undo_cancels_a_redraw_pick(drawn):
    t = drawn
    ring = t.ring()
    t.hand.press("redraw")
    t.hand.press("undo")
    assert t.take() == []
    sel = t.controls.selection()
    assert sel["mode"] == "dial" and sel["ring"] == ring and sel["redraw"] is None


def test_p11_no_redraw_below_adept_says_why(example_state):
    t = MockTable(example_state)
    try:
        t.script(
            BEGIN,
            {**ARIA, "capability": "lore"},  # Aria is Trained in Lore
            {"cmd": "draw", "hero": "aria", "token": EMBER},
        )
        t.hand.press("redraw")
        sel = t.controls.selection()
        assert sel["mode"] == "dial" and sel["rule"] == "P11" and "needs Adept" in sel["message"]
        assert t.take() == []
    finally:
        t.close()


@pytest.mark.parametrize("through_view", [False, True])
def test_p11_the_wheel_offers_the_redraws_the_engine_allows_under_house_rules(through_view):
    """The wheel keeps no Training minimum of its own (issue 18): a table whose rules let a
    Trained hero Redraw gets the Redraw from the wheel, read from the state or from the view
    the engine published (which carries the engine's Redraw answer)."""
    import engine
    from engine.view import table_view
    from tests.harness import EXAMPLE_TABLE

    text = EXAMPLE_TABLE.read_text() + '\n[rules.training]\nredraw_minimum = "trained"\n'
    state = engine.load_table_text(text)
    t = MockTable(state, table=(lambda loop: table_view(loop.state)) if through_view else None)
    try:
        t.script(
            BEGIN,
            {**ARIA, "capability": "lore"},  # Trained in Lore: enough at this table
            {"cmd": "draw", "hero": "aria", "token": EMBER},
        )
        t.hand.press("redraw")
        sel = t.controls.selection()
        assert sel["mode"] == "redraw" and sel["redraw"]["replace"] == EMBER
        t.hand.press("redraw")  # a second press takes the token shown
        assert t.take() == [{"cmd": "redraw", "hero": "aria", "replace": EMBER}]
    finally:
        t.close()


def test_p18_the_wheel_says_the_engine_s_refusal_of_a_second_favor_call(drawn):
    """I-P18a: one call per Performance; the wheel asks the engine instead of counting."""
    t = drawn
    t.script({"cmd": "call_favor", "hero": "aria", "token": "favor.01"})
    t.hand.press("call_favor")
    sel = t.controls.selection()
    assert t.take() == [] and sel["favor"] is None
    assert sel["rule"] == "P18" and "already called Favor" in sel["message"]


def test_p18_call_favor_arms_and_the_favor_token_completes_it(drawn):
    """Default ``call_favor = "token"``: the button sends nothing; the Favor token laid on the
    board is the call (tags.commands makes it call_favor for the drawing hero)."""
    t = drawn
    t.hand.press("call_favor")
    assert t.take() == []
    favor = t.controls.selection()["favor"]
    assert favor["hero"] == "aria" and "Favor Bag" in favor["prompt"]
    uid = t.loop.registry.uid("favor.01")
    t.loop.tag_sink(TagEvent("draw-board", 0, uid, Presence.PRESENT, 0.0))
    (outcome,) = t.settle()
    assert outcome.command == {"cmd": "call_favor", "hero": "aria", "token": "favor.01"}
    assert outcome.error is None
    assert t.controls.selection()["favor"] is None  # the call is done


def test_p18_call_favor_pressed_again_puts_the_call_down(drawn):
    drawn.hand.press("call_favor")
    drawn.hand.press("call_favor")
    assert drawn.controls.selection()["favor"] is None
    assert drawn.take() == []


def test_p18_call_favor_random_draws_with_a_seed_in_the_command(example_state):
    """``call_favor = "random"`` (no Favor reader): the seed travels in the command, so a
    replay of the journal draws the same Favor token."""
    t = MockTable(example_state, GpioConfig(call_favor="random"))
    try:
        t.script(BEGIN, ARIA)
        t.hand.press("call_favor")
        (seed,) = random_seed(1)
        assert t.take() == [{"cmd": "call_favor", "hero": "aria", "seed": seed}]
        assert len(t.loop.state.performance.contribution("aria").favor) == 1
        assert t.loop.state.heroes["aria"].favor == 1
    finally:
        t.close()


def test_p18_call_favor_needs_a_hero_who_declared(example_state):
    t = MockTable(example_state, GpioConfig(call_favor="random"))
    try:
        t.script(BEGIN)
        t.hand.press("call_favor")
        assert t.take() == []
        assert t.controls.selection()["rule"] == "P18"
    finally:
        t.close()


def test_t3_time_button_draws_and_resolves_the_due_time_token(example_state):
    t = MockTable(example_state)
    try:
        t.script({"cmd": "draw_weather", "bag": "overworld", "seed": 1})  # T1 first
        t.hand.press("time")
        (seed,) = random_seed(1)
        assert t.take() == [{"cmd": "draw_time", "seed": seed, "resolve": True}]
        board = t.loop.state.time
        assert board.minor_done == 1 and board.pending is None
    finally:
        t.close()


def test_t3_time_button_resolves_a_time_token_already_drawn(example_state):
    t = MockTable(example_state)
    try:
        t.script(
            {"cmd": "draw_weather", "bag": "overworld", "seed": 1},
            {"cmd": "draw_time", "seed": 3},
        )
        t.hand.press("time")
        assert t.take() == [{"cmd": "resolve_time"}]
        assert t.loop.state.time.pending is None
    finally:
        t.close()


def test_t3_time_button_with_a_time_reader_says_what_to_draw(example_state):
    t = MockTable(example_state, GpioConfig(time="token"))
    try:
        t.hand.press("time")
        assert t.take() == []
        sel = t.controls.selection()
        assert sel["message"].startswith("draw a Minor Time token from the Morning Time Bag")
        assert sel["rule"] == "T3"
    finally:
        t.close()


def test_a_fixed_command_button_sends_its_command(example_state):
    buttons = {
        **GpioConfig().buttons,
        "cancel": ButtonConfig(23, command={"cmd": "cancel_performance"}),
    }
    t = MockTable(example_state, GpioConfig(buttons=buttons))
    try:
        t.script(BEGIN)
        t.hand.press("cancel")
        assert t.take() == [{"cmd": "cancel_performance"}]
        assert t.loop.state.performance is None
    finally:
        t.close()


def test_every_wheel_command_is_submitted_with_source_wheel(drawn):
    draw_the_rest(drawn)
    drawn.hand.press("resolve")
    drawn.take()
    assert drawn.sources == ["wheel"]
    assert drawn.outcomes[-1].source == "wheel"


@pytest.mark.error_log  # it provokes the ERROR it is about
def test_a_failing_table_callable_never_raises_into_gpiozero(example_state):
    t = MockTable(example_state, table=lambda loop: 1 / 0)
    try:
        t.hand.turn(+1)
        t.hand.press("resolve")
        assert t.controls.failures == 2 and t.sent == []
    finally:
        t.close()


def test_p11_a_redraw_pick_follows_the_board(drawn):
    """The Weight is taken back (undo) while the wheel shows it: the pick moves on."""
    t = drawn
    t.hand.press("redraw")
    assert t.controls.selection()["redraw"]["replace"] == WEIGHT
    t.script({"cmd": "undo"})
    sel = t.controls.selection()
    assert sel["redraw"]["replace"] == EMBER and sel["redraw"]["choices"] == [EMBER]
    t.hand.push()
    assert t.take() == [{"cmd": "redraw", "hero": "aria", "replace": EMBER}]


def test_p9_exert_left_over_from_a_cancelled_performance_is_dropped(example_state):
    t = MockTable(example_state)
    try:
        t.script(BEGIN)
        t.hand.press("exert")
        assert t.controls.selection()["exert"] is True
        t.script({"cmd": "cancel_performance"})  # the WorldKeeper, over MQTT
        assert t.controls.selection()["exert"] is False
        t.hand.push()
        assert t.take() == [{"cmd": "begin_performance", "difficulty": 3, "weight": "off"}]
    finally:
        t.close()
