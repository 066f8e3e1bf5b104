"""Random hands on the wheel: no sequence of turns, pushes and presses ever raises, and every
command the controls submit parses (the one vocabulary, docs/commands.md).

The table loop applies each command with the real engine as it goes (refusals are
fine: the engine is the judge of legality), and tokens are drawn in between, so
Redraw, Favor, Resolve and Reset are reachable.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import parse_command
from engine.view import table_view
from hardware.config import ButtonConfig, GpioConfig
from hardware.facts import table_facts
from hardware.wheel import Wheel
from tests.harness import ARIA, BEGIN
from tests.harness.gpio import MockTable

BUTTONS = ("resolve", "reset", "exert", "call_favor", "redraw", "undo", "time")

ARGS = {
    "turn": st.sampled_from([-3, -2, -1, 1, 2, 3]),
    "push": st.none(),
    "press": st.sampled_from(BUTTONS),
    "draw": st.integers(0, 99),
}
#: pushes weigh more, so that random hands get past the rings and declare
hand_moves = st.sampled_from(["turn", "push", "push", "push", "push", "press", "draw"]).flatmap(
    lambda kind: st.tuples(st.just(kind), ARGS[kind])
)
#: where the hand finds the table: nothing running, a Performance begun, Aria drawing
STARTS = {
    "fresh": (),
    "begun": (BEGIN,),
    "drawing": (
        BEGIN,
        ARIA,
        {"cmd": "draw", "hero": "aria", "seed": 1},
        {"cmd": "draw", "hero": "aria", "seed": 2},
    ),
}

CONFIGS = {
    "default": GpioConfig(),
    "random draws, warn, hero button, view": GpioConfig(
        hero_ring=False,
        training_mismatch="warn",
        call_favor="random",
        time="token",
        steps_per_choice=2,
        buttons={**GpioConfig().buttons, "hero": ButtonConfig(23, action="hero")},
    ),
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def mock_table(request, example_state):
    """One set of gpiozero devices for all examples (closing buttons costs 0.1 s each time)."""
    config = CONFIGS[request.param]
    through_view = "view" in request.param
    t = MockTable(
        example_state,
        config,
        table=(lambda loop: table_view(loop.state)) if through_view else None,
    )
    t.config_name = request.param
    yield t
    t.close()


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(start=st.sampled_from(list(STARTS)), moves=st.lists(hand_moves, min_size=10, max_size=60))
def test_random_hands_never_raise_and_send_only_commands_that_parse(
    mock_table, example_state, start, moves
):
    t = mock_table
    # a fresh table and a fresh wheel on the same pins for every example
    t.loop.state = example_state
    t.controls.wheel = Wheel(t.controls.wheel._table, t.controls.config, random.Random(1))
    t.script(*STARTS[start])
    t.sent.clear()
    t._taken = 0
    extra = ("hero",) if "hero" in t.controls.config.buttons else ()
    for kind, arg in moves:
        if kind == "turn":
            t.hand.turn(arg)
        elif kind == "push":
            t.hand.push()
        elif kind == "press":
            t.hand.press(arg)
        elif extra and arg % 5 == 0:
            t.hand.press("hero")
        else:  # a token drawn from the bag of a hero who has declared, as a reader would
            perf = t.loop.state.performance
            heroes = [c.hero for c in perf.contributions] if perf else []
            if heroes:
                t.script({"cmd": "draw", "hero": heroes[arg % len(heroes)], "seed": arg})
        t.settle(strict=False)
        selection = t.controls.selection()
        assert json.loads(json.dumps(selection)) == selection
        assert selection["ring"] is None or selection["ring"] in selection["rings"]
    assert t.controls.failures == 0
    for command in t.sent:
        parse_command(command)  # raises CommandRejected if it does not fit the vocabulary
        event(f"sent {command['cmd']}")  # pytest --hypothesis-show-statistics: what was reached


def test_facts_from_a_state_and_from_its_view_agree(example_state):
    """What the view leaves out is only the capability list and the Potential tokens."""
    t = MockTable(example_state)
    try:
        t.script(
            BEGIN,
            ARIA,
            {"cmd": "draw", "hero": "aria", "seed": 3},
            {"cmd": "draw", "hero": "aria", "seed": 4},
        )
        state = t.loop.state
        a, b = table_facts(state), table_facts(table_view(state))
        assert a.contributions == b.contributions and a.contributions[0].drawn
        assert a.phase == b.phase == "open"
        assert (a.time_pending, a.time_due, a.time_band) == (
            b.time_pending,
            b.time_due,
            b.time_band,
        )
        assert [h.id for h in a.heroes] == [h.id for h in b.heroes]
        assert all(
            x.training == y.training and x.redraws == y.redraws
            for x, y in zip(a.heroes, b.heroes, strict=True)
        )
        assert set(b.capabilities) <= set(a.capabilities)
    finally:
        t.close()
