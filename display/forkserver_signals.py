"""Imported by multiprocessing's fork server only (first in :data:`display.process.PRELOAD`):
the children it forks begin with SIGINT ignored.

A terminal's Ctrl-C is SIGINT to its whole foreground process group: the service, the fork
server and every child. The service stops its children itself (the panel's last frame, the
answers' worker), so a child must not die of it — not even in the instant between its fork
and its first line. The fork server gives each child the SIGINT handling it had before its own
``SIG_IGN``, i.e. after its preloads: this module, imported there, makes that ``SIG_IGN`` too.
Anywhere else (the service, a test importing every module) it does nothing.
"""

from __future__ import annotations

import signal
import sys
import threading


def _in_the_fork_server() -> bool:
    return (
        sys.argv[:1] == ["-c"]
        and "multiprocessing.forkserver" in sys.modules
        and threading.current_thread() is threading.main_thread()
    )


if _in_the_fork_server():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
