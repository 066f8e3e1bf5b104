"""Temporary tokens and their timers: Purity, Link, RESTORE, VIGOR (T12).

A granted token goes into a hero's bag with a timer counted in *resolved* Time
draws of one size (rules ``temporary.timers``): Purity three Majors, Link the next
Major, RESTORE and VIGOR the next Minor. Only :func:`tick`, called when a Time
draw resolves, moves a timer, so a cancelled or unfinished draw moves none.

At expiry the token leaves the bag for the box. If it lies on the Draw Board (in
a Performance, resolved or not) it stays there and leaves at Reset: the
Performance is finished as drawn (T12).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import GrantTemporaryArgs
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.picking import known_hero
from engine.state import Applied, TableState
from engine.time.board import TEMPORARY_BOX, Size, Timer
from engine.time.common import board, no_pending, with_board
from engine.tokens import TokenKind
from engine.vocabulary import CommandSpec, Field, command


def expires_text(timer: Timer) -> str:
    """When a timer runs out, for people: ``next Minor draw``, ``3 Major draws``."""
    size = timer.on.value.title()
    if timer.remaining <= 1:
        return f"next {size} draw"
    return f"{timer.remaining} {size} draws"


def _rehome(state: TableState, token_id: str, bag_id: str) -> TableState:
    """Make ``bag_id`` the token's home bag (where Reset and put_in_bag send it)."""
    tokens = dict(state.tokens)
    tokens[token_id] = replace(tokens[token_id], bag=bag_id)
    return replace(state, tokens=tokens)


def _free(state: TableState, token_id: str) -> bool:
    """In the box, or out of play after an earlier expiry, and not on any timer."""
    if any(t.token == token_id for t in board(state).timers) or token_id in state.retiring:
        return False
    return state.location(token_id) in (f"bag:{TEMPORARY_BOX}", "supply")


def _choose(state: TableState, args: Mapping[str, Any], hero_name: str) -> str:
    token_id, face = args.get("token"), args.get("face")
    timers = state.rules["temporary"]["timers"]
    if (token_id is None) == (face is None):
        raise CommandRejected(
            "name the temporary token or its face, not both or neither",
            field="token",
            code="malformed",
            fix=f'add "token": "<id>" or "face": one of {", ".join(timers)}',
        )
    if token_id is not None:
        token = state.tokens.get(token_id)
        if token is None or token.kind is not TokenKind.TEMPORARY:
            raise CommandRejected(
                f"{token_id!r} is not a temporary token",
                rule="T12",
                field="token",
                code="unknown",
                fix="Purity, Link, RESTORE and VIGOR tokens are temporary.<face>.<n>",
            )
        if not _free(state, token_id):
            raise CommandRejected(
                f"{token.name} is already in play",
                rule="T12",
                field="token",
                fix="grant another token of that face, or wait until it expires",
            )
        return str(token_id)
    if face not in timers:
        raise CommandRejected(
            f"unknown temporary face {face!r}",
            rule="T12",
            field="face",
            fix=f"one of: {', '.join(timers)}",
        )
    candidates = sorted(
        t.id
        for t in state.tokens.values()
        if t.kind is TokenKind.TEMPORARY and t.face == face and _free(state, t.id)
    )
    if not candidates:
        raise CommandRejected(
            f"no {face} token is free to give {hero_name}",
            rule="T12",
            field="face",
            fix="every one is in a bag already; enlarge [temporary] supply in the table file",
        )
    in_box = [t for t in candidates if state.location(t) == f"bag:{TEMPORARY_BOX}"]
    return (in_box or candidates)[0]


@command(
    CommandSpec(
        "grant_temporary",
        "Put a temporary token (Purity, Link, RESTORE, VIGOR) into a hero's bag with its timer.",
        "time",
        ("T12",),
        {
            "hero": Field("string", "hero id whose bag receives it", True),
            "token": Field("string", "the temporary token's id (from its tag)"),
            "face": Field("string", "or just its face: the first free token of it is used"),
        },
    )
)
def grant_temporary(state: TableState, args: GrantTemporaryArgs) -> Applied:
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    no_pending(state, "T12", "grant a temporary token")
    token_id = _choose(state, args, hero.name)
    token = state.tokens[token_id]
    face = str(token.face)
    spec = state.rules["temporary"]["timers"][face]
    if state.location(token_id) == f"bag:{token.bag}":
        state = state.take_from_bag(token_id)
    state = _rehome(state, token_id, hero.bag).put_in_bag(token_id)
    timer = Timer(token_id, hero_id, face, Size(spec["on"]), int(spec["count"]))
    b = board(state)
    state = with_board(state, replace(b, timers=(*b.timers, timer)))
    return state, [
        ev.temporary_granted(
            {
                "token": token_id,
                "name": token.name,
                "hero": hero_id,
                "face": face,
                "on": timer.on.value,
                "remaining": timer.remaining,
                "expires": expires_text(timer),
                "rule": "T12",
            },
        )
    ]


def tick(state: TableState, size: Size) -> Applied:
    """A Time draw of ``size`` resolved: count down that size's timers; expire those at zero."""
    events: list[Event] = []
    kept: list[Timer] = []
    expired: list[Timer] = []
    for timer in board(state).timers:
        if timer.on is not size:
            kept.append(timer)
            continue
        left = replace(timer, remaining=timer.remaining - 1)
        if left.remaining <= 0:
            expired.append(left)
            continue
        kept.append(left)
        events.append(
            ev.temporary_timer(
                {
                    "token": left.token,
                    "hero": left.hero,
                    "face": left.face,
                    "remaining": left.remaining,
                    "expires": expires_text(left),
                    "rule": "T12",
                },
            )
        )
    state = with_board(state, replace(board(state), timers=tuple(kept)))
    for timer in expired:
        state, event = _expire(state, timer)
        events.append(event)
    return state, events


def _expire(state: TableState, timer: Timer) -> tuple[TableState, Event]:
    """The token leaves its bag now, or (if on the Draw Board) at Reset (T12)."""
    location = state.location(timer.token)
    if location.startswith("bag:"):
        state = state.take_from_bag(timer.token)
        state = _rehome(state, timer.token, TEMPORARY_BOX).put_in_bag(timer.token)
        leaves = "now"
    elif location.startswith(("board:", "aside:")):
        state = replace(state, retiring=state.retiring | {timer.token})
        leaves = "at_reset"
    else:
        leaves = "gone"
    return state, ev.temporary_expired(
        {
            "token": timer.token,
            "name": state.tokens[timer.token].name,
            "hero": timer.hero,
            "face": timer.face,
            "leaves": leaves,
            "rule": "T12",
        },
    )
