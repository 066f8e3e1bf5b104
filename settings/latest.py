"""One worker thread that computes only the newest thing it was asked for: latest wins.

Several parts of the service compute something on a thread of its own for whatever is newest
(the state's payload ahead of its commit, the likely next draws, the pending answers, a
snapshot, the panel's frame) and have no use for an older request once a newer one came.
:class:`LatestWins` is that idiom once: a slot that holds only the newest item, a
:class:`threading.Condition`, and a daemon thread that calls a given function with the newest
item, one call at a time; an item replaced before its call began is skipped and counted.

>>> seen = []
>>> worker = LatestWins(seen.append, name="example")
>>> worker.submit(1), worker.submit(2)  # not started yet: 2 replaces 1
(True, True)
>>> worker.start()
>>> worker.wait_idle(5)
True
>>> worker.stop()
True
>>> seen, worker.stats.skipped
([2], 1)

What it promises:

- ``submit`` and ``offer`` never wait for the function; they may be called from any thread.
- The function is called on the worker's thread only, with one item at a time, and only ever
  with the newest item submitted when the call begins.
- An exception from the function (any, ``SystemExit`` included: a vendor library's exit must
  not end the worker) is counted and told to ``on_error``; the thread goes on.
- ``stop`` wakes the thread and joins it; with ``flush`` the item still waiting is computed
  first, without it that item is dropped. Either way the call in progress is told it is
  superseded (:meth:`LatestWins.superseded`) and should end soon; none is interrupted.
- A function that can end early asks :meth:`LatestWins.superseded` (cheap) between steps, or
  waits on it to pace itself (it wakes as soon as a newer item, a cancel or a stop comes).

It sits in ``settings`` (the floor below every room, which imports nothing of ours) because
``display`` and every room of ``companion`` use it; it needs only the standard library.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

__all__ = ["LatestStats", "LatestWins"]

T = TypeVar("T")

log = logging.getLogger("rhuna.latest")


@dataclass(slots=True)
class LatestStats:
    """What a :class:`LatestWins` did (diagnostics, tests)."""

    #: items accepted by ``submit`` (and ``offer``)
    submitted: int = 0
    #: calls of the function that ended (returned or raised)
    done: int = 0
    #: items never begun: replaced by a newer one, or dropped by ``cancel`` or ``stop``
    skipped: int = 0
    #: calls that raised (each told to ``on_error``)
    errors: int = 0


class LatestWins(Generic[T]):
    """A daemon thread that calls ``fn(item)`` with the newest item submitted, skipping older.

    ``name`` names the thread. ``on_error(item, error)`` is told what a call raised (on the
    worker's thread; by default it is logged). ``initializer()`` runs first on the thread (a
    signal mask, say). ``settle()``, when given, is how many seconds the newest item must have
    stayed the newest before its call begins (a burst of submits is one call, for its last
    item), but never more than ``settle_cap`` times that after the thread began to wait;
    ``clock`` is the monotonic clock those seconds are read on. With ``autostart`` the thread
    starts with the first item submitted rather than by :meth:`start`.
    """

    __slots__ = (
        "_autostart",
        "_began",
        "_busy",
        "_clock",
        "_cond",
        "_current",
        "_flush",
        "_fn",
        "_gen",
        "_has_pending",
        "_initializer",
        "_last_submit",
        "_on_error",
        "_pending",
        "_settle",
        "_settle_cap",
        "_stopping",
        "_thread",
        "name",
        "stats",
    )

    def __init__(
        self,
        fn: Callable[[T], object],
        *,
        name: str,
        on_error: Callable[[T, BaseException], object] | None = None,
        initializer: Callable[[], object] | None = None,
        settle: Callable[[], float] | None = None,
        settle_cap: float = math.inf,
        clock: Callable[[], float] = time.monotonic,
        autostart: bool = False,
    ) -> None:
        self._fn = fn
        #: the worker thread's name
        self.name = name
        self._on_error = on_error
        self._initializer = initializer
        self._settle = settle
        self._settle_cap = settle_cap
        self._clock = clock
        self._autostart = autostart
        self._cond = threading.Condition()
        self._pending: T | None = None  # the newest item, not begun (when _has_pending)
        self._has_pending = False  # an item may be None: the slot's fullness is its own flag
        self._current: T | None = None  # the item of the call in progress (when _busy)
        self._busy = False
        # bumped by each submit, cancel and stop: the call in progress is superseded once the
        # generation differs from the one it began in
        self._gen = 0
        self._began = 0
        self._last_submit = clock()
        self._stopping = False
        self._flush = False
        self._thread: threading.Thread | None = None
        self.stats = LatestStats()

    # --- any thread ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread (idempotent; again after :meth:`stop`)."""
        with self._cond:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stopping = False
            self._start()

    def submit(self, item: T) -> bool:
        """Make ``item`` the next to compute, replacing (and skipping) any not yet begun, and
        tell a call in progress that it is superseded. Never waits; False (and nothing done)
        once stopping."""
        with self._cond:
            if self._stopping:
                return False
            if self._has_pending:
                self.stats.skipped += 1
            self._pending, self._has_pending = item, True
            self._gen += 1
            self._last_submit = self._clock()
            self.stats.submitted += 1
            self._cond.notify_all()
            if self._autostart and self._thread is None:
                self._start()
            return True

    def offer(self, item: T) -> bool:
        """:meth:`submit` ``item`` unless it (the very object) is already the newest: waiting,
        or being computed and not superseded. True if submitted."""
        with self._cond:
            if self._latest() is item:
                return False
            return self.submit(item)  # the condition's lock is reentrant

    def cancel(self, keep: object = None) -> bool:
        """Drop the item waiting and supersede the call in progress, each unless it is
        ``keep`` (by identity). Never waits. True if a call in progress was not ``keep``
        (the caller may end it faster, a child process killed)."""
        with self._cond:
            if self._has_pending and self._pending is not keep:
                self._pending, self._has_pending = None, False
                self.stats.skipped += 1
                self._cond.notify_all()
            if self._busy and self._current is not keep:
                self._gen += 1
                self._cond.notify_all()
                return True
            return False

    def request_stop(self, *, flush: bool = False) -> None:
        """Tell the thread to end without waiting for it: with ``flush`` after computing the
        item still waiting, else that item is dropped. Submits are refused from now on."""
        with self._cond:
            self._stopping, self._flush = True, flush
            if not flush and self._has_pending:
                self._pending, self._has_pending = None, False
                self.stats.skipped += 1
            self._gen += 1
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the thread to end; True if it has (or none ran).
        A thread still running is kept (a later ``join`` waits for it again)."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        if thread.is_alive():
            return False
        with self._cond:
            if self._thread is thread:
                self._thread = None
        return True

    def stop(self, *, flush: bool = False, timeout: float | None = None) -> bool:
        """:meth:`request_stop`, then :meth:`join`: True once the thread has ended."""
        self.request_stop(flush=flush)
        return self.join(timeout)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing waits and no call is in progress; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._has_pending and not self._busy, timeout)

    def wait_past(self, item: T, timeout: float | None = None) -> bool:
        """Wait until ``item`` (by identity) is neither waiting nor being computed: its call
        ended, or it was skipped; False on timeout."""
        with self._cond:
            return self._cond.wait_for(
                lambda: (
                    not (self._has_pending and self._pending is item)
                    and not (self._busy and self._current is item)
                ),
                timeout,
            )

    @property
    def latest(self) -> T | None:
        """The newest item still wanted: the one waiting, else the one being computed unless
        superseded; None when there is none."""
        with self._cond:
            return self._latest()

    @property
    def current(self) -> T | None:
        """The item whose call is in progress (superseded or not); None when idle."""
        with self._cond:
            return self._current if self._busy else None

    @property
    def stopping(self) -> bool:
        """:meth:`stop` (or :meth:`request_stop`) was called since the last :meth:`start`."""
        return self._stopping

    @property
    def thread(self) -> threading.Thread | None:
        """The worker's thread: None before the first start, and once a stop has joined it."""
        return self._thread

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    # --- the function, on the worker's thread ----------------------------------------------

    def superseded(self, timeout: float = 0.0) -> bool:
        """For the function, about its own call: True once a newer item was submitted, or
        :meth:`cancel` or :meth:`stop` called, since the call began. With ``timeout`` it
        waits up to that long for that to happen (a pause that a newer item cuts short)."""
        if timeout <= 0:
            return self._gen != self._began  # two ints: a hint, read without the lock
        with self._cond:
            return self._cond.wait_for(lambda: self._gen != self._began, timeout)

    # --- inside ---------------------------------------------------------------------------

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def _latest(self) -> T | None:
        if self._has_pending:
            return self._pending
        if self._busy and self._gen == self._began:
            return self._current
        return None

    def _run(self) -> None:
        if self._initializer is not None:
            try:
                self._initializer()
            except Exception:
                log.exception("%s: its thread's initializer failed; it runs without", self.name)
        while True:
            with self._cond:
                if not self._take():
                    self._cond.notify_all()
                    return
                item = cast(T, self._current)
            try:
                self._fn(item)
            except BaseException as e:  # SystemExit too: nothing a call raises ends the worker
                self.stats.errors += 1
                self._report(item, e)
            finally:
                with self._cond:
                    self._current, self._busy = None, False
                    self.stats.done += 1
                    self._cond.notify_all()

    def _take(self) -> bool:
        """Under the lock: wait for an item (and its settle), take it; False: end the thread."""
        while True:
            self._cond.wait_for(lambda: self._has_pending or self._stopping)
            if self._settle is not None and not self._stopping:
                self._settle_down(self._settle())
            if self._stopping and not (self._flush and self._has_pending):
                return False
            if not self._has_pending:
                continue  # cancelled while it settled
            self._current, self._busy = self._pending, True
            self._pending, self._has_pending = None, False
            self._began = self._gen
            return True

    def _settle_down(self, seconds: float) -> None:
        """Under the lock: wait until no submit came for ``seconds`` (at most ``settle_cap``
        times that), or the item was cancelled, or the worker stops."""
        if seconds <= 0:
            return
        cap = self._clock() + self._settle_cap * seconds
        while self._has_pending and not self._stopping:
            left = min(self._last_submit + seconds, cap) - self._clock()
            if left <= 0:
                return
            self._cond.wait(left)

    def _report(self, item: T, error: BaseException) -> None:
        if self._on_error is None:
            log.error("%s: failed on an item", self.name, exc_info=error)
            return
        try:
            self._on_error(item, error)
        except Exception:
            log.exception("%s: its error handler failed", self.name)
