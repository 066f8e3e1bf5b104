"""``rhuna-table history``: the journal narrated, the last N entries, and new ones as they come.

The journal is read-only here and a WAL reader never blocks the service, so
``history --follow`` can run beside ``rhuna-table run`` on the same state
directory: it polls for rows after the last one it printed, replays them from
the state it has, and prints them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from companion.record.journal import CURRENT, Journal, JournalError, open_journal
from companion.record.narrate import Line, Narrator
from engine.state import TableState
from settings.plain import shown

#: seconds between two looks at the journal with --follow
POLL = 0.5


def _show(lines: Iterable[Line], out: TextIO, as_json: bool) -> None:
    for line in lines:
        if as_json:
            out.write(json.dumps(line.to_json(), ensure_ascii=False) + "\n")
        else:
            out.write(shown(line.text()) + "\n")  # an ESC of an old journal never runs
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
    rows. ``stop`` set (the CLI sets it on Ctrl-C) ends either at the next row or poll.
    Returns how many rows were printed."""
    top = journal.last_seq()
    show_after = 0 if last is None else max(0, top - last)
    state: TableState = journal.initial_state(table)
    seq = 0
    printed = 0
    narrate = Narrator()  # what each Undo takes back, from every row (--last shows fewer)
    stop = stop or threading.Event()
    for step in journal.steps(state, 0, show_after=-1):
        if stop.is_set():  # Ctrl-C in a long night's history
            return printed
        state, seq = step.after, step.entry.seq
        if seq > show_after:
            _show([narrate(step)], out, as_json)
            printed += 1
    current = journal.session_id == CURRENT
    seen = _inode(journal.path)
    opened: Journal | None = None
    try:
        while follow and not stop.wait(poll):
            moved = current and _inode(journal.path) not in (None, seen)
            for step in journal.steps(state, seq):  # what it got before it was archived too
                state, seq = step.after, step.entry.seq
                _show([narrate(step)], out, as_json)
                printed += 1
            if moved:  # `run --new-session` archived it: follow the new session
                fresh = _reopen(journal.path, table)
                if fresh is None:
                    continue  # still being created: look again next time
                if opened is not None:
                    opened.close()
                journal = opened = fresh[0]
                seen, state, seq = _inode(journal.path), fresh[1], 0
                narrate = Narrator()
                if not as_json:
                    out.write(f"--- a new session begins ({journal.path}) ---\n")
    finally:
        if opened is not None:
            opened.close()
    return printed


def _reopen(path: Path, table: str | Path | None) -> tuple[Journal, TableState] | None:
    try:
        journal = open_journal(path)
    except JournalError:
        return None
    try:
        return journal, journal.initial_state(table)
    except JournalError:
        journal.close()
        return None


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None
