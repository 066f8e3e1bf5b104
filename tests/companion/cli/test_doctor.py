"""``rhuna-table doctor`` on a fake Pi: its /proc, /sys, /boot/firmware and /etc are a folder here.

The readers are real ptys with the project's emulators (the hub runs the
firmware's own hubcore, chip versions and faults included), the broker is a
Mosquitto of the test's own with a password file, and the state directory is
real. Each newcomer mistake is made once and must come back as a ✗ line with
its fix, and a non-zero exit; ``--json`` says the same.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.cli import main
from companion.ops.doctor import BootConfig, Doctor, Machine
from firmware_bridge.emulator import HubEmulator, PN532Emulator
from tests.harness import ROOT, missing_real_part
from tests.harness.broker import running_broker
from tests.harness.fake_pi import GOOD_BOOT, GOOD_CMDLINE, PI4, PI5, fake_pi

__all__ = ["GOOD_BOOT", "GOOD_CMDLINE", "PI4", "PI5", "fake_pi"]


def password_file(tmp_path: Path) -> Path:
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        missing_real_part("mosquitto_passwd (Debian package mosquitto)")
    path = tmp_path / "passwords"
    subprocess.run(
        [tool, "-b", "-c", str(path), "table", "s3cret"], check=True, capture_output=True
    )
    return path


def write_config(
    tmp_path: Path,
    hub: HubEmulator,
    pn532: PN532Emulator,
    port: int,
    *,
    display: str,
    password: str = "s3cret",
    pn532_port: str | None = None,
    hub_roles: str = 'roles = { 5 = "time" }',
) -> Path:
    shutil.copy(ROOT / "examples" / "table.toml", tmp_path / "table.toml")
    text = f"""
[table]
file = "table.toml"
[state]
dir = "{tmp_path / "state"}"
[[readers]]
backend = "hub"
name = "draw-board"
port = "{hub.link}"
{hub_roles}
[[readers]]
backend = "pn532"
name = "favor"
port = "{pn532_port or pn532.link}"
role = "favor"
[registry]
synthetic = true
{display}
[gpio]
pin_factory = "mock"
[mqtt]
host = "127.0.0.1"
port = {port}
username = "table"
password = "{password}"
"""
    path = tmp_path / "rhuna.toml"
    path.write_text(text)
    return path


INKY = '[display]\ndriver = "inky"\n'
WAVESHARE = '[display]\ndriver = "waveshare"\nmodel = "epd2in13_V4"\n'


@pytest.fixture
def bench(tmp_path):
    """A hub with a clone board on channel 1, a PN532, a broker with one account."""
    with (
        HubEmulator(tmp_path / "hub" / "by-id" / "usb-MicroPython_Board-if00", channels=6) as hub,
        PN532Emulator(tmp_path / "pn" / "by-id" / "usb-PN532-if00") as pn532,
        running_broker(
            tmp_path / "broker", extra=f"password_file {password_file(tmp_path)}"
        ) as broker,
    ):
        hub.readers[1].version = 0xB2
        yield hub, pn532, broker


def doctor(config: Path, machine: Machine, **kw) -> dict[str, tuple[bool, str, str]]:
    kw.setdefault("throttled", lambda: "throttled=0x0\n")
    checks = Doctor(
        config, machine, timeout=3, inky_eeprom=lambda: "Red wHAT (SSD1683)", **kw
    ).run()
    return {c.name: (c.ok, c.detail, c.fix) for c in checks}


def test_a_well_set_up_pi_passes_every_check(tmp_path, bench, capsys):
    hub, pn532, broker = bench
    config = write_config(tmp_path, hub, pn532, broker.port, display=INKY)
    machine = fake_pi(tmp_path / "pi")
    found = doctor(config, machine)
    assert all(ok for ok, _, _ in found.values()), found
    assert list(found) == [
        "config",
        "service start",
        "board",
        "spi",
        "i2c",
        "uart",
        "pins",
        "groups",
        "supply",
        "reader draw-board",
        "reader favor",
        "reader power",
        "panel",
        "pin factory",
        "broker",
        "claim",
        "panel responding",
        "state dir",
    ]
    hub_line = found["reader draw-board"][1]
    assert "protocol 1, firmware 1.5.0, 6 channels, chips 0x92 0xb2 0x92 0x92 0x92 0x92" in hub_line
    assert hub_line.endswith("; roles 5 time")
    assert found["board"][1] == "Raspberry Pi 5 Model B Rev 1.0"
    assert (
        "6 MFRC522 (one antenna on at a time) draw ≈141 mA, at most ≈199 mA"
        in found["reader power"][1]
    )
    assert "PN532 firmware 1.6" in found["reader favor"][1]
    assert found["panel"][1] == "Inky detected: Red wHAT (SSD1683)"
    # the command line: one line a check, exit 0
    # the command line reads the real EEPROM through inky (no I2C bus here): that one fails
    code = main(["doctor", str(config), "--root", str(machine.root), "--timeout", "3"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert len(out) == len(found) + 1 and all(line[:1] in "✓✗" for line in out[:-1])
    assert [line.split(":")[0] for line in out if line.startswith("✗")] == ["✗ panel"]
    assert any("i2cdetect -y 1" in line for line in out) and out[-1] == "1 problem to fix"


def test_each_newcomer_mistake_is_one_failed_line_with_its_fix(tmp_path, bench, capsys):
    hub, pn532, broker = bench
    hub.break_reader(3)  # a reader board that does not answer
    config = write_config(
        tmp_path, hub, pn532, broker.port, display=INKY, password="wrong", pn532_port="/dev/serial0"
    )
    machine = fake_pi(
        tmp_path / "pi",
        boot="dtparam=spi=on\n",  # no spi0-0cs, no I2C, no uart0
        cmdline="console=serial0,115200 console=tty1 root=PARTUUID=1234-02\n",
        groups="dialout,gpio",
    )
    found = doctor(config, machine)
    failed = {name: fix for name, (ok, _detail, fix) in found.items() if not ok}
    assert "dtoverlay=spi0-0cs" in failed["spi"]
    assert "dtparam=i2c_arm=on" in failed["i2c"]
    # a Pi 5's console=serial0 is its debug connector: no clash; serial0 is the wrong port there
    assert "debug connector" in found["uart favor"][1]
    assert failed["uart favor"].startswith('port = "/dev/ttyAMA0"')
    assert failed["groups"] == "sudo usermod -aG spi,i2c rhuna; then restart the service"
    assert "wiring" in failed["reader draw-board"]
    assert "reader fault on channel 3" in found["reader draw-board"][1]
    assert "/dev/serial0 does not exist" in found["reader favor"][1]
    assert "username and password" in failed["broker"]
    assert found["config"][0] and found["state dir"][0] and found["pin factory"][0]
    # the CLI: non-zero, and --json says the same
    code = main(["doctor", str(config), "--root", str(machine.root), "--timeout", "3", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["ok"] is False
    by_name = {c["name"]: c for c in report["checks"]}
    # the same failures, plus the panel: the CLI reads the real EEPROM (there is no I2C here)
    assert {n for n, c in by_name.items() if not c["ok"]} == {*failed, "panel"}
    assert by_name["spi"]["ok"] is False and "spi0-0cs" in by_name["spi"]["fix"]


def test_pi5_uart_and_the_debug_connector(tmp_path):
    """On a Pi 5 /dev/serial0 is the debug connector; the header UART needs dtparam=uart0=on."""
    from companion.config import config_from_text

    base = '[table]\nfile = "t.toml"\n[gpio]\nenabled = false\n[[readers]]\nbackend = "pn532"\nname = "favor"\n'
    pi5 = fake_pi(tmp_path / "a", boot="dtparam=spi=on\n")
    d = Doctor(tmp_path / "x.toml", pi5)
    serial0 = config_from_text(base + 'port = "/dev/serial0"\n', base=tmp_path)
    ama0 = config_from_text(base + 'port = "/dev/ttyAMA0"\n', base=tmp_path)
    assert "debug connector" in next(d.uart(serial0)).detail
    assert next(d.uart(ama0)).fix.startswith("add dtparam=uart0=on")
    pi4 = fake_pi(tmp_path / "b", model=PI4, boot="enable_uart=1\n")
    assert next(Doctor(tmp_path / "x.toml", pi4).uart(serial0)).ok


def test_waveshare_wants_the_kernels_chip_select_and_a_model(tmp_path):
    from companion.config import config_from_text

    cfg = config_from_text(
        '[table]\nfile = "t.toml"\n[gpio]\nenabled = false\n' + WAVESHARE, base=tmp_path
    )
    inky_style = fake_pi(tmp_path / "a")  # has dtoverlay=spi0-0cs
    check = next(Doctor(tmp_path / "x.toml", inky_style).spi(cfg))
    assert not check.ok and check.fix.startswith("remove dtoverlay=spi0-0cs")
    plain = fake_pi(tmp_path / "b", boot="dtparam=spi=on\n")
    assert next(Doctor(tmp_path / "x.toml", plain).spi(cfg)).ok
    assert next(Doctor(tmp_path / "x.toml", plain).panel(cfg)).detail.startswith(
        "Waveshare epd2in13_V4"
    )


def test_a_config_that_does_not_load_is_the_only_line(tmp_path, capsys):
    bad = tmp_path / "rhuna.toml"
    bad.write_text("[tabel]\n")
    code = main(["doctor", str(bad), "--root", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[0].startswith("✗ config:") and "check-config" in out[0]


def test_config_txt_parsing_follows_the_firmwares_syntax():
    cfg = BootConfig.parse(
        "# dtparam=spi=on\ndtparam=i2c_arm=on,spi=on\n[pi5]\ndtoverlay=spi0-0cs,cs0_pin=8\n"
    )
    assert cfg.on("spi") and cfg.on("i2c_arm") and "spi0-0cs" in cfg.overlays
    assert not BootConfig.parse("#dtparam=spi=on\n").on("spi")
