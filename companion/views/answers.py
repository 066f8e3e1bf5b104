"""Answers off the turn: the odds and forecasts too big for a turn, computed in a child process.

A turn builds the table's view with a small allowance of steps (``[answers] turn`` in the
rules data, :func:`engine.view.answer`): an Intersect group's best-play odds or a big
fight's attack forecast that would take more is left out of the view and marked
``pending``. :class:`AnswerWorker` then computes that very state's whole view again with
the large allowance (``[answers] most``) in a child process, and hands it back; the
outputs publish it if the table is still at that state, and drop it if it has moved on.

Why a process and not a thread: the work is pure Python arithmetic, so a thread would
hold the interpreter's lock against the loop, paho and the readers (a thread beside the
commit was measured 2.15× slower, docs/performance.md), and a thread cannot be stopped
when the table moves on. The child is forked by multiprocessing's fork server (a fresh
single-threaded process: never ``fork`` from a process full of threads), runs below the
table (``nice`` 19), and is killed as soon as its answer is for a state the table has
left: the newest state is the only one worth an answer. Nothing here waits in the turn.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection

from display.forkserver_signals import start
from display.process import PRELOAD
from engine.contracts.view import TableView
from engine.state import TableState
from settings.latest import LatestWins

log = logging.getLogger("rhuna.answers")

if __name__ not in PRELOAD:  # the engine imported once, in the fork server, for every child
    PRELOAD.append(__name__)

#: told each finished view: (the state it is for, its view with every answer ready or too_big)
Done = Callable[[TableState, TableView], None]


def _child(conn: Connection) -> None:
    """The child's whole life: a state in, its whole view out (``[answers] most`` steps)."""
    import engine  # noqa: F401  (registers every section of the view)
    from engine.view import table_view

    # Ctrl-C reaches the terminal's whole process group: the service stops this child
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # far below the table (nice 19: a weight of 15 against the table's 1024, so a turn loses
    # under 2 % of a core to it), but not the idle class: that runs only on an idle CPU, and
    # beside any busy process of ordinary priority (a shared CI machine; a kiosk browser on
    # the Pi) an answer never came (make test-loaded: the exact odds pending after 60 s)
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, 0, 19)
    while True:
        try:
            state = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if state is None:
            return
        view = table_view(state, work=int(state.rules["answers"]["most"]), final=True)
        try:
            conn.send(view)
        except (OSError, KeyboardInterrupt):
            return


@dataclass(slots=True)
class AnswerStats:
    """What the worker did (diagnostics, tests, ``make bench``)."""

    asked: int = 0
    answered: int = 0
    #: children killed because the table moved on before their answer came
    cancelled: int = 0
    failed: int = 0


class AnswerWorker:
    """Computes the pending answers of the newest state asked, in a child process.

    ``ask(state)`` never waits: the state goes to the child at once, and a child still busy
    with an older state is killed first. ``done(state, view)`` is told on the worker's own
    thread when the answer comes. The thread is a :class:`settings.latest.LatestWins`: the
    newest state asked is its item, and a newer ask, ``moved_on`` or ``stop`` supersedes the
    one in the child, which is then killed (the call's end is told apart from a child that
    died by :meth:`~settings.latest.LatestWins.superseded`).
    """

    __slots__ = (
        "_busy",
        "_conn",
        "_done",
        "_killed",
        "_lock",
        "_process",
        "_work",
        "stats",
    )

    def __init__(self, done: Done) -> None:
        self._done = done
        self._work: LatestWins[TableState] = LatestWins(self._answer, name="answers")
        self._lock = threading.Lock()  # the counters askers share
        self._busy: TableState | None = None  # the state the child is computing now
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        #: the child last sent SIGKILL: never handed another state, even while the kernel
        #: has not yet reaped it (``is_alive()`` still True for a moment after ``kill()``)
        self._killed: multiprocessing.process.BaseProcess | None = None
        self.stats = AnswerStats()

    def start(self) -> None:
        """Start the worker's thread (idempotent); the child starts with the first ask."""
        self._work.start()

    def ask(self, state: TableState) -> None:
        """Compute ``state``'s pending answers (any thread; never waits). A child busy with an
        older state is killed: only the newest state's answers are worth having."""
        if not self._work.offer(state):
            return  # asked already (the bridge and the panel both ask), or stopping
        with self._lock:
            self.stats.asked += 1
        self._kill_unless(state)

    def moved_on(self, state: TableState) -> None:
        """The table is at ``state``, which needs no answer: a child still computing an older
        state's is killed (any thread; never waits). It would only spend the CPU the table
        shares with it — on a board with one slow core, or under a CPU quota, all of it."""
        if self._work.cancel(keep=state):
            self._kill_unless(state)

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread and the child (idempotent)."""
        self._work.request_stop()
        busy = self._process
        if busy is not None:
            self._kill(busy)
        self._work.join(timeout)
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    # --- the worker's thread ------------------------------------------------------------

    def _answer(self, state: TableState) -> None:
        try:
            view = self._compute(state)
        except Exception:  # the child could not even start: the table goes on without
            self.stats.failed += 1
            log.exception("answers: could not compute a pending answer")
            view = None
        if view is not None:
            self.stats.answered += 1
            try:
                self._done(state, view)
            except Exception:
                log.exception("answers: telling the outputs failed")

    def _compute(self, state: TableState) -> TableView | None:
        """``state``'s whole view from the child; None when it was cancelled or failed."""
        with self._lock:  # the state and its child are read together by ``_kill_unless``
            self._busy = state
        try:
            conn = self._child_conn()  # not under the lock: an ask never waits for a fork
            if self._work.superseded():
                self.stats.cancelled += 1
                return None  # a newer state came while the child started: not this one's
            conn.send(state)
            view: TableView = conn.recv()
            return view
        except (EOFError, OSError, ValueError) as e:  # killed (cancelled or stopping), or died
            with self._lock:
                process = self._process
                self._process, self._conn = None, None
            if self._work.superseded() or (process is not None and process is self._killed):
                self.stats.cancelled += 1
            else:
                self.stats.failed += 1
                log.error("answers: the answers' process ended (%s); the next state starts one", e)
            if process is not None:
                with contextlib.suppress(Exception):
                    process.join(1.0)
            return None
        finally:
            with self._lock:
                self._busy = None

    def _child_conn(self) -> Connection:
        """The child's end of the pipe, a fresh child started if need be."""
        process = self._process
        if (
            self._conn is not None
            and process is not None
            and process is not self._killed
            and process.is_alive()
        ):
            return self._conn
        if self._conn is not None:  # a child killed after its answer came: a fresh one
            with contextlib.suppress(OSError):
                self._conn.close()
        ours, theirs = multiprocessing.Pipe()
        process = start(
            PRELOAD,
            lambda ctx: ctx.Process(target=_child, args=(theirs,), name="answers", daemon=True),
        )
        theirs.close()
        with self._lock:
            self._conn, self._process = ours, process
        return ours

    def _kill_unless(self, state: TableState) -> None:
        """Kill the child if it is computing another state than ``state``. The state and its
        child are read and the child killed under the lock the worker sets them with: read
        apart, a kill meant for the older state's child could land once that child had
        answered and taken ``state`` itself, whose answer was then lost as "cancelled"."""
        with self._lock:
            busy, process = self._busy, self._process
            if busy is not None and busy is not state and process is not None:
                self._kill(process)

    def _kill(self, process: multiprocessing.process.BaseProcess) -> None:
        self._killed = process
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.kill()

    @property
    def pid(self) -> int | None:
        p = self._process
        return p.pid if p is not None and p.is_alive() else None


def answer_for(view: TableView) -> bool:
    """True when ``view`` has answers still to come (``pending``)."""
    return any(v == "pending" for v in view.get("answers", {}).values())
