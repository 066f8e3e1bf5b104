"""``rhuna-table history``: the journal narrated, the last N entries, and new ones as they come.

The journal is read-only here and a WAL reader never blocks the service, so
``history --follow`` can run beside ``rhuna-table run`` on the same state
directory: it polls for rows after the last one it printed, replays them from
the state it has, and prints them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from companion.record.journal import Journal
from companion.record.narrate import Line, narrate
from engine.state import TableState

#: seconds between two looks at the journal with --follow
POLL = 0.5


def _show(lines: Iterable[Line], out: TextIO, as_json: bool) -> None:
    for line in lines:
        if as_json:
            out.write(json.dumps(line.to_json(), ensure_ascii=False) + "\n")
        else:
            out.write(line.text() + "\n")
    out.flush()


def history(
    journal: Journal,
    out: TextIO,
    *,
    table: str | Path | None = None,
    last: int | None = None,
    follow: bool = False,
    as_json: bool = False,
    stop: threading.Event | None = None,
    poll: float = POLL,
) -> int:
    """Print the narrated journal (the last ``last`` rows); with ``follow``, keep printing new
    rows until ``stop`` is set (or Ctrl-C). Returns how many rows were printed."""
    top = journal.last_seq()
    show_after = 0 if last is None else max(0, top - last)
    state: TableState = journal.initial_state(table)
    seq = 0
    printed = 0
    for step in journal.steps(state, 0, show_after=-1):
        state, seq = step.after, step.entry.seq
        if seq > show_after:
            _show([narrate(step)], out, as_json)
            printed += 1
    stop = stop or threading.Event()
    while follow and not stop.wait(poll):
        for step in journal.steps(state, seq):
            state, seq = step.after, step.entry.seq
            _show([narrate(step)], out, as_json)
            printed += 1
    return printed
