"""The panel as a subscriber of the table loop: every outcome → the newest Frame for the worker.

Three things can put a banner on the panel, from three threads:

- an outcome with an error (the loop's thread): an unknown tag, a refused
  command, a command the journal could not save — until the next accepted
  command clears it;
- a reader whose link went down (its own thread): "Reader draw-board lost …"
  stays until it is back, then "back online" until the next accepted command;
- the Performance Wheel being dialled (gpiozero's threads): what is dialled so
  far, unless an error is showing.

A lock keeps the three consistent; nothing here waits on the panel (the
display worker keeps only the newest frame).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

from companion.table.loop import Outcome
from companion.views.cache import VIEWS
from display.render import Frame
from display.screens.banner import Banner
from display.worker import DisplayWorker
from engine.state import TableState
from firmware_bridge.events import ReaderStatus

#: reader link states that mean "tokens laid now are not seen"
DOWN = ("lost", "offline")


class PanelOutput:
    """Subscriber: every outcome → the newest Frame on the display worker (never blocks)."""

    __slots__ = (
        "_lock",
        "alerts",
        "banner",
        "readers_down",
        "view",
        "worker",
    )

    def __init__(self, worker: DisplayWorker[Frame]) -> None:
        self.worker = worker
        #: the banner of the last outcome (an error, or a reader back online); None: none
        self.banner: Banner | None = None
        self.view: Mapping[str, Any] | None = None
        #: reader name → why it is down
        self.readers_down: dict[str, str] = {}
        #: an extension's standing problem (a second service on the table id) → its text
        self.alerts: dict[str, str] = {}
        self._lock = threading.Lock()

    def __call__(self, outcome: Outcome) -> None:
        with self._lock:
            if outcome.error is not None:
                self.banner = Banner(str(outcome.error.message), "error")
            elif outcome.command is not None:
                self.banner = None  # the next accepted command clears the banner
            self.view = LazyView(outcome.state)  # computed by the display worker, if shown
            self._submit(self._banner())

    def show(self, state: TableState) -> None:
        """Show a state with no outcome behind it (the table as restored at start)."""
        with self._lock:
            self.view = LazyView(state)
            self._submit(self._banner())

    def answered(self, state: TableState) -> None:
        """``state``'s pending answers came (the answers' thread, companion.views.cache): its whole
        view replaces the pending one, if the panel still shows that state."""
        with self._lock:
            if isinstance(self.view, LazyView) and self.view.state is state:
                self.view = LazyView(state)
                self._submit(self._banner())

    def dial(self, selection: Mapping[str, Any]) -> None:
        """The wheel moved: show what is dialled so far in a banner (an error banner stays)."""
        with self._lock:
            if self.view is None or (self.banner is not None and self.banner.severity == "error"):
                return
            self._submit(dial_banner(selection) or self._banner())

    def reader_status(self, status: ReaderStatus) -> None:
        """A reader's link changed (its own thread): banner while it is down, and when back."""
        with self._lock:
            name = status.reader
            if status.state in DOWN:
                self.readers_down[name] = status.detail
            elif status.state == "online":
                was_down = self.readers_down.pop(name, None) is not None
                if was_down and (self.banner is None or self.banner.severity != "error"):
                    self.banner = Banner(f"Reader {name} back online", "info")
            else:
                return  # connecting / stopped: nothing for the table to act on
            if self.view is not None:
                self._submit(self._banner())

    def alert(self, key: str, text: str | None) -> None:
        """A standing problem (any thread): an error banner until ``alert(key, None)``."""
        with self._lock:
            if text is None:
                if self.alerts.pop(key, None) is None:
                    return
            else:
                self.alerts[key] = text
            if self.view is not None:
                self._submit(self._banner())

    def _banner(self) -> Banner | None:
        if self.banner is not None and self.banner.severity == "error":
            return self.banner
        if self.readers_down:
            return reader_banner(self.readers_down)
        if self.alerts:
            return Banner(next(iter(self.alerts.values())), "error")
        return self.banner

    def _submit(self, banner: Banner | None) -> None:
        if self.view is not None:
            self.worker.submit(Frame(self.view, banner))


class LazyView(Mapping[str, Any]):
    """``table_view(state)``, computed on first use: on the display worker's thread, for the
    newest state only (a burst's older states are never shown), never on the loop's; the
    view the MQTT bridge computed for ``…/state`` when it has one (:mod:`companion.views.cache`)."""

    __slots__ = ("_state", "_view")

    def __init__(self, state: TableState) -> None:
        self._state = state
        self._view: Mapping[str, Any] | None = None

    @property
    def state(self) -> TableState:
        return self._state

    def _get(self) -> Mapping[str, Any]:
        if self._view is None:
            self._view = VIEWS(self._state)
        return self._view

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def reader_banner(down: Mapping[str, str]) -> Banner:
    """``Reader draw-board is not answering — check the cable: is it plugged in?`` (the first,
    and how many others are down). The errno text is for the log, not the table."""
    name = next(iter(down))
    more = f" (and {len(down) - 1} more)" if len(down) > 1 else ""
    return Banner(
        f"Reader {name}{more} is not answering — check the cable: is it plugged in?", "error"
    )


def dial_banner(sel: Mapping[str, Any]) -> Banner | None:
    """``Wheel: Aria · control · skill — action?`` while dialling; the wheel's warning if any."""
    if sel.get("warning") or sel.get("message"):
        return Banner(f"Wheel: {sel.get('message') or sel.get('warning')}", "warning")
    if sel.get("mode") == "redraw" and sel.get("redraw"):
        return Banner(f"Redraw {sel['redraw']['name']}? press Redraw again", "info")
    ring = sel.get("ring")
    if sel.get("mode") != "dial" or not ring:
        return None
    rings = list(sel.get("rings") or [])
    done = [
        str(sel.get("hero_name")) if r == "hero" else _name(sel.get(r))
        for r in rings[: rings.index(ring)]
        if sel.get(r) is not None
    ]
    options = sel.get("options") or []
    at = sel.get("position")
    now = options[at] if at is not None and at < len(options) else "?"
    if ring == "hero" and sel.get("hero_name") and now == sel.get("hero"):
        now = str(sel["hero_name"])
    text = " · ".join([*done, f"{_name(ring)}: {_name(now)}?"])
    text += " · Exert" if sel.get("exert") else ""
    return Banner(f"Wheel: {text}", "info")


def _name(value: Any) -> str:
    """A wheel id as the table says it: ``control`` → ``Control``, ``arcane_lore`` → ``Arcane Lore``."""
    text = str(value)
    return text.replace("_", " ").title() if text.islower() else text
