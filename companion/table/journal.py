"""The journal's format, in one place: file names, the SQLite tables, and how entries are written.

Everything that reads or writes ``journal.sqlite`` (:mod:`companion.table.store`, the service's
journal; :mod:`companion.record.journal`, the record's reader of kept sessions) encodes and
decodes through these functions, so the format has one definition and one version number.

>>> decode_command(command_json({"type": "draw", "well": 2}))
{'type': 'draw', 'well': 2}
>>> decode_history(history_json(["a", "b"]))
['a', 'b']
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

from engine.events import Event
from engine.state import TableState

JOURNAL = "journal.sqlite"
LOCK = "rhuna-table.lock"
ARCHIVE = "archive"
#: written beside a journal when it is created: the folder had a night (see table/guard.py)
MARK = "journal.started"
#: bumped when the tables change shape; an older service refuses a newer journal
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE journal (
    seq INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    source TEXT NOT NULL,
    command TEXT NOT NULL,
    events TEXT NOT NULL
);
CREATE TABLE states (key TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE snapshots (
    seq INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    state TEXT NOT NULL,
    history TEXT NOT NULL
);
"""


def state_json(state: TableState) -> bytes:
    """The state as compact JSON, dict order kept (hero order is what the panel shows)."""
    return json.dumps(
        state.to_json(), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def fingerprint(state: TableState) -> str:
    """What a table file amounts to: the SHA-256 of its initial state (rules merged in)."""
    return hashlib.sha256(state_json(state.without_history())).hexdigest()


def state_row(raw: bytes) -> tuple[str, bytes]:
    """A ``states`` row for a state's JSON: (its SHA-256 key, the JSON compressed)."""
    return hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 6)


def state_data(key: str, blob: bytes) -> bytes | None:
    """The JSON of a ``states`` row, or None if it does not decompress to its key."""
    try:
        raw = zlib.decompress(blob)
    except zlib.error:
        return None
    return raw if hashlib.sha256(raw).hexdigest() == key else None


def command_json(command: Any) -> str:
    """A journal row's ``command``: a command (or its dict) as compact JSON."""
    data = command.to_json() if hasattr(command, "to_json") else dict(command)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def events_json(events: tuple[Event, ...] | list[Event]) -> str:
    """A journal row's ``events``: the events the engine answered, as JSON."""
    return json.dumps([e.to_json() for e in events], ensure_ascii=False)


def journal_row(
    seq: int, at: float, source: str, command: Any, events: tuple[Event, ...] | list[Event]
) -> tuple[int, float, str, str, str]:
    """A ``journal`` row; TypeError or ValueError for what JSON or UTF-8 cannot hold (NaN,
    a lone surrogate, an object of a script's)."""
    row = (seq, at, source, command_json(command), events_json(events))
    for text in row[2:]:
        text.encode("utf-8")  # SQLite stores UTF-8: a lone surrogate cannot go in
    return row


def decode_command(text: str) -> Any:
    """A journal row's ``command`` as the dict it was."""
    return json.loads(text)


def decode_events_data(text: str) -> Any:
    """A journal row's ``events`` as JSON data (a list of event dicts)."""
    return json.loads(text)


def decode_events(text: str) -> tuple[Event, ...]:
    """A journal row's ``events`` as events."""
    return tuple(Event.from_json(e) for e in json.loads(text))


def history_json(keys: list[str]) -> str:
    """A ``snapshots`` row's ``history``: the Undo steps' state keys, oldest first."""
    return json.dumps(keys)


def decode_history(text: str) -> list[str]:
    """A ``snapshots`` row's ``history`` as its list of state keys."""
    keys: list[str] = json.loads(text)
    return keys
