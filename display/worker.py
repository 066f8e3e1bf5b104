"""The display worker: shows the newest state, never falls behind, never blocks the table loop.

E-ink takes seconds to refresh while tokens land on the Draw Board every
second or two. A queue of frames would show totals long gone; so the worker
keeps a single slot. ``submit()`` overwrites it (O(1), never waits for the
panel); the worker thread takes whatever is in the slot when the panel is
free, renders it, and refreshes — partially where the panel can, fully every
``full_every`` partial updates against ghosting, and not at all when the
picture did not change. Twenty submits during one 2-second refresh cost one
more refresh, showing the twentieth.

Each refresh has a deadline (:meth:`DisplayWorker.refresh_deadline`): a few times
the panel's own refresh time, never less than ``deadline_floor``. A refresh past
it (a Waveshare BUSY that never clears: ``epd7in5_V2.ReadBusy`` loops with no
timeout; a loose ribbon) marks the panel not responding: ``not_responding`` says
so in words, ``stats.overdue`` counts it and ``on_health(text)`` is told at once,
from a timer, since the worker's thread is the one stuck; ``on_health(None)`` when
the refresh returns after all. The table never waits for any of it (issue 43,
item 5).

Like a Zigbee2MQTT extension it is started and stopped on its own, and it is
given its render callable, so the service decides what a "state" is:

>>> from display.drivers.png import PngPanel
>>> from display.render import Frame, Renderer
>>> import tempfile
>>> worker = DisplayWorker(PngPanel(tempfile.mkdtemp(), "2.13"), Renderer("2.13"))
>>> worker.start()
>>> worker.submit(Frame({"heroes": {}}))
>>> worker.wait_idle(5)
True
>>> worker.stop()
>>> worker.stats.refreshes
1
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PIL import Image

from display.drivers.base import Panel
from settings.latest import LatestWins

log = logging.getLogger("rhuna.display")

#: a refresh's deadline: this many times the panel's refresh time ...
DEADLINE_FACTOR = 3.0
#: ... and never less than this many seconds (a panel whose spec says 0 s)
DEADLINE_FLOOR = 10.0

T = TypeVar("T")


@dataclass(slots=True)
class WorkerStats:
    """Counters for logs, MQTT diagnostics and tests."""

    submitted: int = 0
    rendered: int = 0
    refreshes: int = 0
    full: int = 0
    partial: int = 0
    #: renders whose picture equalled what the panel already shows
    unchanged: int = 0
    #: render or panel failures, of any exception type incl. SystemExit (logged; it carries on)
    errors: int = 0
    last_error: str | None = None
    #: seconds each refresh took, newest last (bounded)
    refresh_seconds: list[float] = field(default_factory=list)
    #: refreshes that ran past their deadline (the panel not responding)
    overdue: int = 0


class DisplayWorker(Generic[T]):
    """Coalescing e-ink updater: ``start()``, ``submit(state)`` as often as you like, ``stop()``.

    Its slot, thread and settle are a :class:`settings.latest.LatestWins`; the pacing after a
    refresh waits on ``_wake``, which only a stop cuts short (never a newer state)."""

    def __init__(
        self,
        panel: Panel,
        render: Callable[[T], Image.Image],
        *,
        full_every: int = 5,
        name: str = "display",
        clock: Callable[[], float] = time.monotonic,
        settle: float = 0.0,
        deadline_floor: float = DEADLINE_FLOOR,
        on_health: Callable[[str | None], object] | None = None,
    ) -> None:
        if full_every < 0:
            raise ValueError("full_every must be 0 (always full) or more")
        #: seconds a refresh may take at the least before the panel is not responding
        self.deadline_floor = deadline_floor
        #: told the problem in words when a refresh passes its deadline, None when it is over
        self.on_health = on_health
        #: why the panel is not responding now, in words (None: it is)
        self.not_responding: str | None = None
        self.panel = panel
        self.render = render
        self.full_every = full_every
        self.name = name
        #: seconds without a new submit before rendering (at most 10 × this after the first):
        #: a burst of outcomes is one render, and the render's CPU comes after the burst's
        #: MQTT messages, not in their way. E-ink takes seconds anyway; 0: render at once.
        self.settle = settle
        self.stats = WorkerStats()
        self._clock = clock
        self._lock = threading.Lock()  # the submit counter, shared by the submitters
        # the single slot, its thread and the settle: the newest state wins
        self._work: LatestWins[T] = LatestWins(
            self._update,
            name=f"{name}-worker",
            on_error=self._update_failed,
            settle=lambda: self.settle,
            settle_cap=10,
            clock=clock,
        )
        self._shown: tuple[str, tuple[int, int], bytes, bytes] | None = None
        self._partials = 0
        self._wake = threading.Event()  # cuts the pacing pause short when stopping

    # --- the table loop's side ---------------------------------------------

    def submit(self, item: T) -> None:
        """Make ``item`` the next thing to show, replacing anything not yet shown. Never blocks
        on the panel."""
        self._work.submit(item)
        with self._lock:
            self.stats.submitted += 1

    def start(self) -> None:
        if self._work.running:
            return
        self._wake.clear()
        self._work.start()

    def stop(self, *, flush: bool = True, timeout: float | None = 30.0) -> None:
        """Stop the thread; with ``flush`` the newest pending state is shown first."""
        self._work.request_stop(flush=flush)
        self._wake.set()
        self._work.join(timeout)
        self.panel.close()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until everything submitted has been handled; False on timeout."""
        return self._work.wait_idle(timeout)

    @property
    def running(self) -> bool:
        return self._work.running

    @property
    def _thread(self) -> threading.Thread | None:
        """The worker's thread (display.process's worker joins it once its child is gone)."""
        return self._work.thread

    # --- the worker thread ---------------------------------------------------

    def _update_failed(self, item: object, e: BaseException) -> None:
        """What ``_update`` itself raised (even SystemExit from a vendor library)."""
        self._shown = None
        self._failed("update", e)

    def _update(self, item: Any) -> None:
        try:
            image = self.render(item)
        except BaseException as e:  # a bad state must not kill the display
            self._failed("render", e)
            return
        self.stats.rendered += 1
        key = (image.mode, image.size, bytes(image.getpalette() or []), image.tobytes())
        if key == self._shown:
            self.stats.unchanged += 1
            return
        partial = (
            self.panel.supports_partial
            and self._shown is not None
            and self._partials < self.full_every
        )
        started = self._clock()
        try:
            with self._deadline(partial):
                self.panel.show(image, partial=partial)
        except BaseException as e:  # gpiodevice raises SystemExit
            self._shown = None  # whatever is on the glass now, start again with a full refresh
            self._failed("panel", e)
            return
        took = self._clock() - started
        self._shown = key
        self._partials = self._partials + 1 if partial else 0
        s = self.stats
        s.refreshes += 1
        s.partial += int(partial)
        s.full += int(not partial)
        s.refresh_seconds = [*s.refresh_seconds[-49:], took]
        # honour the panel's refresh time even if its driver returned early
        pause = self.panel.refresh_time(partial) - took
        if pause > 0 and not self._work.stopping:
            self._wake.wait(pause)

    def refresh_deadline(self, partial: bool) -> float:
        """Seconds a refresh may take before the panel is said not to respond."""
        return max(self.deadline_floor, DEADLINE_FACTOR * self.panel.refresh_time(partial))

    @contextlib.contextmanager
    def _deadline(self, partial: bool) -> Iterator[None]:
        """Around one refresh: a timer that marks the panel not responding when it passes
        its deadline, and the mark cleared when the refresh returns (or raises) after all."""
        deadline = self.refresh_deadline(partial)
        kind = "partial" if partial else "full"
        timer = threading.Timer(deadline, self._overdue, args=(kind, deadline))
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            if self.not_responding is not None:
                self.not_responding = None
                log.warning("display: the panel responds again")
                self._tell_health(None)

    def _overdue(self, kind: str, deadline: float) -> None:
        self.stats.overdue += 1
        self.not_responding = (
            f"panel not responding: a {kind} refresh has taken over {deadline:g} s;"
            " check its ribbon cable and HAT"
        )
        # a warning, not an error: the table plays on and the status line and doctor say it;
        # a panel child starved of CPU on a loaded machine is overdue too, and no bug
        log.warning("display: %s", self.not_responding)
        self._tell_health(self.not_responding)

    def _tell_health(self, problem: str | None) -> None:
        if self.on_health is None:
            return
        try:
            self.on_health(problem)
        except Exception:
            log.exception("display: on_health failed")

    def _failed(self, what: str, error: BaseException) -> None:
        self.stats.errors += 1
        self.stats.last_error = f"{what}: {type(error).__name__}: {error}"
        log.error("display %s failed: %s", what, self.stats.last_error)
