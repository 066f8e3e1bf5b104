"""Time draws: draw, resolve or cancel a Minor or Major Time token (T3–T6, T12, I-T4).

A draw has two steps, because T12 needs a draw that can be cancelled before it
counts: ``draw_time`` lays the token on the board (checked against the band's
bag and the cadence); ``resolve_time`` applies it; ``cancel_time_draw`` puts it
back and changes nothing else. ``draw_time`` with ``resolve: true`` does both at
once (one Undo step). Only a resolved draw moves the cadence or a timer.

Resolving a draw, in order: temporary-token timers of that size count down and
expire *before* the step's effects (T12); the token's effect (Fatigue to each
hero not resting, or a WorldKeeper prompt, T4, T5, I-T4); then the Rest (T7–T10);
then the cadence moves on (T3), and at the end of a band its tokens go back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import (
    AcknowledgePromptArgs,
    CancelTimeDrawArgs,
    DrawTimeArgs,
    ResolveTimeArgs,
    SetTimeArgs,
)
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.performance import health
from engine.picking import SEED, TOKEN, known_token, seeded, token_or_seed
from engine.state import Applied, TableState
from engine.time import rest, temporary
from engine.time.board import Band, PromptKind, Size, TimeDraw, advance, split_face, time_bag
from engine.time.common import (
    FULL_REST,
    add_prompt,
    board,
    no_pending,
    with_board,
)
from engine.tokens import TokenKind
from engine.vocabulary import CommandSpec, Field, command

#: what each face asks of the WorldKeeper (T4, T5); Safe asks nothing, Fatigue is automatic
PROMPTS: dict[Size, dict[str, tuple[PromptKind, str]]] = {
    Size.MINOR: {
        "weather": (
            PromptKind.WEATHER,
            "Weather: draw a new Weather token or change the conditions",
        ),
        "opportunity": (
            PromptKind.OPPORTUNITY,
            "Opportunity: a favourable opening appears in the Scene",
        ),
        "event": (PromptKind.EVENT, "Event: a development enters the Scene and affects the heroes"),
        "escalation_1": (
            PromptKind.ESCALATION,
            "Escalation I: pressure increases, trouble approaches",
        ),
    },
    Size.MAJOR: {
        "opportunity": (
            PromptKind.OPPORTUNITY,
            "Opportunity: a larger opening appears in the world",
        ),
        "event": (
            PromptKind.EVENT,
            "Event: a notable development for places, factions, storylines",
        ),
        "escalation_1": (PromptKind.ESCALATION, "Escalation I: existing problems grow"),
        "escalation_2": (
            PromptKind.ESCALATION,
            "Escalation II: the situation shifts significantly",
        ),
        "escalation_3": (PromptKind.ESCALATION, "Escalation III: the status quo breaks"),
    },
}


def minor_per_band(state: TableState) -> int:
    return int(state.rules["time"]["minor_per_band"])


def due(state: TableState) -> Size:
    """Minor or Major: what the next Time draw must be (T3)."""
    return board(state).due(minor_per_band(state))


def _progress(state: TableState) -> str:
    b = board(state)
    return f"{b.minor_done} of {minor_per_band(state)} Minor draws done in {b.band.value.title()}"


def _pick(state: TableState, args: Mapping[str, Any]) -> str:
    """The Time token drawn: named and checked (band bag T6, cadence T3), or seeded."""
    token_or_seed(args)
    b = board(state)
    bag = state.bags[time_bag(b.band)]
    size = due(state)
    if args.get("seed") is not None:
        candidates = [t for t in bag.contents if split_face(str(state.tokens[t].face))[0] is size]
        if not candidates:
            raise CommandRejected(
                f"{bag.name} holds no {size.value.title()} Time token",
                rule="T6",
                field="seed",
                fix="check the table's [time.bags] contents",
            )
        return seeded(candidates, int(args["seed"]))
    token_id = str(args["token"])
    known_token(state, token_id)
    token = state.tokens[token_id]
    if token.kind is not TokenKind.TIME:
        raise CommandRejected(
            f"{token.name} is not a Time token",
            rule="T4",
            field="token",
            fix=f"draw from {bag.name}",
        )
    if token.bag != bag.id:
        raise CommandRejected(
            f"{token.name} is from {state.bags[token.bag].name}, but it is"
            f" {b.band.value.title()}: draw from {bag.name}",
            rule="T6",
            field="token",
            fix=f"put it back and draw from {bag.name}",
        )
    drawn_size, _ = split_face(str(token.face))
    if drawn_size is not size:
        raise CommandRejected(
            f"{token.name} is a {drawn_size.value.title()} token, but a {size.value.title()}"
            f" draw is due ({_progress(state)})",
            rule="T3",
            field="token",
            fix=f"put it back and draw a {size.value.title()} Time token",
        )
    if token_id not in bag.contents:
        raise CommandRejected(
            f"{token.name} already lies on the Time Board",
            rule="T3",
            field="token",
            fix=f"draw another token from {bag.name}",
        )
    return token_id


@command(
    CommandSpec(
        "draw_time",
        "Draw the due Time token from the current band's Time Bag onto the board (T3, T6);"
        " resolve: true resolves it at once.",
        "time",
        ("T1", "T3", "T4", "T5", "T6"),
        {
            "token": TOKEN,
            "seed": SEED,
            "resolve": Field("boolean", "resolve it now (one step, one Undo)", default=False),
            "full_rest": FULL_REST,
        },
    )
)
def draw_time(state: TableState, args: DrawTimeArgs) -> Applied:
    no_pending(state, "T3", "draw another Time token")
    b = board(state)
    blocking = b.blocking_prompt()
    if blocking is not None:
        raise CommandRejected(
            f"the WorldKeeper must answer first: {blocking.text}",
            rule="I-T10",
            fix="answer_interruption, then draw",
        )
    if b.weather is None and state.rules["time"]["weather_first"]:
        raise CommandRejected(
            "the weather is unknown: draw the session's Weather token first",
            rule="T1",
            fix='draw_weather with "bag": "overworld" or "underworld"',
        )
    if args.get("full_rest") is not None and not args["resolve"]:
        raise CommandRejected(
            "full_rest choices go with the resolution",
            field="full_rest",
            code="malformed",
            fix='add "resolve": true, or give them to resolve_time',
        )
    token_id = _pick(state, args)
    token = state.tokens[token_id]
    size, face = split_face(str(token.face))
    pending = TimeDraw(token_id, size, face, b.band, b.day, b.minor_done + 1)
    state = with_board(state.take_from_bag(token_id), replace(b, pending=pending))
    events = [
        ev.time_drawn(
            {
                "token": token_id,
                "name": token.name,
                "size": size.value,
                "face": face,
                "band": b.band.value,
                "day": b.day,
                "step": pending.step,
                "rule": "T3",
            },
        )
    ]
    if args["resolve"]:
        state, more = _resolve(state, args.get("full_rest"))
        events += more
    return state, events


@command(
    CommandSpec(
        "resolve_time",
        "Resolve the drawn Time token: timers, its effect, the Rest, then the cadence moves on.",
        "time",
        ("T3", "T4", "T5", "T7", "T8", "T9", "T10", "T12", "I-T4", "I-T8", "I-T10"),
        {"full_rest": FULL_REST},
    )
)
def resolve_time(state: TableState, args: ResolveTimeArgs) -> Applied:
    return _resolve(state, args.get("full_rest"))


@command(
    CommandSpec(
        "cancel_time_draw",
        "Put the drawn, unresolved Time token back: nothing advances, no timer moves (T12).",
        "time",
        ("T12",),
    )
)
def cancel_time_draw(state: TableState, args: CancelTimeDrawArgs) -> Applied:
    b = board(state)
    if b.pending is None:
        raise CommandRejected(
            "no Time token is waiting to be resolved",
            rule="T12",
            fix="nothing to cancel; undo takes back a resolved draw",
        )
    token = b.pending.token
    state = with_board(state.put_in_bag(token), replace(b, pending=None))
    return state, [ev.time_draw_cancelled({"token": token, "rule": "T12"})]


def _resolve(state: TableState, full_rest: Any) -> Applied:
    b = board(state)
    drawn = b.pending
    if drawn is None:
        raise CommandRejected(
            "no Time token has been drawn",
            rule="T3",
            fix=f"draw_time: a {due(state).value.title()} draw is due ({_progress(state)})",
        )
    if full_rest is not None and b.rest is None:
        raise CommandRejected(
            "full_rest choices given, but no Rest is running",
            rule="T8",
            field="full_rest",
            fix="begin_rest first, or leave full_rest out",
        )
    state = with_board(state, replace(b, pending=None, last=drawn))
    events = [
        ev.time_resolved(
            {
                "token": drawn.token,
                "size": drawn.size.value,
                "face": drawn.face,
                "band": drawn.band.value,
                "day": drawn.day,
                "step": drawn.step,
                "rule": "T4" if drawn.size is Size.MINOR else "T5",
            },
        )
    ]
    state, more = temporary.tick(state, drawn.size)  # T12: before the step's effects
    events += more
    state, more = _effect(state, drawn)
    events += more
    if drawn.size is Size.MINOR:
        state, more = rest.after_minor(state, drawn.face, full_rest)
    else:
        state, more = rest.after_major(state, drawn.face, full_rest)
    events += more
    state, more = _move_on(state, drawn)
    return state, events + more


def _effect(state: TableState, drawn: TimeDraw) -> Applied:
    """The token's own effect: Time Fatigue (I-T4) or a prompt for the WorldKeeper (T4, T5)."""
    if drawn.size is Size.MINOR and drawn.face == "fatigue":
        amount = int(state.rules["time"]["fatigue_per_token"])
        resting = rest.resting_heroes(state)
        events: list[Event] = []
        for hero_id in state.heroes:
            if hero_id in resting:
                continue
            state, more = health.add_fatigue(state, hero_id, amount, "time")
            events += more
        if resting:
            events.append(ev.time_fatigue_ignored({"heroes": sorted(resting), "rule": "T7"}))
        return state, events
    prompt = PROMPTS[drawn.size].get(drawn.face)
    if prompt is None:
        return state, []
    kind, text = prompt
    state, event = add_prompt(state, kind, text, face=drawn.face, size=drawn.size)
    return state, [event]


def _move_on(state: TableState, drawn: TimeDraw) -> Applied:
    """T3: count the draw; after the Major, the band's tokens go back and the next band begins."""
    b = board(state)
    back_now = state.rules["time"]["tokens_return"] == "resolved"
    if back_now:
        state = state.put_in_bag(drawn.token)
    else:
        b = replace(b, spaces=(*b.spaces, drawn.token))
    b, band_ended, new_day = advance(b, drawn.size, minor_per_band(state))
    events: list[Event] = []
    if band_ended:
        for token in b.spaces:
            state = state.put_in_bag(token)
        b = replace(b, spaces=())
        events.append(
            ev.band_started(
                {"day": b.day, "band": b.band.value, "new_day": new_day, "rule": "T3"},
            )
        )
    return with_board(state, b), events


@command(
    CommandSpec(
        "set_time",
        "The WorldKeeper sets the board: day, band and Minor draws already made (T3). Tokens"
        " on the spaces go back to their bags; timers and the Rest are untouched.",
        "time",
        ("T3",),
        {
            "day": Field("integer", "day number", bound="day"),
            "band": Field("string", "band", enum=tuple(Band)),
            "minor_done": Field(
                "integer", "Minor draws already made in the band", bound="minor_done"
            ),
        },
    )
)
def set_time(state: TableState, args: SetTimeArgs) -> Applied:
    no_pending(state, "T3", "set the Time Board")
    b = board(state)
    limit = minor_per_band(state)
    given = args.get("minor_done")
    minor_done = b.minor_done if given is None else int(given)
    if minor_done > limit:
        raise CommandRejected(
            f"a band has {limit} Minor draws",
            rule="T3",
            field="minor_done",
            fix=f"give 0 to {limit}",
        )
    for token in b.spaces:
        state = state.put_in_bag(token)
    b = replace(
        b,
        day=b.day if (day := args.get("day")) is None else int(day),
        band=b.band if (band := args.get("band")) is None else Band(band),
        minor_done=minor_done,
        spaces=(),
    )
    state = with_board(state, b)
    return state, [
        ev.time_set(
            {"day": b.day, "band": b.band.value, "minor_done": b.minor_done, "rule": "T3"},
        )
    ]


@command(
    CommandSpec(
        "acknowledge_prompt",
        "The WorldKeeper has dealt with a Time prompt (Opportunity, Event, Escalation …);"
        " without prompt, every non-blocking one.",
        "time",
        ("T4", "T5"),
        {"prompt": Field("integer", "the prompt's number", bound="prompt")},
    )
)
def acknowledge_prompt(state: TableState, args: AcknowledgePromptArgs) -> Applied:
    b = board(state)
    number = args.get("prompt")
    open_ = [p for p in b.prompts if not p.blocking]
    if number is not None:
        match = [p for p in b.prompts if p.id == number]
        if not match:
            raise CommandRejected(
                f"no prompt number {number}",
                field="prompt",
                code="unknown",
                fix=f"open prompts: {', '.join(str(p.id) for p in b.prompts) or 'none'}",
            )
        if match[0].blocking:
            raise CommandRejected(
                "this prompt needs an answer, not an acknowledgement",
                rule="I-T10",
                field="prompt",
                fix="answer_interruption with interrupts true or false",
            )
        open_ = match
    if not open_:
        raise CommandRejected("no prompt to acknowledge", field="prompt", fix="nothing is open")
    ids = {p.id for p in open_}
    state = with_board(state, replace(b, prompts=tuple(p for p in b.prompts if p.id not in ids)))
    dealt = sorted(open_, key=lambda p: p.id)  # each number beside its own kind
    return state, [
        ev.prompt_acknowledged(
            {"prompts": [p.id for p in dealt], "kinds": [p.kind.value for p in dealt]},
        )
    ]
