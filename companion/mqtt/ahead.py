"""``…/state`` computed while the journal's commit waits for the disk.

A reader's turn (a token laid on the Draw Board) commits the new state, then publishes its
events and the retained ``…/state``: the view (:func:`engine.view.table_view`) and its JSON
are most of the turn's Python after the commit. The commit itself is mostly the disk's
flush, which releases the GIL. :class:`StateAhead` is asked for a state just before its
commit and computes the view and the payload on its own thread meanwhile; the turn takes
the payload once committed instead of computing it.

It pays where the disk's flush is at least as long as the view: on the slow VM of
docs/performance.md ("Latency, fourth round") tag → state p50 fell by about 0.5 ms, and
on a quicker disk it made no difference. A thread that holds the GIL when the fsync ends
makes the commit come back later (benchmarks/fsync.py), so the commit grows by part of
what the turn saves.

Nothing of a state is published before its commit: the turn takes a payload only after
the journal has the state, and only for that very state (matched by identity). A state
whose commit fails is computed and never shown.

The payload is taken only if it was encoded from the view the turn has now: a state whose
answers were pending when its payload was computed may have had them answered during the
commit (:mod:`companion.views.answers`: the answers' child is warm and quick), and its view
is whole since. A payload of the pending view then went out as the turn's ``…/state``, the
publisher took it for the whole one (same state, same view object in ``VIEWS``), and the
fight's forecast never reached the pages (two CI runs, stops 48 and 49: the overlay's
forecast empty for 60 s).
"""

from __future__ import annotations

import logging
import threading

from companion.mqtt.messages import StateEncoder
from companion.views.cache import VIEWS
from engine.contracts.view import TableView
from engine.state import TableState
from settings.latest import LatestWins

log = logging.getLogger("rhuna.mqtt")

#: how long a turn waits for the payload being computed before computing it itself (s)
TAKE_TIMEOUT = 0.05


class StateAhead:
    """One thread that computes the view and ``…/state`` of the last state asked for.

    ``ask`` and ``take`` are for the loop's turn (any thread, one turn at a time); ``ask``
    never waits. Only the newest state asked for is computed: one asked while another is
    being computed replaces any not yet begun (:class:`settings.latest.LatestWins`)."""

    def __init__(self) -> None:
        self._encoder = StateEncoder()  # this thread's own: the bridge's is the publisher's
        self._work: LatestWins[TableState] = LatestWins(self._compute, name="mqtt-state-ahead")
        self._lock = threading.Lock()  # guards _done between the thread and take
        #: (the state, the view its payload was encoded from, the payload)
        self._done: tuple[TableState, TableView | None, str | None] | None = None
        #: payloads computed, and taken by a turn (diagnostics, tests)
        self.computed = 0
        self.taken = 0
        #: payloads not taken: their view was answered whole meanwhile (diagnostics, tests)
        self.stale = 0

    @property
    def thread(self) -> threading.Thread | None:
        """The computing thread (None before start and once stopped)."""
        return self._work.thread

    def start(self) -> None:
        self._work.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._work.stop(timeout=timeout)

    def ask(self, state: TableState) -> None:
        """Compute ``state``'s payload now, on the thread (the state is not committed yet)."""
        self._work.submit(state)

    def take(self, state: TableState, view: TableView, timeout: float = TAKE_TIMEOUT) -> str | None:
        """``state``'s ``…/state`` payload, waiting for it if it is being computed; None if
        it was not asked for, could not be computed in time, or was encoded from another
        view than ``view`` (its answers came meanwhile): the caller computes it then."""
        self._work.wait_past(state, timeout)
        with self._lock:
            done = self._done
            if done is None or done[0] is not state:
                return None
            self._done = None  # taken once: the state is not kept alive here
            if done[1] is not view:
                self.stale += 1
                return None
            self.taken += 1
            return done[2]

    def _compute(self, state: TableState) -> None:
        view: TableView | None = None
        try:
            view = VIEWS(state)
            payload: str | None = self._encoder.encode(view, state)
        except Exception:  # the turn computes it itself, and reports what fails
            log.debug("MQTT: could not compute the state ahead", exc_info=True)
            payload = None
        with self._lock:
            self._done = (state, view, payload)
            self.computed += 1
