"""A hand on gpiozero's MockFactory pins: turn the encoder a detent, press a button.

gpiozero's mock pins are a real backend (``gpiozero.pins.mock``), and these
helpers move them exactly as the switches would: the encoder's A and B contacts
close to ground in quadrature, a button closes to ground while held. Mock pins
call gpiozero's handlers synchronously in the calling thread and ignore
``bounce_time``, so a test sees the commands as soon as the call returns.

>>> from gpiozero import RotaryEncoder
>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> rotor = RotaryEncoder(5, 6, max_steps=0, pin_factory=factory)
>>> a, b = factory.pin(5), factory.pin(6)
>>> clockwise(a, b); clockwise(a, b); counter_clockwise(a, b)
>>> rotor.steps
1
>>> rotor.close()
"""

from __future__ import annotations

from typing import Any

from hardware.config import GpioConfig, Pin


def clockwise(a: Any, b: Any) -> None:
    """One clockwise detent (one gpiozero step): A falls, B falls, A rises, B rises."""
    a.drive_low()
    b.drive_low()
    a.drive_high()
    b.drive_high()


def counter_clockwise(a: Any, b: Any) -> None:
    """One counter-clockwise detent: the same sequence starting with B."""
    b.drive_low()
    a.drive_low()
    b.drive_high()
    a.drive_high()


def half_click(a: Any, b: Any, direction: int) -> None:
    """One detent of a half-step encoder (30-detent EC11): half a quadrature cycle.

    From rest with both contacts open, clockwise closes A then B; from rest
    with both closed, clockwise opens A then B (counter-clockwise: B first).
    """
    first, second = (a, b) if direction > 0 else (b, a)
    if a.state:  # both open (pulled up, high): close them
        first.drive_low()
        second.drive_low()
    else:
        first.drive_high()
        second.drive_high()


def press(pin: Any, pull_up: bool = True) -> None:
    """Close a button: to ground with the pull-up (the default wiring), else to 3V3."""
    if pull_up:
        pin.drive_low()
    else:
        pin.drive_high()


def release(pin: Any, pull_up: bool = True) -> None:
    if pull_up:
        pin.drive_high()
    else:
        pin.drive_low()


def click(pin: Any, pull_up: bool = True) -> None:
    """Press and release: gpiozero fires ``when_pressed`` on the press."""
    press(pin, pull_up)
    release(pin, pull_up)


class MockHand:
    """Works the controls a :class:`~hardware.config.GpioConfig` wires, on a MockFactory.

    ``hand.turn(+3)`` is three clockwise detents, ``hand.push()`` clicks the
    encoder's switch, ``hand.press("resolve")`` clicks the Resolve button.
    """

    def __init__(self, factory: Any, config: GpioConfig | None = None) -> None:
        self.factory = factory
        self.config = config or GpioConfig()

    def pin(self, pin: Pin) -> Any:
        """The mock pin behind a config pin (the same object gpiozero's device holds)."""
        return self.factory.pin(pin)

    def turn(self, detents: int) -> None:
        """Turn the encoder: positive clockwise, negative counter-clockwise."""
        a, b = self.pin(self.config.encoder_a), self.pin(self.config.encoder_b)
        if self.config.half_step:
            for _ in range(abs(detents)):
                half_click(a, b, detents)
            return
        step = clockwise if detents > 0 else counter_clockwise
        for _ in range(abs(detents)):
            step(a, b)

    def push(self) -> None:
        """Click the encoder's push switch."""
        if self.config.encoder_push is None:
            raise ValueError("this config wires no encoder push switch (encoder.push = false)")
        click(self.pin(self.config.encoder_push), self.config.pull_up)

    def press(self, button: str) -> None:
        """Click the button named in ``[gpio.buttons]``."""
        spec = self.config.buttons.get(button)
        if spec is None:
            wired = ", ".join(self.config.buttons) or "none"
            raise ValueError(f"no button {button!r} is wired (wired: {wired})")
        click(self.pin(spec.pin), self.config.pull_up)
