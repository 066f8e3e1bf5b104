"""Helpers for the Time, Weather, Rest and temporary-token tests (T1–T12)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import CommandRejected, apply
from engine.events import Event
from engine.state import TableState
from engine.time.board import Size, split_face, time_bag
from tests.harness import run


def ready(example: TableState) -> TableState:
    """The example table with the session's weather drawn, so Time can be drawn (T1)."""
    state, _ = run(
        example,
        {"cmd": "start_session"},
        {"cmd": "draw_weather", "bag": "overworld", "token": "weather.overworld.clear.1"},
    )
    return state


def token_of(
    state: TableState, face: str, size: Size | None = None, band: str | None = None
) -> str:
    """A token of ``face`` still in a band's bag (the current band's unless named)."""
    assert state.time is not None
    size = size or state.time.due(int(state.rules["time"]["minor_per_band"]))
    bag = state.bags[time_bag(band or state.time.band)]
    for t in bag.contents:
        if split_face(str(state.tokens[t].face)) == (size, face):
            return t
    raise AssertionError(f"no {size.value} {face} token left in {bag.id}")


def resolve(state: TableState, face: str, **extra: Any) -> tuple[TableState, list[Event]]:
    """Draw the due token showing ``face`` from the current band's bag and resolve it."""
    token = token_of(state, face)
    return apply(state, {"cmd": "draw_time", "token": token, "resolve": True, **extra})


def resolve_many(state: TableState, *faces: str) -> tuple[TableState, list[Event]]:
    events: list[Event] = []
    for face in faces:
        state, more = resolve(state, face)
        events += more
    return state, events


def rejected(state: TableState, cmd: dict[str, Any]) -> CommandRejected:
    """Apply ``cmd`` expecting a refusal; return it."""
    with pytest.raises(CommandRejected) as info:
        apply(state, cmd)
    return info.value


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]
