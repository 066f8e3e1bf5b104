"""Half-step encoders (30-detent EC11: half a quadrature cycle per click), on gpiozero's MockFactory.

gpiozero 2.0.1's ``RotaryEncoder`` (``input_devices.py``, ``TRANSITIONS``)
reports a step only when both contacts are open again, i.e. once per full
cycle; such a part rests alternately with both contacts open and both closed,
so every other click was lost. ``[gpio.encoder] half_step = true`` decodes a
step at both resting positions (hardware/encoder.py). P19: the Difficulty ring.
"""

from __future__ import annotations

import random

import pytest
from gpiozero import RotaryEncoder
from gpiozero.pins.mock import MockFactory

from hardware.config import GpioConfig
from hardware.encoder import HalfStepEncoder, QuadratureDecoder
from hardware.mock import half_click
from settings.errors import ConfigError
from tests.harness.gpio import MockTable


def clicks(factory, a=5, b=6):
    pa, pb = factory.pin(a), factory.pin(b)
    return lambda direction: half_click(pa, pb, direction)


def test_gpiozero_rotary_encoder_sees_only_every_other_half_step_click():
    """What the option fixes: four clicks of a 30-detent part are two gpiozero steps."""
    factory = MockFactory()
    rotor = RotaryEncoder(5, 6, max_steps=0, pin_factory=factory)
    click = clicks(factory)
    for _ in range(4):
        click(+1)
    assert rotor.steps == 2
    rotor.close()


def test_half_step_encoder_counts_every_click_both_ways():
    factory = MockFactory()
    enc = HalfStepEncoder(5, 6, pin_factory=factory)
    seen = []
    enc.when_rotated_clockwise = lambda: seen.append(+1)
    enc.when_rotated_counter_clockwise = lambda: seen.append(-1)
    click = clicks(factory)
    for d in (+1, +1, +1, -1, -1, +1, -1, -1, -1):
        click(d)
    assert seen == [+1, +1, +1, -1, -1, +1, -1, -1, -1]
    assert enc.steps == -1
    enc.close()


def test_contact_bounce_adds_up_to_nothing():
    """A contact that chatters (A closes, opens, closes) before the click completes is one step."""
    factory = MockFactory()
    enc = HalfStepEncoder(5, 6, pin_factory=factory)
    a, b = factory.pin(5), factory.pin(6)
    a.drive_low()
    a.drive_high()
    a.drive_low()
    b.drive_low()  # rests both closed: one clockwise click
    b.drive_high()
    b.drive_low()  # B chatters back and forth at rest
    assert enc.steps == 1
    enc.close()


def test_decoder_property_any_walk_of_whole_clicks_nets_its_sum():
    rng = random.Random(14)
    for _ in range(200):
        d = QuadratureDecoder(half_step=True)
        levels = [0, 0]
        total = 0
        expected = 0
        for _ in range(rng.randrange(1, 30)):
            direction = rng.choice((1, -1))
            expected += direction
            first, second = (0, 1) if direction > 0 else (1, 0)
            target = 0 if levels[0] else 1
            for pin in (first, second):
                levels[pin] = target
                total += d.update(*levels)
        assert total == expected


def test_a_30_detent_encoder_moves_the_difficulty_ring_one_per_click(example_state):
    """P19: Difficulty 3 and five clicks is 8, not 5 (two gpiozero steps and a half)."""
    t = MockTable(example_state, GpioConfig(half_step=True))
    try:
        assert t.ring() == "difficulty"
        t.hand.turn(+5)
        assert t.controls.selection()["difficulty"] == 8
        t.hand.turn(-2)
        assert t.controls.selection()["difficulty"] == 6
    finally:
        t.close()


def test_half_step_is_a_config_key_and_must_be_true_or_false():
    cfg = GpioConfig.from_mapping({"encoder": {"half_step": True}}, "table.toml")
    assert cfg.half_step is True
    with pytest.raises(
        ConfigError, match=r"table.toml: gpio\.encoder\.half_step: .* true or false"
    ):
        GpioConfig.from_mapping({"encoder": {"half_step": "yes"}}, "table.toml")
