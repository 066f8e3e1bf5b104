"""``doctor``'s power budget counts the PN532 on the Pi's 3.3 V pin (issue 44, D12).

The guide wires a PN532 on the header UART to the Pi's 3.3 V pin (17); the readers' budget
counted only the Pico's 3V3(OUT). Now the pin plan's checks add the PN532's draw (ITEAD's module
figures, 120 mA reading, 150 mA at most) against what the Pi's pin gives (500 mA, pinout.xyz),
and say so past it. A PN532 on a USB adapter is not on that pin: no such line. Through the real
Doctor's ``layout`` step on a config read as ``check-config`` reads it.
"""

from __future__ import annotations

from pathlib import Path

from companion.config import config_from_text
from companion.ops.doctor import Doctor
from firmware_bridge.config import ReaderConfig
from hardware.health import PI_3V3_MA, PN532_MA, pi_3v3
from tests.harness.fake_pi import fake_pi

PI4 = "Raspberry Pi 4 Model B Rev 1.5\x00"


def checks(tmp_path: Path, ports: list[str]) -> dict[str, tuple[bool, str, str]]:
    text = '[table]\nfile = "t.toml"\n[registry]\nsynthetic = true\n[gpio]\nenabled = false\n'
    for n, port in enumerate(ports):
        text += f'[[readers]]\nbackend = "pn532"\nname = "r{n}"\nport = "{port}"\nrole = "favor"\n'
    cfg = config_from_text(text, base=tmp_path)
    machine = fake_pi(tmp_path / f"pi{len(ports)}", model=PI4, boot="[all]\nenable_uart=1\n")
    return {
        c.name: (c.ok, c.detail, c.fix) for c in Doctor(tmp_path / "x.toml", machine).layout(cfg)
    }


def test_a_pn532_on_the_header_is_counted_on_the_pis_3v3_pin(tmp_path):
    found = checks(tmp_path, ["/dev/ttyS0"])
    ok, detail, _ = found["pi 3v3 power"]
    assert ok, detail
    assert f"1 PN532 on the Pi's 3.3 V pin (17) draw ≈{PN532_MA[0]} mA reading" in detail
    assert f"at most {PN532_MA[1]} mA" in detail and f"up to {PI_3V3_MA} mA" in detail
    assert "ITEAD" in detail and "pinout.xyz" in detail  # where the figures come from
    assert found["pins"][0]


def test_past_the_pins_budget_it_says_to_feed_them_from_a_regulator():
    """Four on the header's ports (a config refuses two on one port; the sum alone is checked)."""
    readers = [
        ReaderConfig(f"r{n}", "pn532", port, 115200)
        for n, port in enumerate(["/dev/ttyS0", "/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"])
    ]
    (check,) = pi_3v3(readers)
    assert not check.ok and f"at most {4 * PN532_MA[1]} mA" in check.detail
    assert "own 3.3 V regulator" in check.fix


def test_a_pn532_on_a_usb_adapter_is_not_on_the_pis_pin(tmp_path):
    found = checks(tmp_path, ["/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"])
    assert "pi 3v3 power" not in found
