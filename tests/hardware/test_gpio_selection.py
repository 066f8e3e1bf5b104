"""Wheel.selection() is a pure view (issue 18 item 1): reading it, as often as the panel likes,
changes nothing the wheel does next (P4, P11, P18, P23)."""

from __future__ import annotations

import contextlib
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CommandRejected, apply
from engine.state import TableState
from hardware.config import GpioConfig
from hardware.wheel import Wheel

BUTTONS = ("undo", "exert", "resolve", "reset", "redraw", "call_favor", "time")
moves = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(-3, 3)),
        st.tuples(st.just("push"), st.just(0)),
        st.tuples(st.just("press"), st.sampled_from(BUTTONS)),
        st.tuples(st.just("draw"), st.integers(0, 50)),
    ),
    min_size=5,
    max_size=60,
)


class Table:
    """The loop's job, in one line: apply what the wheel sends (a refusal changes nothing)."""

    def __init__(self, state: TableState) -> None:
        self.state = state

    def take(self, commands: list[dict[str, Any]]) -> None:
        for command in commands:
            with contextlib.suppress(CommandRejected):
                self.state, _ = apply(self.state, command)


def _play(state: TableState, script: list[tuple[str, Any]], *, look: bool) -> list[Any]:
    table = Table(state)
    wheel = Wheel(lambda: table.state, GpioConfig(call_favor="random"), random.Random(7))
    seen: list[Any] = []
    for kind, arg in script:
        if look:
            wheel.selection()
            wheel.selection()
        if kind == "turn":
            out = wheel.turn(arg)
        elif kind == "push":
            out = wheel.push()
        elif kind == "press":
            out = wheel.press(arg)
        else:  # a token from the bag of a hero who has declared, as a reader would lay it
            perf = table.state.performance
            heroes = [c.hero for c in perf.contributions] if perf else []
            out = (
                [{"cmd": "draw", "hero": heroes[arg % len(heroes)], "seed": arg}] if heroes else []
            )
        table.take(out)
        seen.append(out)
    seen.append(wheel.selection())
    return seen


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=moves)
def test_reading_the_selection_changes_nothing_the_wheel_does(example_state, script) -> None:
    assert _play(example_state, script, look=True) == _play(example_state, script, look=False)


def test_selection_leaves_the_wheel_as_it_was(example_state) -> None:
    wheel = Wheel(lambda: example_state)
    before = dict(vars(wheel))
    first = wheel.selection()
    assert wheel.selection() == first and dict(vars(wheel)) == before
