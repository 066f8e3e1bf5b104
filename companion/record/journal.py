"""A session's journal, read-only: the running service's, or one set aside in ``archive/``.

``history``, ``export``, ``sheet`` and ``run --carry`` read a journal here. They
open it with SQLite's ``mode=ro``: a reader in WAL mode never blocks the
service's writer (nor is blocked by it), and nothing here can change the file.

A *session* is named by what the user has at hand (:func:`find_session`):

- a state directory (``/var/lib/rhuna-table``): its current journal;
- a journal file (``…/archive/journal-20261201T190000Z.sqlite``);
- a session id: the stamp of an archived journal (``20261201T190000Z``) or
  ``current``, looked up in ``--state-dir``.

Replaying needs the table file the journal was started with (its path is in the
journal's ``meta``; ``--table`` overrides it); a table file whose fingerprint is
not the journal's is refused in one line, as the service refuses it.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.table.journal import (
    ARCHIVE,
    JOURNAL,
    SCHEMA_VERSION,
    decode_command,
    decode_events,
    fingerprint,
    state_data,
)
from engine import apply, load_table
from engine.events import Event
from engine.state import TableState
from engine.vocabulary import REGISTRY
from settings.errors import ConfigError

CURRENT = "current"


class JournalError(ConfigError):
    """A session that cannot be read as asked: one line, naming the file and the fix."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal row: an accepted command, what it told, when and from where."""

    seq: int
    at: float
    source: str
    command: dict[str, Any]
    events: tuple[Event, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "at": self.at,
            "source": self.source,
            "command": self.command,
            "events": [e.to_json() for e in self.events],
        }


@dataclass(frozen=True, slots=True)
class Step:
    """An entry replayed: the table just before and just after it."""

    entry: Entry
    before: TableState
    after: TableState


@dataclass
class Journal:
    """One journal file opened read-only. Use as a context manager."""

    path: Path
    db: sqlite3.Connection
    meta: dict[str, str] = field(default_factory=dict)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def session_id(self) -> str:
        name = self.path.name
        if self.path.parent.name == ARCHIVE and name.startswith("journal-"):
            return name.removeprefix("journal-").removesuffix(".sqlite")
        return CURRENT

    # --- rows -----------------------------------------------------------------------

    def last_seq(self) -> int:
        return int(self._query("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0])

    def entries(self, after: int = 0, limit: int | None = None) -> Iterator[Entry]:
        """The rows after ``after``, in order (at most ``limit``)."""
        sql = "SELECT seq, at, source, command, events FROM journal WHERE seq > ? ORDER BY seq"
        args: tuple[int, ...] = (after,)
        if limit is not None:
            sql += " LIMIT ?"
            args = (after, limit)
        for seq, at, source, command, events in self._query(sql, args).fetchall():
            try:
                yield Entry(
                    int(seq),
                    float(at),
                    str(source),
                    decode_command(command),
                    decode_events(events),
                )
            except (ValueError, TypeError, KeyError) as e:
                raise JournalError(
                    f"{self.path}: journal entry #{seq} cannot be read ({e}) — the archive is"
                    " damaged; keep it for a bug report"
                ) from None

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, args)
        except sqlite3.Error as e:
            raise _unreadable(self.path, e) from None

    # --- the table it was played on ---------------------------------------------------

    def table_file(self, table: str | Path | None = None) -> Path:
        if table is not None:
            return Path(table)
        name = self.meta.get("table_file")
        if not name:
            raise JournalError(
                f"{self.path}: the journal does not name its table file — give --table"
            )
        return Path(name)

    def initial_state(self, table: str | Path | None = None) -> TableState:
        """The table file's starting state, checked against the journal's fingerprint."""
        path = self.table_file(table)
        if not path.exists():
            raise JournalError(
                f"{self.path}: its table file {path} is not there — give the table file it was"
                " played with: --table FILE"
            )
        state = load_table(path).without_history()
        if fingerprint(state) != self.meta.get("fingerprint"):
            raise JournalError(
                f"{self.path}: this journal is from another table than {path} (table"
                f" {self.meta.get('table_id', '?')!r}, started {self.meta.get('created', '?')}"
                f" with {self.meta.get('table_file', '?')}) — give the table file it was played"
                " with: --table FILE"
            )
        return state

    def replay(self, table: str | Path | None = None, after: int = 0) -> Iterator[Step]:
        """Every entry with the state before and after it (from the table file's start);
        only those after ``after`` are yielded."""
        yield from self.steps(self.initial_state(table), 0, show_after=after)

    def steps(self, state: TableState, after: int, show_after: int = 0) -> Iterator[Step]:
        """The entries after ``after`` replayed from ``state`` (the state as of ``after``)."""
        for entry in self.entries(after):
            try:
                new, _ = apply(state, entry.command)
            except Exception as e:  # CommandRejected, or a command this engine cannot read
                raise JournalError(
                    f"{self.path}: journal entry #{entry.seq} ({json.dumps(entry.command)}) no"
                    f" longer applies ({e}) — run the version that wrote it"
                ) from None
            if entry.seq > show_after:
                yield Step(entry, state, new)
            state = new

    def last_state(self, table: str | Path | None = None) -> TableState:
        """The table after the last row: replayed from the table file, or — when that file
        changed since (a new hero, say) — the service's snapshot at the last row."""
        try:
            return self.final_state(table)
        except JournalError:
            snap = self._snapshot_state()
            if snap is None:
                raise
            return snap

    def _snapshot_state(self) -> TableState | None:
        """The service's snapshot at the last row (it takes one when it stops), if sound."""
        row = self._query(
            "SELECT s.seq, s.state, d.data FROM snapshots s JOIN states d ON d.key = s.state"
            " ORDER BY s.seq DESC LIMIT 1"
        ).fetchone()
        if row is None or int(row[0]) != self.last_seq():
            return None
        raw = state_data(row[1], row[2])
        if raw is None:
            return None
        try:
            state: TableState = TableState.from_json(json.loads(raw))
        except (ValueError, TypeError, KeyError):
            return None
        return state

    def final_state(self, table: str | Path | None = None) -> TableState:
        state = self.initial_state(table)
        for step in self.replay(table):
            state = step.after
        return state


def records_history(command: dict[str, Any]) -> bool:
    """Whether ``undo`` can take this command back (it pushed a state on the history)."""
    spec = REGISTRY.get(str(command.get("cmd")))
    return spec is not None and spec[0].records_history and command.get("cmd") != "undo"


def open_journal(path: str | Path) -> Journal:
    """Open one journal file read-only; a file that is not a sound journal is one line."""
    path = Path(path)
    if not path.is_file():
        raise JournalError(f"{path}: no such journal file")
    db = _connect(path)
    journal = Journal(path, db)
    try:
        problems = [" ".join(str(r[0]).split()) for r in journal._query("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise JournalError(
                f"{path}: the journal is damaged ({'; '.join(problems[:2])}) — keep it for a bug"
                " report; nothing can be read from it safely"
            )
        version = journal._query("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in journal._query("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "journal"} <= tables:
            raise JournalError(f"{path}: not a rhuna-table journal (no meta and journal tables)")
        if version != SCHEMA_VERSION:
            raise JournalError(
                f"{path}: journal format {version}, this version reads {SCHEMA_VERSION} — use"
                " the version that wrote it"
            )
        journal.meta = dict(journal._query("SELECT key, value FROM meta").fetchall())
    except BaseException:
        journal.close()
        raise
    return journal


def _connect(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
        db.execute("PRAGMA schema_version").fetchone()
        return db
    except sqlite3.OperationalError as e:
        # a WAL journal copied without its -wal/-shm into a folder we cannot write: nothing is
        # left in a WAL that is not there, so the file alone is the whole journal
        if not Path(f"{path}-wal").exists():
            with contextlib.suppress(sqlite3.Error):
                db = sqlite3.connect(
                    f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False
                )
                db.execute("PRAGMA schema_version").fetchone()
                return db
        raise _unreadable(path, e) from None
    except sqlite3.Error as e:
        raise _unreadable(path, e) from None


def _unreadable(path: Path, e: sqlite3.Error) -> JournalError:
    reason = " ".join(str(e).split())
    return JournalError(
        f"{path}: not a readable rhuna-table journal ({reason}) — the archive is damaged or not a"
        " journal; keep it for a bug report"
    )


def sessions(state_dir: str | Path) -> dict[str, Path]:
    """Session id → journal file: ``current`` and every archived one, oldest first."""
    state_dir = Path(state_dir)
    out: dict[str, Path] = {}
    for path in sorted((state_dir / ARCHIVE).glob("journal-*.sqlite")):
        out[path.name.removeprefix("journal-").removesuffix(".sqlite")] = path
    if (state_dir / JOURNAL).exists():
        out[CURRENT] = state_dir / JOURNAL
    return out


def find_session(where: str | Path, state_dir: str | Path | None = None) -> Path:
    """The journal file that ``where`` names: a state directory, a file or a session id."""
    path = Path(where)
    if path.is_dir():
        if (path / JOURNAL).is_file():
            return path / JOURNAL
        known = sessions(path)
        if known:
            raise JournalError(
                f"{path}: no current journal here — its archived sessions: {', '.join(known)}"
                f" (give one with --state-dir {path})"
            )
        raise JournalError(
            f"{path}: no journal here ({JOURNAL}) — is it the service's [state] dir?"
        )
    if path.is_file():
        return path
    if state_dir is None:
        raise JournalError(
            f"{where}: no such state directory, journal file or session — give a state"
            " directory, a journal file, or a session id with --state-dir DIR"
        )
    known = sessions(state_dir)
    hit = known.get(str(where)) or known.get(
        str(where).removeprefix("journal-").removesuffix(".sqlite")
    )
    if hit is None:
        listed = ", ".join(known) if known else "none"
        raise JournalError(
            f"{where}: unknown session id in {state_dir} (sessions: {listed}) — give one of those,"
            " a state directory or a journal file"
        )
    return hit
