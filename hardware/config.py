"""The ``[gpio]`` section of the service config: which pin is which, what each button does.

Everything has a default that suits a Pi with an e-ink HAT and an RFID hub on USB,
so a table only writes what differs. The section is declared with :mod:`settings.checker`
(:data:`GPIO`, :data:`ENCODER`, :data:`BUTTON`): a broken one raises :class:`ConfigError`
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.errors import CommandRejected
from engine.tokens import WeightMode
from engine.vocabulary import parse_command
from settings.checker import Key, Problems, Refused, Section
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

_ACTIONS_FIX = f"buttons are named by what they do: {', '.join(ACTIONS)}"

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
        """Build from the section's parsed TOML (without ``enabled``, which is
        :func:`read_gpio`'s); every key's problem at once, naming ``source`` and the key."""
        if not isinstance(data, dict):
            raise ConfigError(
                f"{source}: {section}: {_show(data)} is not a table — write [{section}]"
            )
        problems = Problems(source)
        config = _check(data, problems, section)
        problems.raise_if_any()  # every key's problem at once (the wiring needs good pins)
        assert config is not None
        clash = _wiring(config, section)
        if clash is not None:
            raise problems.error(*clash)
        return config


def read_gpio(value: Any, problems: Problems) -> GpioConfig | None:
    """Check ``[gpio]`` (also when ``enabled = false``); None when it is off or wrong."""
    if not isinstance(value, dict):
        problems.add("gpio", f"expected a table, got {_show(value)}", "write [gpio]")
        return None
    enabled, ok = GPIO.value(value, "enabled", problems)
    config = _check({k: v for k, v in value.items() if k != "enabled"}, problems, "gpio")
    clash = None if config is None else _wiring(config, "gpio")
    if clash is not None:
        problems.add(*clash)
        return None
    return config if ok and enabled is True else None


# --- the section, declared ------------------------------------------------------------------

_D = GpioConfig()
_PIN_FIX = f'use a BCM GPIO number 0–{_BCM_MAX} or a name like "GPIO16", "BOARD36", "J8:36"'


def _pin(value: Any) -> Pin:
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= _BCM_MAX:
            return value
        raise Refused(
            f"GPIO {value} is not on the Pi's header",
            f'use a BCM GPIO number 0–{_BCM_MAX}, or a name like "BOARD36"',
        )
    if isinstance(value, str) and _PIN_NAME.match(value.strip()):
        return value.strip().upper()
    raise Refused(f"{_show(value)} is not a pin", _PIN_FIX)


def _debounce(value: float) -> float | None:
    if not 0 <= value <= 1:  # NaN too
        raise Refused()
    return float(value) or None


def _pin_factory(value: Any) -> str:
    if isinstance(value, str) and value.lower() in PIN_FACTORIES:
        return value.lower()
    raise Refused()


def _command(value: dict[str, Any]) -> dict[str, Any]:
    try:
        parse_command(value)
    except CommandRejected as e:  # its own fix, printed once
        raise Refused(e.violation.message, e.violation.fix or "see docs/commands.md") from None
    return dict(value)


def _a_pin(default: Pin | None, what: str, **more: Any) -> Key:
    return Key("any", what, default, parse=_pin, **more)


def _seconds(default: float | None, what: str) -> Key:
    return Key(
        "number",
        what,
        default,
        minimum=0,
        maximum=1,
        off=True,
        problem="{value} is not a time in seconds from 0 to 1",
        fix="e.g. 0.02 (0: none)",
        parse=_debounce,
    )


def _table(what: str, fix: str) -> Key:
    return Key("table", what, problem="expected a table, got {value}", fix=fix)


#: ``[gpio]``: the listing of an unknown key names ``enabled`` first, then the keys A–Z
GPIO = Section(
    "gpio",
    {
        "enabled": Key("boolean", "whether the wheel and buttons are wired", True),
        "bounce_time": _seconds(_D.bounce_time, "seconds of software debounce on buttons"),
        "buttons": _table("what each button does", "write [gpio.buttons]"),
        "call_favor": Key("any", "how Call Favor gets its token", _D.call_favor, enum=DRAW_MODES),
        "encoder": _table("the Performance Wheel's encoder", "write [encoder]"),
        "hero_ring": Key("boolean", "pick the declaring hero on a ring", _D.hero_ring),
        "pin_factory": Key(
            "any",
            "gpiozero's pin factory",
            problem="{value} is not a gpiozero pin factory",
            fix=f"use one of: {', '.join(PIN_FACTORIES)} (Pi 5 / bookworm: lgpio)",
            parse=_pin_factory,
        ),
        "pull_up": Key("boolean", "switches wired to ground, on the Pi's pull-up", _D.pull_up),
        "time": Key("any", "how the Time button gets its token", _D.time, enum=DRAW_MODES),
        "training_mismatch": Key(
            "any", "a Training ring against the sheet", _D.training_mismatch, enum=TRAINING_MISMATCH
        ),
        "weight": Key(
            "any", "WEIGHT of a Performance begun on the wheel", _D.weight, enum=tuple(WeightMode)
        ),
    },
)
#: ``[gpio.encoder]`` (keys A–Z, as the listing of an unknown one shows them)
ENCODER = Section(
    "gpio.encoder",
    {
        "a": _a_pin(_D.encoder_a, "the encoder's A pin"),
        "b": _a_pin(_D.encoder_b, "the encoder's B pin"),
        "bounce_time": _seconds(_D.encoder_bounce_time, "seconds of debounce on A and B"),
        "half_step": Key("boolean", "count both halves of a quadrature cycle", _D.half_step),
        "push": _a_pin(_D.encoder_push, "the encoder's push switch", off=True),
        "steps_per_choice": Key(
            "integer",
            "encoder steps per wheel position",
            _D.steps_per_choice,
            minimum=1,
            maximum=16,
            problem="{value} is not a whole number from 1 to 16",
            fix="use 1 (one detent per position) or 2 for encoders with two steps a detent",
        ),
    },
)
#: a button of its own, ``[gpio.buttons] <name> = { pin = …, action = … | command = { … } }``
BUTTON = Section(
    "gpio.buttons.<name>",
    {
        "action": Key(
            "any",
            "a named action",
            enum=tuple(ACTIONS),
            problem="unknown action {value}",
            fix=_ACTIONS_FIX,
        ),
        "command": Key(
            "table",
            "a fixed command",
            problem="expected a table, got {value}",
            fix='write { cmd = "…" }',
            parse=_command,
        ),
        "pin": _a_pin(None, "the button's pin", required=True, fix="add pin = <BCM number>"),
    },
)
_BUTTON_PIN = _a_pin(None, "the button's pin")


def _first_stray(section: Section, data: Mapping[str, Any], problems: Problems) -> bool:
    """The first unknown key (A–Z) of a sub-table, refused; True when there was one."""
    strays = sorted(set(data) - set(section.keys))
    if strays:
        problems.add(f"{section.name}.{strays[0]}", *section.unknown(strays[0]))
    return bool(strays)


#: the order their problems are listed in (after [gpio.encoder]'s and [gpio.buttons]')
_WHEEL_ORDER = ("a", "b", "push", "steps_per_choice", "bounce_time", "half_step")
_GPIO_ORDER = (
    *("pull_up", "bounce_time", "pin_factory", "hero_ring"),
    *("training_mismatch", "call_favor", "time", "weight"),
)


def _check(data: dict[str, Any], problems: Problems, name: str) -> GpioConfig | None:
    """Every key of the section (without ``enabled``) in the order the wiring reads them,
    unknown keys first; None when one is wrong (its problem in ``problems``)."""
    before = len(problems)
    gpio, encoder = replace(GPIO, name=name), replace(ENCODER, name=f"{name}.encoder")
    for stray in sorted(k for k in data if k not in GPIO.keys or k == "enabled"):
        problems.add(f"{name}.{stray}", *gpio.unknown(stray))
    enc = gpio.value(data, "encoder", problems)[0] or {}
    if _first_stray(encoder, enc, problems):
        enc = {}  # its keys are not read: the defaults
    wheel = {k: encoder.value(enc, k, problems)[0] for k in _WHEEL_ORDER}
    buttons, ok = gpio.value(data, "buttons", problems)
    buttons = _buttons(buttons, problems, name) if ok and buttons is not None else None
    keys = {k: gpio.value(data, k, problems)[0] for k in _GPIO_ORDER}
    if len(problems) > before:
        return None
    return GpioConfig(
        encoder_a=wheel["a"],
        encoder_b=wheel["b"],
        encoder_push=wheel["push"],
        encoder_bounce_time=wheel["bounce_time"],
        steps_per_choice=wheel["steps_per_choice"],
        half_step=wheel["half_step"],
        buttons=_default_buttons() if buttons is None else buttons,
        **keys,
    )


def _buttons(
    value: dict[str, Any], problems: Problems, section: str
) -> dict[str, ButtonConfig] | None:
    """``[gpio.buttons]`` over the defaults; None at the first problem."""
    out = _default_buttons()
    for name, spec in value.items():
        key = f"{section}.buttons.{name}"
        if spec is False:
            out.pop(name, None)
            if name not in ACTIONS:
                problems.add(key, "unknown button", _ACTIONS_FIX)
                return None
            continue
        if isinstance(spec, dict):
            button = _custom_button(name, spec, replace(BUTTON, name=key), problems)
            if button is None:
                return None
            out[name] = button
            continue
        if name not in ACTIONS:
            fix = _ACTIONS_FIX + ', or a fixed command: { pin = 7, command = { cmd = "…" } }'
            problems.add(key, "unknown button", fix)
            return None
        try:
            out[name] = ButtonConfig(_BUTTON_PIN.take(spec, name), action=name)
        except Refused as r:
            problems.add(key, r.problem, r.fix)
            return None
    return out


def _custom_button(
    name: str, spec: dict[str, Any], button: Section, problems: Problems
) -> ButtonConfig | None:
    if _first_stray(button, spec, problems):
        return None
    pin, ok = button.value(spec, "pin", problems)
    if not ok:
        return None
    action, command = spec.get("action"), spec.get("command")
    if (action is None) == (command is None):
        if action is None and name in ACTIONS:
            return ButtonConfig(pin, action=name)
        problems.add(button.name, "give either action or command", _ACTIONS_FIX)
        return None
    which = "action" if action is not None else "command"
    value, ok = button.value(spec, which, problems)
    if not ok:
        return None
    return (
        ButtonConfig(pin, action=value) if which == "action" else ButtonConfig(pin, command=value)
    )


def _wiring(cfg: GpioConfig, section: str) -> tuple[str, str, str] | None:
    """The first wiring problem (key, problem, fix): nothing confirms, or a pin twice."""
    if cfg.encoder_push is None and not any(b.action == "confirm" for b in cfg.buttons.values()):
        return (
            f"{section}.encoder.push",
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
            return (
                f"{section}.{key}",
                f"pin {pin!r} is already {section}.{used[norm]}",
                "give every switch its own GPIO pin",
            )
        used[norm] = key
    return None


def _normalise(pin: Pin) -> str:
    """``16``, ``"GPIO16"`` and ``"BCM16"`` are the same pin; other names stay as written."""
    if isinstance(pin, int):
        return f"GPIO{pin}"
    m = re.match(r"^(?:GPIO|BCM)(\d+)$", pin, re.IGNORECASE)
    return f"GPIO{int(m.group(1))}" if m else pin.upper()
