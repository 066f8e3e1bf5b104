"""gpiozero wiring: the rotary encoder, its push switch and the table buttons → the wheel.

gpiozero calls handlers from its own threads (mock pins call them synchronously,
in the thread that drives the pin). Handlers here only take the wheel's lock,
step the :class:`~hardware.wheel.Wheel` and *enqueue* the commands it returns
with ``submit(command, source="wheel")`` — :meth:`companion.table.loop.TableLoop.submit`
in the service. They never touch the table's state.

>>> from gpiozero.pins.mock import MockFactory
>>> from engine import load_table
>>> from hardware.mock import MockHand
>>> factory, sent = MockFactory(), []
>>> state = load_table("examples/table.toml")
>>> with TableControls(lambda c, source: sent.append(c), lambda: state,
...                    pin_factory=factory) as controls:
...     hand = MockHand(factory, controls.config)
...     hand.turn(+1)   # Difficulty 3 → 4
...     hand.push()
...     hand.press("time")
...     controls.selection()["ring"]
'difficulty'
>>> sent[0]
{'cmd': 'begin_performance', 'difficulty': 4, 'weight': 'off'}
>>> sent[1]["cmd"], sent[1]["resolve"]
('draw_time', True)

On a Raspberry Pi pass no ``pin_factory`` and set ``[gpio] pin_factory = "lgpio"``:
on Raspberry Pi OS bookworm and on the Pi 5, RPi.GPIO's edge detection fails,
and lgpio (Debian package ``python3-lgpio``) is the backend that works.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from gpiozero import Button, GPIOZeroError, RotaryEncoder  # type: ignore[import-untyped]

from hardware.config import ButtonConfig, GpioConfig
from hardware.encoder import HalfStepEncoder
from hardware.wheel import Selection, TableSource, Wheel
from settings.errors import ConfigError

log = logging.getLogger("rhuna.controls")

SOURCE = "wheel"


class Submit(Protocol):
    """Where commands go: ``TableLoop.submit`` (it only enqueues)."""

    def __call__(self, command: Mapping[str, Any], /, source: str = ...) -> None: ...


def make_pin_factory(name: str | None) -> Any:
    """The gpiozero pin factory ``[gpio] pin_factory`` names (None: gpiozero's own choice)."""
    if name is None:
        return None
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="gpiozero_pin_factories") if ep.name == name]
    if not found:
        raise ConfigError(
            f"gpio.pin_factory: gpiozero has no pin factory {name!r} — use lgpio on a Pi"
            " (Pi 5 / bookworm), or mock to run without pins"
        )
    try:
        return found[0].load()()
    except Exception as e:  # ImportError, or the backend cannot open /dev/gpiochip*
        raise ConfigError(
            f"gpio.pin_factory = {name!r} cannot start here ({type(e).__name__}: {e}) — on a"
            " Pi install it (apt install python3-lgpio) and run in the gpio group; off a Pi use"
            ' pin_factory = "mock"'
        ) from None


def pin_factory_problem(name: str | None) -> str | None:
    """Why ``[gpio] pin_factory`` cannot work on this machine (for ``check-config``), or None.

    A named factory must be installed and importable; gpiozero's own choice (None) needs
    one of its pin libraries, or a GPIO chip for its native fallback. Nothing is opened.
    """
    from importlib.metadata import entry_points

    if name is None:
        libraries = ("lgpio", "RPi.GPIO", "pigpio")
        if any(_importable(lib) for lib in libraries) or Path("/dev/gpiochip0").exists():
            return None
        return (
            "gpiozero finds no pin library here (lgpio, RPi.GPIO, pigpio) and no /dev/gpiochip0"
            ' — on a Pi: apt install python3-lgpio and pin_factory = "lgpio"; off a Pi:'
            ' pin_factory = "mock", or [gpio] enabled = false'
        )
    found = [ep for ep in entry_points(group="gpiozero_pin_factories") if ep.name == name]
    if not found:
        return f"gpiozero has no pin factory {name!r} here — use lgpio on a Pi, or mock"
    try:
        found[0].load()
    except Exception as e:  # ImportError: the backend's library is missing
        return (
            f"{name!r} cannot be imported here ({type(e).__name__}: {e}) — on a Pi install it"
            f" (apt install {_APT.get(name, 'python3-' + name)}); off a Pi use"
            ' pin_factory = "mock"'
        )
    return None


#: the Debian package of each pin library
_APT = {"lgpio": "python3-lgpio", "rpigpio": "python3-rpi.gpio", "pigpio": "python3-pigpio"}


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class TableControls:
    """The encoder, its push and the buttons of ``config``, driving one :class:`Wheel`.

    ``submit`` receives every command (``source="wheel"``); ``table`` returns the
    latest TableState or ``table_view`` dict; ``on_change`` (optional) is called
    with :meth:`selection` after every input, for the panel.
    """

    def __init__(
        self,
        submit: Submit,
        table: TableSource,
        config: GpioConfig | None = None,
        *,
        pin_factory: Any = None,
        rng: random.Random | None = None,
        on_change: Callable[[Selection], None] | None = None,
    ) -> None:
        self.config = config or GpioConfig()
        self.wheel = Wheel(table, self.config, rng)
        self._submit = submit
        self._on_change = on_change
        self._lock = threading.RLock()
        self._devices: list[Any] = []
        #: inputs whose handling raised (logged, never raised into gpiozero's threads)
        self.failures = 0
        factory = (
            pin_factory if pin_factory is not None else make_pin_factory(self.config.pin_factory)
        )
        try:
            self._wire(factory)
        except BaseException:
            self.close()
            raise

    # --- wiring -------------------------------------------------------------------

    def _wire(self, factory: Any) -> None:
        cfg = self.config
        if cfg.half_step:  # 30-detent EC11s: a step at both resting positions (hardware/encoder.py)
            encoder = self._device(
                "encoder.a / encoder.b",
                lambda: HalfStepEncoder(
                    cfg.encoder_a,
                    cfg.encoder_b,
                    bounce_time=cfg.encoder_bounce_time,
                    pin_factory=factory,
                ),
            )
        else:
            encoder = self._device(
                "encoder.a / encoder.b",
                lambda: RotaryEncoder(
                    cfg.encoder_a,
                    cfg.encoder_b,
                    bounce_time=cfg.encoder_bounce_time,
                    max_steps=0,  # count without limit; the wheel keeps its own positions
                    pin_factory=factory,
                ),
            )
        encoder.when_rotated_clockwise = lambda: self._input(self.wheel.turn, 1)
        encoder.when_rotated_counter_clockwise = lambda: self._input(self.wheel.turn, -1)
        if cfg.encoder_push is not None:
            push = self._button("encoder.push", cfg.encoder_push, factory)
            push.when_pressed = lambda: self._input(self.wheel.push)
        for name, spec in cfg.buttons.items():
            button = self._button(f"buttons.{name}", spec.pin, factory)
            button.when_pressed = self._button_handler(spec)

    def _button(self, key: str, pin: int | str, factory: Any) -> Any:
        cfg = self.config
        return self._device(
            key,
            lambda: Button(
                pin, pull_up=cfg.pull_up, bounce_time=cfg.bounce_time, pin_factory=factory
            ),
        )

    def _device(self, key: str, make: Callable[[], Any]) -> Any:
        try:
            device = make()
        except GPIOZeroError as e:
            raise ConfigError(
                f"gpio.{key}: gpiozero refused the pin ({type(e).__name__}: {e}) — check the pin"
                " number and that nothing else (another service, an overlay) holds it"
            ) from None
        self._devices.append(device)
        return device

    def _button_handler(self, spec: ButtonConfig) -> Callable[[], None]:
        if spec.command is not None:
            fixed = dict(spec.command)
            return lambda: self._input(lambda: [dict(fixed)])
        action = str(spec.action)
        return lambda: self._input(self.wheel.press, action)

    # --- handlers: gpiozero's threads --------------------------------------------

    def _input(self, step: Callable[..., Sequence[Mapping[str, Any]]], *args: Any) -> None:
        """Step the wheel and enqueue what it says; never raise into gpiozero's thread."""
        try:
            with self._lock:
                commands = step(*args)
                for command in commands:
                    self._submit(command, source=SOURCE)
                selection = self.wheel.selection() if self._on_change else None
            # an input that sent a command is shown by the loop's outcome: a selection read now
            # would show the table before that command (a stale "next hero?" frame)
            if self._on_change is not None and selection is not None and not commands:
                self._on_change(selection)
        except Exception:  # a broken table callable must not kill the pin's thread
            self.failures += 1
            log.exception("wheel input failed")

    # --- for the panel, the demo and the service ----------------------------------

    def selection(self) -> Selection:
        """What the wheel shows now (see :meth:`Wheel.selection`)."""
        with self._lock:
            return self.wheel.selection()

    def close(self) -> None:
        """Release every pin (gpiozero stops its threads)."""
        # Each Button's hold thread waits on its "holding" event in 0.1 s polls, and close()
        # joins it: flag every thread to stop and wake it, so closing takes no poll at all.
        for device in self._devices:
            hold = getattr(device, "_hold_thread", None)
            for flag in ("stopping", "holding"):
                event = getattr(hold, flag, None)
                if event is not None:
                    event.set()
        for device in reversed(self._devices):
            try:
                device.close()
            except Exception:
                log.exception("closing %r failed", device)
        self._devices.clear()

    def __enter__(self) -> TableControls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
