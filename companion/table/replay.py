"""Restarting is replaying: the table file's initial state, the newest snapshot, the journal after it.

The engine is pure, so the result is the same state, bit for bit, as before the stop — the
Undo history included. A new journal is bound to its table file's fingerprint; a journal
started from a different table is refused, since replaying its commands on a changed table
would not give the same state. A snapshot that cannot be read costs time, not data: the
newest one that reads back intact is used, else the journal is replayed from the start.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.table.guard import mark_started
from companion.table.journal import (
    ARCHIVE,
    decode_command,
    decode_events_data,
    decode_history,
    fingerprint,
    state_data,
)
from companion.table.journal_file import StoreError, damaged, is_damage, transaction
from engine import CommandRejected, apply, codec
from engine.state import TableState

__all__ = ["Replayed", "Restored", "restore"]

log = logging.getLogger("rhuna.store")


@dataclass(frozen=True, slots=True)
class Restored:
    """The state a store came back with, and how it got there."""

    state: TableState
    #: sequence number of the last committed command (0: none yet)
    seq: int
    #: the snapshot restored from (0: replayed from the table file's initial state)
    snapshot_seq: int
    #: journal rows applied after the snapshot
    replayed: int
    #: a journal created just now
    new: bool


@dataclass(frozen=True, slots=True)
class Replayed:
    """What the store needs to go on from the restored state."""

    restored: Restored
    #: how many events the committed commands told (the MQTT event stream resumes after it)
    events: int
    #: id(state) → (state, key) of the snapshot's states, already in ``states``
    stored: dict[int, tuple[TableState, str]]


def restore(
    db: sqlite3.Connection,
    db_lock: threading.RLock,
    path: Path,
    initial: TableState,
    table_file: str,
    now: Callable[[], float],
) -> Replayed:
    """The state before the stop, from the journal ``path`` (``db``) and the table file's
    ``initial`` state; a new journal is bound to ``table_file`` here. A journal that cannot be
    read is a StoreError naming the file (and ``--new-session`` when it is damaged)."""
    initial = initial.without_history()
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            created = now()
            _bind(db, db_lock, initial, table_file, created)
            mark_started(path.parent, _utc(created))
            return Replayed(Restored(initial, 0, 0, 0, new=True), 0, {})
        _check_bound(meta, fingerprint(initial), path, table_file)
        try:
            seq, events = db.execute(
                "SELECT coalesce(max(seq), 0), coalesce(sum(json_array_length(events)), 0)"
                " FROM journal"
            ).fetchone()
        except sqlite3.OperationalError as e:  # a row's text not UTF-8, or not JSON
            raise _bad_row(db, path, e) from None
        state, snap, stored = _from_snapshots(db, initial, seq)
        state, replayed = _replay_after(db, path, state, snap)
    except sqlite3.Error as e:
        if is_damage(e):
            raise damaged(path, e) from None
        raise StoreError(f"{path}: cannot read the journal ({e})") from None
    return Replayed(Restored(state, seq, snap, replayed, new=False), events, stored)


def _bind(
    db: sqlite3.Connection,
    db_lock: threading.RLock,
    initial: TableState,
    table_file: str,
    at: float,
) -> None:
    """A new journal: write down which table file (its fingerprint) it was started from."""
    with transaction(db, db_lock):
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("fingerprint", fingerprint(initial)),
                ("table_file", table_file),
                ("table_id", initial.table_id),
                ("created", _utc(at)),
            ],
        )


def _check_bound(meta: dict[str, str], mark: str, path: Path, table_file: str) -> None:
    """Refuse to replay a journal on a table file other than the one it was started from."""
    if meta.get("fingerprint") != mark:
        raise StoreError(
            f"{table_file}: this table file is not the one the journal in {path} was"
            f" started with ({meta.get('table_file', '?')}, table"
            f" {meta.get('table_id', '?')!r}, {meta.get('created', '?')}): replaying its"
            " commands on a changed table would not give the same state. Fix: put the table"
            " file back as it was, or start a new session with `rhuna-table run --config"
            f" <file> --new-session` (the old journal is moved to {path.parent / ARCHIVE}/)"
        )


def _replay_after(
    db: sqlite3.Connection, path: Path, state: TableState, snap: int
) -> tuple[TableState, int]:
    """Apply the journal rows after ``snap`` to ``state``; the state and how many were applied.

    A row the engine now refuses stops the restart (the state would not be the one the table
    saw); a row that tells other events than it did is only logged, because the state follows
    the commands, not the events.
    """
    replayed = differ = 0
    rows = db.execute(
        "SELECT seq, CAST(command AS BLOB), CAST(events AS BLOB) FROM journal WHERE seq > ?"
        " ORDER BY seq",
        (snap,),
    )
    for seq, command_raw, events_raw in rows:
        command_text, events_text = _row_text(path, seq, command_raw, events_raw)
        try:
            state, events = apply(state, decode_command(command_text))
        except Exception as e:  # CommandRejected, or a journal row the engine cannot read
            raise StoreError(
                f"{path}: journal entry #{seq} ({command_text}) no longer applies"
                f" ({_reason(e)})"
                " — the engine or its rules changed since it was written. Fix: run the"
                " version that wrote it, or start a new session with --new-session"
            ) from None
        if [e.to_json() for e in events] != decode_events_data(events_text):
            differ += 1
        replayed += 1
    if differ:
        log.warning(
            "%d replayed command(s) told different events than when they were journaled"
            " (a newer engine?); the state follows the commands",
            differ,
        )
    return state, replayed


def _from_snapshots(
    db: sqlite3.Connection, initial: TableState, last_seq: int
) -> tuple[TableState, int, dict[int, tuple[TableState, str]]]:
    """The newest snapshot that reads back intact, else the initial state (seq 0)."""
    # as bytes: a row whose text is not UTF-8 is one damaged snapshot, not an unreadable table
    rows = db.execute(
        "SELECT seq, CAST(state AS BLOB), CAST(history AS BLOB) FROM snapshots WHERE seq <= ?"
        " ORDER BY seq DESC",
        (last_seq,),
    ).fetchall()
    for seq, key, history in rows:
        try:
            state, stored = _load_snapshot(
                db, bytes(key).decode("utf-8"), decode_history(bytes(history).decode("utf-8"))
            )
        except (ValueError, TypeError, KeyError) as e:
            log.warning("snapshot #%d cannot be read (%s); trying an older one", seq, e)
            continue
        return state, int(seq), stored
    return initial, 0, {}


def _load_snapshot(
    db: sqlite3.Connection, key: str, history: list[str]
) -> tuple[TableState, dict[int, tuple[TableState, str]]]:
    """The snapshot's state with its Undo steps, and which stored state each step is."""
    loaded: dict[str, TableState] = {}
    # the Undo steps share most of their fields (the tokens always): each distinct
    # field is decoded once and shared, as the engine shares them (restart time, memory)
    memo: dict[tuple[str, str], Any] = {}

    def load(k: str) -> TableState:
        if k not in loaded:
            row = db.execute("SELECT data FROM states WHERE key = ?", (k,)).fetchone()
            if row is None:
                raise KeyError(f"state {k[:12]} is missing")
            raw = state_data(k, row[0])
            if raw is None:
                raise ValueError(f"state {k[:12]} does not match its checksum")
            loaded[k] = codec.from_data_shared(TableState, json.loads(raw), memo)
        return loaded[k]

    steps = tuple(load(k) for k in history)
    current = dataclasses.replace(load(key), history=steps)
    return current, {id(s): (s, k) for s, k in zip(steps, history, strict=True)}


def _row_text(path: Path, seq: int, *columns: bytes) -> tuple[str, ...]:
    """A journal row's text columns, or a StoreError naming the row and the column."""
    out = []
    for name, raw in zip(("command", "events"), columns, strict=True):
        try:
            text = bytes(raw).decode("utf-8")
            json.loads(text)
        except ValueError as e:  # not UTF-8 (UnicodeDecodeError), or not JSON
            raise StoreError(
                f"{path}: journal entry #{seq}: its {name} column is damaged on disk ({e}); the"
                f" entries before #{seq} read fine. Fix: keep the file for a bug report, start"
                " a new session with `rhuna-table run --config <file> --new-session` (the"
                f" journal is moved to {path.parent / ARCHIVE}/, nothing deleted), and enter the"
                f" commands from #{seq} on again"
            ) from None
        out.append(text)
    return tuple(out)


def _bad_row(db: sqlite3.Connection, path: Path, error: sqlite3.Error) -> StoreError:
    """The StoreError naming the first journal row whose text is damaged (else the error)."""
    rows = db.execute(
        "SELECT seq, CAST(command AS BLOB), CAST(events AS BLOB) FROM journal ORDER BY seq"
    )
    for seq, command_raw, events_raw in rows:
        try:
            _row_text(path, seq, command_raw, events_raw)
        except StoreError as e:
            return e
    return StoreError(f"{path}: cannot read the journal ({error})")


def _reason(e: Exception) -> str:
    return str(e.violation) if isinstance(e, CommandRejected) else f"{type(e).__name__}: {e}"


def _utc(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
