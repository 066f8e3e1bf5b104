"""Imported by multiprocessing's fork server only (first in :data:`display.process.PRELOAD`):
the children it forks begin with SIGINT ignored.

A terminal's Ctrl-C is SIGINT to its whole foreground process group: the service, the fork
server and every child. The service stops its children itself (the panel's last frame, the
answers' worker), so a child must not die of it — not even in the instant between its fork
and its first line. The fork server gives each child the SIGINT handling it had before its own
``SIG_IGN``, i.e. after its preloads: this module, imported there, makes that ``SIG_IGN`` too.
Anywhere else (the service, a test importing every module) importing it does nothing.

The fork server's own start has the same instant: a new interpreter that, until this module
runs, turns a Ctrl-C into a KeyboardInterrupt traceback on the terminal (seen when a Ctrl-C
came 0.1 s after a start on a loaded machine), after which the service's panel reads "unexpected
EOF". :func:`fork_server` starts it with SIGINT ignored.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import TypeVar

T = TypeVar("T", bound=BaseProcess)


def _in_the_fork_server() -> bool:
    return (
        sys.argv[:1] == ["-c"]
        and "multiprocessing.forkserver" in sys.modules
        and threading.current_thread() is threading.main_thread()
    )


def fork_server(preload: Sequence[str]) -> ForkServerContext:
    """The ``forkserver`` context, its server running. Started from the main thread (the
    service calls this as it starts), the server's interpreter begins with SIGINT ignored
    (a disposition survives the exec; the thread's mask does not), so a Ctrl-C in its first
    instant is neither a traceback nor its death; the service's own handler is back a
    moment later. From another thread it is started as it is (see :func:`start`)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(preload))
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return ctx
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, handler)
    return ctx


def start(preload: Sequence[str], make: Callable[[ForkServerContext], T]) -> T:
    """``make(ctx)``'s process, started through the fork server; a server that died (a
    Ctrl-C in the first instant of one started off the main thread) is started again once,
    for the child this asks for: the service's last frame is still drawn as it stops."""
    process = make(fork_server(preload))
    try:
        process.start()
    except (EOFError, ConnectionError):
        process = make(fork_server(preload))
        process.start()
    return process


if _in_the_fork_server():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
