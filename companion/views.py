"""One table view per state, shared by the outputs that show the same state.

The MQTT bridge computes ``table_view(state)`` for ``…/state`` in the loop's turn, and the
panel's worker needs the same view for its frame a moment later (after its settle). The
view is a pure function of an immutable state, so the second is the first again: kept
here for the last few states, matched by identity. A view handed out is shared, so it is
read only — no output changes one (the panel copies what it sends, the bridge encodes).
"""

from __future__ import annotations

import collections
import threading

from engine.contracts.view import TableView
from engine.state import TableState
from engine.view import table_view


class Views:
    """``table_view`` with the views of the last ``size`` states kept (any thread).

    >>> from engine import load_table
    >>> from tests.harness import EXAMPLE_TABLE
    >>> views = Views()
    >>> state = load_table(EXAMPLE_TABLE)
    >>> views(state) is views(state), views.computed
    (True, 1)
    """

    def __init__(self, size: int = 4) -> None:
        self._lock = threading.Lock()
        # (state, view): the state kept too, so that its id is never another's meanwhile
        self._kept: collections.deque[tuple[TableState, TableView]] = collections.deque(maxlen=size)
        #: views computed (the rest were kept ones; diagnostics, tests)
        self.computed = 0

    def __call__(self, state: TableState) -> TableView:
        with self._lock:
            for kept, view in self._kept:
                if kept is state:
                    return view
        view = table_view(state)  # outside the lock: another thread never waits for it
        with self._lock:
            self.computed += 1
            self._kept.append((state, view))
        return view

    def keep(self, state: TableState, view: TableView) -> None:
        """Keep ``state``'s view computed elsewhere (a pondered state's: companion.ponder),
        so that the other outputs of its turn find it."""
        with self._lock:
            if all(kept is not state for kept, _ in self._kept):
                self._kept.append((state, view))


#: the service's: the bridge and the panel share it
VIEWS = Views()
