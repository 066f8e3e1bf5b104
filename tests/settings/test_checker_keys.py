"""settings.checker's generic parts a section's owner declares its keys with: a key's own words
for a refusal (``problem``), a ``parse`` that converts or refuses (:class:`Refused`, ``only``),
and :meth:`Section.value`, one key at a time for a section checked in an order of its own."""

from __future__ import annotations

from typing import Any

import pytest

from settings.checker import Key, Problems, Refused, Section, only


def _lower_factory(value: Any) -> str:
    if isinstance(value, str) and value.lower() in ("lgpio", "mock"):
        return value.lower()
    if value == "pigpio":
        raise Refused("'pigpio' is gone", "use lgpio")
    raise Refused()


SECTION = Section(
    "gpio",
    {
        "port": Key(
            "integer",
            "a port",
            minimum=1,
            maximum=65535,
            problem="{value} is not a port number",
            fix="write 1 to 65535",
        ),
        "pin_factory": Key(
            "any",
            "the pin factory",
            problem="{value} is not a pin factory",
            fix="use lgpio or mock",
            parse=_lower_factory,
        ),
        "topic": Key(
            "any", "a topic", "t", parse=only(lambda v: isinstance(v, str) and "#" not in v)
        ),
        "pin": Key("integer", "a pin", required=True, fix="add pin = <BCM number>"),
        "level": Key("string", "how much to log", "info"),
    },
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"port": "1883"}, "gpio.port: '1883' is not a port number — write 1 to 65535"),
        ({"port": 0}, "gpio.port: 0 is not a port number — write 1 to 65535"),
        ({"port": True}, "gpio.port: true is not a port number — write 1 to 65535"),
        (
            {"pin_factory": "RPi"},
            "gpio.pin_factory: 'RPi' is not a pin factory — use lgpio or mock",
        ),
        ({"pin_factory": "pigpio"}, "gpio.pin_factory: 'pigpio' is gone — use lgpio"),
        ({"topic": "a/#"}, "gpio.topic: 'a/#' is not allowed — see the example config: a topic"),
        ({"level": 3}, 'gpio.level: 3 is not text — write level = "…" (how much to log)'),
    ],
)
def test_a_key_refuses_in_its_own_words_or_the_types(data, message):
    problems = Problems("rhuna.toml")
    SECTION.read({"pin": 5, **data}, problems)
    assert problems.errors == [f"rhuna.toml: {message}"]


def test_parse_gives_what_is_kept_and_value_checks_one_key():
    problems = Problems("rhuna.toml")
    assert SECTION.read({"pin": 5, "pin_factory": "LGPIO"}, problems)["pin_factory"] == "lgpio"
    assert SECTION.value({"port": 8883}, "port", problems) == (8883, True)
    assert SECTION.value({}, "topic", problems) == ("t", True)
    assert SECTION.value({"topic": "#"}, "topic", problems) == ("t", False)
    assert SECTION.value({}, "pin", problems) == (None, False)
    assert problems.errors == [
        "rhuna.toml: gpio.topic: '#' is not allowed — see the example config: a topic",
        "rhuna.toml: gpio.pin: missing — add pin = <BCM number>",
    ]


def test_key_take_raises_refused_with_the_problem_and_the_fix():
    with pytest.raises(Refused) as e:
        SECTION.keys["port"].take(70000, "port")
    assert (e.value.problem, e.value.fix) == ("70000 is not a port number", "write 1 to 65535")
    assert SECTION.keys["pin_factory"].take("Mock", "pin_factory") == "mock"
