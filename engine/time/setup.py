"""The table file's ``[time]``, ``[weather]`` and ``[temporary]`` sections → tokens, bags, board.

Every band has its own Time Bag (T6) and there are two Weather Bags (T1); their
contents are table data with defaults in the rules (I-T6). Each physical token
gets an id a tag can be enrolled against::

    time.<band>.<minor|major>.<face>.<n>    e.g. time.night.major.escalation_3.1
    weather.<overworld|underworld>.<face>.<n>
    temporary.<face>.<n>                    Purity, Link, RESTORE, VIGOR (T12)

A table file may also say where the board starts (``[time] day, band,
minor_done``) and what the weather is (``[weather] bag, current``); without
``current`` the weather is unknown and the session starts with a Weather draw (T1).
"""

from __future__ import annotations

import re
from typing import Any

from engine.immutable import replace
from engine.state import Bag, TableState
from engine.table import section
from engine.time.board import (
    FACES,
    TEMPORARY_BOX,
    WEATHER_BAGS,
    Band,
    Size,
    Weather,
    face_title,
    time_bag,
    weather_bag,
)
from engine.time.common import fresh_board
from engine.tokens import Token, TokenKind
from settings.checker import unknown_key
from settings.errors import ConfigError

_FACE = re.compile(r"^[a-z][a-z0-9_]*$")


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of values")
    return value


def _check_keys(value: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in value:
        if key not in known:
            raise unknown_key(where, key, known)


def _counts(value: Any, where: str, faces: tuple[str, ...] | None) -> dict[str, int]:
    """``{face = count, …}``: whole numbers ≥ 0; faces from ``faces`` when it is fixed."""
    counts = _table(value, where)
    out: dict[str, int] = {}
    for face, n in counts.items():
        if face == "rule":
            continue
        if faces is not None and face not in faces:
            raise ConfigError(f"{where}: unknown face {face!r} (faces: {', '.join(faces)})")
        if faces is None and not _FACE.match(face):
            raise ConfigError(
                f"{where}: face {face!r} must be a lower-case name like rain or foul_air"
            )
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ConfigError(f"{where}.{face} must be a whole number ≥ 0, not {n!r}")
        out[face] = n
    return out


def _add_bag(
    state: TableState, bag_id: str, name: str, tokens: list[Token], where: str
) -> TableState:
    all_tokens = dict(state.tokens)
    for t in tokens:
        if t.id in all_tokens:
            raise ConfigError(f"{where}: token id {t.id!r} is already used")
        all_tokens[t.id] = t
    bags = dict(state.bags)
    if bag_id in bags:
        raise ConfigError(f"{where}: bag id {bag_id!r} is already used (a hero named so?)")
    bags[bag_id] = Bag(bag_id, name, None, tuple(sorted(t.id for t in tokens)))
    return replace(state, tokens=all_tokens, bags=bags)


# --- [time] ----------------------------------------------------------------------


@section("time")
def load_time(state: TableState, value: Any, source: str) -> TableState:
    """The three Time Bags (T6, I-T6) and the board's starting day, band and step (T3)."""
    data = {} if value is None else _table(value, f"{source}: [time]")
    _check_keys(data, ("day", "band", "minor_done", "bags"), f"{source}: [time]")
    rules = state.rules["time"]
    minor_per_band = int(rules["minor_per_band"])
    custom = _table(data.get("bags", {}), f"{source}: time.bags")
    _check_keys(custom, tuple(Band), f"{source}: time.bags")
    for band in Band:
        where = f"{source}: time.bags.{band.value}"
        given = _table(custom.get(band.value, {}), where)
        _check_keys(given, ("minor", "major"), where)
        tokens: list[Token] = []
        for size in Size:
            if size.value in given:
                counts = _counts(given[size.value], f"{where}.{size.value}", FACES[size])
                origin = where
            else:
                counts = _counts(
                    rules["bags"][band.value][size.value],
                    f"rules time.bags.{band.value}.{size.value}",
                    FACES[size],
                )
                origin = f"rules time.bags.{band.value}"
            need = minor_per_band if size is Size.MINOR else 1
            if rules["tokens_return"] == "resolved":
                need = 1
            if sum(counts.values()) < need:
                raise ConfigError(
                    f"{origin}.{size.value}: a band draws {need} {size.value} token(s) before"
                    f" its bag is refilled; give at least {need} (T3)"
                )
            for face, n in counts.items():
                for i in range(1, n + 1):
                    tokens.append(
                        Token(
                            f"time.{band.value}.{size.value}.{face}.{i}",
                            TokenKind.TIME,
                            time_bag(band),
                            f"{band.value.title()} {size.value.title()} Time: {face_title(face)}",
                            ordinal=i,
                            face=f"{size.value}.{face}",
                        )
                    )
        name = f"the {band.value.title()} Time Bag"
        state = _add_bag(state, time_bag(band), name, tokens, where)
    day = data.get("day", int(rules["first_day"]))
    if not isinstance(day, int) or isinstance(day, bool) or day < 1:
        raise ConfigError(f"{source}: time.day must be a whole number ≥ 1, not {day!r}")
    band_name = data.get("band", Band.MORNING.value)
    if band_name not in tuple(Band):
        raise ConfigError(f"{source}: time.band = {band_name!r}: use morning, day or night")
    minor_done = data.get("minor_done", 0)
    if (
        not isinstance(minor_done, int)
        or isinstance(minor_done, bool)
        or not 0 <= minor_done <= minor_per_band
    ):
        raise ConfigError(
            f"{source}: time.minor_done = {minor_done!r}: Minor draws already made in this band,"
            f" 0 to {minor_per_band}"
        )
    board = state.time or fresh_board(state)
    board = replace(board, day=day, band=Band(band_name), minor_done=minor_done)
    return replace(state, time=board)


# --- [weather] -------------------------------------------------------------------


@section("weather")
def load_weather(state: TableState, value: Any, source: str) -> TableState:
    """The Overworld and Underworld Weather Bags (T1) and, if known, the current weather."""
    data = {} if value is None else _table(value, f"{source}: [weather]")
    _check_keys(data, ("bag", "current", "bags"), f"{source}: [weather]")
    custom = _table(data.get("bags", {}), f"{source}: weather.bags")
    _check_keys(custom, WEATHER_BAGS, f"{source}: weather.bags")
    defaults = state.rules["weather"]["bags"]
    for which in WEATHER_BAGS:
        if which in custom:
            where = f"{source}: weather.bags.{which}"
            counts = _counts(custom[which], where, None)
        else:
            where = f"rules weather.bags.{which}"
            counts = _counts(defaults[which], where, None)
        if not sum(counts.values()):
            raise ConfigError(f"{where}: a Weather Bag needs at least one token (T1)")
        tokens = [
            Token(
                f"weather.{which}.{face}.{i}",
                TokenKind.WEATHER,
                weather_bag(which),
                f"{which.title()} Weather: {face_title(face)}",
                ordinal=i,
                face=face,
            )
            for face, n in counts.items()
            for i in range(1, n + 1)
        ]
        state = _add_bag(
            state, weather_bag(which), f"the {which.title()} Weather Bag", tokens, where
        )
    board = state.time or fresh_board(state)
    current = data.get("current")
    if current is not None:
        bag = data.get("bag")
        if bag not in WEATHER_BAGS:
            raise ConfigError(
                f'{source}: weather.current needs weather.bag = "overworld" (open sky) or'
                ' "underworld" (caves, ruins, depths) (T1)'
            )
        bag_id = weather_bag(bag)
        match = [t for t in state.bags[bag_id].contents if state.tokens[t].face == current]
        if not match:
            faces = sorted({str(state.tokens[t].face) for t in state.bags[bag_id].contents})
            raise ConfigError(
                f"{source}: weather.current = {current!r} is not a face in the {bag} Weather"
                f" Bag (faces: {', '.join(faces)})"
            )
        token = match[0]
        state = state.take_from_bag(token)
        board = replace(board, weather=Weather(bag, token, face_title(current)))
    elif "bag" in data:
        raise ConfigError(
            f"{source}: weather.bag without weather.current: give the current face too, or"
            " leave both out so the session starts with a Weather draw (T1)"
        )
    return replace(state, time=board)


# --- [temporary] -----------------------------------------------------------------


@section("temporary")
def load_temporary(state: TableState, value: Any, source: str) -> TableState:
    """The box of temporary tokens (Purity, Link, RESTORE, VIGOR) waiting to be granted (T12)."""
    data = {} if value is None else _table(value, f"{source}: [temporary]")
    _check_keys(data, ("supply",), f"{source}: [temporary]")
    faces = tuple(state.rules["temporary"]["timers"])
    if "supply" in data:
        counts = _counts(data["supply"], f"{source}: temporary.supply", faces)
    else:
        counts = _counts(state.rules["temporary"]["supply"], "rules temporary.supply", faces)
    tokens = [
        Token(
            f"temporary.{face}.{i}",
            TokenKind.TEMPORARY,
            TEMPORARY_BOX,
            f"{face.upper() if face in ('restore', 'vigor') else face.title()} {i}",
            ordinal=i,
            face=face,
        )
        for face, n in counts.items()
        for i in range(1, n + 1)
    ]
    state = _add_bag(state, TEMPORARY_BOX, "the box of temporary tokens", tokens, source)
    return replace(state, time=state.time or fresh_board(state))
