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
import signal
import threading
from collections.abc import Iterator
from types import FrameType

#: the exit status after Ctrl-C (128 + SIGINT), the same for every rhuna-table command
INTERRUPTED = 128 + signal.SIGINT


@contextlib.contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[list[int]]:
    """While inside: SIGINT and SIGTERM set ``stop`` and are appended to the list yielded.
    Only the main thread can catch signals; elsewhere nothing is installed."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        got.append(signum)
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield got
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def exit_status(got: list[int]) -> int:
    """130 when Ctrl-C stopped it, else 0 (SIGTERM, or it finished)."""
    return INTERRUPTED if got and got[0] == signal.SIGINT else 0
