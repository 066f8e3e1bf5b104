"""docs/hardware.md's ``doctor`` example is the real doctor's output (issue 30, item 8).

The example is a Pi 4 (a fake tree: its model, config.txt for an Inky, the groups) whose
supply reported under-voltage, with the example's six-reader hub on a real pty (the hub
emulator running the firmware's hubcore, a clone board on channel 1). The paths of the
test's folder are written as the Pi's; the free space is the only figure not compared.
To refresh the page after a change to doctor: ``python -m tests.companion.cli.test_doctor_doc_example``.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from companion.ops.doctor import Doctor, report
from firmware_bridge.emulator import HubEmulator
from tests.harness import ROOT
from tests.harness.fake_pi import fake_pi

PAGE = ROOT / "docs" / "hardware.md"
HUB_PORT = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c3a12345678-if00"
PI4_BOOT = "[all]\ndtparam=spi=on\ndtparam=i2c_arm=on\ndtoverlay=spi0-0cs\nenable_uart=1\n"


def generate(tmp: Path) -> list[str]:
    shutil.copy(ROOT / "examples" / "table.toml", tmp / "table.toml")
    with HubEmulator(tmp / "by-id" / "hub", hub_id="PICO-E6614C3A12345678") as hub:
        hub.readers[1].version = 0xB2
        config = tmp / "rhuna.toml"
        config.write_text(
            f'[table]\nfile = "table.toml"\n[state]\ndir = "{tmp / "state"}"\n'
            f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
            'roles = { 4 = "favor", 5 = "time" }\n[registry]\nsynthetic = true\n'
            '[display]\ndriver = "inky"\n[gpio]\npin_factory = "mock"\n[mqtt]\nenabled = false\n'
        )
        machine = fake_pi(tmp / "pi", model="Raspberry Pi 4 Model B Rev 1.5\x00", boot=PI4_BOOT)
        checks = Doctor(
            config,
            machine,
            timeout=3,
            as_user=[],
            inky_eeprom=lambda: "Red pHAT (SSD1608)",
            throttled=lambda: "throttled=0x50005",
        ).run()
        text = report(checks).replace(str(hub.link), HUB_PORT)
    text = text.replace(str(tmp / "state"), "/var/lib/rhuna-table")
    return text.replace(str(config), "/etc/rhuna-table/rhuna.toml").splitlines()


def in_the_page() -> list[str]:
    text = PAGE.read_text("utf-8")
    block = text.split("```console\n$ sudo rhuna-table doctor /etc/rhuna-table/rhuna.toml\n", 1)[1]
    return block.split("```", 1)[0].splitlines()


def _free(lines: list[str]) -> list[str]:
    return [re.sub(r", \d+ MB free$", ", … MB free", line) for line in lines]


def test_the_pages_doctor_example_is_what_doctor_says(tmp_path):
    assert _free(in_the_page()) == _free(generate(tmp_path))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        fresh = _free(generate(Path(folder)))
    print("\n".join(line.replace("… MB free", "24107 MB free") for line in fresh))
