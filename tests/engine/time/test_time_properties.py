"""Properties over any sequence of Time draws, cancels, Rests and grants (T3, T8, T12, P13).

- every fourth resolved Time draw is a Major, whatever Rests come and go (T3, T8);
- a cancelled draw moves no timer and changes nothing at all (T12);
- Fatigue never goes below zero or above capacity (T7, I-T4 through P13);
- a refused command changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import CommandRejected, apply
from engine.state import TableState
from engine.time.board import Size, split_face, time_bag
from tests.harness import EXAMPLE_TABLE
from tests.harness.timeboard import ready

HEROES = ("aria", "bren", "cass")
FACES = ("purity", "link", "restore", "vigor")
_START = ready(engine.load_table(EXAMPLE_TABLE))

ops = st.one_of(
    st.tuples(st.just("draw"), st.integers(0, 2**16)),
    st.tuples(st.just("draw_only"), st.integers(0, 2**16)),
    st.tuples(st.just("fatigue")),
    st.tuples(st.just("resolve")),
    st.tuples(st.just("cancel")),
    st.tuples(
        st.just("rest"), st.sampled_from(("safe", "unsafe")), st.sets(st.sampled_from(HEROES))
    ),
    st.tuples(st.just("end_rest")),
    st.tuples(st.just("answer"), st.booleans()),
    st.tuples(st.just("grant"), st.sampled_from(HEROES), st.sampled_from(FACES)),
    st.tuples(st.just("strain"), st.sampled_from(HEROES), st.integers(1, 6)),
)


def command_for(state: TableState, op: tuple[Any, ...]) -> dict[str, Any] | None:
    kind = op[0]
    if kind == "draw":
        return {"cmd": "draw_time", "seed": op[1], "resolve": True}
    if kind == "draw_only":
        return {"cmd": "draw_time", "seed": op[1]}
    if kind == "fatigue":  # a Fatigue token, when one is due and left: pressure on the tracks
        bag = state.bags[time_bag(state.time.band)]
        for t in bag.contents:
            if split_face(state.tokens[t].face) == (Size.MINOR, "fatigue"):
                return {"cmd": "draw_time", "token": t, "resolve": True}
        return None
    if kind == "resolve":
        return {"cmd": "resolve_time"}
    if kind == "cancel":
        return {"cmd": "cancel_time_draw"}
    if kind == "rest":
        return {"cmd": "begin_rest", "kind": op[1], "watch": sorted(op[2])}
    if kind == "end_rest":
        return {"cmd": "end_rest"}
    if kind == "answer":
        return {"cmd": "answer_interruption", "interrupts": op[1]}
    if kind == "grant":
        return {"cmd": "grant_temporary", "hero": op[1], "face": op[2]}
    if kind == "strain":
        return {"cmd": "adjust_hero", "hero": op[1], "fatigue": op[2]}
    raise AssertionError(kind)


def play(sequence: list[tuple[Any, ...]], check, start: TableState = _START) -> None:
    state = start
    for op in sequence:
        cmd = command_for(state, op)
        if cmd is None:
            continue
        before = state
        try:
            state, events = apply(state, cmd)
        except CommandRejected:
            assert state is before  # nothing changed
            continue
        check(before, cmd, state, events)


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.lists(ops, max_size=60))
def test_t3_t8_every_fourth_time_draw_is_a_major(sequence):
    sizes: list[str] = []

    def check(before, cmd, state, events):
        sizes.extend(e["size"] for e in events if e.type == "time_resolved")

    play(sequence, check)
    for i, size in enumerate(sizes):
        assert size == ("major" if i % 4 == 3 else "minor"), sizes


@_SETTINGS
@given(st.lists(ops, max_size=60))
def test_t12_no_timer_moves_on_a_cancelled_draw(sequence):
    drawn_from: list[TableState] = []

    def check(before, cmd, state, events):
        if cmd["cmd"] == "draw_time" and not cmd.get("resolve"):
            drawn_from.append(before)
            assert state.time.timers == before.time.timers
        if cmd["cmd"] == "cancel_time_draw":
            # the board, its timers and the Time Bags are as they were before the draw
            was = drawn_from[-1]
            assert state.time == was.time
            assert {b: state.bags[b] for b in state.bags if b.startswith("time.")} == {
                b: was.bags[b] for b in was.bags if b.startswith("time.")
            }
        moved = state.time.timers != before.time.timers
        resolved = any(e.type == "time_resolved" for e in events)
        granted = any(e.type == "temporary_granted" for e in events)
        assert not moved or resolved or granted

    play(sequence, check)


@_SETTINGS
@given(
    st.lists(ops, max_size=60),
    st.fixed_dictionaries({h: st.integers(0, 5) for h in HEROES}),
)
def test_p13_fatigue_never_goes_negative_or_above_capacity(sequence, start):
    state = _START
    for hero, fatigue in start.items():
        h = state.heroes[hero]
        state = state.with_hero(replace(h, fatigue=min(fatigue, h.fatigue_capacity)))

    def check(before, cmd, state, events):
        for h in state.heroes.values():
            assert 0 <= h.fatigue <= h.fatigue_capacity
            assert 0 <= h.strain <= h.strain_capacity

    play(sequence, check, state)
