"""A whole table with no hardware: the emulated token hub on a real pty, the PNG panel.

The same parts the service runs on a Pi, with the emulators standing in for the
devices (gpiozero-style: the emulator is a backend, not a test hack). The demo
and the end-to-end tests drive it: lay a token on an emulated reader, and it
travels serial frames → TagEvent → tag registry → command → engine → panel.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.loop import Outcome, TableLoop
from display.costs import CostLedger
from display.drivers.png import PngPanel
from display.render import Frame, Renderer
from display.screens.banner import Banner
from display.worker import DisplayWorker
from engine.state import TableState
from engine.view import table_view
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.hub import HubReader
from hardware.registry import TagRegistry


class PanelOutput:
    """Subscriber: every outcome → the newest Frame on the display worker (never blocks)."""

    def __init__(self, worker: DisplayWorker[Frame]) -> None:
        self.worker = worker
        self.ledger = CostLedger()
        self.banner: Banner | None = None

    def __call__(self, outcome: Outcome) -> None:
        if outcome.error is not None:
            self.banner = Banner(str(outcome.error.message), "error")
        elif outcome.command is not None:
            self.banner = None  # the next accepted command clears the banner
        self.ledger.feed(outcome.events)
        view = table_view(outcome.state)
        self.worker.submit(Frame(view, self.banner, dict(self.ledger.costs)))


class SimulatedTable:
    """Emulated hub (``channels`` Draw Board slots) + HubReader + TableLoop + PNG panel."""

    def __init__(
        self,
        state: TableState,
        out_dir: str | Path,
        *,
        panel: str = "4.2",
        colour: str = "bwr",
        channels: int = 4,
        registry: TagRegistry | None = None,
        settle: bool = False,
    ) -> None:
        """``settle``: after each step wait until the panel shows it (a frame per step, for
        the demo's flip-book; the service never waits on the panel)."""
        self.settle = settle
        self.registry = registry or TagRegistry.synthetic(state.tokens)
        self.loop = TableLoop(state, self.registry)
        self.hub = HubEmulator(channels=channels, poll_ms=5.0)
        self.reader = HubReader(self.hub.link, sink=self.loop.tag_sink, name="draw-board")
        self.panel = PngPanel(out_dir, panel, colour)
        self.worker: DisplayWorker[Frame] = DisplayWorker(self.panel, Renderer(panel, colour))
        self.loop.subscribers.append(PanelOutput(self.worker))
        self.laid: dict[int, str] = {}

    def __enter__(self) -> SimulatedTable:
        self.hub.start()
        self.reader.start()
        if not self.reader.wait_online(5):
            self.__exit__()
            raise RuntimeError("the emulated token hub did not come online")
        self.worker.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.worker.stop(flush=True)
        self.reader.stop()
        self.hub.stop()

    # --- the players' hands -----------------------------------------------------

    def command(self, cmd: dict[str, Any], source: str = "wheel") -> Outcome:
        """A command from the wheel, a button or the WorldKeeper's phone."""
        self.loop.submit(cmd, source)
        return self._next(lambda o: o.command is cmd or o.source == source)

    def lay(self, channel: int, *, token: str | None = None, uid: str | None = None) -> Outcome:
        """Lay a token (or a raw tag) on a Draw Board slot; wait until the loop has seen it."""
        if channel in self.laid:
            self.lift(channel)
        tag = uid or self.registry.uid(token or "")
        if tag is None:
            raise KeyError(f"no tag for token {token!r}")
        self.hub.lay(channel, tag)
        self.laid[channel] = tag
        return self._next(lambda o: o.tag is not None and o.tag.uid == tag and o.tag.present)

    def lift(self, channel: int) -> None:
        """Take a token off a slot and wait until the hub reports it gone."""
        tag = self.laid.pop(channel, None)
        self.hub.lift(channel)
        if tag is not None:
            self._next(lambda o: o.tag is not None and o.tag.uid == tag and not o.tag.present)

    def clear_board(self) -> None:
        for channel in list(self.laid):
            self.lift(channel)

    def _next(self, wanted: Callable[[Outcome], bool], timeout: float = 5.0) -> Outcome:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            outcome = self.loop.step(timeout=left)
            if outcome is not None and wanted(outcome):
                if self.settle:
                    self.worker.wait_idle(timeout=10)
                return outcome
        raise TimeoutError("the table did not react in time")
