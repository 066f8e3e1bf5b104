"""Snapshots: the full state written now and then, so a restart replays few journal rows.

A snapshot stores the *full* state, history included, without storing it 64 times over: each
history-free state (the current one and every Undo step) is kept once in ``states``,
content-addressed by the SHA-256 of its JSON, and a snapshot row lists the keys. Undo steps are
shared between consecutive snapshots, so a snapshot writes only the states that are new since
the last one.

The table loop never waits for one: it hands an immutable state to :meth:`Snapshots.request`
and goes on. The CPU work (JSON, SHA-256, zlib: ≈0.4 s for a full Undo history here, seconds on
a loaded Pi) is done by a child process (:func:`rows_elsewhere`, from multiprocessing's fork
server: never a fork of this process, full of threads), which is sent the states (pickled, a
hundredth of the work) and sends back only the rows: on a thread of this process the work held
the GIL against the loop for that long, and the replies queued behind it
(issue 45: 150–550 ms every 1,000 commands, benchmarks/snapshots.py). The snapshot thread then
inserts the rows in one short transaction (all or nothing: never half a snapshot). A failed
snapshot is logged and costs only restart time: the journal already holds every command.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

from companion.table.journal import decode_history, history_json, state_json, state_row
from companion.table.journal_file import transaction
from display.forkserver_signals import start
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

#: the child's priority: far below the loop (and the panel, the broker) when the cores are busy
NICE = 19

#: the signals a service stops on: left to their default action in the snapshot's child (a
#: stop ends it; it never runs the service's handler)
_STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def rows_here(states: list[TableState]) -> list[tuple[str, bytes]]:
    """The ``states`` rows of ``states``, computed on this thread."""
    return [state_row(state_json(s)) for s in states]


#: what the child computes: :func:`rows_here`, named by reference (tests name another, a
#: module-level function the child can import, to watch it or make it fail)
CHILD_WORK: Callable[[list[TableState]], list[tuple[str, bytes]]] = rows_here


def rows_elsewhere(states: list[TableState]) -> list[tuple[str, bytes]] | None:
    """The ``states`` rows of ``states``, computed in a child process (its own GIL, its own
    core): None if no child could be made (the caller computes them here); ValueError if the
    child could not compute them (what :func:`rows_here` would raise, or the child killed).

    The child comes from multiprocessing's fork server (:mod:`display.forkserver_signals`, as
    the panel's and the answers'): a process with threads (paho, the readers, the loop) is
    never forked, which can leave a child holding a lock another thread held (Python 3.12+
    warns of it, a DeprecationWarning). The states go to it pickled (≈2 ms for a full Undo
    history, against ≈180 ms for their rows; Undo steps share their parts, which pickle keeps
    once), and only the rows come back."""
    from display.process import PRELOAD  # the server's preloads (the service has them already)

    ours, theirs = multiprocessing.Pipe()
    try:
        process = start(
            PRELOAD,
            lambda ctx: ctx.Process(target=_child, args=(theirs,), name="snapshot", daemon=True),
        )
    except (OSError, EOFError, ConnectionError) as e:
        ours.close()
        theirs.close()
        log.warning("snapshot: no child process (%s); computed on the snapshot thread", e)
        return None
    theirs.close()
    if process.pid is not None:  # below the loop from now, before the states reach it
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, process.pid, NICE)
    out: object = None
    try:
        with contextlib.suppress(OSError):  # a child gone already: said by its status below
            ours.send((CHILD_WORK, states))
        if ours.poll(CHILD_BOUND):  # waits without the GIL while the child works
            with contextlib.suppress(EOFError, OSError):
                out = ours.recv()
        else:
            process.kill()  # stuck: this snapshot fails, the next one tries
    finally:
        ours.close()
        process.join()
    code = process.exitcode
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"the snapshot's child process ended with status {code}")
    kind, data = out
    if kind != "rows":
        raise ValueError(f"the snapshot's child process: {data}")
    rows: list[tuple[str, bytes]] = data
    return rows


def _child(
    conn: Connection,
) -> None:  # pragma: no cover - the child (its coverage is not collected)
    """The child: take the work and the states from ``conn``, send back the rows (or the
    error's words), end. A stop signal ends it (Ctrl-C, SIGTERM or SIGHUP to the service's
    group), as a snapshot that fails costs only restart time."""
    with contextlib.suppress(ValueError, OSError):
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, NICE)  # the loop (the panel, the broker) first
    try:
        work, states = conn.recv()
        out: tuple[str, object] = ("rows", work(states))
    except (TypeError, ValueError, RecursionError) as e:
        out = ("error", f"{type(e).__name__}: {e}")
    except EOFError:  # the service is gone
        return
    with contextlib.suppress(OSError):
        conn.send(out)
    conn.close()


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
            self._take_asked, name="snapshots", autostart=True
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
