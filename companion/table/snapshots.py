"""Snapshots: the full state written now and then, so a restart replays few journal rows.

A snapshot stores the *full* state, history included, without storing it 64 times over: each
history-free state (the current one and every Undo step) is kept once in ``states``,
content-addressed by the SHA-256 of its JSON, and a snapshot row lists the keys. Undo steps are
shared between consecutive snapshots, so a snapshot writes only the states that are new since
the last one.

The table loop never waits for one: it hands an immutable state to :meth:`Snapshots.request`
and goes on. The CPU work (JSON, SHA-256, zlib: ≈0.4 s for a full Undo history here, seconds on
a loaded Pi) is done by a child forked from the snapshot thread (:func:`rows_elsewhere`), which
has the states for free (copy on write) and sends back only the rows: on a thread of this
process it held the GIL against the loop for that long, and the replies queued behind it
(issue 45: 150–550 ms every 1,000 commands, benchmarks/snapshots.py). The snapshot thread then
inserts the rows in one short transaction (all or nothing: never half a snapshot). A failed
snapshot is logged and costs only restart time: the journal already holds every command.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import select
import signal
import sqlite3
import threading
import time
from collections.abc import Callable

from companion.table.journal import decode_history, history_json, state_json, state_row
from companion.table.journal_file import transaction
from engine.state import TableState
from settings.latest import LatestWins

__all__ = ["KEEP_SNAPSHOTS", "Snapshots", "rows_elsewhere", "rows_here"]

log = logging.getLogger("rhuna.store")

#: snapshots kept (the newest, and one to fall back on)
KEEP_SNAPSHOTS = 2

Clock = Callable[[], float]

#: seconds a snapshot's child may take before it is killed (a liveness bound: ≈0.4 s here,
#: a few seconds on a loaded Pi)
CHILD_BOUND = 300.0

#: the signals a service stops on: blocked on the snapshot thread (so its child is born with
#: them blocked), and left to their default action in the child (a stop ends it; it never runs
#: the service's handler nor wakes the service's loop)
_STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def rows_here(states: list[TableState]) -> list[tuple[str, bytes]]:
    """The ``states`` rows of ``states``, computed on this thread."""
    return [state_row(state_json(s)) for s in states]


def rows_elsewhere(states: list[TableState]) -> list[tuple[str, bytes]] | None:
    """The ``states`` rows of ``states``, computed in a forked child (its own GIL, its own
    core): None if no child could be made (the caller computes them here); ValueError if the
    child could not compute them (what :func:`rows_here` would raise, or the child killed)."""
    if not hasattr(os, "fork"):
        return None
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError as e:
        os.close(read)
        os.close(write)
        log.warning("snapshot: no child process (%s); computed on the snapshot thread", e)
        return None
    if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
        _child(states, read, write)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + CHILD_BOUND
    try:
        while True:  # select and read release the GIL while the child works
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)  # stuck: this snapshot fails, the next one tries
                break
            if not (chunk := os.read(read, 1 << 20)):
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        kind, data = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):
        raise ValueError(f"the snapshot's child process ended with status {code}") from None
    if kind != "rows" or code != 0:
        raise ValueError(f"the snapshot's child process: {data}")
    rows: list[tuple[str, bytes]] = data
    return rows


def _child(states: list[TableState], read: int, write: int) -> None:  # pragma: no cover
    """The forked child: compute the rows, write them to ``write``, exit; never returns, never
    runs the service's code beyond (no atexit, no buffers flushed, no handler)."""
    code = 1
    try:
        with contextlib.suppress(ValueError, OSError):  # the forking thread is the child's main
            for sig in _STOP_SIGNALS:
                signal.signal(sig, signal.SIG_DFL)
            signal.set_wakeup_fd(-1)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        with contextlib.suppress(OSError):
            os.nice(19)  # the loop (and the panel, the broker) first when the cores are busy
        # hold nothing of the service's: the state directory's lock, the journal, its pipes
        os.close(read)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, write)
        os.closerange(write + 1, max(write + 1, os.sysconf("SC_OPEN_MAX")))
        try:
            out = marshal.dumps(("rows", rows_here(states)))
            code = 0
        except (TypeError, ValueError, RecursionError) as e:
            out = marshal.dumps(("error", f"{type(e).__name__}: {e}"))
        view = memoryview(out)
        while view:
            view = view[os.write(write, view) :]
    finally:
        os._exit(code)


def _block_stop_signals() -> None:
    """On the snapshot thread, first: the service's stop signals go to its other threads (the
    main one handles them); the child forked from here is born with them blocked (see
    _child)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)


class Snapshots:
    """When a snapshot is due, the thread that writes them, and what is already stored."""

    __slots__ = (
        "_asked_at",
        "_asked_seq",
        "_db",
        "_db_lock",
        "_snap_lock",
        "_stored",
        "_work",
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
        # the snapshot thread, born with the first request: the newest snapshot asked for wins
        self._work: LatestWins[tuple[TableState, int]] = LatestWins(
            self._take_asked, name="snapshots", initializer=_block_stop_signals, autostart=True
        )
        self._asked_seq = 0  # the seq of the last snapshot asked for (taken or not)
        self._asked_at = timer()
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
        self._work.submit((state, seq))  # refused once closed

    def now(self, state: TableState, seq: int) -> bool:
        """Store ``state`` as of ``seq`` on the calling thread (the service's clean stop);
        True if written."""
        if seq == self.taken_seq:
            return False
        self._asked_seq, self._asked_at = seq, self.timer()
        self._work.cancel()  # this one is newer: one asked and not begun is dropped
        return self._take(state, seq)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every snapshot asked for is written (tests, benchmarks)."""
        return self._work.wait_idle(timeout)

    def close(self) -> None:
        """Finish a snapshot being written; drop one only asked for (the journal holds its
        commands)."""
        self._work.stop(timeout=30)

    def _take_asked(self, asked: tuple[TableState, int]) -> None:
        """On the snapshot thread: write the newest snapshot asked for, its rows computed in
        a child process."""
        state, seq = asked
        self._take(state, seq, elsewhere=True)

    def _take(self, state: TableState, seq: int, *, elsewhere: bool = False) -> bool:
        """Write one snapshot unless a newer one is; count it, or log why it failed.
        ``elsewhere``: its rows computed in a child process (the snapshot thread's way)."""
        with self._snap_lock:
            if seq <= self.taken_seq:
                return False
            started = time.perf_counter()
            try:
                self._write(state, seq, elsewhere=elsewhere)
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

    def _write(self, state: TableState, seq: int, *, elsewhere: bool = False) -> None:
        """Insert the states not stored yet and the snapshot row naming them; prune."""
        states = [*state.history, state.without_history()]
        new: dict[int, TableState] = {}  # the states not stored yet, by identity, in order
        for s in states:
            known = self._stored.get(id(s))
            if (known is None or known[0] is not s) and id(s) not in new:
                new[id(s)] = s
        todo = list(new.values())
        rows = rows_elsewhere(todo) if elsewhere and todo else None
        new_rows = rows if rows is not None else rows_here(todo)
        keys = {id(s): key for s, (key, _) in zip(todo, new_rows, strict=True)}
        stored: dict[int, tuple[TableState, str]] = {}
        for s in states:
            stored[id(s)] = (s, keys[id(s)] if id(s) in keys else self._stored[id(s)][1])
        history = [stored[id(s)][1] for s in state.history]
        current = stored[id(states[-1])][1]
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
