"""The journal narrated: when, from where, which command, and what it did, in words.

Each journal row becomes a :class:`Line`: the time, the source the command came
from (a reader, the wheel, MQTT, a script, a carried session), the command in
short and the engine's own narration of its events (:func:`engine.narrate.describe`,
said against the state just after the command, as the table saw it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from companion.record.journal import Entry, Journal, Step
from engine.narrate import describe
from engine.state import TableState

if TYPE_CHECKING:
    from companion.table.loop import Outcome

#: how a journal ``source`` reads for people: its prefix → a word
SOURCES = {
    "reader": "reader",
    "wheel": "wheel",
    "mqtt": "MQTT",
    "script": "script",
    "stdin": "script",
    "worldkeeper": "remote",
    "remote": "remote",
    "carry": "carry",
}


class HistoryEntry(TypedDict):
    """One narrated journal row as JSON: ``rhuna-table history --json``'s lines and the
    entries of MQTT's ``…/history`` (docs/history.schema.json)."""

    seq: int
    #: seconds since the epoch (the journal's)
    at: float
    #: the same, as UTC wall-clock text
    time: str
    source: str
    command: str
    events: list[str]


@dataclass(frozen=True, slots=True)
class Line:
    """One narrated journal row."""

    seq: int
    at: float
    source: str
    command: str
    events: tuple[str, ...]

    def to_json(self) -> HistoryEntry:
        return {
            "seq": self.seq,
            "at": self.at,
            "time": clock(self.at),
            "source": self.source,
            "command": self.command,
            "events": list(self.events),
        }

    def text(self) -> str:
        head = f"#{self.seq:<5} {clock(self.at)}  {self.source:<14} {self.command}"
        return "\n".join([head, *(f"{'':8}{e}" for e in self.events)])


def clock(at: float) -> str:
    """Wall-clock time of a journal row, UTC (the journal stores seconds since the epoch)."""
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at))


def source_name(source: str) -> str:
    """``reader:draw-board`` → ``reader draw-board``; ``mqtt:12`` → ``MQTT``."""
    kind, _, rest = source.partition(":")
    word = SOURCES.get(kind, kind)
    if kind == "reader" and rest:
        return f"reader {rest}"
    return word


def command_text(command: dict[str, Any]) -> str:
    """``draw aria token=aria.ember.skill``: the command and its arguments, short."""
    name = str(command.get("cmd", "?"))
    args: list[str] = []
    for key, value in command.items():
        if key in ("cmd", "id", "source"):
            continue
        if key == "hero":
            args.insert(0, str(value))
            continue
        args.append(f"{key}={value}")
    return " ".join([name, *args])


def narrate(step: Step) -> Line:
    entry = step.entry
    return Line(
        entry.seq,
        entry.at,
        source_name(entry.source),
        command_text(entry.command),
        tuple(describe(step.after, e) for e in entry.events),
    )


def outcome_entry(outcome: Outcome, at: float) -> HistoryEntry:
    """An accepted command as it is journaled, narrated (the MQTT ``…/history`` entries)."""
    return Line(
        int(outcome.seq or 0),
        at,
        source_name(outcome.source),
        command_text(dict(outcome.command or {})),
        tuple(describe(outcome.state, e) for e in outcome.events),
    ).to_json()


def _entry_line(entry: Entry, state: TableState) -> Line:
    return Line(
        entry.seq,
        entry.at,
        source_name(entry.source),
        command_text(entry.command),
        tuple(describe(state, e) for e in entry.events),
    )


def recent(journal: Journal, state: TableState, n: int) -> list[HistoryEntry]:
    """The last ``n`` journal rows narrated against ``state`` (the table now: names and
    tokens do not change during a session), without replaying the journal."""
    after = max(0, journal.last_seq() - n)
    return [_entry_line(e, state).to_json() for e in journal.entries(after)]
