"""Where a turn's time goes, for a benchmark to read: off unless ``RHUNA_TURN_TRACE`` is set.

``RHUNA_TURN_TRACE=/path/file`` (in the service's environment) appends one line per phase of
each turn to that file: the phase, the thread, its wall time and the thread's own CPU time
(``time.thread_time``) in ms, and ``time.perf_counter`` at its end (CLOCK_MONOTONIC on Linux,
the same clock as a benchmark's on this machine). Unset (the service's default) every call
here is one global read and nothing else: :data:`ON` is False and callers test it first.
"""

from __future__ import annotations

import os
import threading
import time

_PATH = os.environ.get("RHUNA_TURN_TRACE")
#: whether turns are traced (read once, at import)
ON = bool(_PATH)
_lock = threading.Lock()
_file = open(_PATH, "a", buffering=1, encoding="utf-8") if _PATH else None  # noqa: SIM115


def clocks() -> tuple[float, float]:
    """(wall, this thread's CPU) now, in seconds."""
    return time.perf_counter(), time.thread_time()


def phase(name: str, since: tuple[float, float], detail: str = "") -> tuple[float, float]:
    """Write ``name``'s line (from ``since``, a :func:`clocks`) and return :func:`clocks` now."""
    now = clocks()
    if _file is not None:
        line = (
            f"{now[0]:.6f} {threading.current_thread().name} {name}"
            f" wall={1000 * (now[0] - since[0]):.3f} cpu={1000 * (now[1] - since[1]):.3f}"
            f" {detail}\n"
        )
        with _lock:
            _file.write(line)
    return now
