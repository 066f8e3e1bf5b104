"""The journal: every accepted command, committed to SQLite before anyone is told.

A command counts as *acknowledged* once its journal row is committed: the table
loop calls :meth:`Store.append` after the engine accepted a command and before
any subscriber (the panel, MQTT replies) hears of it. The database lives in the
service's state directory, in WAL mode with ``synchronous=FULL``, one
transaction per command, so a kill -9 or a power cut at any instant loses
nothing that was acknowledged and never leaves half a command behind.

Restarting is replaying: load the table file (its initial state), take the
newest snapshot, apply the journal rows after it. The engine is pure, so the
result is the same state, bit for bit, as before the stop — the Undo history
included.

Snapshots store the *full* state, history included, without storing it 64
times over: each history-free state (the current one and every Undo step) is
kept once in ``states``, content-addressed by the SHA-256 of its JSON, and a
snapshot row lists the keys. Undo steps are shared between consecutive
snapshots, so a snapshot writes only the states that are new since the last
one. A snapshot that cannot be read costs time, not data: the store falls back
to an older one, or to replaying the journal from the start.

Layout of ``<state dir>``::

    journal.sqlite (+ -wal, -shm)   meta, journal, states, snapshots
    rhuna-table.lock                held while a service runs on this directory
    archive/journal-<UTC time>.sqlite   sessions set aside by ``--new-session``

>>> import tempfile
>>> from engine import load_table
>>> initial = load_table("examples/table.toml")
>>> with Store.open(tempfile.mkdtemp()) as store:
...     restored = store.restore(initial, "examples/table.toml")
...     restored.seq, restored.new
(0, True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.table.journal import (
    ARCHIVE,
    JOURNAL,
    LOCK,
    SCHEMA,
    SCHEMA_VERSION,
    command_json,
    decode_command,
    decode_events_data,
    decode_history,
    events_json,
    fingerprint,
    history_json,
    state_data,
    state_json,
    state_row,
)
from companion.table.loop import Outcome, Unsavable
from engine import CommandRejected, apply, codec
from engine.state import TableState
from settings.atomic import fsync_dir
from settings.errors import ConfigError

#: the journal format's names kept here for the callers that import them from the store
__all__ = [
    "ARCHIVE",
    "JOURNAL",
    "LOCK",
    "SCHEMA_VERSION",
    "JournalWriteFailed",
    "Restored",
    "Store",
    "StoreError",
    "archive",
    "command_json",
    "fingerprint",
    "inspect",
    "locked",
    "state_json",
    "wal_damage",
]

log = logging.getLogger("rhuna.store")

#: snapshots kept (the newest, and one to fall back on)
KEEP_SNAPSHOTS = 2
#: a snapshot at least this often (seconds) while commands come in, whatever their number
SNAPSHOT_SECONDS = 60.0

Clock = Callable[[], float]


class StoreError(ConfigError):
    """The journal cannot be used as it is; the message names the file and the fix.

    A ConfigError, because like a broken config it stops the service with a
    clear message (exit status 2), never a traceback.
    """


class JournalWriteFailed(Exception):
    """One command could not be committed (disk full, read-only, I/O error)."""


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


#: SQLite's primary result codes for a file that is not (or no longer) a sound database
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26


def _is_damage(e: sqlite3.Error) -> bool:
    """Corruption, as opposed to a disk that is full, read-only or busy."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is None:
        return type(e) is sqlite3.DatabaseError  # quick_check's findings, raised here
    return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def _damaged(path: Path, error: BaseException) -> StoreError:
    return StoreError(
        f"{path}: the journal is damaged or not a journal ({error}) — the table cannot be"
        " restored from it. Fix: start a new session with `rhuna-table run --config <file>"
        f" --new-session`, which moves the file to {path.parent / ARCHIVE}/ (keep it for a bug"
        " report)"
    )


def wal_damage(path: Path) -> str | None:
    """What a power cut left at the end of the journal's write-ahead log, in words; None when
    the log is whole (or absent).

    SQLite keeps a commit only if every frame up to its commit frame carries the right
    salts and checksum (https://www.sqlite.org/fileformat2.html#walformat) and silently
    drops the rest when it opens the file; this reads the log the same way first, so the
    service can say that something was dropped, and where. A commit the service
    acknowledged was fsync'd (synchronous=FULL) before its answer, so a cut can only take
    the commit being written, unless the file itself was damaged afterwards.
    """
    wal = Path(f"{path}-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if not data:
        return None
    if len(data) < 32:
        return f"{wal}: the write-ahead log is cut short in its header ({len(data)} bytes)"
    magic, _version, page_size, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in (0x377F0682, 0x377F0683) or _wal_sum(data[:24], magic, 0, 0) != (c1, c2):
        return (
            f"{wal}: the write-ahead log's header is damaged: SQLite ignores the whole log, so"
            " the commands written since its last checkpoint are lost"
        )
    frame = 24 + page_size
    s1, s2 = c1, c2
    good_end, good_frames, at, frames = 32, 0, 32, 0
    while at + frame <= len(data):
        header = data[at : at + 24]
        _page, commit, fs1, fs2, fc1, fc2 = struct.unpack(">6I", header)
        if (fs1, fs2) != (salt1, salt2):
            break
        s1, s2 = _wal_sum(header[:8], magic, s1, s2)
        s1, s2 = _wal_sum(data[at + 24 : at + frame], magic, s1, s2)
        if (s1, s2) != (fc1, fc2):
            break
        at += frame
        frames += 1
        if commit:
            good_end, good_frames = at, frames
    rest = len(data) - good_end
    if rest == 0 or not any(data[good_end:]):
        return None
    # frames of an older generation (with other salts) stay behind after SQLite restarts the
    # log from its beginning: they are no damage
    next_salts = data[good_end + 8 : good_end + 16]
    if len(next_salts) == 8 and struct.unpack(">2I", next_salts) != (salt1, salt2):
        return None
    return (
        f"{wal}: {rest} bytes after the last complete commit of the write-ahead log are torn"
        f" or damaged (a power cut mid-write?); SQLite drops them, so the journal is restored"
        f" to its last good commit ({good_frames} frames kept)"
    )


def _wal_sum(data: bytes, magic: int, s1: int, s2: int) -> tuple[int, int]:
    """SQLite's WAL checksum: Fibonacci-weighted over 32-bit words, in the magic's order."""
    words = struct.unpack(f"{'>' if magic & 1 else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


class Store:
    """One state directory's journal. Use from one thread at a time (the table loop's)."""

    def __init__(
        self,
        state_dir: Path,
        db: sqlite3.Connection,
        lock: int | None,
        *,
        clock: Clock,
        timer: Clock = time.monotonic,
        snapshot_every: int,
        snapshot_seconds: float = 0.0,
    ) -> None:
        self.state_dir = state_dir
        self.path = state_dir / JOURNAL
        self.clock = clock
        #: the snapshot timer's clock (``snapshot_seconds``): monotonic seconds
        self.timer = timer
        self.snapshot_every = snapshot_every
        self._db = db
        self._lock = lock
        self._seq = 0
        self._events = 0
        self._snapshot_seq = 0
        #: id(state) → (state, key) for states already in ``states`` (Undo steps are shared)
        self._stored: dict[int, tuple[TableState, str]] = {}
        #: the state after the last committed command, for the next snapshot
        self._latest: TableState | None = None
        #: a snapshot every so many seconds too, when commands came in meanwhile
        self.snapshot_seconds = snapshot_seconds
        # one transaction at a time on the one connection (the loop's commits, the snapshot
        # thread's inserts); the snapshot's CPU work (JSON, SHA-256, zlib) runs outside it
        self._db_lock = threading.RLock()
        self._snap_lock = threading.Lock()  # one snapshot writer at a time (owns _stored)
        self._slot: tuple[TableState, int] | None = None  # the newest snapshot asked for
        self._slot_cond = threading.Condition()
        self._snapshotter: threading.Thread | None = None
        self._closing = False
        self._asked_seq = 0  # the seq of the last snapshot asked for (taken or not)
        self._asked_at = timer()
        self._writing = False  # the snapshot thread is writing one
        self.snapshot_stats = {"taken": 0, "failed": 0, "seconds_max": 0.0}
        #: what :func:`wal_damage` found when the journal was opened (None: nothing)
        self.damage: str | None = None

    # --- opening -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        state_dir: str | Path,
        *,
        clock: Clock = time.time,
        timer: Clock = time.monotonic,
        snapshot_every: int = 1000,
        snapshot_seconds: float = SNAPSHOT_SECONDS,
        lock: bool = True,
    ) -> Store:
        """Open (or create) the journal in ``state_dir``; refuse a damaged one or a second
        service on the same directory."""
        state_dir = Path(state_dir)
        _make_dir(state_dir)
        fd = _lock(state_dir) if lock else None
        path = state_dir / JOURNAL
        damage = wal_damage(path)  # before SQLite opens the file and drops what is torn
        if damage is not None:
            log.warning("%s", damage)
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            _unlock(fd)
            raise StoreError(
                f"{path}: cannot open the journal ({e}) — check that the service's user can"
                f" write to {state_dir}"
            ) from None
        try:
            cls._prepare(db, path)
        except BaseException:
            db.close()
            _unlock(fd)
            raise
        store = cls(
            state_dir,
            db,
            fd,
            clock=clock,
            timer=timer,
            snapshot_every=snapshot_every,
            snapshot_seconds=snapshot_seconds,
        )
        store.damage = damage
        return store

    @staticmethod
    def _prepare(db: sqlite3.Connection, path: Path) -> None:
        try:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=5000")
            problems = [r[0] for r in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems[:3]))
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables and version == 0:
                db.executescript(
                    f"BEGIN IMMEDIATE;{SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;"
                )
            elif (
                version != SCHEMA_VERSION
                or not {"meta", "journal", "states", "snapshots"} <= tables
            ):
                raise StoreError(
                    f"{path}: journal format {version} is not the format this version writes"
                    f" ({SCHEMA_VERSION}) — run the version that wrote it, or start a new session"
                    " with --new-session (the old journal is archived)"
                )
        except sqlite3.Error as e:
            if _is_damage(e):
                raise _damaged(path, e) from None
            raise StoreError(
                f"{path}: cannot use the journal ({e}) — check the disk and that the service's"
                " user can write to it"
            ) from None
        if str(mode).lower() != "wal":
            raise StoreError(
                f"{path}: SQLite would not switch the journal to WAL mode (got {mode!r}) — put the"
                " state directory on a local file system"
            )

    def close(self) -> None:
        """Close the database (every commit is already durable) and release the lock. A
        snapshot being written is finished first; one only asked for is dropped (the journal
        holds its commands)."""
        with self._slot_cond:
            self._closing = True
            self._slot = None
            self._slot_cond.notify_all()
        if self._snapshotter is not None:
            self._snapshotter.join(30)
        with self._db_lock, contextlib.suppress(sqlite3.Error):
            self._db.close()
        _unlock(self._lock)
        self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- restoring -------------------------------------------------------------------

    def restore(self, initial: TableState, table_file: str | Path) -> Restored:
        """The state before the stop: ``initial`` (the table file's) + snapshot + journal.

        A new journal is bound to this table file's fingerprint; a journal started
        from a different table is refused, naming the file and the fix.
        """
        try:
            return self._restore(initial, str(table_file))
        except sqlite3.Error as e:
            if _is_damage(e):
                raise _damaged(self.path, e) from None
            raise StoreError(f"{self.path}: cannot read the journal ({e})") from None

    def _restore(self, initial: TableState, table_file: str) -> Restored:
        initial = initial.without_history()
        mark = fingerprint(initial)
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            with self._transaction():
                self._db.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [
                        ("fingerprint", mark),
                        ("table_file", table_file),
                        ("table_id", initial.table_id),
                        ("created", _utc(self.clock())),
                    ],
                )
            self._latest = initial
            return Restored(initial, 0, 0, 0, new=True)
        if meta.get("fingerprint") != mark:
            raise StoreError(
                f"{table_file}: this table file is not the one the journal in {self.path} was"
                f" started with ({meta.get('table_file', '?')}, table"
                f" {meta.get('table_id', '?')!r}, {meta.get('created', '?')}): replaying its"
                " commands on a changed table would not give the same state. Fix: put the table"
                " file back as it was, or start a new session with `rhuna-table run --config"
                f" <file> --new-session` (the old journal is moved to {self.state_dir / ARCHIVE}/)"
            )
        self._seq, self._events = self._db.execute(
            "SELECT coalesce(max(seq), 0), coalesce(sum(json_array_length(events)), 0) FROM journal"
        ).fetchone()
        state, snap = self._from_snapshots(initial)
        replayed = 0
        rows = self._db.execute(
            "SELECT seq, command, events FROM journal WHERE seq > ? ORDER BY seq", (snap,)
        )
        differ = 0
        for seq, command_text, events_text in rows:
            try:
                state, events = apply(state, decode_command(command_text))
            except Exception as e:  # CommandRejected, or a journal row the engine cannot read
                raise StoreError(
                    f"{self.path}: journal entry #{seq} ({command_text}) no longer applies"
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
        self._snapshot_seq = snap
        self._latest = state
        return Restored(state, self._seq, snap, replayed, new=False)

    def _from_snapshots(self, initial: TableState) -> tuple[TableState, int]:
        """The newest snapshot that reads back intact, else the initial state (seq 0)."""
        rows = self._db.execute(
            "SELECT seq, state, history FROM snapshots WHERE seq <= ? ORDER BY seq DESC",
            (self._seq,),
        ).fetchall()
        for seq, key, history in rows:
            try:
                return self._load_snapshot(key, decode_history(history)), int(seq)
            except (ValueError, TypeError, KeyError) as e:
                log.warning("snapshot #%d cannot be read (%s); trying an older one", seq, e)
        return initial, 0

    def _load_snapshot(self, key: str, history: list[str]) -> TableState:
        loaded: dict[str, TableState] = {}
        # the Undo steps share most of their fields (the tokens always): each distinct
        # field is decoded once and shared, as the engine shares them (restart time, memory)
        memo: dict[tuple[str, str], Any] = {}

        def load(k: str) -> TableState:
            if k not in loaded:
                row = self._db.execute("SELECT data FROM states WHERE key = ?", (k,)).fetchone()
                if row is None:
                    raise KeyError(f"state {k[:12]} is missing")
                raw = state_data(k, row[0])
                if raw is None:
                    raise ValueError(f"state {k[:12]} does not match its checksum")
                loaded[k] = codec.from_data_shared(TableState, json.loads(raw), memo)
            return loaded[k]

        steps = tuple(load(k) for k in history)
        current = dataclasses.replace(load(key), history=steps)
        self._stored = {id(s): (s, k) for s, k in zip(steps, history, strict=True)}
        return current

    # --- the journal (the table loop's thread) --------------------------------------------

    @property
    def seq(self) -> int:
        """Sequence number of the last committed command."""
        return self._seq

    @property
    def last_event_seq(self) -> int:
        """How many events the committed commands told: the MQTT event stream numbers each
        one, and resumes after this many (docs/mqtt.md)."""
        return self._events

    def append(self, accepted: Outcome) -> int:
        """Commit one accepted command (its own transaction); return its sequence number.

        Raises :class:`JournalWriteFailed` if it cannot be made durable: the caller must
        then not keep the state change (the loop reverts and reports a ``store`` error);
        :class:`~companion.table.loop.Unsavable` for a command that is no JSON (``malformed``).
        """
        if accepted.command is None:
            raise JournalWriteFailed("an accepted outcome without a command")
        seq = self._seq + 1
        try:
            row = (
                seq,
                self.clock(),
                accepted.source,
                command_json(accepted.command),
                events_json(accepted.events),
            )
            for text in row[2:]:
                text.encode("utf-8")  # SQLite stores UTF-8: a lone surrogate cannot go in
        except (TypeError, ValueError) as e:  # NaN, a lone surrogate, an object of a script's
            raise Unsavable(f"the command cannot be stored as JSON ({e})") from None
        try:
            # one statement outside BEGIN … COMMIT is its own transaction: committed (the WAL
            # fsync'd) when execute returns, or rolled back; one call into SQLite, not three,
            # so the loop's thread waits for the GIL once after the disk, not three times
            with self._db_lock:
                try:
                    self._db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", row)
                except BaseException:
                    if self._db.in_transaction:  # never left open behind a failed commit
                        with contextlib.suppress(sqlite3.Error):
                            self._db.execute("ROLLBACK")
                    raise
        except sqlite3.Error as e:
            raise JournalWriteFailed(f"{self.path}: {e}") from None
        self._seq = seq
        self._events += len(accepted.events)
        self._latest = accepted.state
        return seq

    def commands(self, after: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(seq, command)`` of every journal row after ``after``, in order."""
        for seq, text in self._db.execute(
            "SELECT seq, command FROM journal WHERE seq > ? ORDER BY seq", (after,)
        ):
            yield int(seq), decode_command(text)

    # --- snapshots --------------------------------------------------------------------

    @property
    def snapshot_due(self) -> bool:
        """``snapshot_every`` commands since the last snapshot asked for, or commands and
        ``snapshot_seconds`` since: true under continuous input too."""
        new = self._seq - self._asked_seq
        if new <= 0:
            return False
        if self.snapshot_every > 0 and new >= self.snapshot_every:
            return True
        return self.snapshot_seconds > 0 and (
            self.timer() - self._asked_at >= self.snapshot_seconds
        )

    def request_snapshot(self, state: TableState | None = None) -> None:
        """Have the snapshot thread store ``state`` (default: the state after the last
        command) as of the last seq. Never waits: the loop hands over an immutable state and
        goes on; a newer request replaces one not yet begun."""
        state = state if state is not None else self._latest
        if state is None or self._seq == self._asked_seq:
            return
        self._asked_seq, self._asked_at = self._seq, self.timer()
        with self._slot_cond:
            if self._closing:
                return
            self._slot = (state, self._seq)
            self._slot_cond.notify_all()
            if self._snapshotter is None:
                self._snapshotter = threading.Thread(
                    target=self._snapshots, name="snapshots", daemon=True
                )
                self._snapshotter.start()

    def wait_snapshots(self, timeout: float | None = None) -> bool:
        """Wait until every snapshot asked for is written (tests, benchmarks)."""
        with self._slot_cond:
            return self._slot_cond.wait_for(
                lambda: self._slot is None and not self._writing, timeout
            )

    def _snapshots(self) -> None:
        while True:
            with self._slot_cond:
                self._slot_cond.wait_for(lambda: self._slot is not None or self._closing)
                if self._slot is None:
                    return
                (state, seq), self._slot = self._slot, None
                self._writing = True
            try:
                self._take_snapshot(state, seq)
            finally:
                with self._slot_cond:
                    self._writing = False
                    self._slot_cond.notify_all()

    def snapshot(self, state: TableState | None = None) -> bool:
        """Store ``state`` (default: the state after the last command) as of the last seq,
        now, on the calling thread (the service's clean stop). True if written.

        A failed snapshot is logged and costs only restart time: the journal already holds
        every command.
        """
        state = state if state is not None else self._latest
        if state is None or self._seq == self._snapshot_seq:
            return False
        self._asked_seq, self._asked_at = self._seq, self.timer()
        with self._slot_cond:
            self._slot = None  # this one is newer
        return self._take_snapshot(state, self._seq)

    def _take_snapshot(self, state: TableState, seq: int) -> bool:
        with self._snap_lock:
            if seq <= self._snapshot_seq:
                return False
            started = time.perf_counter()
            try:
                self._write_snapshot(state, seq)
            except (sqlite3.Error, TypeError, ValueError) as e:
                log.warning("snapshot at #%d failed (%s); the journal is intact", seq, e)
                # try again snapshot_every commands later, not after every command
                self._snapshot_seq = seq
                self.snapshot_stats["failed"] += 1
                return False
            took = time.perf_counter() - started
            self.snapshot_stats["taken"] += 1
            self.snapshot_stats["seconds_max"] = max(self.snapshot_stats["seconds_max"], took)
            return True

    def _write_snapshot(self, state: TableState, seq: int) -> None:
        new_rows: list[tuple[str, bytes]] = []
        stored: dict[int, tuple[TableState, str]] = {}

        def key_of(s: TableState) -> str:
            known = self._stored.get(id(s)) or stored.get(id(s))
            if known is not None and known[0] is s:
                stored[id(s)] = known
                return known[1]
            key, blob = state_row(state_json(s))
            new_rows.append((key, blob))
            stored[id(s)] = (s, key)
            return key

        history = [key_of(s) for s in state.history]
        current = key_of(state.without_history())
        with self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO states VALUES (?, ?)", new_rows)
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                (seq, self.clock(), current, history_json(history)),
            )
            self._prune()
        self._stored = stored
        self._snapshot_seq = seq

    def _prune(self) -> None:
        """Keep the newest snapshots and the states they name."""
        self._db.execute(
            "DELETE FROM snapshots WHERE seq NOT IN"
            " (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT ?)",
            (KEEP_SNAPSHOTS,),
        )
        keep: set[str] = set()
        for current, history in self._db.execute("SELECT state, history FROM snapshots"):
            keep.add(current)
            keep.update(decode_history(history))
        gone = [
            (k,) for (k,) in self._db.execute("SELECT key FROM states").fetchall() if k not in keep
        ]
        self._db.executemany("DELETE FROM states WHERE key = ?", gone)

    # --- helpers -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._db_lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def stats(self) -> dict[str, Any]:
        """Counts for ``check-config``, logs and MQTT diagnostics."""
        with self._db_lock:
            states = self._db.execute("SELECT count(*) FROM states").fetchone()[0]
        return {"seq": self._seq, "snapshot_seq": self._snapshot_seq, "states": states}


def archive(state_dir: str | Path, clock: Clock = time.time) -> Path | None:
    """Move the journal (with its WAL) to ``archive/journal-<UTC time>.sqlite``.

    Used by ``--new-session``; works on a damaged journal too. Returns the
    archived path, or None when there was no journal.
    """
    state_dir = Path(state_dir)
    path = state_dir / JOURNAL
    if not path.exists():
        return None
    fd = _lock(state_dir)
    try:
        with contextlib.suppress(sqlite3.Error):  # fold the WAL in when the file allows it
            db = sqlite3.connect(path, isolation_level=None)
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        folder = state_dir / ARCHIVE
        folder.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
        target = folder / f"journal-{stamp}.sqlite"
        n = 1
        while target.exists():
            n += 1
            target = folder / f"journal-{stamp}-{n}.sqlite"
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{path}{suffix}")
            if src.exists():
                os.replace(src, f"{target}{suffix}")
        fsync_dir(state_dir)
        fsync_dir(folder)
        return target
    except OSError as e:
        raise StoreError(
            f"{path}: cannot archive the journal ({e.strerror}) — check the permissions of"
            f" {state_dir}"
        ) from None
    finally:
        _unlock(fd)


def inspect(state_dir: str | Path) -> dict[str, Any] | None:
    """What a journal holds, read-only (for ``check-config``); None when there is none."""
    path = Path(state_dir) / JOURNAL
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            seq = db.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
            snap = db.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as e:
        if _is_damage(e):
            raise _damaged(path, e) from None
        return {"error": str(e)}
    return {"meta": meta, "seq": seq, "snapshot_seq": snap}


#: what to do when another process holds the state directory (a second service)
_BUSY_FIX = "stop it first (systemctl stop rhuna-table), or give this one its own [state] dir"


@contextlib.contextmanager
def locked(state_dir: str | Path, busy_fix: str = _BUSY_FIX) -> Iterator[None]:
    """Hold the state directory's lock, as a running service does, for the block.

    ``rhuna-table enroll`` holds it while it enrols, so it never runs beside the service
    (which holds the reader's port and read the registry when it started) and the
    service cannot start halfway through an enrolment. ``busy_fix`` is the advice
    when the lock is taken.
    """
    state_dir = Path(state_dir)
    _make_dir(state_dir)
    fd = _lock(state_dir, busy_fix)
    try:
        yield
    finally:
        _unlock(fd)


def _make_dir(state_dir: Path) -> None:
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(
            f"state.dir {state_dir}: cannot create it ({e.strerror}) — create it for the"
            " service's user, or set [state] dir to a writable directory"
        ) from None


def _lock(state_dir: Path, busy_fix: str = _BUSY_FIX) -> int:
    path = state_dir / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise StoreError(
            f"{path}: cannot create the lock file ({e.strerror}) — the service's user must be"
            f" able to write to {state_dir}"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise StoreError(
            f"{state_dir}: another rhuna-table (pid {holder}) is running on this state"
            f" directory — {busy_fix}"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing drops the flock


def _reason(e: Exception) -> str:
    return str(e.violation) if isinstance(e, CommandRejected) else f"{type(e).__name__}: {e}"


def _utc(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
