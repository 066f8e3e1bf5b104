"""One table view per state, shared by the outputs that show the same state.

The MQTT bridge computes ``table_view(state)`` for ``…/state`` in the loop's turn, and the
panel's worker needs the same view for its frame a moment later (after its settle). The
view is a pure function of an immutable state, so the second is the first again: kept
here for the last few states, matched by identity. A view handed out is shared, so it is
read only — no output changes one (the panel copies what it sends, the bridge encodes).

A view is built in the turn with the rules data's ``[answers] turn`` steps
(:func:`engine.view.answer`): an answer too big for that is ``pending`` in it, and
:class:`Views` asks the answers' worker (:mod:`companion.views.answers`) for that state. When the
whole view comes back it replaces the pending one, and the outputs that listen
(:meth:`Views.listen`: the bridge, the panel) show it if that state is still theirs.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable

from companion.views.answers import AnswerWorker, answer_for
from engine.contracts.view import TableView
from engine.state import TableState
from engine.view import table_view
from settings import trace

log = logging.getLogger("rhuna.views")

#: told, on the answers' thread, that a state's pending answers have come
Answered = Callable[[TableState], None]


def turn_view(state: TableState) -> TableView:
    """``state``'s view as a turn may build it: answers past ``[answers] turn`` steps pending."""
    return table_view(state, work=int(state.rules["answers"]["turn"]))


class Views:
    """``table_view`` with the views of the last ``size`` states kept (any thread).

    >>> from engine import load_table
    >>> from tests.harness import EXAMPLE_TABLE
    >>> views = Views()
    >>> state = load_table(EXAMPLE_TABLE)
    >>> views(state) is views(state), views.computed
    (True, 1)
    """

    __slots__ = (
        "_building",
        "_kept",
        "_listeners",
        "_lock",
        "_worker",
        "answered",
        "computed",
    )

    def __init__(self, size: int = 4) -> None:
        self._lock = threading.Lock()
        # (state, view): the state kept too, so that its id is never another's meanwhile
        self._kept: collections.deque[tuple[TableState, TableView]] = collections.deque(maxlen=size)
        #: views computed (the rest were kept ones; diagnostics, tests)
        self.computed = 0
        #: whole views that came from the answers' worker (diagnostics, tests)
        self.answered = 0
        self._worker: AnswerWorker | None = None
        self._listeners: tuple[Answered, ...] = ()
        # id(state) → (state, set once built): the views being built now, by whom it wants them
        self._building: dict[int, tuple[TableState, threading.Event]] = {}

    def __call__(self, state: TableState) -> TableView:
        while True:
            with self._lock:
                for kept, view in self._kept:
                    if kept is state:
                        return view
                building = self._building.get(id(state))
                if building is None or building[0] is not state:
                    done = threading.Event()
                    self._building[id(state)] = (state, done)
                    break
            # another thread (the publisher, the panel's worker) builds this very view now:
            # wait for it rather than build it twice on one core (issue 27: both at once
            # doubled the CPU a turn's reply queued behind, 300 ms at a quarter core)
            building[1].wait()
        try:
            t = trace.clocks() if trace.ON else None
            view = turn_view(state)  # outside the lock: only a thread wanting it waits
            if t is not None:
                trace.phase("view", t)
            with self._lock:
                self.computed += 1
                self._kept.append((state, view))
        finally:
            with self._lock:
                self._building.pop(id(state), None)
            done.set()
        self._ask(state, view)
        return view

    def keep(self, state: TableState, view: TableView) -> None:
        """Keep ``state``'s view computed elsewhere (a pondered state's: companion.table.ponder),
        so that the other outputs of its turn find it."""
        with self._lock:
            if any(kept is state for kept, _ in self._kept):
                return
            self._kept.append((state, view))
        self._ask(state, view)

    # --- answers off the turn ---------------------------------------------------------

    def start_answers(self) -> AnswerWorker:
        """Start the answers' worker (idempotent): from now on a pending view is answered."""
        with self._lock:
            if self._worker is None:
                self._worker = AnswerWorker(self._answered)
            worker = self._worker
        worker.start()
        return worker

    def stop_answers(self) -> None:
        """Stop the answers' worker (idempotent): pending views stay pending."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def listen(self, fn: Answered) -> None:
        """Tell ``fn(state)`` when ``state``'s pending answers have come (its view is whole)."""
        with self._lock:
            if fn not in self._listeners:
                self._listeners = (*self._listeners, fn)

    def unlisten(self, fn: Answered) -> None:
        with self._lock:
            self._listeners = tuple(f for f in self._listeners if f != fn)

    def _ask(self, state: TableState, view: TableView) -> None:
        """Ask the worker for ``state``'s pending answers; or, when it has none, stop the
        worker computing an older state's (only the outputs of the table's current state ask
        here; the pondered states never do)."""
        worker = self._worker
        if worker is None:
            return
        if answer_for(view):
            worker.ask(state)
        else:
            worker.moved_on(state)

    def _answered(self, state: TableState, view: TableView) -> None:
        """The worker's: ``state``'s whole view replaces its pending one; listeners told."""
        with self._lock:
            kept = [(s, v) for s, v in self._kept if s is not state]
            self._kept.clear()
            self._kept.extend(kept)
            self._kept.append((state, view))
            self.answered += 1
            listeners = self._listeners
        for fn in listeners:
            try:
                fn(state)
            except Exception:
                log.exception("views: a listener of answers failed")


#: the service's: the bridge and the panel share it
VIEWS = Views()
