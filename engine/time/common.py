"""Helpers the Time, Weather, Rest and temporary-token commands share.

Reading the board out of the table, writing it back, and adding a WorldKeeper prompt
with the rules' limit. Choosing a token by name or by seed is :mod:`engine.picking`.
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.state import TableState
from engine.time.board import Prompt, PromptKind, Size, TimeBoard
from engine.vocabulary import Field

FULL_REST = Field(
    "object",
    'Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)',
)


def board(state: TableState) -> TimeBoard:
    """The table's Time Board (a table loaded from a file always has one)."""
    return state.time if state.time is not None else fresh_board(state)


def fresh_board(state: TableState) -> TimeBoard:
    """A new Time Board, on the rules data's first day (T3)."""
    return TimeBoard(day=int(state.rules["time"]["first_day"]))


def with_board(state: TableState, new: TimeBoard) -> TableState:
    return replace(state, time=new)


def add_prompt(
    state: TableState,
    kind: PromptKind,
    text: str,
    *,
    face: str | None = None,
    size: Size | None = None,
    blocking: bool = False,
) -> tuple[TableState, Event]:
    """Record a WorldKeeper prompt on the board and say so in an event."""
    limit = int(state.rules["time"]["prompt_limit"])
    new, prompt = board(state).with_prompt(
        kind, text, limit, face=face, size=size, blocking=blocking
    )
    return with_board(state, new), prompt_event(prompt)


def prompt_event(prompt: Prompt) -> Event:
    return ev.time_prompt(
        {
            "prompt": prompt.id,
            "kind": prompt.kind.value,
            "text": prompt.text,
            "face": prompt.face,
            "size": prompt.size.value if prompt.size else None,
            "blocking": prompt.blocking,
        },
    )


def no_pending(state: TableState, rule: str, doing: str) -> None:
    """Refuse ``doing`` while a Time token lies drawn but unresolved."""
    pending = board(state).pending
    if pending is not None:
        raise CommandRejected(
            f"cannot {doing} while {state.tokens[pending.token].name} waits to be resolved",
            rule=rule,
            fix="resolve_time or cancel_time_draw first",
        )
