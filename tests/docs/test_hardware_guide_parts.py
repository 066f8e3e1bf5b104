"""docs/hardware.md's parts and hints that no command shows (issue 44, D10 and D15).

The guide's commands are checked by running them (test_hardware_doc_commands.py, and
``make pi-rehearsal``); these are the facts a hobbyist with the parts acts on that no command
would catch: the connector that fits, the Waveshare cable's power wires, the hub's by-id name
as MicroPython spells it, the OS releases, the Pico's header, ``doctor`` as root, and the
usual fault of a reader that answers 0x00 or 0xFF.
"""

from __future__ import annotations

import re

from tests.harness import ROOT
from tests.harness.doc_commands import blocks

GUIDE = ROOT / "docs" / "hardware.md"
#: the Pi header's power and ground pins (pinout.xyz)
PIN_3V3 = {1, 17}
PIN_GND = {6, 9, 14, 20, 25, 30, 34, 39}


def guide() -> str:
    return GUIDE.read_text("utf-8")


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


def test_the_stacking_header_row_says_what_fits_a_hat_whose_header_is_soldered():
    """D10: a stacking header replaces a HAT's socket; under a HAT sold with its header
    soldered it gives no connector, and the BOM must name what fits there instead."""
    row = next(line for line in guide().splitlines() if "stacking header" in line.lower())
    assert "already soldered" in row, row
    assert re.search(r"breakout|ribbon", row), row


def test_every_wire_of_the_waveshare_cable_has_its_pin():
    """D10: the Waveshare pin cable's table gave the signal wires but no VCC (nor GND): each
    of its wires must be given a Pi pin, VCC on a 3.3 V pin, GND on a ground pin."""
    text = section(guide(), "**Waveshare e-Paper HAT**", "**PNG (no panel)**")
    vcc = re.search(r"VCC → 3\.3 V, pin (\d+)", text)
    gnd = re.search(r"GND → pin (\d+)", text)
    assert vcc is not None and int(vcc.group(1)) in PIN_3V3, text[:300]
    assert gnd is not None and int(gnd.group(1)) in PIN_GND, text[:300]
    rows = {
        m.group(2): int(m.group(1))
        for m in re.finditer(
            r"^\| (\d+) \| GPIO\d+ \| panel: ([A-Z0-9 ]+?)(?: line| \(| \|)", text, re.M
        )
    }
    for wire in ("RST", "BUSY", "DC", "SPI MOSI", "SPI SCLK", "SPI CE0"):
        assert wire in rows, (wire, rows)


def test_the_hubs_by_id_names_are_lowercase_hex_in_every_doc():
    """D15: MicroPython writes the Pico's serial in lowercase hex (shared/tinyusb/mp_usbd.c,
    mp_usbd_hex_str), so an uppercase name in readers.md or enroll.md names no device."""
    found = []
    for path in [ROOT / "README.md", ROOT / "examples" / "rhuna.toml", *ROOT.glob("docs/*.md")]:
        for m in re.finditer(
            r"usb-MicroPython_Board_in_FS_mode_([0-9A-Za-z]+)-if00", path.read_text()
        ):
            found.append((path.name, m.group(1)))
    assert {name for name, _ in found} >= {"hardware.md", "readers.md", "enroll.md"}, found
    assert [f for f in found if f[1] != f[1].lower()] == []


def test_the_guide_names_trixie_beside_bookworm():
    """D15: Raspberry Pi Imager offers trixie; the OS row said bookworm only."""
    row = next(line for line in guide().splitlines() if line.startswith("| OS |"))
    assert "bookworm" in row and "trixie" in row, row


def test_the_guide_says_a_plain_pico_needs_its_headers_soldered():
    """D15: a Pico H comes with its header; a plain Pico has none, and section 2's wiring
    needs one (or wires soldered to its pads)."""
    text = guide()
    assert "Pico H" in text
    assert re.search(r"plain Pico needs .*header", text), "no soldering note for a plain Pico"


def test_doctor_is_shown_as_root():
    """D15: doctor checks the ports and the state directory as the service's user, which
    needs root; every doctor in the guide's blocks is written with sudo."""
    doctors = [
        line.strip().removeprefix("$ ")
        for block in blocks(guide(), "docs/hardware.md")
        for line in block.lines
        if re.search(r"\brhuna-table doctor\b", line) and not line.strip().startswith("#")
    ]
    assert doctors, "no doctor in the guide's blocks"
    assert [d for d in doctors if not d.startswith("sudo ")] == []


def test_a_reader_at_0x00_or_0xff_points_at_mosi_and_miso_crossed():
    """D15: a single reader answering 0x00 or 0xFF while the others work is most often its
    MOSI and MISO swapped: the guide says so, with the Pico's pins."""
    text = guide()
    tip = text[text.index("0x00 or 0xFF") :][:400]
    assert "MOSI and MISO" in tip and "GP19" in tip and "GP16" in tip, tip
