"""The panel in its own process: the frame's pixels are drawn where the table's loop is not.

A frame costs a few milliseconds of Pillow and FreeType, all of it holding the
interpreter's lock. In the service's process every one of those milliseconds is
a millisecond the table's loop, paho's thread and the serial readers may wait
for the lock: a token laid during a render reached MQTT subscribers several
times later than one laid between renders. So the service's panel lives in a
child process, forked by multiprocessing's fork server (a fresh single-threaded
process that has imported Pillow and the screens once: never ``fork`` from a
process full of threads, and no interpreter start per child, which costs 0.39 s of
CPU here with the panel's modules) and scheduled below the table.
:class:`ProcessDisplayWorker` keeps the display worker's contract in the service: the
same single slot and coalescing, the same settle, the same
:class:`~display.worker.WorkerStats`, the same ``wait_idle`` and flush on ``stop``.

What crosses to the child is the frame as plain data: the view (computed in
the service, since the table state is the service's) and the banner. The child
renders, compares with what the panel shows, refreshes (partially where it can)
and answers with its counters; it draws with the service's own
:class:`~display.worker.DisplayWorker` logic, so a picture is the same in both.

A child that dies (killed, out of memory, a vendor library's ``SystemExit``) is
a display failure like any other: counted and logged, and the frame goes to a new
child (at most one a second). The table never waits for any of it.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any

from display.drivers.base import Panel
from display.forkserver_signals import start
from display.render import Frame, Renderer
from display.worker import DisplayWorker, WorkerStats

log = logging.getLogger("rhuna.display")

#: how much lower than the table the child runs (``nice``): its frames are never urgent
NICE = 10
#: seconds between two attempts to start a child after one died
RESPAWN_SECONDS = 1.0
#: seconds a stopping child has to show its last frame and power the panel down
STOP_SECONDS = 10.0

_COUNTED = ("rendered", "refreshes", "full", "partial", "unchanged", "errors")

#: what the fork server imports once for every child it forks: its children's SIGINT ignored
#: from birth (display.forkserver_signals), this module (Pillow, the screens), and whatever the
#: service's other children add (companion.views.answers). The server
#: is one per process and starts with the first child, so every user sets the whole list.
PRELOAD: list[str] = ["display.forkserver_signals", __name__]


def _child(conn: Connection, driver: str, options: Mapping[str, Any], full_every: int) -> None:
    """The child's whole life: open the panel, then one frame in, its counters out."""
    from display.drivers import open_panel

    # Ctrl-C reaches the terminal's whole process group; it is the service's to act on (it
    # stops this child, which flushes the panel): not a KeyboardInterrupt traceback here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # scheduled by the service, which forked it (_schedule)
        panel = open_panel(driver, **dict(options))
        worker: DisplayWorker[Frame] = DisplayWorker(
            panel, Renderer(panel.spec, panel.colour), full_every=full_every
        )
    except BaseException as e:  # told to the service, which counts and logs it
        conn.send(("failed", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready", None))
    try:
        while True:
            try:
                item = conn.recv()
            except (EOFError, OSError):  # the service is gone
                return
            if item is None:
                return
            worker._update(item)
            conn.send(("done", asdict(worker.stats)))
    finally:
        try:
            panel.close()
        except BaseException as e:
            log.error("display: closing the panel failed: %s", e)


def _schedule(pid: int, *, waited_for: bool) -> None:
    """The child's place beside the table. While the table runs: only when the table's own
    threads do not want the CPU, Linux's ``SCHED_IDLE`` (a frame waits out a burst of
    commands, which e-ink's seconds hide), else ``nice``. Once someone waits for its frame
    (the service's stop: the last frame, the panel powered down; a script's flip-book): as
    the service itself is scheduled, for an idle-class (or niced) process gets next to no CPU
    beside busy processes of ordinary priority (a shared CI machine's,
    ``scripts/with-cpu-hog``: 3.5 ms of CPU in 5 s here), and the stop waited out its 30 s,
    then 10 s, killed the child mid-frame and logged a display failure. Leaving the idle
    class needs CAP_SYS_NICE or RLIMIT_NICE; a service without either keeps it as it is."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, gone, or not allowed
        if waited_for:
            os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0))
            return
        try:
            os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            os.setpriority(os.PRIO_PROCESS, pid, NICE)


class _ChildPanel(Panel):
    """The service's stand-in for the panel the child drives (its size and inks, for the
    renderers and views that ask)."""

    def __init__(self, model: Panel, stop: Callable[[], None]) -> None:
        self.spec = model.spec
        self.colour = model.colour
        self._model = model
        self._stop = stop

    @property
    def supports_partial(self) -> bool:
        return self._model.supports_partial

    def refresh_time(self, partial: bool) -> float:
        return self._model.refresh_time(partial)

    def show(self, image: Any, *, partial: bool = False) -> None:
        raise NotImplementedError("the child process shows the frames")

    def close(self) -> None:
        self._stop()


class ProcessDisplayWorker(DisplayWorker[Frame]):
    """A :class:`~display.worker.DisplayWorker` whose render and refresh happen in a child.

    ``panel`` is the panel as the service opened it (which checks the config and
    fails early, with the option named); the child opens its own from ``driver`` and
    ``options``, so ``panel`` must be one that two processes may open one after the
    other (the PNG panel: a folder).
    """

    def __init__(
        self,
        panel: Panel,
        driver: str,
        options: Mapping[str, Any],
        *,
        full_every: int = 5,
        name: str = "display",
        settle: float = 0.0,
    ) -> None:
        super().__init__(
            _ChildPanel(panel, self._stop_child),
            self._no_render,
            full_every=full_every,
            name=name,
            settle=settle,
        )
        self.driver = driver
        self.options = dict(options)
        #: children started (the first, and one after each that died)
        self.children = 0
        self._conn: Connection | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._child_lock = threading.Lock()
        self._last_spawn = float("-inf")
        #: the counters of children that died, and this side's own failures
        self._base = WorkerStats()
        #: the running child's counters, as it last told them
        self._child = WorkerStats()
        #: stopping: the service waits for the child (its scheduling, _schedule)
        self._waited_for = False
        #: callers in wait_idle: they wait for the child too (a script's flip-book, tests)
        self._waiting = 0

    @staticmethod
    def _no_render(frame: Frame) -> Any:
        raise NotImplementedError("the child process renders the frames")

    def start(self) -> None:
        # the child starts with the first frame, on the worker's thread: the service's start
        # (and READY) never waits for the fork server to import Pillow
        super().start()

    def stop(self, *, flush: bool = True, timeout: float | None = 30.0) -> None:
        """As the worker's: the newest frame shown, then the child ends (and is reaped). The
        child is scheduled as an ordinary process from now on (:func:`_schedule`), and this
        returns once the worker's thread is gone: a frame the child was still drawing when
        it was stopped ends with it (said, not a failure), never after this returns."""
        with self._child_lock:
            self._waited_for = True
            process = self._process
        if process is not None and process.pid is not None:
            _schedule(process.pid, waited_for=True)
        super().stop(flush=flush, timeout=timeout)  # the thread (bounded), then the child
        thread = self._thread
        if thread is not None:
            thread.join(timeout)  # the child is gone: what the thread waited on has ended

    def wait_idle(self, timeout: float | None = None) -> bool:
        """As the worker's; meanwhile the child is scheduled as an ordinary process (someone
        waits for its frame: a script's flip-book, a test), and below the table again after."""
        with self._child_lock:
            self._waiting += 1
            process = self._process
        if process is not None and process.pid is not None:
            _schedule(process.pid, waited_for=True)
        try:
            return super().wait_idle(timeout)
        finally:
            with self._child_lock:
                self._waiting -= 1
                process = self._process
                lower = self._waiting == 0 and not self._waited_for
                if lower and process is not None and process.pid is not None:
                    _schedule(process.pid, waited_for=False)

    @property
    def pid(self) -> int | None:
        """The child's process id (None: none running)."""
        p = self._process
        return p.pid if p is not None and p.is_alive() else None

    def _spawn(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._last_spawn = time.monotonic()
        ours, theirs = multiprocessing.Pipe()
        process = start(
            PRELOAD,
            lambda ctx: ctx.Process(
                target=_child,
                args=(theirs, self.driver, self.options, self.full_every),
                name=f"{self.name}-panel",
                daemon=True,
            ),
        )
        theirs.close()
        self._conn, self._process = ours, process
        self.children += 1
        if process.pid is not None:  # under the child lock, as stop's and wait_idle's
            _schedule(process.pid, waited_for=self._waited_for or self._waiting > 0)

    def _update(self, item: Any) -> None:
        frame = Frame(dict(item.view), item.banner)  # the view is computed here, sent as data
        conn = self._ready_child()
        if conn is None:
            return  # stopping
        try:
            with self._deadline(False):  # a child stuck in its refresh: the panel not responding
                conn.send(frame)
                while True:
                    kind, data = conn.recv()
                    if kind == "done":
                        self._merge(data)
                        return
                    if kind == "failed":
                        raise RuntimeError(f"the panel could not be opened: {data}")
                    # "ready": the child has opened its panel; the frame's answer follows
        except (EOFError, OSError, RuntimeError) as e:
            self._child_died(e)

    def _ready_child(self) -> Connection | None:
        """The running child's end of the pipe; a dead child is counted and replaced (at most
        one a second: the frame waits). None if the worker is stopping meanwhile."""
        with self._child_lock:
            process = self._process
        if process is not None and not process.is_alive():
            self._child_died(RuntimeError(f"exit code {process.exitcode}"))
        with self._child_lock:
            if self._conn is not None:
                return self._conn
        wait = self._last_spawn + RESPAWN_SECONDS - time.monotonic()
        if wait > 0 and self._wake.wait(wait):
            return None
        with self._child_lock:
            self._spawn()
            return self._conn

    def _merge(self, counters: Mapping[str, Any]) -> None:
        """The child's counters, on top of those of children before it."""
        if counters.get("last_error") and counters["last_error"] != self._child.last_error:
            self.stats.last_error = counters["last_error"]
        self._child = WorkerStats(**counters)
        self._sum()
        self.stats.refresh_seconds = list(self._child.refresh_seconds)[-50:]

    def _sum(self) -> None:
        for key in _COUNTED:
            setattr(self.stats, key, getattr(self._base, key) + getattr(self._child, key))

    def _failed(self, what: str, error: BaseException) -> None:
        self._base.errors += 1
        super()._failed(what, error)

    def _child_died(self, error: BaseException) -> None:
        with self._child_lock:
            process, self._process, self._conn = self._process, None, None
            stopped = process is None and self._waited_for  # _stop_child took it
        if stopped:
            log.warning("display: the panel's process was stopped before its frame (%s)", error)
            return
        if process is not None:
            process.join(1.0)
            if process.is_alive():
                process.kill()
        for key in _COUNTED:  # what the dead child did stays counted
            setattr(self._base, key, getattr(self._base, key) + getattr(self._child, key))
        self._child = WorkerStats()
        self._failed("panel", RuntimeError(f"the panel's process ended ({error})"))

    def _stop_child(self) -> None:
        with self._child_lock:
            conn, process = self._conn, self._process
            self._conn = self._process = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send(None)
        if process is not None:
            process.join(STOP_SECONDS)
            if process.is_alive():
                log.warning("display: the panel's process did not stop; killed")
                process.kill()
                process.join(STOP_SECONDS)  # reaped: SIGKILL ends even a stopped process
        if conn is not None:
            conn.close()
