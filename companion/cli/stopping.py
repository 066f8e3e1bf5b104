"""Ctrl-C and SIGTERM for the commands that run until stopped (``enroll``, ``history --follow``).

They set a ``stop`` event instead of raising KeyboardInterrupt wherever the main thread happens
to be, so a command can finish what it holds (a tag it took, a line half printed) and exit
130 (Ctrl-C, as a shell reports 128 + SIGINT) or 0 (SIGTERM).

The handler is installed even when the process started with SIGINT ignored, as a script's
background job (``cmd &`` with no job control) and everything it starts does: Python then
leaves SIGINT ignored and KeyboardInterrupt never comes, so a command relying on it would
run on after Ctrl-C. A command that runs until it is stopped takes SIGINT back, as
``rhuna-table run`` and ``demo --serve`` do.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

#: the exit status after Ctrl-C (128 + SIGINT), the same for every rhuna-table command
INTERRUPTED = 128 + signal.SIGINT


@contextlib.contextmanager
def relayed(event: threading.Event) -> Iterator[Callable[[], None]]:
    """While inside: a function a signal handler calls to set ``event``, which a thread of its
    own then sets. A Python signal handler runs on the main thread between two of its
    bytecodes, wherever that thread is, and ``Event.set`` takes the event's lock: a signal
    that came while the main thread was inside ``event.wait`` holding that lock (a plain
    Lock, not reentrant) left it waiting on itself for ever. ``history --follow`` hung so
    after Ctrl-C, in one futex wait, beside a CPU hog (issue 39). The handler only writes a
    byte to a pipe (no lock); the relay thread reads it and sets the event once the main
    thread has let go of the lock."""
    r, w = os.pipe()
    os.set_blocking(w, False)

    def relay() -> None:
        while os.read(r, 64):  # b"": the write end is closed
            event.set()

    thread = threading.Thread(target=relay, name="rhuna-signal-relay", daemon=True)
    thread.start()

    def fire() -> None:
        with contextlib.suppress(BlockingIOError):  # a full pipe: it is being set already
            os.write(w, b"\0")

    try:
        yield fire
    finally:
        os.close(w)
        thread.join()
        os.close(r)


@contextlib.contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[list[int]]:
    """While inside: SIGINT and SIGTERM set ``stop`` (through :func:`relayed`, a moment later)
    and are appended to the list yielded. Only the main thread can catch signals; elsewhere
    nothing is installed."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return
    with relayed(stop) as fire:

        def handle(signum: int, frame: FrameType | None) -> None:
            got.append(signum)
            fire()

        previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield got
        finally:  # before the relay ends: no handler may write to its closed pipe
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def exit_status(got: list[int]) -> int:
    """130 when Ctrl-C stopped it, else 0 (SIGTERM, or it finished)."""
    return INTERRUPTED if got and got[0] == signal.SIGINT else 0
