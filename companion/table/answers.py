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
table (``SCHED_IDLE``), and is killed as soon as its answer is for a state the table has
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
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
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
    thread when the answer comes.
    """

    __slots__ = (
        "_busy",
        "_cancelled",
        "_cond",
        "_conn",
        "_done",
        "_process",
        "_stopping",
        "_thread",
        "_wanted",
        "stats",
    )

    def __init__(self, done: Done) -> None:
        self._done = done
        self._cond = threading.Condition()
        self._wanted: TableState | None = None  # the newest state asked, not yet sent
        self._busy: TableState | None = None  # the state the child is computing now
        self._cancelled = False  # the child was killed on purpose (the table moved on)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self.stats = AnswerStats()

    def start(self) -> None:
        """Start the worker's thread (idempotent); the child starts with the first ask."""
        with self._cond:
            if self._thread is not None:
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="answers", daemon=True)
            self._thread.start()

    def ask(self, state: TableState) -> None:
        """Compute ``state``'s pending answers (any thread; never waits). A child busy with an
        older state is killed: only the newest state's answers are worth having."""
        with self._cond:
            if self._stopping:
                return
            if state is self._busy or state is self._wanted:
                return  # asked already (the bridge and the panel both ask)
            self._wanted = state
            self.stats.asked += 1
            self._cond.notify_all()
            busy = self._process if self._busy is not None else None
            self._cancelled = self._cancelled or busy is not None
        if busy is not None:
            self._kill(busy)

    def moved_on(self, state: TableState) -> None:
        """The table is at ``state``, which needs no answer: a child still computing an older
        state's is killed (any thread; never waits). It would only spend the CPU the table
        shares with it — on a board with one slow core, or under a CPU quota, all of it."""
        with self._cond:
            if self._wanted is not None and self._wanted is not state:
                self._wanted = None
            busy = self._busy
            process = self._process if busy is not None and busy is not state else None
            self._cancelled = self._cancelled or process is not None
        if process is not None:
            self._kill(process)

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread and the child (idempotent)."""
        with self._cond:
            self._stopping = True
            self._wanted = None
            thread, self._thread = self._thread, None
            self._cond.notify_all()
            busy = self._process
        if busy is not None:
            self._kill(busy)
        if thread is not None:
            thread.join(timeout)
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    # --- the worker's thread ------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or self._wanted is not None)
                if self._stopping:
                    return
                state, self._wanted = self._wanted, None
                self._busy, self._cancelled = state, False
            assert state is not None
            try:
                view = self._compute(state)
            except Exception:  # the child could not even start: the table goes on without
                self.stats.failed += 1
                log.exception("answers: could not compute a pending answer")
                view = None
            finally:
                with self._cond:
                    self._busy = None
            if view is not None:
                self.stats.answered += 1
                try:
                    self._done(state, view)
                except Exception:
                    log.exception("answers: telling the outputs failed")

    def _compute(self, state: TableState) -> TableView | None:
        """``state``'s whole view from the child; None when it was cancelled or failed."""
        try:
            conn = self._child_conn()
            conn.send(state)
            view: TableView = conn.recv()
            return view
        except (EOFError, OSError, ValueError) as e:  # killed (cancelled or stopping), or died
            process = self._process
            self._process, self._conn = None, None
            with self._cond:
                cancelled = self._cancelled or self._stopping
                self._cancelled = False
            if cancelled:
                self.stats.cancelled += 1
            else:
                self.stats.failed += 1
                log.error("answers: the answers' process ended (%s); the next state starts one", e)
            if process is not None:
                with contextlib.suppress(Exception):
                    process.join(1.0)
            return None

    def _child_conn(self) -> Connection:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        ours, theirs = multiprocessing.Pipe()
        process = start(
            PRELOAD,
            lambda ctx: ctx.Process(target=_child, args=(theirs,), name="answers", daemon=True),
        )
        theirs.close()
        self._conn, self._process = ours, process
        return ours

    @staticmethod
    def _kill(process: multiprocessing.process.BaseProcess) -> None:
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
