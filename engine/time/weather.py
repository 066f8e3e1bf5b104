"""The weather: the session-start draw, Weather draws and the WorldKeeper's changes (T1, T2, T11).

The current Weather token lies on the board's Weather space (out of its bag)
until the weather changes; then it goes back. Which bag to draw from follows the
place: the Overworld Weather Bag under open sky, the Underworld one in caves,
ruins, depths and other enclosed places (T1). A command says the bag, or it is
the current weather's bag; a token from the other bag is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import DrawWeatherArgs, SetWeatherArgs, StartSessionArgs
from engine.errors import CommandRejected
from engine.immutable import replace
from engine.picking import SEED, TOKEN, known_token, seeded, token_or_seed
from engine.state import Applied, TableState
from engine.time.board import WEATHER_BAGS, PromptKind, Weather, face_title, weather_bag
from engine.time.common import (
    add_prompt,
    board,
    with_board,
)
from engine.tokens import TokenKind
from engine.vocabulary import CommandSpec, Field, command

_BAG = Field(
    "string",
    "overworld (open sky) or underworld (caves, ruins, depths); default: the current weather's",
    enum=WEATHER_BAGS,
)
_WHERE = {"overworld": "under open sky", "underworld": "in an enclosed place"}


def _which_bag(state: TableState, args: Mapping[str, Any]) -> str:
    """The bag the place calls for: as said, else the current weather's, else the token's."""
    if args.get("bag") is not None:
        return str(args["bag"])
    weather = board(state).weather
    if weather is not None:
        return weather.bag
    token = state.tokens.get(args.get("token") or "")
    if token is not None and token.kind is TokenKind.WEATHER:
        return token.bag.removeprefix("weather.")
    raise CommandRejected(
        "the weather is unknown: say which Weather Bag the place calls for",
        rule="T1",
        field="bag",
        fix='add "bag": "overworld" (open sky) or "underworld" (caves, ruins, depths)',
    )


def _pick_weather(state: TableState, which: str, args: Mapping[str, Any]) -> str:
    token_or_seed(args)
    bag = state.bags[weather_bag(which)]
    current = board(state).weather
    if args.get("seed") is not None:
        if not bag.contents:
            raise CommandRejected(
                f"{bag.name} is empty (its only token is the current weather)",
                rule="T1",
                field="seed",
                fix="set_weather to describe the change instead",
            )
        return seeded(bag.contents, int(args["seed"]))
    token_id = str(args["token"])
    known_token(state, token_id)
    token = state.tokens[token_id]
    if token.kind is not TokenKind.WEATHER:
        raise CommandRejected(
            f"{token.name} is not a Weather token",
            rule="T1",
            field="token",
            fix=f"draw from {bag.name}",
        )
    if token.bag != bag.id:
        other = token.bag.removeprefix("weather.")
        raise CommandRejected(
            f"{token.name} is from the {other.title()} Weather Bag, but the heroes are"
            f" {_WHERE[which]}: draw from {bag.name}",
            rule="T1",
            field="token",
            fix=f'put it back and draw from {bag.name}, or say "bag": "{other}" if the'
            " heroes have moved",
        )
    if current is not None and current.token == token_id:
        raise CommandRejected(
            f"{token.name} is already the current weather",
            rule="T2",
            field="token",
            fix="draw another Weather token",
        )
    if token_id not in bag.contents:
        raise CommandRejected(
            f"{token.name} is not in {bag.name}", rule="T1", field="token", fix="check the tag"
        )
    return token_id


def _set(state: TableState, weather: Weather) -> tuple[TableState, str | None]:
    """Lay the new marker on the Weather space; the old token goes back to its bag."""
    b = board(state)
    old = b.weather.token if b.weather else None
    if weather.token is not None:
        state = state.take_from_bag(weather.token)
    if old is not None:
        state = state.put_in_bag(old)
    b = board(state).without_prompts(PromptKind.WEATHER)
    return with_board(state, replace(b, weather=weather)), old


def _draw(state: TableState, args: Mapping[str, Any], cause: str) -> Applied:
    which = _which_bag(state, args)
    token_id = _pick_weather(state, which, args)
    token = state.tokens[token_id]
    assert token.face is not None, "time/setup.py makes every weather token with a face"
    weather = Weather(which, token_id, face_title(token.face))
    state, old = _set(state, weather)
    return state, [
        ev.weather_drawn(
            {
                "bag": which,
                "token": token_id,
                "face": token.face,
                "name": weather.name,
                "replaced": old,
                "cause": cause,
                "rule": "T1" if cause == "session start" else "T4",
            },
        )
    ]


@command(
    CommandSpec(
        "start_session",
        "A Session begins: the board, weather and timers carry on (T11); if the weather is"
        " unknown, draw it now (token or seed) or the WorldKeeper is prompted to (T1).",
        "time",
        ("T1", "T2", "T11"),
        {
            "bag": _BAG,
            "token": TOKEN,
            "seed": SEED,
            "number": Field(
                "integer",
                "the Session's number, when a campaign goes on from an earlier journal (default:"
                " the next one)",
                bound="session",
            ),
        },
        # Undo stops here: the carried values (companion/record/carry.py) and the last
        # session come before a session's start, and are changed by their own commands
        undo_floor=True,
    )
)
def start_session(state: TableState, args: StartSessionArgs) -> Applied:
    b = board(state)
    drawing = args.get("token") is not None or args.get("seed") is not None
    if b.weather is not None and drawing:
        raise CommandRejected(
            f"the weather is known ({b.weather.name}) and holds",
            rule="T2",
            field="token",
            fix="start without a token; draw_weather if a Weather result changes it",
        )
    number = b.session + 1 if (given := args.get("number")) is None else int(given)
    state = with_board(state, replace(b, session=number))
    events = [
        ev.session_started(
            {
                "session": number,
                "day": b.day,
                "band": b.band.value,
                "weather": b.weather.name if b.weather else None,
            },
        )
    ]
    if drawing:
        state, more = _draw(state, args, "session start")
        events += more
    elif b.weather is None:
        state, event = add_prompt(
            state,
            PromptKind.WEATHER,
            "The weather is unknown: draw one Weather token (Overworld under open sky,"
            " Underworld in caves, ruins, depths)",
        )
        events.append(event)
    return state, events


@command(
    CommandSpec(
        "draw_weather",
        "Draw a Weather token: the session-start draw, or a Weather Time result (T1, T4).",
        "time",
        ("T1", "T2", "T4"),
        {"bag": _BAG, "token": TOKEN, "seed": SEED},
    )
)
def draw_weather(state: TableState, args: DrawWeatherArgs) -> Applied:
    cause = "session start" if board(state).weather is None else "weather result"
    return _draw(state, args, cause)


@command(
    CommandSpec(
        "set_weather",
        "The WorldKeeper changes the conditions without a draw (a significant event, T2).",
        "time",
        ("T2",),
        {
            "name": Field("string", "the new conditions, in words", True),
            "bag": _BAG,
        },
    )
)
def set_weather(state: TableState, args: SetWeatherArgs) -> Applied:
    name = str(args["name"]).strip()
    if not name:
        raise CommandRejected(
            "describe the new conditions", field="name", code="malformed", fix='"name": "hail"'
        )
    which = _which_bag(state, {"bag": args.get("bag")})
    state, old = _set(state, Weather(which, None, name))
    return state, [
        ev.weather_changed(
            {"bag": which, "name": name, "replaced": old, "cause": "worldkeeper", "rule": "T2"},
        )
    ]
