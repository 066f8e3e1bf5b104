"""Helpers the Time, Weather, Rest and temporary-token commands share.

Reading the board out of the table, writing it back, adding a WorldKeeper prompt
with the rules' limit, and choosing a token by name (an RFID tag) or by seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.state import TableState
from engine.timeboard import Prompt, Size, TimeBoard
from engine.vocabulary import Field

Result_ = tuple[TableState, list[Event]]

TOKEN = Field("string", "token id (the registry maps a tag UID to it); omit to use seed")
SEED = Field("integer", "draw at random with this seed instead of naming a token (scripts, demo)")
FULL_REST = Field(
    "object",
    'Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)',
)


def board(state: TableState) -> TimeBoard:
    """The table's Time Board (a table loaded from a file always has one)."""
    return state.time if state.time is not None else TimeBoard()


def with_board(state: TableState, new: TimeBoard) -> TableState:
    return replace(state, time=new)


def add_prompt(
    state: TableState,
    kind: str,
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
    return Event(
        "time_prompt",
        {
            "prompt": prompt.id,
            "kind": prompt.kind,
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


def one_of_token_or_seed(args: Mapping[str, Any]) -> None:
    if (args.get("token") is None) == (args.get("seed") is None):
        raise CommandRejected(
            "name the token drawn or give a seed, not both or neither",
            field="token",
            code="malformed",
            fix='add "token": "<id>" (or "seed": <n> to draw at random)',
        )


def seeded(candidates: Sequence[str], seed: int) -> str:
    """A deterministic random pick: the same seed and bag give the same token on every replay."""
    return candidates[random.Random(seed).randrange(len(candidates))]


def known_token(state: TableState, token_id: str) -> None:
    if token_id not in state.tokens:
        raise CommandRejected(
            f"unknown token {token_id!r}",
            field="token",
            code="unknown",
            fix="enrol the tag, or check the token id",
        )


def hero_name(state: TableState, hero_id: str) -> str:
    hero = state.heroes.get(hero_id)
    return hero.name if hero else hero_id
