"""The ``[gpio]`` section of the service config: which pin is which, what each button does.

Everything has a default that suits a Pi with an e-ink HAT and an RFID hub on USB,
so a table only writes what differs. A broken section raises :class:`ConfigError`
naming the file, the key and the fix — never a traceback.

>>> cfg = GpioConfig.from_toml_text('[gpio.buttons]\\nresolve = 23\\nundo = false')
>>> cfg.buttons["resolve"].pin, "undo" in cfg.buttons
(23, False)

The default pins keep clear of what a table usually wires already: I²C (2, 3),
SPI0 (7–11), the UART (14, 15, a PN532 in HSU mode), and the pins Pimoroni Inky
and Waveshare e-Paper HATs use (17, 18, 22, 24, 25, 27).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import CommandRejected
from engine.tokens import WeightMode
from engine.vocabulary import parse_command
from settings.checker import Key, Problems, Section
from settings.checker import show as _show
from settings.errors import ConfigError
from settings.textfile import read_text

#: a pin as gpiozero takes it: a BCM number, or a name like "GPIO16", "BOARD36", "J8:36"
Pin = int | str

#: what a named button does; see docs/controls.md
ACTIONS: dict[str, str] = {
    "resolve": "resolve the Performance (P19, P20)",
    "reset": "Reset: tokens back to their bags (P22)",
    "exert": "toggle Exert on the declaration being dialled (P9)",
    "call_favor": "Call Favor for the hero (P18)",
    "redraw": "pick a drawn token to Redraw (P11)",
    "undo": "back one ring; at the first ring, undo the last command",
    "time": "advance Time one step: draw (and resolve) the due Time token (T3)",
    "hero": "next hero on the wheel",
    "confirm": "confirm this ring (the same as pushing the encoder)",
}

DEFAULT_BUTTONS: dict[str, Pin] = {
    "resolve": 16,
    "reset": 26,
    "exert": 20,
    "call_favor": 21,
    "redraw": 19,
    "undo": 12,
    "time": 4,
}

PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")
#: how the Call Favor button and the Time button get their token
DRAW_MODES = ("token", "random")
TRAINING_MISMATCH = ("refuse", "warn")

_PIN_NAME = re.compile(r"^(?:(?:GPIO|BCM|WPI|BOARD)\d{1,2}|J8:\d{1,2})$", re.IGNORECASE)
_BCM_MAX = 27  # the 40-pin header's GPIO 0–27, Pi 1 B+ to Pi 5


@dataclass(frozen=True, slots=True)
class ButtonConfig:
    """One push button: its pin, and either a named action or a fixed command to submit."""

    pin: Pin
    action: str | None = None
    command: Mapping[str, Any] | None = None


def _default_buttons() -> dict[str, ButtonConfig]:
    return {name: ButtonConfig(pin, action=name) for name, pin in DEFAULT_BUTTONS.items()}


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """Pins and behaviour of the Performance Wheel (encoder + push) and the table buttons."""

    encoder_a: Pin = 5
    encoder_b: Pin = 6
    #: the encoder's own push switch; None when it has none (then a button must confirm)
    encoder_push: Pin | None = 13
    #: seconds of software debounce on the encoder's A/B pins (None: none, gpiozero's default)
    encoder_bounce_time: float | None = None
    #: encoder steps (gpiozero counts one per full quadrature cycle) per wheel position
    steps_per_choice: int = 1
    #: the encoder rests after half a quadrature cycle (30-detent EC11 parts): count both
    half_step: bool = False
    buttons: Mapping[str, ButtonConfig] = field(default_factory=_default_buttons)
    #: buttons (and the push) wired between the pin and ground, using the Pi's pull-up
    pull_up: bool = True
    #: seconds of software debounce on buttons (mock pins ignore it)
    bounce_time: float | None = 0.02
    #: gpiozero pin factory; None lets gpiozero choose (lgpio first). Pi 5 / bookworm: "lgpio"
    pin_factory: str | None = None
    #: pick the declaring hero on a ring before Shade (False: only the Hero button picks)
    hero_ring: bool = True
    #: when the Training ring disagrees with the sheet: "refuse" to declare, or "warn"
    training_mismatch: str = "refuse"
    #: Call Favor: "token" = the button arms, the Favor token laid on the board calls;
    #: "random" = the button draws from the Favor Bag at random (a table without a reader)
    call_favor: str = "token"
    #: Time: "random" = the button draws the due Time token at random and resolves it;
    #: "token" = a Time token laid on the Time reader draws; the button resolves a pending one
    time: str = "random"
    #: WEIGHT mode of a Performance begun on the wheel (I-P16)
    weight: str = "off"

    @classmethod
    def load(cls, path: str | Path, section: str = "gpio") -> GpioConfig:
        """Read ``[gpio]`` from a TOML file; a file without the section gives the defaults."""
        path = Path(path)
        try:
            text = read_text(path)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the config file ({e.strerror})") from None
        return cls.from_toml_text(text, str(path), section)

    @classmethod
    def from_toml_text(
        cls, text: str, source: str = "<config>", section: str = "gpio"
    ) -> GpioConfig:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{source}: not valid TOML: {e}") from None
        return cls.from_mapping(data.get(section, {}), source, section)

    @classmethod
    def from_mapping(cls, data: Any, source: str = "<config>", section: str = "gpio") -> GpioConfig:
        """Build from the section's parsed TOML; every error names ``source`` and the key."""
        return _Reader(source, section).config(data)


class _Reader:
    """Checks one ``[gpio]`` section key by key, naming each in its errors."""

    def __init__(self, source: str, section: str) -> None:
        self.source = source
        self.section = section

    def fail(self, key: str, problem: str, fix: str) -> ConfigError:
        return ConfigError(f"{self.source}: {self.section}.{key}: {problem} — {fix}")

    def table(self, value: Any, key: str, known: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {_show(value)}", f"write [{key}]")
        unknown = set(value) - known
        if unknown:
            bad = sorted(unknown)[0]
            where = f"{self.section}.{key}"
            keys = {k: Key("any", k) for k in sorted(known)}
            raise self.fail(f"{key}.{bad}", *Section(where, keys).unknown(bad))
        return value

    def config(self, data: Any) -> GpioConfig:
        d = GpioConfig()
        top = {
            "encoder",
            "buttons",
            "pull_up",
            "bounce_time",
            "pin_factory",
            "hero_ring",
            "training_mismatch",
            "call_favor",
            "time",
            "weight",
        }
        if not isinstance(data, dict):
            raise ConfigError(
                f"{self.source}: {self.section}: {_show(data)} is not a table — write [{self.section}]"
            )
        problems = Problems(self.source)
        listing = Section(self.section, {k: Key("any", k) for k in ("enabled", *sorted(top))})
        for bad in sorted(set(data) - top):
            problems.add(f"{self.section}.{bad}", *listing.unknown(bad))

        def each(read: Any, default: Any) -> Any:
            """One key's value, or (its problem kept) the default: every problem is listed."""
            try:
                return read()
            except ConfigError as e:
                problems.absorb(e)
                return default

        enc = each(
            lambda: self.table(
                data.get("encoder", {}),
                "encoder",
                {"a", "b", "push", "bounce_time", "steps_per_choice", "half_step"},
            ),
            {},
        )
        a = each(lambda: self.pin(enc.get("a", d.encoder_a), "encoder.a"), d.encoder_a)
        b = each(lambda: self.pin(enc.get("b", d.encoder_b), "encoder.b"), d.encoder_b)
        push = each(
            lambda: self.optional_pin(enc.get("push", d.encoder_push), "encoder.push"),
            d.encoder_push,
        )
        steps = enc.get("steps_per_choice", d.steps_per_choice)
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 16:
            problems.add(
                f"{self.section}.encoder.steps_per_choice",
                f"{_show(steps)} is not a whole number from 1 to 16",
                "use 1 (one detent per position) or 2 for encoders with two steps a detent",
            )
            steps = d.steps_per_choice
        cfg = GpioConfig(
            encoder_a=a,
            encoder_b=b,
            encoder_push=push,
            encoder_bounce_time=each(
                lambda: self.seconds(enc.get("bounce_time", 0), "encoder.bounce_time"), None
            ),
            steps_per_choice=steps,
            half_step=each(
                lambda: self.boolean(enc.get("half_step", d.half_step), "encoder.half_step"),
                d.half_step,
            ),
            buttons=each(lambda: self.buttons(data.get("buttons")), _default_buttons()),
            pull_up=each(lambda: self.boolean(data.get("pull_up", d.pull_up), "pull_up"), True),
            bounce_time=each(
                lambda: self.seconds(data.get("bounce_time", d.bounce_time), "bounce_time"),
                d.bounce_time,
            ),
            pin_factory=each(lambda: self.pin_factory(data.get("pin_factory")), None),
            hero_ring=each(
                lambda: self.boolean(data.get("hero_ring", d.hero_ring), "hero_ring"), True
            ),
            training_mismatch=each(
                lambda: self.choice(
                    data.get("training_mismatch", d.training_mismatch),
                    "training_mismatch",
                    TRAINING_MISMATCH,
                ),
                d.training_mismatch,
            ),
            call_favor=each(
                lambda: self.choice(data.get("call_favor", d.call_favor), "call_favor", DRAW_MODES),
                d.call_favor,
            ),
            time=each(lambda: self.choice(data.get("time", d.time), "time", DRAW_MODES), d.time),
            weight=each(
                lambda: self.choice(data.get("weight", d.weight), "weight", tuple(WeightMode)),
                d.weight,
            ),
        )
        problems.raise_if_any()  # every key's problem at once (the wiring needs good pins)
        self.check_wiring(cfg)
        return cfg

    def check_wiring(self, cfg: GpioConfig) -> None:
        if cfg.encoder_push is None and not any(
            b.action == "confirm" for b in cfg.buttons.values()
        ):
            raise self.fail(
                "encoder.push",
                "without the encoder's push switch nothing confirms a ring",
                "wire the push, or a button: [gpio.buttons] confirm = <pin>",
            )
        used: dict[str, str] = {}
        wired: list[tuple[str, Pin | None]] = [
            ("encoder.a", cfg.encoder_a),
            ("encoder.b", cfg.encoder_b),
            ("encoder.push", cfg.encoder_push),
            *((f"buttons.{name}", b.pin) for name, b in cfg.buttons.items()),
        ]
        for key, pin in wired:
            if pin is None:
                continue
            norm = _normalise(pin)
            if norm in used:
                raise self.fail(
                    key,
                    f"pin {pin!r} is already {self.section}.{used[norm]}",
                    "give every switch its own GPIO pin",
                )
            used[norm] = key

    def pin(self, value: Any, key: str) -> Pin:
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value <= _BCM_MAX:
                return value
            raise self.fail(
                key,
                f"GPIO {value} is not on the Pi's header",
                f'use a BCM GPIO number 0–{_BCM_MAX}, or a name like "BOARD36"',
            )
        if isinstance(value, str) and _PIN_NAME.match(value.strip()):
            return value.strip().upper()
        raise self.fail(
            key,
            f"{_show(value)} is not a pin",
            f'use a BCM GPIO number 0–{_BCM_MAX} or a name like "GPIO16", "BOARD36", "J8:36"',
        )

    def optional_pin(self, value: Any, key: str) -> Pin | None:
        if value is False or value is None:
            return None
        return self.pin(value, key)

    def buttons(self, value: Any) -> dict[str, ButtonConfig]:
        if value is None:
            return _default_buttons()
        if not isinstance(value, dict):
            raise self.fail(
                "buttons", f"expected a table, got {_show(value)}", "write [gpio.buttons]"
            )
        out = _default_buttons()
        for name, spec in value.items():
            key = f"buttons.{name}"
            if spec is False:
                out.pop(name, None)
                if name not in ACTIONS:
                    raise self.fail(key, "unknown button", _actions_fix())
                continue
            if isinstance(spec, dict):
                out[name] = self.custom_button(name, spec, key)
                continue
            if name not in ACTIONS:
                raise self.fail(
                    key,
                    "unknown button",
                    _actions_fix() + ', or a fixed command: { pin = 7, command = { cmd = "…" } }',
                )
            out[name] = ButtonConfig(self.pin(spec, key), action=name)
        return out

    def custom_button(self, name: str, spec: dict[str, Any], key: str) -> ButtonConfig:
        spec = self.table(spec, key, {"pin", "action", "command"})
        if "pin" not in spec:
            raise self.fail(f"{key}.pin", "missing", "add pin = <BCM number>")
        pin = self.pin(spec["pin"], f"{key}.pin")
        action, command = spec.get("action"), spec.get("command")
        if (action is None) == (command is None):
            if action is None and name in ACTIONS:
                return ButtonConfig(pin, action=name)
            raise self.fail(key, "give either action or command", _actions_fix())
        if action is not None:
            if action not in ACTIONS:
                raise self.fail(f"{key}.action", f"unknown action {_show(action)}", _actions_fix())
            return ButtonConfig(pin, action=str(action))
        if not isinstance(command, dict):
            raise self.fail(
                f"{key}.command", f"expected a table, got {_show(command)}", 'write { cmd = "…" }'
            )
        try:
            parse_command(command)
        except CommandRejected as e:  # its own fix, printed once
            v = e.violation
            raise self.fail(f"{key}.command", v.message, v.fix or "see docs/commands.md") from None
        return ButtonConfig(pin, command=dict(command))

    def boolean(self, value: Any, key: str) -> bool:
        if isinstance(value, bool):
            return value
        raise self.fail(key, f"{_show(value)} is not true or false", "write true or false")

    def seconds(self, value: Any, key: str) -> float | None:
        if value is None or value is False:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            return float(value) or None
        raise self.fail(
            key, f"{_show(value)} is not a time in seconds from 0 to 1", "e.g. 0.02 (0: none)"
        )

    def choice(self, value: Any, key: str, allowed: tuple[str, ...]) -> str:
        if isinstance(value, str) and value in allowed:
            return value
        raise self.fail(key, f"{_show(value)} is not allowed", f"use one of: {', '.join(allowed)}")

    def pin_factory(self, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, str) and value.lower() in PIN_FACTORIES:
            return value.lower()
        raise self.fail(
            "pin_factory",
            f"{_show(value)} is not a gpiozero pin factory",
            f"use one of: {', '.join(PIN_FACTORIES)} (Pi 5 / bookworm: lgpio)",
        )


def read_gpio(value: Any, problems: Problems) -> GpioConfig | None:
    """Check ``[gpio]`` (also when ``enabled = false``); None when it is off or wrong."""
    if not isinstance(value, dict):
        problems.add("gpio", f"expected a table, got {_show(value)}", "write [gpio]")
        return None
    rest = dict(value)
    enabled = rest.pop("enabled", True)
    if not isinstance(enabled, bool):
        problems.add(
            "gpio.enabled", f"{_show(enabled)} is not true or false", "write true or false"
        )
    try:
        config = GpioConfig.from_mapping(rest, problems.file, "gpio")
    except ConfigError as e:
        problems.absorb(e)
        return None
    return config if enabled is True else None


def _actions_fix() -> str:
    return f"buttons are named by what they do: {', '.join(ACTIONS)}"


def _normalise(pin: Pin) -> str:
    """``16``, ``"GPIO16"`` and ``"BCM16"`` are the same pin; other names stay as written."""
    if isinstance(pin, int):
        return f"GPIO{pin}"
    m = re.match(r"^(?:GPIO|BCM)(\d+)$", pin, re.IGNORECASE)
    return f"GPIO{int(m.group(1))}" if m else pin.upper()
