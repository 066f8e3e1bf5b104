"""A whole table with no hardware: emulated token hub on a real pty, mock GPIO, the PNG panel.

The same parts the service runs on a Pi, with the emulators standing in for the
devices (gpiozero-style: the emulator is a backend, not a test hack). The demo
and the end-to-end tests drive it: lay a token on an emulated reader, and it
travels serial frames → TagEvent → tag registry → command → engine → panel; turn
the wheel's encoder on gpiozero's MockFactory pins, and the Performance Wheel
declares through the same loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.loop import Outcome, TableLoop
from companion.panel_output import PanelOutput, dial_banner
from display.drivers.png import PngPanel
from display.render import Frame, Renderer
from display.worker import DisplayWorker
from engine.state import TableState
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.hub import HubReader
from hardware.config import GpioConfig
from hardware.controls import TableControls
from hardware.mock import MockHand
from hardware.registry import TagRegistry

__all__ = [
    "PanelOutput",
    "SimulatedTable",
    "dial_banner",
]  # the panel subscriber moved to panel_output


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
        self.output = PanelOutput(self.worker)
        self.loop.subscribe("panel", self.output)
        self.laid: dict[int, str] = {}
        from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

        self.gpio = GpioConfig()
        self._pins = MockFactory()
        self._wheel_sent: list[Mapping[str, Any]] = []
        self.controls = TableControls(
            self._from_wheel,
            lambda: self.loop.state,
            self.gpio,
            pin_factory=self._pins,
            on_change=self.output.dial,
        )
        self.hand = MockHand(self._pins, self.gpio)

    def __enter__(self) -> SimulatedTable:
        self.hub.start()
        self.reader.start()
        if not self.reader.wait_online(5):
            self.__exit__()
            raise RuntimeError("the emulated token hub did not come online")
        self.worker.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.controls.close()
        self._pins.close()
        self.worker.stop(flush=True)
        self.reader.stop()
        self.hub.stop()

    # --- the players' hands -----------------------------------------------------

    def command(self, cmd: dict[str, Any], source: str = "worldkeeper") -> Outcome:
        """A command from the WorldKeeper's phone, MQTT or the CLI."""
        self.loop.submit(cmd, source)
        return self._next(lambda o: o.command is cmd or o.source == source)

    def _from_wheel(self, command: Mapping[str, Any], source: str = "wheel") -> None:
        self._wheel_sent.append(command)
        self.loop.submit(command, source)

    def _after_wheel(self, sent_before: int) -> Outcome | None:
        if len(self._wheel_sent) == sent_before:
            return None  # that input only moved the dial
        return self._next(lambda o: o.source == "wheel")

    def dial(self, choices: Mapping[str, Any]) -> Outcome:
        """Turn the encoder to each ring's choice and push, ring after ring, until it declares
        (or begins a Performance). Rings not named keep what the wheel offers (Training: the
        sheet's)."""
        for _ in range(16):
            sel = self.controls.selection()
            ring = sel["ring"]
            if ring is None:
                raise KeyError(f"the wheel has nothing to dial ({sel['message'] or 'idle'})")
            if ring in choices:
                label = str(choices[ring])
                if label not in sel["options"]:
                    raise KeyError(
                        f"the {ring} ring has no {label} (it offers: {', '.join(sel['options'])})"
                    )
                self.hand.turn(sel["options"].index(label) - (sel["position"] or 0))
            before = len(self._wheel_sent)
            self.hand.push()
            if self.settle:
                self.worker.wait_idle(timeout=10)
            outcome = self._after_wheel(before)
            if outcome is not None:
                return outcome
            if self.controls.selection()["message"]:
                raise KeyError(f"the wheel refuses: {self.controls.selection()['message']}")
        raise KeyError("the wheel did not declare after 16 pushes")

    def button(self, name: str) -> Outcome | None:
        """Press a table button (resolve, reset, undo, redraw, exert, call_favor, time …)."""
        before = len(self._wheel_sent)
        self.hand.press(name)
        return self._after_wheel(before)

    def lay(self, channel: int, *, token: str | None = None, uid: str | None = None) -> Outcome:
        """Lay a token (or a raw tag) on a Draw Board slot; wait until the loop has seen it."""
        if channel in self.laid:
            self.lift(channel)
        tag = uid or self.registry.uid(token or "")
        if tag is None:
            raise KeyError(f"no tag for token {token}")
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
