"""A table on gpiozero's MockFactory: the real TableLoop, the real controls, a mock hand.

Nothing of gpiozero is mocked by hand: the pins are gpiozero's own MockFactory
pins, moved by :class:`hardware.mock.MockHand` exactly as the switches would.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero.pins.mock import MockFactory

from companion.table.loop import Outcome, TableLoop
from engine.state import TableState
from hardware.config import GpioConfig
from hardware.controls import TableControls
from hardware.mock import MockHand
from tags.registry import TagRegistry

SEED = 7


class MockTable:
    """Controls wired to a TableLoop; ``sent`` is every command the controls submitted."""

    def __init__(
        self,
        state: TableState,
        config: GpioConfig | None = None,
        table: Callable[[TableLoop], Any] | None = None,
    ) -> None:
        self.loop = TableLoop(state, TagRegistry.synthetic(state.tokens))
        self.sent: list[dict[str, Any]] = []
        self.sources: list[str] = []
        self.outcomes: list[Outcome] = []
        self.factory = MockFactory()
        read = table or (lambda loop: loop.state)
        self.controls = TableControls(
            self.submit,
            lambda: read(self.loop),
            config,
            pin_factory=self.factory,
            rng=random.Random(SEED),
        )
        self.hand = MockHand(self.factory, self.controls.config)
        self._taken = 0

    def submit(self, command: Mapping[str, Any], source: str = "script") -> None:
        self.sent.append(dict(command))
        self.sources.append(source)
        self.loop.submit(command, source)

    def script(self, *commands: Mapping[str, Any]) -> None:
        """Commands from another source (MQTT, a reader), applied at once."""
        for c in commands:
            self.loop.submit(c, "script")
        self.settle()

    def settle(self, strict: bool = True) -> list[Outcome]:
        """Let the loop process everything queued (the service does this on its thread).

        ``strict``: a command from the wheel that the engine refuses fails the test."""
        done = []
        while (o := self.loop.step(timeout=0)) is not None:
            done.append(o)
        self.outcomes += done
        for o in done:
            if strict and o.source == "wheel":
                assert o.error is None, f"the engine refused {o.command}: {o.error}"
        return done

    def take(self, strict: bool = True) -> list[dict[str, Any]]:
        """Commands the controls sent since the last take (then settle the loop)."""
        new = self.sent[self._taken :]
        self._taken = len(self.sent)
        self.settle(strict)
        return new

    def ring(self) -> str | None:
        ring: str | None = self.controls.selection()["ring"]
        return ring

    def close(self) -> None:
        self.controls.close()


def random_seed(n: int = 1) -> list[int]:
    """The seeds the controls' rng hands out first (the tests' rng is Random(SEED))."""
    rng = random.Random(SEED)
    return [rng.randrange(2**31) for _ in range(n)]
