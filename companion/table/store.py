"""The journal: every accepted command, committed to SQLite before anyone is told.

A command counts as *acknowledged* once its journal row is committed: the table
loop calls :meth:`Store.append` after the engine accepted a command and before
any subscriber (the panel, MQTT replies) hears of it. The database lives in the
service's state directory, in WAL mode with ``synchronous=FULL``, one
transaction per command, so a kill -9 or a power cut at any instant loses
nothing that was acknowledged and never leaves half a command behind.

:class:`Store` is the one object the service holds; the work is done by its pieces:

- :mod:`~companion.table.statedir`: the state directory, its lock, ``--new-session``'s archive;
- :mod:`~companion.table.journal_file`: opening and checking the SQLite file, its errors;
- :mod:`~companion.table.wal`: the write-ahead log read frame by frame;
- :mod:`~companion.table.guard`: the journal checked before SQLite opens it (nothing dropped
  in silence; a damaged log refused and copied to ``archive/``);
- :mod:`~companion.table.replay`: restarting (initial state + snapshot + journal rows);
- :mod:`~companion.table.snapshots`: the full state now and then, on its own thread (its JSON
  computed in a child of the fork server, off the loop's GIL);
- :mod:`~companion.table.journal`: the format (tables, rows, encodings), shared with the record.

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
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from companion.table import guard, replay
from companion.table.journal import (
    ARCHIVE,
    JOURNAL,
    LOCK,
    SCHEMA_VERSION,
    command_json,
    decode_command,
    fingerprint,
    journal_row,
    state_json,
)
from companion.table.journal_file import JournalWriteFailed, StoreError, connect, inspect
from companion.table.loop import Outcome, Unsavable
from companion.table.replay import Restored
from companion.table.snapshots import Snapshots
from companion.table.statedir import BUSY_FIX, archive, hold, locked, make_dir, release
from companion.table.wal import wal_damage
from engine.state import TableState

#: the journal format's names and the pieces' kept here for the callers that import them from
#: the store
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

#: a snapshot at least this often (seconds) while commands come in, whatever their number
SNAPSHOT_SECONDS = 60.0
#: the advice when a second service would share the state directory (``rhuna-table run``)
_BUSY_FIX = BUSY_FIX

Clock = Callable[[], float]


class Store:
    """One state directory's journal. Use from one thread at a time (the table loop's)."""

    __slots__ = (
        "_db",
        "_db_lock",
        "_events",
        "_latest",
        "_lock",
        "_seq",
        "_snapshots",
        "clock",
        "damage",
        "path",
        "state_dir",
    )

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
        self._db = db
        self._lock = lock
        self._seq = 0
        self._events = 0
        #: the state after the last committed command, for the next snapshot
        self._latest: TableState | None = None
        # one transaction at a time on the one connection (the loop's commits, the snapshot
        # thread's inserts); the snapshot's CPU work (JSON, SHA-256, zlib) runs outside it, in
        # a child process
        self._db_lock = threading.RLock()
        self._snapshots = Snapshots(
            db,
            self._db_lock,
            clock=clock,
            timer=timer,
            every=snapshot_every,
            seconds=snapshot_seconds,
        )
        #: the torn tail :func:`guard.check` logged when the journal was opened (None: none)
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
        marks: Iterable[Path] = (),
        new_session: bool = False,
    ) -> Store:
        """Open (or create) the journal in ``state_dir``; refuse a damaged one, one that
        SQLite would open with loss (:mod:`~companion.table.guard`: ``marks`` are more signs
        of a night, ``new_session`` says the journal was just archived on purpose) or a second
        service on the same directory."""
        state_dir = Path(state_dir)
        make_dir(state_dir)
        fd = hold(state_dir) if lock else None
        try:
            # before SQLite opens it and drops what is torn (or deletes what is damaged)
            damage = guard.check(state_dir, marks=marks, new_session=new_session, clock=clock)
            db = connect(state_dir)
        except BaseException:
            release(fd)
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

    def close(self) -> None:
        """Close the database (every commit is already durable) and release the lock. A
        snapshot being written is finished first; one only asked for is dropped (the journal
        holds its commands)."""
        self._snapshots.close()
        with self._db_lock, contextlib.suppress(sqlite3.Error):
            self._db.close()
        release(self._lock)
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
        done = replay.restore(
            self._db, self._db_lock, self.path, initial, str(table_file), self.clock
        )
        restored = done.restored
        self._seq, self._events, self._latest = restored.seq, done.events, restored.state
        self._snapshots.restored(restored.snapshot_seq, done.stored)
        return restored

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
            row = journal_row(seq, self.clock(), accepted.source, accepted.command, accepted.events)
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

    # --- snapshots (companion.table.snapshots does the work) ---------------------------

    @property
    def snapshot_every(self) -> int:
        """A snapshot every so many commands (0: only by time, or when asked)."""
        return self._snapshots.every

    @snapshot_every.setter
    def snapshot_every(self, every: int) -> None:
        self._snapshots.every = every

    @property
    def snapshot_seconds(self) -> float:
        """A snapshot every so many seconds too, when commands came in meanwhile."""
        return self._snapshots.seconds

    @property
    def snapshot_stats(self) -> dict[str, float]:
        """Snapshots ``taken``, ``failed``, and the slowest (``seconds_max``)."""
        return self._snapshots.stats

    @property
    def snapshot_due(self) -> bool:
        """``snapshot_every`` commands since the last snapshot asked for, or commands and
        ``snapshot_seconds`` since: true under continuous input too."""
        return self._snapshots.due(self._seq)

    def request_snapshot(self, state: TableState | None = None) -> None:
        """Have the snapshot thread store ``state`` (default: the state after the last
        command) as of the last seq. Never waits: the loop hands over an immutable state and
        goes on; a newer request replaces one not yet begun."""
        state = state if state is not None else self._latest
        if state is not None:
            self._snapshots.request(state, self._seq)

    def wait_snapshots(self, timeout: float | None = None) -> bool:
        """Wait until every snapshot asked for is written (tests, benchmarks)."""
        return self._snapshots.wait(timeout)

    def snapshot(self, state: TableState | None = None) -> bool:
        """Store ``state`` (default: the state after the last command) as of the last seq,
        now, on the calling thread (the service's clean stop). True if written.

        A failed snapshot is logged and costs only restart time: the journal already holds
        every command.
        """
        state = state if state is not None else self._latest
        return state is not None and self._snapshots.now(state, self._seq)

    def stats(self) -> dict[str, Any]:
        """Counts for ``check-config``, logs and MQTT diagnostics."""
        with self._db_lock:
            states = self._db.execute("SELECT count(*) FROM states").fetchone()[0]
        return {"seq": self._seq, "snapshot_seq": self._snapshots.taken_seq, "states": states}
