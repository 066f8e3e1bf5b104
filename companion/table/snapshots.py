"""Snapshots: the full state written now and then, so a restart replays few journal rows.

A snapshot stores the *full* state, history included, without storing it 64 times over: each
history-free state (the current one and every Undo step) is kept once in ``states``,
content-addressed by the SHA-256 of its JSON, and a snapshot row lists the keys. Undo steps are
shared between consecutive snapshots, so a snapshot writes only the states that are new since
the last one.

The table loop never waits for one: it hands an immutable state to :meth:`Snapshots.request`
and goes on; the snapshot thread does the CPU work (JSON, SHA-256, zlib) outside the database
lock and takes it only to insert. A failed snapshot is logged and costs only restart time: the
journal already holds every command.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable

from companion.table.journal import decode_history, history_json, state_json, state_row
from companion.table.journal_file import transaction
from engine.state import TableState

__all__ = ["KEEP_SNAPSHOTS", "Snapshots"]

log = logging.getLogger("rhuna.store")

#: snapshots kept (the newest, and one to fall back on)
KEEP_SNAPSHOTS = 2

Clock = Callable[[], float]


class Snapshots:
    """When a snapshot is due, the thread that writes them, and what is already stored."""

    __slots__ = (
        "_asked_at",
        "_asked_seq",
        "_closing",
        "_db",
        "_db_lock",
        "_slot",
        "_slot_cond",
        "_snap_lock",
        "_stored",
        "_thread",
        "_writing",
        "clock",
        "every",
        "seconds",
        "stats",
        "taken_seq",
        "timer",
    )

    def __init__(
        self,
        db: sqlite3.Connection,
        db_lock: threading.RLock,
        *,
        clock: Clock,
        timer: Clock,
        every: int,
        seconds: float,
    ) -> None:
        self._db = db
        self._db_lock = db_lock
        #: the snapshot rows' time stamps (wall clock)
        self.clock = clock
        #: the timer behind ``seconds``: monotonic seconds
        self.timer = timer
        #: a snapshot every so many commands (0: only by time or when asked)
        self.every = every
        #: a snapshot every so many seconds too, when commands came in meanwhile
        self.seconds = seconds
        #: the seq of the newest snapshot written (or failed: tried again ``every`` later)
        self.taken_seq = 0
        #: id(state) → (state, key) for states already in ``states`` (Undo steps are shared)
        self._stored: dict[int, tuple[TableState, str]] = {}
        self._snap_lock = threading.Lock()  # one snapshot writer at a time (owns _stored)
        self._slot: tuple[TableState, int] | None = None  # the newest snapshot asked for
        self._slot_cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._asked_seq = 0  # the seq of the last snapshot asked for (taken or not)
        self._asked_at = timer()
        self._writing = False  # the snapshot thread is writing one
        self.stats: dict[str, float] = {"taken": 0, "failed": 0, "seconds_max": 0.0}

    def restored(self, seq: int, stored: dict[int, tuple[TableState, str]]) -> None:
        """Start from the snapshot a restart came back with (``seq`` 0: none)."""
        self.taken_seq = seq
        self._stored = stored

    def due(self, seq: int) -> bool:
        """``every`` commands since the last snapshot asked for, or commands and ``seconds``
        since: true under continuous input too."""
        new = seq - self._asked_seq
        if new <= 0:
            return False
        if self.every > 0 and new >= self.every:
            return True
        return self.seconds > 0 and (self.timer() - self._asked_at >= self.seconds)

    def request(self, state: TableState, seq: int) -> None:
        """Have the snapshot thread store ``state`` as of ``seq``. Never waits; a newer
        request replaces one not yet begun."""
        if seq == self._asked_seq:
            return
        self._asked_seq, self._asked_at = seq, self.timer()
        with self._slot_cond:
            if self._closing:
                return
            self._slot = (state, seq)
            self._slot_cond.notify_all()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="snapshots", daemon=True)
                self._thread.start()

    def now(self, state: TableState, seq: int) -> bool:
        """Store ``state`` as of ``seq`` on the calling thread (the service's clean stop);
        True if written."""
        if seq == self.taken_seq:
            return False
        self._asked_seq, self._asked_at = seq, self.timer()
        with self._slot_cond:
            self._slot = None  # this one is newer
        return self._take(state, seq)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every snapshot asked for is written (tests, benchmarks)."""
        with self._slot_cond:
            return self._slot_cond.wait_for(
                lambda: self._slot is None and not self._writing, timeout
            )

    def close(self) -> None:
        """Finish a snapshot being written; drop one only asked for (the journal holds its
        commands)."""
        with self._slot_cond:
            self._closing = True
            self._slot = None
            self._slot_cond.notify_all()
        if self._thread is not None:
            self._thread.join(30)

    def _run(self) -> None:
        """The snapshot thread: take the newest request, write it, until closed."""
        while True:
            with self._slot_cond:
                self._slot_cond.wait_for(lambda: self._slot is not None or self._closing)
                if self._slot is None:
                    return
                (state, seq), self._slot = self._slot, None
                self._writing = True
            try:
                self._take(state, seq)
            finally:
                with self._slot_cond:
                    self._writing = False
                    self._slot_cond.notify_all()

    def _take(self, state: TableState, seq: int) -> bool:
        """Write one snapshot unless a newer one is; count it, or log why it failed."""
        with self._snap_lock:
            if seq <= self.taken_seq:
                return False
            started = time.perf_counter()
            try:
                self._write(state, seq)
            except (sqlite3.Error, TypeError, ValueError) as e:
                log.warning("snapshot at #%d failed (%s); the journal is intact", seq, e)
                # try again ``every`` commands later, not after every command
                self.taken_seq = seq
                self.stats["failed"] += 1
                return False
            took = time.perf_counter() - started
            self.stats["taken"] += 1
            self.stats["seconds_max"] = max(self.stats["seconds_max"], took)
            return True

    def _write(self, state: TableState, seq: int) -> None:
        """Insert the states not stored yet and the snapshot row naming them; prune."""
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
        with transaction(self._db, self._db_lock):
            self._db.executemany("INSERT OR IGNORE INTO states VALUES (?, ?)", new_rows)
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                (seq, self.clock(), current, history_json(history)),
            )
            self._prune()
        self._stored = stored
        self.taken_seq = seq

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
