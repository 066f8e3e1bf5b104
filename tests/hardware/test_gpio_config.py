"""The [gpio] config section: defaults, the loader, and errors that name the key and the fix;
the pin factory; pins gpiozero refuses."""

from __future__ import annotations

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from hardware.config import DEFAULT_BUTTONS, ENCODER, GPIO, GpioConfig
from hardware.controls import TableControls, make_pin_factory
from settings.checker import ConfigErrors, Section
from settings.errors import ConfigError


def load(text: str) -> GpioConfig:
    return GpioConfig.from_toml_text(text, "table.toml")


def test_defaults_wire_every_button_on_its_own_pin():
    cfg = GpioConfig()
    assert {n: b.pin for n, b in cfg.buttons.items()} == DEFAULT_BUTTONS
    pins = [cfg.encoder_a, cfg.encoder_b, cfg.encoder_push, *DEFAULT_BUTTONS.values()]
    assert len(set(pins)) == len(pins)
    # clear of I2C, SPI0, the UART and the Inky / Waveshare HAT pins
    assert not set(pins) & {2, 3, 7, 8, 9, 10, 11, 14, 15, 17, 18, 22, 24, 25, 27}
    assert load("") == cfg  # no [gpio] section: the defaults
    assert load("[other]\nx = 1\n") == cfg  # other sections belong to others


def test_a_full_section_loads():
    cfg = load(
        """
[gpio]
pin_factory = "lgpio"
pull_up = false
bounce_time = 0.05
hero_ring = false
training_mismatch = "warn"
call_favor = "random"
time = "token"
weight = "mass"

[gpio.encoder]
a = "GPIO20"
b = 21
push = false
steps_per_choice = 2
bounce_time = 0.001

[gpio.buttons]
call_favor = false
exert = false
confirm = 13
hero = 23
cancel = { pin = "BOARD7", command = { cmd = "cancel_performance" } }
"""
    )
    assert (cfg.encoder_a, cfg.encoder_b, cfg.encoder_push) == ("GPIO20", 21, None)
    assert cfg.steps_per_choice == 2 and cfg.encoder_bounce_time == 0.001
    assert (cfg.pin_factory, cfg.pull_up, cfg.bounce_time) == ("lgpio", False, 0.05)
    assert (cfg.hero_ring, cfg.training_mismatch, cfg.call_favor, cfg.time, cfg.weight) == (
        False,
        "warn",
        "random",
        "token",
        "mass",
    )
    assert "call_favor" not in cfg.buttons and "exert" not in cfg.buttons
    assert cfg.buttons["confirm"].action == "confirm" and cfg.buttons["hero"].pin == 23
    assert cfg.buttons["cancel"].command == {"cmd": "cancel_performance"}
    assert cfg.buttons["cancel"].pin == "BOARD7"


@pytest.mark.parametrize(
    ("text", "key", "fix"),
    [
        ("[gpio]\nhero_rings = true", "gpio.hero_rings", "did you mean hero_ring? [gpio] takes"),
        ("[gpio.encoder]\na = 40", "gpio.encoder.a", "BCM GPIO number 0–27"),
        ("[gpio.encoder]\na = true", "gpio.encoder.a", "BCM GPIO number"),
        ('[gpio.encoder]\nb = "pin six"', "gpio.encoder.b", '"GPIO16"'),
        ("[gpio.encoder]\nsteps_per_choice = 0", "gpio.encoder.steps_per_choice", "use 1"),
        ("[gpio.encoder]\nclicks = 1", "gpio.encoder.clicks", "[gpio.encoder] takes: a, b,"),
        ("[gpio.buttons]\nresolve = 6", "gpio.buttons.resolve", "its own GPIO pin"),
        ('[gpio.buttons]\nresolve = "BCM5"', "gpio.buttons.resolve", "its own GPIO pin"),
        ("[gpio.buttons]\nexplode = 23", "gpio.buttons.explode", "resolve, reset"),
        ("[gpio.buttons]\nexplode = false", "gpio.buttons.explode", "resolve, reset"),
        ("[gpio.buttons]\nx = { pin = 23 }", "gpio.buttons.x", "either action or command"),
        ("[gpio.buttons]\nx = { action = 'undo' }", "gpio.buttons.x.pin", "add pin"),
        ("[gpio.buttons]\nx = { pin = 23, action = 'fly' }", "gpio.buttons.x.action", "undo"),
        (
            "[gpio.buttons]\nx = { pin = 23, command = { cmd = 'declare' } }",
            "gpio.buttons.x.command",
            "missing required field 'hero'",
        ),
        ("[gpio.encoder]\npush = false", "gpio.encoder.push", "confirm = <pin>"),
        ("[gpio]\nbounce_time = 5", "gpio.bounce_time", "0.02"),
        ('[gpio]\npull_up = "yes"', "gpio.pull_up", "true or false"),
        ('[gpio]\npin_factory = "RPi.GPIO"', "gpio.pin_factory", "lgpio"),
        ('[gpio]\ntraining_mismatch = "ignore"', "gpio.training_mismatch", "refuse, warn"),
        ('[gpio]\ncall_favor = "button"', "gpio.call_favor", "token, random"),
        ('[gpio]\nweight = "heavy"', "gpio.weight", "off, mass, light"),
        ("gpio = 3", "gpio: 3 is not a table", "write [gpio]"),
        ("[gpio\n", "not valid TOML", "table.toml"),
    ],
)
def test_bad_config_names_the_file_the_key_and_the_fix(text, key, fix):
    with pytest.raises(ConfigError) as e:
        load(text)
    message = str(e.value)
    assert message.startswith("table.toml: ")
    assert key in message and fix in message


def test_an_unreadable_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the config file"):
        GpioConfig.load(tmp_path / "missing.toml")
    path = tmp_path / "rhuna.toml"
    path.write_text("[gpio.buttons]\nundo = 23\n")
    assert GpioConfig.load(path).buttons["undo"].pin == 23


def test_pin_factory_by_name():
    assert isinstance(make_pin_factory("mock"), MockFactory)
    assert make_pin_factory(None) is None
    with pytest.raises(ConfigError, match="no pin factory 'nope'"):
        make_pin_factory("nope")


def test_a_pin_factory_that_cannot_start_is_a_config_error_with_the_fix():
    """pigpio needs its daemon (and its module): off a Pi neither is there."""
    with pytest.raises(ConfigError) as e:
        make_pin_factory("pigpio")
    assert "gpio.pin_factory = 'pigpio' cannot start here" in str(e.value)
    assert 'pin_factory = "mock"' in str(e.value)


def test_a_pin_held_elsewhere_names_the_key_and_frees_the_others(example_state):
    factory = MockFactory()
    squatter = Button(DEFAULT_BUTTONS["redraw"], pin_factory=factory)
    sent: list[dict] = []
    with pytest.raises(ConfigError, match=r"gpio\.buttons\.redraw: gpiozero refused the pin"):
        TableControls(lambda c, source: sent.append(c), lambda: example_state, pin_factory=factory)
    squatter.close()
    # the pins wired before the failure were released: wiring again works
    with TableControls(
        lambda c, source: sent.append(c), lambda: example_state, pin_factory=factory
    ) as controls:
        assert controls.selection()["ring"] == "difficulty"


def test_the_section_is_declared_with_the_settings_checker_and_its_defaults_are_the_configs():
    d = GpioConfig()
    assert isinstance(GPIO, Section) and isinstance(ENCODER, Section)
    top = {k: key.default for k, key in GPIO.keys.items() if k not in ("encoder", "buttons")}
    assert top == {"enabled": True} | {k: getattr(d, k) for k in top if k != "enabled"}
    wheel = {k: ENCODER.keys[k].default for k in ("a", "b", "push", "bounce_time")}
    assert wheel == {
        "a": d.encoder_a,
        "b": d.encoder_b,
        "push": d.encoder_push,
        "bounce_time": d.encoder_bounce_time,
    }
    assert ENCODER.keys["steps_per_choice"].default == d.steps_per_choice
    assert ENCODER.keys["half_step"].default == d.half_step


def test_every_key_problem_is_listed_unknown_keys_first_then_in_wiring_order():
    with pytest.raises(ConfigErrors) as e:
        load(
            "[gpio]\nzeta = 1\nweight = 3\npull_up = 1\nalpha = 2\n"
            "[gpio.encoder]\nhalf_step = 1\na = 99\n[gpio.buttons]\nresolve = 98\nundo = 97\n"
        )
    assert [m.split(": ")[1] for m in e.value.errors] == [
        "gpio.alpha",
        "gpio.zeta",
        "gpio.encoder.a",
        "gpio.encoder.half_step",
        "gpio.buttons.resolve",  # the first button's problem only
        "gpio.pull_up",
        "gpio.weight",
    ]
