"""Work for a snapshot's child other than its rows (``companion.table.snapshots.CHILD_WORK``):
to see where it runs and what it holds, or to make it fail as a child can.

The child comes from multiprocessing's fork server, a fresh interpreter: it imports the work
it is named (a module-level function, or a ``functools.partial`` of one), so a test cannot
patch the child's modules from its own process, only name one of these.

>>> import engine
>>> state = engine.load_table("examples/table.toml")
>>> refuses([state])
Traceback (most recent call last):
...
ValueError: Out of range float values are not JSON compliant
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from companion.table.snapshots import rows_here
from engine.state import TableState


def noted(notes: Path, look: str, states: list[TableState]) -> list[tuple[str, bytes]]:
    """The rows, and a line in ``notes`` for each state: the process computing it (``look``
    ``pid``) or the files that process holds open (``fds``, tab-separated)."""
    for _ in states:
        if look == "pid":
            line = str(os.getpid())
        else:
            held = []
            for fd in os.listdir("/proc/self/fd"):
                try:
                    held.append(os.readlink(f"/proc/self/fd/{fd}"))
                except OSError:
                    continue  # the listing's own descriptor, closed already
            line = "\t".join(held)
        with notes.open("a") as f:
            f.write(line + "\n")
    return rows_here(states)


def killed(states: list[TableState]) -> list[tuple[str, bytes]]:
    """The child killed mid-work (the OOM killer, a stray kill -9)."""
    os.kill(os.getpid(), signal.SIGKILL)
    return rows_here(states)  # not reached


def refuses(states: list[TableState]) -> list[tuple[str, bytes]]:
    """What the JSON encoder says of a state it cannot write."""
    raise ValueError("Out of range float values are not JSON compliant")


def stuck(states: list[TableState]) -> list[tuple[str, bytes]]:
    """A child that never answers (a lock it was born holding): nothing wakes it."""
    signal.pause()
    return rows_here(states)  # not reached
