"""The Time Board as a value: day, band, cadence, weather, Rest, timers and prompts (T1–T12).

This module holds only data and the pure arithmetic of the cadence, so that
:mod:`engine.state` can import it without a cycle. The commands that change the
board live in :mod:`engine.time.draws`, :mod:`engine.time.weather`, :mod:`engine.time.rest`
and :mod:`engine.time.temporary`.

>>> board = TimeBoard(day=1)
>>> board.due(3).value, board.band.value
('minor', 'morning')
>>> advance(TimeBoard(day=1, band=Band.NIGHT, minor_done=3), Size.MAJOR, 3)[0].day
2
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from engine.codec import state_type
from engine.contracts.terms import BandName, PromptKindName, RestKindName, RoleName, SizeName
from engine.immutable import replace


class Band(StrEnum):
    """The three bands of the Time Board, in the order they run (T3)."""

    _value_: BandName

    MORNING = "morning"
    DAY = "day"
    NIGHT = "night"

    @property
    def next(self) -> Band:
        order = list(Band)
        return order[(order.index(self) + 1) % len(order)]


class Size(StrEnum):
    """Minor Time (the current Scene, T4) or Major Time (the wider world, T5)."""

    _value_: SizeName

    MINOR = "minor"
    MAJOR = "major"


class PromptKind(StrEnum):
    """What a prompt asks of the WorldKeeper: a Time token's result (T4, T5), the unknown
    weather (T1), an Unsafe Rest's interruption (T10), the coming Full Rest's choice (T8)."""

    _value_: PromptKindName

    WEATHER = "weather"
    OPPORTUNITY = "opportunity"
    EVENT = "event"
    ESCALATION = "escalation"
    INTERRUPT = "interrupt"
    FULL_REST = "full_rest"


class RestKind(StrEnum):
    """Safe Rest cannot be interrupted; Unsafe Rest can, by Events (T10)."""

    _value_: RestKindName

    SAFE = "safe"
    UNSAFE = "unsafe"


class Role(StrEnum):
    """During a Rest each hero rests or keeps watch (T9)."""

    _value_: RoleName

    RESTING = "resting"
    WATCH = "watch"


#: the faces of Time tokens (T4, T5); the rules data counts them per band bag
MINOR_FACES = ("safe", "weather", "fatigue", "opportunity", "event", "escalation_1")
MAJOR_FACES = ("safe", "opportunity", "event", "escalation_1", "escalation_2", "escalation_3")
FACES: dict[Size, tuple[str, ...]] = {Size.MINOR: MINOR_FACES, Size.MAJOR: MAJOR_FACES}

#: bag ids: ``time.morning`` …, ``weather.overworld`` / ``weather.underworld``, the box
WEATHER_BAGS = ("overworld", "underworld")
TEMPORARY_BOX = "temporary"


def time_bag(band: Band | str) -> str:
    return f"time.{Band(band).value}"


def weather_bag(which: str) -> str:
    return f"weather.{which}"


def split_face(face: str) -> tuple[Size, str]:
    """A Time token's face is stored as ``"minor.fatigue"``; split it into size and face."""
    size, _, name = face.partition(".")
    return Size(size), name


def face_title(face: str) -> str:
    """``escalation_2`` → ``Escalation II``; ``foul_air`` → ``Foul Air``."""
    numerals = {"1": "I", "2": "II", "3": "III"}
    words = face.split("_")
    return " ".join(numerals.get(w, w.title()) for w in words)


@dataclass(frozen=True, slots=True)
class TimeDraw:
    """One Time token drawn onto the board: which, what it shows, and when (T3)."""

    token: str
    size: Size
    face: str
    band: Band
    day: int
    #: 1–3 for the band's Minor draws, 4 for its Major
    step: int


@dataclass(frozen=True, slots=True)
class Weather:
    """The Weather marker (T1, T2, T11): from a Weather token, or the WorldKeeper's words."""

    bag: str  # "overworld" | "underworld"
    token: str | None
    name: str


@dataclass(frozen=True, slots=True)
class Rest:
    """A Rest in progress (T7–T10)."""

    kind: RestKind
    roles: Mapping[str, Role]
    minor_draws: int = 0
    #: each resting hero's Full Rest choice, "fatigue" or "strain", when given (I-T8)
    choices: Mapping[str, str] = field(default_factory=dict)
    #: a Minor draw's recovery waits for the WorldKeeper's interruption answer (I-T10)
    held: bool = False

    def resting(self) -> tuple[str, ...]:
        return tuple(h for h, r in self.roles.items() if r is Role.RESTING)


@dataclass(frozen=True, slots=True)
class Timer:
    """A temporary token in a hero's bag and how many resolved draws it has left (T12)."""

    token: str
    hero: str
    face: str
    on: Size
    remaining: int


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something the WorldKeeper must narrate or decide (Opportunity, Event, Escalation …)."""

    id: int
    kind: PromptKind
    text: str
    day: int
    band: Band
    face: str | None = None
    size: Size | None = None
    #: a blocking prompt must be answered before the next Time draw (I-T10)
    blocking: bool = False


@state_type
@dataclass(frozen=True, slots=True)
class TimeBoard:
    """Everything the Time Board shows and remembers between Performances."""

    #: a fresh board starts on the rules data's time.first_day (T3): no default here
    day: int = field(kw_only=True)
    band: Band = Band.MORNING
    #: Minor draws resolved in this band (0–3); at 3 the Major is due (T3)
    minor_done: int = 0
    session: int = 0
    weather: Weather | None = None
    #: drawn but not yet resolved: cancelling it changes nothing (T12)
    pending: TimeDraw | None = None
    #: resolved Time tokens lying on this band's spaces (back to their bag at band end)
    spaces: tuple[str, ...] = ()
    last: TimeDraw | None = None
    rest: Rest | None = None
    timers: tuple[Timer, ...] = ()
    prompts: tuple[Prompt, ...] = ()
    prompt_seq: int = 0
    #: resolved Time draws since the table was made
    draws: int = 0

    def due(self, minor_per_band: int) -> Size:
        """What the next draw must be: Minor until the band's Minors are done, then Major (T3)."""
        return Size.MAJOR if self.minor_done >= minor_per_band else Size.MINOR

    def blocking_prompt(self) -> Prompt | None:
        for p in self.prompts:
            if p.blocking:
                return p
        return None

    def with_prompt(
        self,
        kind: PromptKind,
        text: str,
        limit: int,
        *,
        face: str | None = None,
        size: Size | None = None,
        blocking: bool = False,
    ) -> tuple[TimeBoard, Prompt]:
        """Add a prompt; beyond ``limit`` the oldest non-blocking prompts are dropped."""
        prompt = Prompt(self.prompt_seq + 1, kind, text, self.day, self.band, face, size, blocking)
        prompts = (*self.prompts, prompt)
        while len(prompts) > limit:
            oldest = next((p for p in prompts if not p.blocking), None)
            if oldest is None:
                break
            prompts = tuple(p for p in prompts if p is not oldest)
        return replace(self, prompts=prompts, prompt_seq=prompt.id), prompt

    def without_prompts(self, *kinds: PromptKind) -> TimeBoard:
        return replace(self, prompts=tuple(p for p in self.prompts if p.kind not in kinds))


def advance(board: TimeBoard, size: Size, minor_per_band: int) -> tuple[TimeBoard, bool, bool]:
    """Move the cadence on after a resolved draw of ``size``.

    Returns the new board, whether the band ended (its Major resolved) and whether a new day
    began (Night's Major resolved). Three Minor, then one Major, then the next band (T3).
    """
    if size is Size.MINOR:
        return replace(board, minor_done=board.minor_done + 1, draws=board.draws + 1), False, False
    new_day = board.band is Band.NIGHT
    return (
        replace(
            board,
            band=board.band.next,
            day=board.day + (1 if new_day else 0),
            minor_done=0,
            draws=board.draws + 1,
        ),
        True,
        new_day,
    )
