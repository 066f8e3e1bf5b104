"""The journal narrated: when, from where, which command, and what it did, in words.

Each journal row becomes a :class:`Line`: the time, the source the command came
from (a reader, the wheel, MQTT, a script, a carried session), the command in
short and the engine's own narration of its events (:func:`engine.narrate.describe`,
said against the state just after the command, as the table saw it).

The source is the journal's own, as ``export`` writes it (``reader:draw-board``, ``wheel``,
``mqtt:3``, ``stdin``, ``worldkeeper``, ``carry``): one name for a source everywhere. The
command reads ``draw aria token=aria.ember.skill``: values in JSON where a bare word would
not do (``exert=false``, ``attack_dice=[3,3,1]``, ``reason="felled the raider"``), so the
line is also the command itself again (:func:`parse_command_text`: ``rhuna-table replay``
reads ``history --json``). A :class:`Narrator` also says what each Undo took back.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict

from companion.record.journal import Entry, Journal, Step, records_history
from engine.contracts import events as ev
from engine.contracts.events import Audience, audience
from engine.events import Event
from engine.narrate import describe
from engine.state import TableState

if TYPE_CHECKING:
    from companion.table.loop import Outcome

#: the width of the source column of ``history`` (``reader:draw-board`` fits)
SOURCE_WIDTH = 18


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
    #: who may read each of ``events`` (engine.contracts.events.audience): a page filters by it
    audiences: list[Audience]
    #: the typed outcome of each group this row resolved (``performance_resolved``'s
    #: ``success``, P19), in order; empty when it resolved none: a page colours a row by it,
    #: never by matching the narration's words
    outcomes: list[bool]


@dataclass(frozen=True, slots=True)
class Line:
    """One narrated journal row."""

    seq: int
    at: float
    source: str
    command: str
    events: tuple[str, ...]
    #: who may read each event (issue 31 item 2), one per ``events``
    audiences: tuple[Audience, ...] = ()
    #: each resolved group's success, in order (HistoryEntry.outcomes)
    outcomes: tuple[bool, ...] = ()

    def to_json(self) -> HistoryEntry:
        return {
            "seq": self.seq,
            "at": self.at,
            "time": clock(self.at),
            "source": self.source,
            "command": self.command,
            "events": list(self.events),
            "audiences": list(self.audiences),
            "outcomes": list(self.outcomes),
        }

    def text(self) -> str:
        head = f"#{self.seq:<5} {clock(self.at)}  {self.source:<{SOURCE_WIDTH}} {self.command}"
        return "\n".join([head, *(f"{'':8}{e}" for e in self.events)])


def clock(at: float) -> str:
    """Wall-clock time of a journal row, UTC (the journal stores seconds since the epoch)."""
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at))


def source_name(source: str) -> str:
    """The journal's source, as ``export`` writes it: the same name everywhere.

    >>> source_name("reader:draw-board"), source_name("stdin")
    ('reader:draw-board', 'stdin')
    """
    return source


#: a string written bare in a command's text (anything else is written as JSON)
_BARE = re.compile(r'[^\s"\[\]{}=]+')
#: keys a command's text leaves out: not the command's own (a transaction id, a tag)
_LEFT_OUT = ("id", "source")


def _value_text(value: Any) -> str:
    if isinstance(value, str) and _BARE.fullmatch(value):
        try:
            json.loads(value)
        except ValueError:
            return value  # aria.ember.skill: not a number, true or null in disguise
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def command_text(command: dict[str, Any]) -> str:
    """``draw aria token=aria.ember.skill``: the command and its arguments, short; values a
    bare word cannot say in JSON (``exert=false``, ``reason="felled the raider"``).

    >>> command_text({"cmd": "declare", "hero": "bren", "action": "target", "exert": False})
    'declare bren action=target exert=false'
    >>> command_text({"cmd": "act", "attack_dice": [3, 1], "reason": "at the ford", "n": "5"})
    'act attack_dice=[3,1] reason="at the ford" n="5"'
    """
    name = str(command.get("cmd", "?"))
    args: list[str] = []
    for key, value in command.items():
        if key == "cmd" or key in _LEFT_OUT:
            continue
        if key == "hero" and isinstance(value, str) and _value_text(value) == value:
            args.insert(0, value)
            continue
        args.append(f"{key}={_value_text(value)}")
    return " ".join([name, *args])


def parse_command_text(text: str) -> dict[str, Any]:
    """The command a :func:`command_text` line says (``history --json``'s ``command``).

    >>> parse_command_text('act aria attack_dice=[3,1] reason="at the ford" exert=false')
    {'cmd': 'act', 'hero': 'aria', 'attack_dice': [3, 1], 'reason': 'at the ford', 'exert': False}
    """
    decoder = json.JSONDecoder()
    words = text.strip()
    name, _, rest = words.partition(" ")
    if not name or not _BARE.fullmatch(name):
        raise ValueError(f"{text!r} does not start with a command name")
    command: dict[str, Any] = {"cmd": name}
    i, n = 0, len(rest)
    while i < n:
        if rest[i].isspace():
            i += 1
            continue
        key_end = i
        while key_end < n and not rest[key_end].isspace() and rest[key_end] != "=":
            key_end += 1
        if key_end >= n or rest[key_end] != "=":  # a bare word: the hero
            if "hero" in command:
                raise ValueError(f"{text!r}: {rest[i:key_end]!r} is not key=value")
            command["hero"] = rest[i:key_end]
            i = key_end
            continue
        key, i = rest[i:key_end], key_end + 1
        try:
            value, end = decoder.raw_decode(rest, i)
        except ValueError:
            end = -1
        if end == -1 or (end < n and not rest[end].isspace()):  # a bare word
            end = i
            while end < n and not rest[end].isspace():
                end += 1
            value = rest[i:end]
        command[key] = value
        i = end
    return command


class Narrator:
    """Narrates a journal's steps in order, saying what each Undo took back: ``Undone #12
    draw bren token=bren.ember.faith (3 more can be undone)``."""

    def __init__(self) -> None:
        self._undoable: list[tuple[int, str]] = []

    def __call__(self, step: Step) -> Line:
        line = narrate(step)
        command = step.entry.command
        if command.get("cmd") == "undo" and self._undoable:
            seq, text = self._undoable.pop()
            return replace(line, events=undone_said(step.entry.events, line.events, seq, text))
        if records_history(command):
            self._undoable.append((step.entry.seq, line.command))
        return line


_CARRIED = re.compile(r"carry:(?:session-(\d+)|last-session)")


def carried(source: str, command: Any, said: tuple[str, ...]) -> tuple[str, ...]:
    """A value carried from the last session (``run --new-session --carry``) says so, not as
    tonight's event: "carried from session 2: Cass takes a Wound → 1" (companion.record.carry
    marks each carried command with the session it comes from)."""
    if source != "carry" or not isinstance(command, dict) or command.get("cmd") == "start_session":
        return said
    m = _CARRIED.fullmatch(str(command.get("id", "")))
    where = f"session {m.group(1)}" if m and m.group(1) else "the last session"
    return tuple(f"carried from {where}: {x}" for x in said)


def narrate(step: Step) -> Line:
    entry = step.entry
    return Line(
        entry.seq,
        entry.at,
        source_name(entry.source),
        command_text(entry.command),
        carried(entry.source, entry.command, tuple(describe(step.after, e) for e in entry.events)),
        tuple(audience(e) for e in entry.events),
        outcomes_of(entry.events),
    )


class _LiveUndo:
    """What an Undo takes back, live (the MQTT ``…/history`` entries, one accepted command at
    a time, as :class:`Narrator` says it over a replay): the state-changing commands told
    since the service started, per table, at most the rules' Undo depth. A sequence number
    that does not grow (another journal) starts it over; an Undo of a command from before
    the start says only how many more can be undone, as before."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, tuple[int, list[tuple[int, str]]]] = {}

    def said(
        self, outcome: Outcome, command: dict[str, Any], said: tuple[str, ...]
    ) -> tuple[str, ...]:
        seq, table = int(outcome.seq or 0), outcome.state.table_id
        with self._lock:
            last, stack = self._tables.get(table, (0, []))
            if seq <= last:
                stack = []
            self._tables[table] = (seq, stack)
            if command.get("cmd") == "undo":
                if not stack:
                    return said
                undone, text = stack.pop()
                return undone_said(outcome.events, said, undone, text)
            if records_history(command):
                stack.append((seq, command_text(command)))
                del stack[: max(0, len(stack) - outcome.state.rulebook.undo_depth)]
        return said


_LIVE_UNDO = _LiveUndo()


def undone_said(
    events: Iterable[Event], said: Iterable[str], seq: int, text: str
) -> tuple[str, ...]:
    """An Undo's words with what it took back: its ``undone`` event says ``Undone #12 draw bren
    token=bren.ember.faith (3 more can be undone)``, every other event as ``said``."""
    return tuple(
        f"Undone #{seq} {text} ({u['remaining']} more can be undone)"
        if (u := ev.undone.of(e)) is not None
        else x
        for e, x in zip(events, said, strict=True)
    )


def outcomes_of(events: Iterable[Event]) -> tuple[bool, ...]:
    """Each ``performance_resolved``'s success, in order (P19): a history row's typed outcome."""
    return tuple(
        bool(r["success"]) for e in events if (r := ev.performance_resolved.of(e)) is not None
    )


def outcome_entry(outcome: Outcome, at: float) -> HistoryEntry:
    """An accepted command as it is journaled, narrated (the MQTT ``…/history`` entries); an
    Undo says what it took back (``Undone #12 draw bren token=bren.ember.faith …``)."""
    command = dict(outcome.command or {})
    said = tuple(describe(outcome.state, e) for e in outcome.events)
    return Line(
        int(outcome.seq or 0),
        at,
        source_name(outcome.source),
        command_text(command),
        carried(outcome.source, command, _LIVE_UNDO.said(outcome, command, said)),
        tuple(audience(e) for e in outcome.events),
        outcomes_of(outcome.events),
    ).to_json()


def _entry_line(entry: Entry, state: TableState) -> Line:
    return Line(
        entry.seq,
        entry.at,
        source_name(entry.source),
        command_text(entry.command),
        carried(entry.source, entry.command, tuple(describe(state, e) for e in entry.events)),
        tuple(audience(e) for e in entry.events),
        outcomes_of(entry.events),
    )


def recent(journal: Journal, state: TableState, n: int) -> list[HistoryEntry]:
    """The last ``n`` journal rows narrated against ``state`` (the table now: names and
    tokens do not change during a session), without replaying the journal."""
    after = max(0, journal.last_seq() - n)
    # what each Undo among them took back: the state-changing rows before them, as far back
    # as Undo reaches (the rules' depth, twice: an Undo of an Undo's target)
    depth = state.rulebook.undo_depth
    stack: list[tuple[int, str]] = []
    out: list[HistoryEntry] = []
    for e in journal.entries(max(0, after - 2 * depth)):
        line = _entry_line(e, state)
        if e.command.get("cmd") == "undo" and stack:
            seq, text = stack.pop()
            line = replace(line, events=undone_said(e.events, line.events, seq, text))
        elif records_history(e.command):
            stack.append((e.seq, line.command))
        if e.seq > after:
            out.append(line.to_json())
    return out
