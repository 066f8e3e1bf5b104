"""``doctor`` per board (issue 30, items 3 and 7): the header UART of a Pi 3, Pi 4, Zero 2 W and
Pi 5, a machine that is no Pi, the supply (``get_throttled``), a hub at the REPL, roles on
channels the hub lacks, the readers' power budget, and the device checks as the service user.

Every board is a fake tree (``/proc/device-tree/model``, ``/proc/cmdline``,
``config.txt`` at ``/boot/firmware`` or ``/boot``) built by ``fake_pi``.
"""

from __future__ import annotations

import os
import shutil
import threading
import tty
from pathlib import Path

import pytest

from companion.config import config_from_text
from companion.ops.doctor import Doctor, Machine, _runuser_prefix
from firmware_bridge.emulator import HubEmulator
from tests.harness.fake_pi import GOOD_CMDLINE, fake_pi

PI3 = "Raspberry Pi 3 Model B Plus Rev 1.3\x00"
PI4 = "Raspberry Pi 4 Model B Rev 1.5\x00"
ZERO2 = "Raspberry Pi Zero 2 W Rev 1.0\x00"
PI5 = "Raspberry Pi 5 Model B Rev 1.0\x00"
SERIAL_CONSOLE = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootwait\n"


def pn532(tmp_path: Path, port: str, extra: str = "[gpio]\nenabled = false\n"):
    text = (
        '[table]\nfile = "t.toml"\n[registry]\nsynthetic = true\n'
        f'[[readers]]\nbackend = "pn532"\nname = "favor"\nport = "{port}"\nrole = "favor"\n'
    )
    return config_from_text(text + extra, base=tmp_path)


def uart(tmp_path: Path, model: str, port: str, boot: str, cmdline: str = GOOD_CMDLINE):
    root = tmp_path / f"pi{len(list(tmp_path.iterdir()))}"
    machine = fake_pi(root, model=model, boot=boot, cmdline=cmdline)
    return next(Doctor(tmp_path / "x.toml", machine).uart(pn532(tmp_path, port)))


@pytest.mark.parametrize("model", [PI3, PI4, ZERO2])
def test_bluetooth_boards_put_the_mini_uart_on_the_header(tmp_path, model):
    # ttyAMA0 is Bluetooth there: the docs' old advice is refused, naming ttyS0 and disable-bt
    wrong = uart(tmp_path, model, "/dev/ttyAMA0", "enable_uart=1\n")
    assert not wrong.ok and "Bluetooth" in wrong.detail and "/dev/ttyS0" in wrong.detail
    assert wrong.fix.startswith('port = "/dev/ttyS0" in [[readers]] favor with enable_uart=1')
    assert "dtoverlay=disable-bt" in wrong.fix and "hciuart" in wrong.fix
    # ttyS0 (and serial0, its link) with enable_uart=1 is right
    assert uart(tmp_path, model, "/dev/ttyS0", "enable_uart=1\n").ok
    assert uart(tmp_path, model, "/dev/serial0", "enable_uart=1\n").ok
    off = uart(tmp_path, model, "/dev/ttyS0", "dtparam=spi=on\n")
    assert not off.ok and "mini UART" in off.detail and off.fix.startswith("add enable_uart=1")
    # with disable-bt the PL011 is back on GPIO14/15, and ttyS0 is not
    assert uart(tmp_path, model, "/dev/ttyAMA0", "dtoverlay=disable-bt\n").ok
    moved = uart(tmp_path, model, "/dev/ttyS0", "enable_uart=1\ndtoverlay=disable-bt\n")
    assert not moved.ok and moved.fix == 'port = "/dev/ttyAMA0" in [[readers]] favor'
    # the console on serial0 is on the header there: a clash, whichever name the port has
    clash = uart(tmp_path, model, "/dev/ttyS0", "enable_uart=1\n", SERIAL_CONSOLE)
    assert not clash.ok and "console=serial0,115200" in clash.detail and "raspi-config" in clash.fix


def test_pi5_header_uart_is_ttyama0_and_its_console_is_the_debug_connector(tmp_path):
    good = uart(tmp_path, PI5, "/dev/ttyAMA0", "dtparam=uart0=on\n", SERIAL_CONSOLE)
    assert good.ok, good  # console=serial0 is ttyAMA10 on a Pi 5: no false ✗
    assert "GPIO14/15 on a Pi 5" in good.detail
    assert uart(tmp_path, PI5, "/dev/ttyAMA0", "dtoverlay=uart0-pi5\n").ok
    off = uart(tmp_path, PI5, "/dev/ttyAMA0", "dtparam=spi=on\n")
    assert not off.ok and off.fix.startswith("add dtparam=uart0=on to /boot/firmware/config.txt")
    serial0 = uart(tmp_path, PI5, "/dev/serial0", "dtparam=uart0=on\n")
    assert not serial0.ok and "debug connector" in serial0.detail
    mini = uart(tmp_path, PI5, "/dev/ttyS0", "dtparam=uart0=on\n")
    assert not mini.ok and "no mini UART" in mini.detail
    real = uart(tmp_path, PI5, "/dev/ttyAMA0", "dtparam=uart0=on\n", "console=ttyAMA0,115200\n")
    assert not real.ok and "owns /dev/ttyAMA0" in real.detail


def test_config_txt_before_bookworm_is_read_from_boot(tmp_path):
    machine = fake_pi(tmp_path / "old", model=PI4, boot="")
    (machine.root / "boot" / "firmware" / "config.txt").unlink()
    (machine.root / "boot" / "config.txt").write_text("enable_uart=1\n")
    check = next(Doctor(tmp_path / "x.toml", machine).uart(pn532(tmp_path, "/dev/ttyAMA0")))
    assert not check.ok and "enable_uart=1 in /boot/config.txt" in check.fix


def test_not_a_raspberry_pi_is_said_with_what_was_checked_anyway(tmp_path):
    laptop = Machine(tmp_path / "laptop")
    assert not laptop.board().is_pi
    plain = pn532(tmp_path, "/dev/ttyUSB0", '[gpio]\npin_factory = "mock"\n')
    board = next(Doctor(tmp_path / "x.toml", laptop).board(plain))
    assert board.ok and board.detail.startswith("this is not a Raspberry Pi")
    assert (
        "checked anyway: the config" in board.detail and "not checked: config.txt" in board.detail
    )
    needs = pn532(tmp_path, "/dev/ttyAMA0", '[display]\ndriver = "inky"\n[gpio]\nenabled = false\n')
    check = next(Doctor(tmp_path / "x.toml", laptop).board(needs))
    assert not check.ok and "the inky panel, a PN532 on the header UART" in check.detail
    assert (
        next(Doctor(tmp_path / "x.toml", laptop).uart(needs)).detail
        == "not checked (not a Raspberry Pi)"
    )
    assert list(Doctor(tmp_path / "x.toml", laptop).power_supply(needs)) == []


@pytest.mark.parametrize(
    ("value", "ok", "words"),
    [
        ("throttled=0x0", True, "no under-voltage"),
        ("throttled=0x50005", False, "under-voltage now; throttled now"),
        ("throttled=0x80000", False, "soft temperature limit"),
    ],
)
def test_the_supply_from_get_throttled(tmp_path, value, ok, words):
    machine = fake_pi(tmp_path / "pi", model=PI5)
    d = Doctor(tmp_path / "x.toml", machine, throttled=lambda: value + "\n")
    check = next(d.power_supply(pn532(tmp_path, "/dev/ttyUSB0")))
    assert check.ok is ok and words in check.detail
    if value == "throttled=0x50005":
        assert "27 W USB-C supply (5.1 V, 5 A)" in check.fix
    if value == "throttled=0x80000":
        assert check.fix.startswith("cool the Pi")


class Repl:
    """A pty where a MicroPython REPL sits: every line it gets is answered with ``>>> ``."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.stop = False
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self) -> None:
        while not self.stop:
            try:
                data = os.read(self.master, 1024)
            except OSError:
                return
            if b"\r" in data or b"\n" in data:
                os.write(self.master, b"\r\n>>> ")

    def close(self) -> None:
        self.stop = True
        os.close(self.slave)
        os.close(self.master)


def hub_config(tmp_path: Path, port: str, roles: str = "") -> object:
    text = (
        '[table]\nfile = "t.toml"\n[registry]\nsynthetic = true\n[gpio]\nenabled = false\n'
        f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{port}"\n{roles}'
    )
    return config_from_text(text, base=tmp_path)


def test_a_hub_at_the_repl_is_in_maintenance_not_dead(tmp_path):
    repl = Repl()
    try:
        cfg = hub_config(tmp_path, repl.port)
        check = next(Doctor(tmp_path / "x.toml", timeout=1).readers(cfg))
    finally:
        repl.close()
    assert not check.ok and check.detail.startswith("in maintenance:")
    assert f"run `.venv/bin/mpremote connect {repl.port} reset`" in check.fix


def test_roles_on_channels_the_hub_does_not_report(tmp_path):
    with HubEmulator(tmp_path / "by-id" / "hub", channels=4) as hub:
        cfg = hub_config(tmp_path, str(hub.link), 'roles = { 4 = "favor", 5 = "time" }\n')
        d = Doctor(tmp_path / "x.toml", timeout=3)
        check = next(d.readers(cfg))
        power = next(d.reader_power(cfg))
    assert not check.ok and "roles to channel 4 (favor), 5 (time)" in check.detail
    assert check.fix.startswith('set CONFIG["channels"] = 6 in firmware_bridge/firmware/hubmain.py')
    assert power.ok and "4 MFRC522" in power.detail


def test_the_power_budget_advises_a_regulator_past_300_ma(tmp_path):
    cfg = hub_config(tmp_path, "/dev/null")
    d = Doctor(tmp_path / "x.toml")
    d.hubs["draw-board"] = (6, "1.1.0")  # every antenna on: 6 × (100 + 16.5)
    old = next(d.reader_power(cfg))
    assert not old.ok and "at most ≈699 mA" in old.detail
    assert old.fix.startswith("update the hub firmware") and "own 3.3 V regulator" in old.fix
    d.hubs["draw-board"] = (16, "1.2.0")  # one antenna, but sixteen boards idling
    many = next(d.reader_power(cfg))
    assert not many.ok and many.fix.startswith("give the readers their own 3.3 V regulator")
    d.hubs.clear()  # no answer: the firmware's default, six readers
    assert "6 MFRC522" in next(d.reader_power(cfg)).detail


def test_device_checks_run_in_a_child_under_the_given_prefix(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    path = tmp_path / "rhuna.toml"
    path.write_text(
        f'[table]\nfile = "t.toml"\n[state]\ndir = "{state}"\n[gpio]\nenabled = false\n'
    )
    machine = fake_pi(tmp_path / "pi", model=PI5)
    checks = Doctor(path, machine, as_user=[], throttled=lambda: None).run()
    names = [c.name for c in checks]
    assert "service user" not in names  # [] is "this process"
    via = Doctor(path, machine, as_user=["env", "RHUNA_DOCTOR_CHILD=1"], throttled=lambda: None)
    found = {c.name: c for c in via.run()}
    assert found["service user"].ok and "(env RHUNA_DOCTOR_CHILD=1)" in found["service user"].detail
    assert found["state dir"].ok and found["readers"].ok
    runuser = shutil.which("runuser")
    if runuser and os.geteuid() == 0:  # the real runuser (as root: the venv's python is root's)
        real = {
            c.name: c for c in Doctor(path, machine, as_user=[runuser, "-u", "root", "--"]).run()
        }
        assert real["service user"].ok and real["state dir"].ok
    broken = Doctor(path, machine, as_user=["false"], throttled=lambda: None).run()
    bad = {c.name: c for c in broken}["service user"]
    assert not bad.ok and "sudo -u rhuna rhuna-table doctor" in bad.fix


def test_root_on_the_pi_itself_checks_devices_as_the_service_user(tmp_path, monkeypatch):
    import pwd

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    user = pwd.getpwuid(os.getuid()).pw_name if os.getuid() != 0 else "nobody"
    prefix = _runuser_prefix(Doctor(tmp_path / "x.toml", Machine(Path("/")), user=user))
    assert prefix is not None and prefix[1:] == ["-u", user, "--"]
    assert _runuser_prefix(Doctor(tmp_path / "x.toml", Machine(tmp_path), user=user)) is None
    assert _runuser_prefix(Doctor(tmp_path / "x.toml", Machine(Path("/")), user="no-such")) is None
