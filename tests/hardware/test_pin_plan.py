"""One pin plan (issue 30, item 1): a switch on a pin the panel, SPI or the UART holds is refused.

``check-config`` (through :func:`companion.config.config_from_text`) and ``doctor``
(its config line) both ask :func:`hardware.pins.conflicts`; each refusal names the
key, both uses and a free pin.
"""

from __future__ import annotations

import pytest

from companion.config import config_from_text
from hardware.pins import HEADER, PANELS, PHYSICAL, conflicts, free_pins, gpio_of, taken
from settings.checker import ConfigErrors

BASE = '[table]\nfile = "t.toml"\n[registry]\nsynthetic = true\n[gpio]\npin_factory = "mock"\n'
PN532 = '[[readers]]\nbackend = "pn532"\nname = "favor"\nport = "/dev/ttyAMA0"\nrole = "favor"\n'


def errors(text: str, tmp_path) -> list[str]:
    try:
        config_from_text(BASE + text, "rhuna.toml", base=tmp_path)
    except ConfigErrors as e:
        return [str(p) for p in e.problems]
    return []


@pytest.mark.parametrize("driver", ["inky", "waveshare", "png"])
def test_the_default_pins_clear_every_panel_and_the_uart(driver, tmp_path):
    assert (
        errors(
            f'[display]\ndriver = "{driver}"\n'
            + ('model = "epd2in13_V4"\n' if driver == "waveshare" else "")
            + PN532,
            tmp_path,
        )
        == []
    )


def test_a_button_on_an_inky_pin_names_both_uses_and_a_free_pin(tmp_path):
    found = errors('[display]\ndriver = "inky"\n[gpio.buttons]\nresolve = 17\n', tmp_path)
    assert len(found) == 1
    assert found[0].startswith(
        "rhuna.toml: gpio.buttons.resolve: GPIO17 (pin 11) is the Inky HAT's BUSY line"
    )
    assert "move it to a free GPIO, e.g. GPIO" in found[0]


def test_a_button_on_the_uart_is_refused_only_with_a_pn532_on_the_header(tmp_path):
    button = "[gpio.buttons]\nundo = 14\n"
    found = errors(PN532 + button, tmp_path)
    assert found and "gpio.buttons.undo: GPIO14 (pin 8) is the UART TXD" in found[0]
    assert errors(button, tmp_path) == []  # no PN532 on the header: GPIO14 is free


def test_waveshare_pins_and_the_kernels_chip_selects(tmp_path):
    ws = '[display]\ndriver = "waveshare"\nmodel = "epd2in13_V4"\n'
    found = errors(ws + "[gpio.encoder]\npush = 25\n[gpio.buttons]\nundo = 7\n", tmp_path)
    assert any(
        "gpio.encoder.push: GPIO25 (pin 22) is the Waveshare e-Paper HAT's DC line" in f
        for f in found
    )
    assert any("gpio.buttons.undo: GPIO7 (pin 26) is the kernel's SPI0 CE1" in f for f in found)
    # an Inky runs with dtoverlay=spi0-0cs: GPIO7 is free there
    assert errors('[display]\ndriver = "inky"\n[gpio.buttons]\nundo = 7\n', tmp_path) == []


def test_the_same_pin_by_two_names_is_one_pin(tmp_path):
    found = errors('[gpio.buttons]\nundo = "BOARD36"\n', tmp_path)  # BOARD36 = GPIO16 = resolve
    assert found and "gpio.buttons.undo: GPIO16 (pin 36) is also gpio.buttons.resolve" in found[0]


def test_the_header_map_is_the_40_pin_layout():
    assert (
        len(PHYSICAL) == 26 and PHYSICAL[14] == 8 and PHYSICAL[21] == 40 and HEADER.get(1) is None
    )
    assert gpio_of("J8:11") == 17 and gpio_of("GPIO4") == 4
    for driver in ("inky", "waveshare"):
        assert set(PANELS[driver]) <= set(taken(driver, uart=False))
        assert not set(free_pins(driver, uart=True)) & set(taken(driver, uart=True))
    assert conflicts(None, "inky", True) == []
