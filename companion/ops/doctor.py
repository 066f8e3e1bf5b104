"""``rhuna-table doctor``: what a newcomer gets wrong on a first Pi, each found and said how to fix.

Every check is one :class:`Check` (a name, ✓ or ✗, what it found, the fix). The
checks read the machine through :class:`Machine`, whose ``root`` is ``/`` on a
Pi and a folder holding a fake ``/proc``, ``/sys``, ``/boot/firmware`` and
``/etc`` in the tests. Serial ports, the broker and the state directory are
the real ones the config names.

What is checked (docs/hardware.md, "doctor"):

* the config loads (``check-config`` says more);
* the board (``/proc/device-tree/model``); off a Pi it says so, and what it checked anyway;
* SPI is on, with the overlay the chosen panel needs (Inky: ``dtoverlay=spi0-0cs``,
  as inky 2.x drives GPIO8 itself; Waveshare: without it, the kernel drives CE0), and
  I2C for the Inky's EEPROM;
* for a PN532 on the header: the device that is GPIO14/15 on *this* board
  (:mod:`companion.ops.board`: ttyS0 on a Pi 3, Pi 4 or Zero 2 W unless
  ``dtoverlay=disable-bt``; ttyAMA0 with ``dtparam=uart0=on`` on a Pi 5), no serial console on it;
* the pin plan (:mod:`hardware.pins`): no switch on a pin the panel, SPI or the UART holds;
* the service user is in the groups its devices need (dialout, gpio, spi, i2c);
* the supply: ``vcgencmd get_throttled`` (under-voltage, throttling);
* each reader's device is there and opens; a hub says hello, and its protocol,
  firmware and chip versions are reported, its faulty channels named, the config's roles
  held against the channels it reports; a hub at the REPL is "in maintenance";
* the readers' draw against the Pico's 3V3(OUT);
* the panel is detected (an Inky's EEPROM) or its model is set;
* the gpiozero pin factory starts (lgpio on a Pi 5);
* the broker takes the configured account;
* the state directory is writable and has room.

Run as root on the Pi, the port and state-directory checks run as the service's user
(``runuser -u rhuna --``, a child ``python -m companion.ops.doctor --devices``), so they
find what the unit would. Another module's check (a venue bridge's) is one more step
in :meth:`Doctor.run`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion.ops.board import Board, board_of, console_devices, header_uart, resolve
from settings.errors import ConfigError

#: the state directory needs at least this much free space (the journal, snapshots, frames)
MIN_FREE_BYTES = 200 * 1024 * 1024
#: ``vcgencmd get_throttled`` bits (Raspberry Pi documentation, "vcgencmd", get_throttled)
THROTTLED_BITS = {
    0: "under-voltage now",
    1: "ARM frequency capped now",
    2: "throttled now",
    3: "soft temperature limit active",
    16: "under-voltage has occurred since boot",
    17: "ARM frequency capping has occurred",
    18: "throttling has occurred",
    19: "the soft temperature limit has been reached",
}
#: MFRC522 datasheet (NXP rev. 3.9, Table 1): transmitter with the field on, typical / max (mA)
FIELD_MA = (60, 100)
#: the chip running with its field off: IDDD 6.5 mA typical + IDDA 7/10 mA (typical / max)
IDLE_MA = (13.5, 16.5)
#: the Pico datasheet's guidance for what 3V3(OUT) may feed
PICO_3V3_MA = 300
#: what MicroPython's REPL prints when it waits for a line
REPL_PROMPT = b">" * 3 + b" "
#: firmware from which only the polled reader's antenna is on (issue 30)
ONE_FIELD_FIRMWARE = (1, 2, 0)


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: ``ok`` or not, what was found, and (when not ok) what to do."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        text = f"{mark} {self.name}: {self.detail}"
        return text if self.ok or not self.fix else f"{text} — fix: {self.fix}"


@dataclass
class Machine:
    """The Pi as the checks see it; ``root`` is where ``/proc``, ``/sys``, ``/boot``, ``/etc`` live."""

    root: Path = Path("/")

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def read(self, absolute: str) -> str | None:
        try:
            return self.path(absolute).read_text(errors="replace")
        except OSError:
            return None

    def config_txt(self) -> tuple[str, BootConfig]:
        for name in ("/boot/firmware/config.txt", "/boot/config.txt"):
            text = self.read(name)
            if text is not None:
                return name, BootConfig.parse(text)
        return "/boot/firmware/config.txt", BootConfig.parse("")

    def model(self) -> str:
        for name in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
            text = self.read(name)
            if text:
                return text.replace("\x00", "").strip()
        return ""

    @property
    def is_pi5(self) -> bool:
        return self.board().kind == "pi5"

    def board(self) -> Board:
        return board_of(self.model())

    def cmdline(self) -> str:
        return self.read("/proc/cmdline") or ""

    def groups_of(self, user: str) -> set[str] | None:
        """The groups ``user`` is in (from /etc/group and its primary group); None: no such user."""
        passwd = self.read("/etc/passwd") or ""
        group = self.read("/etc/group") or ""
        primary = None
        for line in passwd.splitlines():
            parts = line.split(":")
            if len(parts) > 3 and parts[0] == user:
                primary = parts[3]
        if primary is None:
            return None
        found = set()
        for line in group.splitlines():
            parts = line.split(":")
            if len(parts) < 4:
                continue
            if parts[2] == primary or user in parts[3].split(","):
                found.add(parts[0])
        return found


@dataclass
class BootConfig:
    """The lines of config.txt that matter here (every ``[section]`` filter taken as applying)."""

    params: dict[str, str] = field(default_factory=dict)
    overlays: set[str] = field(default_factory=set)
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> BootConfig:
        cfg = cls()
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line or line.startswith("[") or "=" not in line:
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            if key == "dtparam":
                for item in value.split(","):
                    name, _, setting = item.partition("=")
                    cfg.params[name.strip()] = setting.strip() or "on"
            elif key == "dtoverlay":
                cfg.overlays.add(value.split(",", 1)[0].strip())
            else:
                cfg.settings[key] = value
        return cfg

    def on(self, param: str) -> bool:
        return self.params.get(param, "off") in ("on", "1", "true", "yes")


# --- the checks ---------------------------------------------------------------------------------


@dataclass
class Doctor:
    """Runs every check for one config on one machine. ``inky_eeprom`` reads the Inky's EEPROM."""

    config_path: Path
    machine: Machine = field(default_factory=Machine)
    user: str = "rhuna"
    timeout: float = 5.0
    inky_eeprom: Callable[[], Any] | None = None
    #: ``vcgencmd get_throttled``'s output (None: not read); default: run it on a Pi
    throttled: Callable[[], str | None] | None = None
    #: the command prefix the device checks run under (``runuser -u rhuna --``); None: this
    #: process. Default: that prefix when run as root on the Pi itself, else None
    as_user: list[str] | None = None
    hubs: dict[str, tuple[int, str]] = field(default_factory=dict)

    def run(self) -> list[Check]:
        from companion.config import load_config

        try:
            cfg = load_config(self.config_path)
        except ConfigError as e:
            first = str(e).splitlines()[0]
            return [
                Check(
                    "config",
                    False,
                    first,
                    f"rhuna-table check-config {self.config_path} lists every problem",
                )
            ]
        checks = [Check("config", True, f"{self.config_path} loads")]
        prefix = self.as_user if self.as_user is not None else _runuser_prefix(self)
        devices = (self.readers, self.state_dir)
        for step in (
            self.board,
            self.spi,
            self.uart,
            self.layout,
            self.groups,
            self.power_supply,
            self.readers,
            self.reader_power,
            self.panel,
            self.pins,
            self.broker,
            self.venue_bridge,
            self.state_dir,
        ):
            if step == self.readers and prefix:
                checks.extend(self.as_service_user(prefix))
            elif prefix and step in devices:
                continue
            else:
                checks.extend(step(cfg))
        return checks

    def device_checks(self) -> dict[str, Any]:
        """The checks that depend on who runs them (ports, the state dir), for ``--devices``."""
        from companion.config import load_config

        cfg = load_config(self.config_path)
        checks = [*self.readers(cfg), *self.state_dir(cfg)]
        return {"checks": [asdict(c) for c in checks], "hubs": self.hubs}

    def as_service_user(self, prefix: list[str]) -> Iterator[Check]:
        """The device checks in a child run as the service's user, as the unit runs them."""
        argv = [*prefix, sys.executable, "-m", "companion.ops.doctor", "--devices"]
        argv += [str(self.config_path), "--timeout", str(self.timeout), "--user", self.user]
        who = " ".join(prefix)
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=self.timeout * 8 + 30
            )
            found = json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            tail = getattr(e, "stderr", None) or str(e)
            yield Check(
                "service user",
                False,
                f"the device checks as {self.user} ({who}) did not run: {str(tail)[-200:]}",
                f"check that {self.user} can read {self.config_path}; or run doctor as that user:"
                f" sudo -u {self.user} rhuna-table doctor {self.config_path}",
            )
            return
        yield Check("service user", True, f"ports and the state dir checked as {self.user} ({who})")
        self.hubs.update({k: (int(v[0]), str(v[1])) for k, v in found.get("hubs", {}).items()})
        for c in found["checks"]:
            yield Check(c["name"], bool(c["ok"]), c["detail"], c.get("fix", ""))

    # the board, its supply, the pin plan --------------------------------------------------

    def board(self, cfg: Any) -> Iterator[Check]:
        board = self.machine.board()
        if board.is_pi:
            yield Check("board", True, board.model)
            return
        needs = _pi_only(cfg)
        checked = (
            "the config, the pin plan, the groups, the readers' ports, the broker, the state dir"
        )
        skipped = "config.txt (SPI, I²C, the UART) and the supply (get_throttled)"
        detail = (
            f"this is not a Raspberry Pi (no Raspberry Pi in /proc/device-tree/model);"
            f" checked anyway: {checked}; not checked: {skipped}"
        )
        if needs:
            yield Check(
                "board",
                False,
                f"{detail}; the config needs a Pi for {', '.join(needs)}",
                'run doctor on the Pi itself (or, to try it here: [display] driver = "png",'
                ' [gpio] pin_factory = "mock", readers on USB)',
            )
        else:
            yield Check("board", True, detail)

    def power_supply(self, cfg: Any) -> Iterator[Check]:
        board = self.machine.board()
        if not board.is_pi:
            return
        read = self.throttled or _vcgencmd_throttled
        try:
            text = read()
        except (OSError, subprocess.SubprocessError) as e:
            text, why = None, str(e)
        else:
            why = "vcgencmd is not installed (sudo apt install libraspberrypi-bin)"
        if text is None:
            yield Check("supply", True, f"not read: {why}")
            return
        try:
            value = int(text.strip().split("=", 1)[-1], 0)
        except ValueError:
            yield Check("supply", True, f"not read: get_throttled said {text.strip()!r}")
            return
        flags = [what for bit, what in THROTTLED_BITS.items() if value >> bit & 1]
        if not flags:
            yield Check("supply", True, f"no under-voltage or throttling since boot ({value:#x})")
            return
        supply = (
            "the official 27 W USB-C supply (5.1 V, 5 A)"
            if board.kind == "pi5"
            else "a 5.1 V supply of 3 A (the official 15 W USB-C one for a Pi 4; 2.5 A for a Pi 3"
            " or Zero 2 W)"
        )
        volts = value & 0x10001
        fix = (
            f"use {supply} and a short, thick cable; feed the readers from their own 3.3 V"
            " regulator, not the Pi's 3.3 V pin"
            if volts
            else "cool the Pi (a heatsink or the active cooler; free air around the case)"
        )
        yield Check("supply", False, f"get_throttled={value:#x}: {'; '.join(flags)}", fix)

    def layout(self, cfg: Any) -> Iterator[Check]:
        from hardware.pins import conflicts, header_uart_wanted, label, wired

        uart = header_uart_wanted(cfg.readers)
        clashes = conflicts(cfg.gpio, cfg.display.driver, uart)
        if clashes:  # check-config refuses these too; kept for a config loaded another way
            for c in clashes:
                yield Check("pins", False, f"{c.key}: {c.problem}", c.fix)
            return
        mine = wired(cfg.gpio)
        if not mine:
            yield Check("pins", True, "no wheel or buttons ([gpio] enabled = false)")
            return
        held = f"the {cfg.display.driver} panel" + (" and the UART" if uart else "")
        pins = ", ".join(label(n) for _, n in mine)
        yield Check(
            "pins", True, f"{len(mine)} switches, each its own pin, clear of {held}: {pins}"
        )

    # SPI, I2C and the panel ------------------------------------------------------------------

    def spi(self, cfg: Any) -> Iterator[Check]:
        driver = cfg.display.driver
        if driver not in ("inky", "waveshare"):
            yield Check("spi", True, f"not needed (display driver {driver})")
            return
        if not self.machine.board().is_pi:
            yield Check("spi", True, "not checked (not a Raspberry Pi)")
            return
        where, boot = self.machine.config_txt()
        if not boot.on("spi"):
            yield Check(
                "spi",
                False,
                f"SPI is off ({where} has no dtparam=spi=on)",
                f"add dtparam=spi=on to {where} (or raspi-config: Interface Options > SPI), reboot",
            )
            return
        if driver == "inky" and "spi0-0cs" not in boot.overlays:
            yield Check(
                "spi",
                False,
                "SPI is on, but the kernel holds GPIO8 as its chip select; inky 2.x needs it",
                f"add dtoverlay=spi0-0cs to {where} and reboot",
            )
        elif driver == "waveshare" and "spi0-0cs" in boot.overlays:
            yield Check(
                "spi",
                False,
                "dtoverlay=spi0-0cs removes the chip select the Waveshare HAT uses (CE0)",
                f"remove dtoverlay=spi0-0cs from {where} and reboot",
            )
        elif not self.machine.path("/dev/spidev0.0").exists():
            yield Check(
                "spi",
                False,
                f"{where} turns SPI on but /dev/spidev0.0 is missing",
                "reboot after changing config.txt",
            )
        else:
            overlay = " + dtoverlay=spi0-0cs" if driver == "inky" else ""
            yield Check("spi", True, f"dtparam=spi=on{overlay}, /dev/spidev0.0 present")
        if driver == "inky":
            if not boot.on("i2c_arm") or not self.machine.path("/dev/i2c-1").exists():
                yield Check(
                    "i2c",
                    False,
                    "I2C is off: the Inky's EEPROM (its size and colour) cannot be read",
                    f"add dtparam=i2c_arm=on to {where} and reboot",
                )
            else:
                yield Check("i2c", True, "dtparam=i2c_arm=on, /dev/i2c-1 present")

    def panel(self, cfg: Any) -> Iterator[Check]:
        display = cfg.display
        if display.driver == "png":
            yield Check("panel", True, "png: frames are written as files, nothing to detect")
        elif display.driver == "waveshare":
            model = display.options.get("model")
            yield Check(
                "panel", True, f"Waveshare {model} (set in config: these cannot be detected)"
            )
        else:
            read = self.inky_eeprom or _read_inky_eeprom
            try:
                found = read()
            except Exception as e:  # smbus2 missing, the bus absent: said, not raised
                found, why = None, f"{type(e).__name__}: {e}"
            else:
                why = "no answer at I2C address 0x50"
            if found is None:
                yield Check(
                    "panel",
                    False,
                    f"no Inky EEPROM found ({why})",
                    "seat the HAT on all 40 pins, turn I2C on (dtparam=i2c_arm=on), and check"
                    " `i2cdetect -y 1` shows 50",
                )
            else:
                yield Check("panel", True, f"Inky detected: {found}")

    # serial ports ---------------------------------------------------------------------------

    def uart(self, cfg: Any) -> Iterator[Check]:
        pn532 = [r for r in cfg.readers if r.backend == "pn532"]
        header = [r for r in pn532 if _on_header(r.port or "")]
        if not header:
            detail = "no PN532 on the Pi's UART" if not pn532 else "PN532 on a USB adapter"
            yield Check("uart", True, f"not needed ({detail})")
            return
        board = self.machine.board()
        if not board.is_pi:
            yield Check("uart", True, "not checked (not a Raspberry Pi)")
            return
        for r in header:
            yield self.uart_of(r, board)

    def uart_of(self, r: Any, board: Board) -> Check:
        """One PN532 on the header: the device that really is GPIO14/15 here, the console, on."""
        where, boot = self.machine.config_txt()
        name, port, on = f"uart {r.name}", r.port, board.short
        device = resolve(port, board, boot.overlays)
        header = header_uart(board, boot.overlays)
        use = f'port = "{header}" in [[readers]] {r.name}'
        if board.kind == "pi5" and device == "/dev/ttyAMA10":
            return Check(
                name,
                False,
                "on a Pi 5 /dev/serial0 is the debug connector (ttyAMA10), not the header pins",
                f"{use}, and dtparam=uart0=on in {where}",
            )
        if device != header:
            if board.kind == "bluetooth" and device == "/dev/ttyAMA0":
                why = f"on a {on} /dev/ttyAMA0 is the Bluetooth UART; GPIO14/15 are /dev/ttyS0"
                fix = (
                    f"{use} with enable_uart=1 in {where}; or, for the full UART on the pins,"
                    f" dtoverlay=disable-bt in {where}, sudo systemctl disable hciuart, reboot"
                )
            elif board.kind == "bluetooth":
                why = f"with dtoverlay=disable-bt, GPIO14/15 of a {on} are /dev/ttyAMA0, not {port}"
                fix = use
            else:
                why = f"a {on} has no mini UART on its header: GPIO14/15 are /dev/ttyAMA0"
                fix = use
            return Check(name, False, why, fix)
        clash = [
            w
            for w, dev in console_devices(self.machine.cmdline(), board, boot.overlays)
            if dev == device
        ]
        if clash:
            return Check(
                name,
                False,
                f"the serial console ({clash[0]}) owns {device}, the UART {port} is on",
                "sudo raspi-config: Interface Options > Serial Port > login shell No,"
                " hardware Yes; reboot",
            )
        if board.kind == "pi5":
            if not (boot.on("uart0") or boot.overlays & {"uart0", "uart0-pi5"}):
                return Check(
                    name,
                    False,
                    "the header UART of a Pi 5 is off",
                    f"add dtparam=uart0=on to {where} and reboot",
                )
        elif device == "/dev/ttyS0" and boot.settings.get("enable_uart") != "1":
            return Check(
                name,
                False,
                f"the mini UART (/dev/ttyS0, GPIO14/15 of a {on}) is off",
                f"add enable_uart=1 to {where} (raspi-config: Serial Port hardware Yes), reboot",
            )
        elif boot.settings.get("enable_uart") == "0":
            return Check(
                name, False, f"{where} turns the UART off (enable_uart=0)", "enable_uart=1, reboot"
            )
        return Check(name, True, f"{port} is GPIO14/15 on a {on}; no serial console on it, UART on")

    def groups(self, cfg: Any) -> Iterator[Check]:
        needed = []
        if any(r.backend != "emulated-hub" for r in cfg.readers):
            needed.append("dialout")
        if cfg.gpio is not None:
            needed.append("gpio")
        if cfg.display.driver in ("inky", "waveshare"):
            needed += ["spi", "gpio"]
        if cfg.display.driver == "inky":
            needed.append("i2c")
        needed = list(dict.fromkeys(needed))
        if not needed:
            yield Check("groups", True, "no device needs a group (emulated readers, png panel)")
            return
        have = self.machine.groups_of(self.user)
        if have is None:
            yield Check(
                "groups",
                False,
                f"there is no user {self.user!r} to run the service",
                "sudo systemd/install.sh creates it (or pass --user NAME)",
            )
            return
        missing = [g for g in needed if g not in have]
        if missing:
            yield Check(
                "groups",
                False,
                f"{self.user} is not in {', '.join(missing)}",
                f"sudo usermod -aG {','.join(missing)} {self.user}; then restart the service",
            )
        else:
            yield Check("groups", True, f"{self.user} is in {', '.join(needed)}")

    def readers(self, cfg: Any) -> Iterator[Check]:
        if not cfg.readers:
            yield Check("readers", True, "none configured (GPIO and MQTT only)")
        for r in cfg.readers:
            yield self.reader(r)

    def reader(self, r: Any) -> Check:
        name = f"reader {r.name}"
        if r.backend == "emulated-hub":
            return Check(name, True, "emulated hub (no device)")
        port = str(r.port)
        if "://" not in port and not os.path.exists(port):
            return Check(
                name,
                False,
                f"{port} does not exist",
                "plug it in; ls /dev/serial/by-id/ lists the names that survive a replug",
            )
        baud = r.baudrate
        problem = _opens(port, baud)
        if problem is not None:
            return Check(name, False, f"{port} does not open: {problem}", _open_fix(problem))
        if r.backend == "hub":
            return self.hub(name, port, baud, r)
        if r.backend == "pn532":
            return self.pn532(name, port, baud)
        return Check(name, True, f"{port} opens (a line reader says nothing until a tag)")

    def hub(self, name: str, port: str, baud: int, r: Any = None) -> Check:
        from firmware_bridge.hub import HubReader

        statuses: list[str] = []
        with HubReader(
            port, sink=lambda e: None, baudrate=baud, on_status=lambda s: statuses.append(s.detail)
        ) as hub:
            online = hub.wait_online(self.timeout) and hub.info is not None
            info = hub.info
            if online and info is not None:
                _wait_for(lambda: len(hub.chips) >= info.channels, self.timeout)
            chips_seen = dict(hub.chips)
            faults = [ch for ch, bad in sorted(hub.channel_faults.items()) if bad]
        if not online or info is None:
            if _at_repl(port, baud):
                mpremote = f".venv/bin/mpremote connect {port}"
                return Check(
                    name,
                    False,
                    f"in maintenance: the hub on {port} is at the MicroPython REPL ({REPL_PROMPT.decode()})",
                    f"run `{mpremote} reset` to start it, once its files are copied"
                    f" (docs/hardware.md, section 4); `{mpremote} cat :restart.txt` says why"
                    " it stopped, if it did not restart",
                )
            why = statuses[-1] if statuses else "no hello"
            return Check(
                name,
                False,
                f"no hub answered on {port} ({why})",
                "flash the hub firmware (docs/hardware.md) and check it is the hub's port",
            )
        self.hubs[r.name if r is not None else name] = (info.channels, str(info.firmware_version))
        chips = " ".join(f"{chips_seen.get(ch, 0):#04x}" for ch in range(info.channels))
        detail = (
            f"hub {info.hub_id}, protocol {info.protocol}, firmware {info.firmware_version},"
            f" {info.channels} channels, chips {chips}"
        )
        roles = r.roles if r is not None and not isinstance(r.roles, str) else {}
        beyond = sorted(ch for ch in roles if ch >= info.channels)
        if beyond:
            listed = ", ".join(f"{ch} ({roles[ch]})" for ch in beyond)
            return Check(
                name,
                False,
                f"{detail}; the config gives roles to channel {listed}, which the hub does not"
                " have",
                f'set CONFIG["channels"] = {max(beyond) + 1} in firmware_bridge/firmware/hubmain.py'
                " (each channel a chip select, docs/hardware.md section 2) and copy it to the hub"
                f" again; or move those roles to channels 0 to {info.channels - 1}",
            )
        if faults:
            listed = ", ".join(str(ch) for ch in faults)
            return Check(
                name,
                False,
                f"{detail}; reader fault on channel {listed}",
                "check that reader's wiring (3.3 V, GND, SCK/MOSI/MISO, its CS pin); a missing"
                " board reads 0xFF",
            )
        if roles:
            detail += "; roles " + ", ".join(f"{ch} {role}" for ch, role in sorted(roles.items()))
        return Check(name, True, detail)

    def reader_power(self, cfg: Any) -> Iterator[Check]:
        """Each hub's readers on the Pico's 3V3(OUT), against its guidance of under 300 mA."""
        for r in cfg.readers:
            if r.backend != "hub":
                continue
            channels, firmware = self.hubs.get(r.name, (0, ""))
            if not channels:
                listed = list(r.roles) if not isinstance(r.roles, str) else []
                channels = max([*listed, 5]) + 1  # the firmware's default: 6
            one_field = _version(firmware) >= ONE_FIELD_FIRMWARE if firmware else True
            if one_field:
                typ = FIELD_MA[0] + channels * IDLE_MA[0]
                worst = FIELD_MA[1] + channels * IDLE_MA[1]
                how = "one antenna on at a time"
            else:
                typ = channels * (FIELD_MA[0] + IDLE_MA[0])
                worst = channels * (FIELD_MA[1] + IDLE_MA[1])
                how = f"firmware {firmware} keeps every antenna on"
            detail = (
                f"{r.name}: {channels} MFRC522 ({how}) draw ≈{typ:.0f} mA, at most"
                f" ≈{worst:.0f} mA from the Pico's 3V3(OUT) (guidance: under {PICO_3V3_MA} mA;"
                f" {FIELD_MA[0]}/{FIELD_MA[1]} mA per field, datasheet)"
            )
            if worst <= PICO_3V3_MA:
                yield Check("reader power", True, detail)
            else:
                fix = (
                    "give the readers their own 3.3 V regulator (≥ 500 mA, fed from 5 V; GND common"
                )
                fix += " with the Pico), and leave 3V3(OUT) unconnected to them"
                if not one_field:
                    fix = "update the hub firmware (1.2: one antenna at a time), or " + fix
                yield Check("reader power", False, detail, fix)

    def pn532(self, name: str, port: str, baud: int) -> Check:
        from firmware_bridge.pn532 import PN532Reader

        with PN532Reader(port, sink=lambda e: None, baudrate=baud) as reader:
            online = reader.wait_online(self.timeout)
            firmware = reader.firmware
        if not online or firmware is None:
            return Check(
                name,
                False,
                f"no PN532 answered on {port}",
                "set both mode switches to HSU (off), cross TX/RX, 115200 baud",
            )
        return Check(name, True, f"PN532 firmware {firmware[1]}.{firmware[2]} on {port}")

    # GPIO, MQTT, the state directory -----------------------------------------------------------

    def pins(self, cfg: Any) -> Iterator[Check]:
        if cfg.gpio is None:
            yield Check("pin factory", True, "not needed ([gpio] enabled = false)")
            return
        from hardware.controls import make_pin_factory

        name = cfg.gpio.pin_factory
        if self.machine.is_pi5 and name not in (None, "lgpio", "mock"):
            yield Check(
                "pin factory",
                False,
                f"{name} does not work on a Pi 5 (its edge detection fails there)",
                'pin_factory = "lgpio" in [gpio] (apt install python3-lgpio)',
            )
            return
        try:
            factory = make_pin_factory(name)
            if factory is None:
                from gpiozero import Device  # type: ignore[import-untyped]

                factory = Device._default_pin_factory()
        except ConfigError as e:
            yield Check(
                "pin factory",
                False,
                str(e).split(" — ")[0],
                'apt install python3-lgpio; pin_factory = "lgpio" in [gpio]',
            )
            return
        except Exception as e:  # gpiozero's own "no pin factory could be loaded"
            yield Check(
                "pin factory",
                False,
                f"gpiozero found no working pin factory ({type(e).__name__}: {e})",
                'apt install python3-lgpio; pin_factory = "lgpio" in [gpio]',
            )
            return
        kind = type(factory).__name__
        factory.close()
        yield Check("pin factory", True, f"{kind} starts")

    def broker(self, cfg: Any) -> Iterator[Check]:
        from companion.mqtt.config import load_mqtt_config

        mqtt_cfg = load_mqtt_config(cfg.mqtt, str(cfg.source))
        if not cfg.mqtt or not mqtt_cfg.enabled:
            yield Check("broker", True, "not needed (no [mqtt])")
            return
        where = f"{mqtt_cfg.host}:{mqtt_cfg.broker_port}"
        who = f" as {mqtt_cfg.username}" if mqtt_cfg.username else " (anonymous)"
        problem = _mqtt_login(mqtt_cfg, self.timeout)
        if problem is None:
            yield Check("broker", True, f"{where} takes the login{who}")
        elif "refused" in problem or "not authorised" in problem.lower() or "bad user" in problem:
            yield Check(
                "broker",
                False,
                f"{where} refuses the login{who}: {problem}",
                "check [mqtt] username and password (or password_file) against the broker's"
                " password file (rhuna-table accounts)",
            )
        else:
            yield Check(
                "broker",
                False,
                f"{where} does not answer: {problem}",
                "start Mosquitto (sudo systemctl enable --now mosquitto) or fix [mqtt] host/port",
            )

    def venue_bridge(self, cfg: Any) -> Iterator[Check]:
        from companion.mqtt.config import load_mqtt_config
        from companion.ops.bridge_check import BRIDGE_CONF, venue_bridge

        mqtt_cfg = load_mqtt_config(cfg.mqtt, str(cfg.source)) if cfg.mqtt else None
        yield from venue_bridge(self.machine.path(BRIDGE_CONF), mqtt_cfg, self.timeout)

    def state_dir(self, cfg: Any) -> Iterator[Check]:
        path = Path(cfg.state_dir)
        existing = path
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        try:
            free = shutil.disk_usage(existing).free
        except OSError as e:
            yield Check(
                "state dir", False, f"{path}: {e.strerror}", "create it, owned by the service user"
            )
            return
        if path.exists():
            try:
                with tempfile.NamedTemporaryFile(dir=path):
                    pass
            except OSError as e:
                yield Check(
                    "state dir",
                    False,
                    f"{path} is not writable ({e.strerror})",
                    f"sudo chown -R {self.user} {path} (systemd's StateDirectory= does this)",
                )
                return
        if free < MIN_FREE_BYTES:
            yield Check(
                "state dir",
                False,
                f"{path}: only {free // (1024 * 1024)} MB free",
                f"free at least {MIN_FREE_BYTES // (1024 * 1024)} MB, or move [state] dir",
            )
            return
        there = "" if path.exists() else " (created at the first start)"
        yield Check("state dir", True, f"{path}{there}, {free // (1024 * 1024)} MB free")


# --- helpers ------------------------------------------------------------------------------------


def _pi_only(cfg: Any) -> list[str]:
    """What in the config only works on a Pi."""
    from hardware.pins import header_uart_wanted

    needs = []
    if cfg.display.driver in ("inky", "waveshare"):
        needs.append(f"the {cfg.display.driver} panel")
    if cfg.gpio is not None and cfg.gpio.pin_factory != "mock":
        needs.append("the wheel and buttons (GPIO)")
    if header_uart_wanted(cfg.readers):
        needs.append("a PN532 on the header UART")
    return needs


def _vcgencmd_throttled() -> str | None:
    tool = shutil.which("vcgencmd")
    if tool is None:
        return None
    return subprocess.run(
        [tool, "get_throttled"], capture_output=True, text=True, timeout=5, check=True
    ).stdout


def _runuser_prefix(doctor: Doctor) -> list[str] | None:
    """``runuser -u USER --`` when root runs doctor on the Pi itself and the user exists."""
    import pwd

    if os.geteuid() != 0 or doctor.user == "root" or doctor.machine.root != Path("/"):
        return None
    try:
        pwd.getpwnam(doctor.user)
    except KeyError:
        return None
    tool = shutil.which("runuser")
    return [tool, "-u", doctor.user, "--"] if tool else None


def _at_repl(port: str, baud: int) -> bool:
    """A MicroPython REPL answers a line ending with its prompt (:data:`REPL_PROMPT`)."""
    import serial

    try:
        with serial.serial_for_url(port, baudrate=baud, timeout=0.3, exclusive=True) as s:
            s.reset_input_buffer()
            s.write(b"\r\n")
            seen = b""
            done = threading.Event()
            for _ in range(10):
                seen += s.read(256)
                if REPL_PROMPT in seen:
                    return True
                done.wait(0.05)
    except (serial.SerialException, OSError, ValueError):
        return False
    return False


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        return (0,)


def _on_header(port: str) -> bool:
    return port in ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0", "/dev/ttyAMA10")


def _opens(port: str, baud: int) -> str | None:
    import serial

    try:
        serial.serial_for_url(port, baudrate=baud, timeout=0, exclusive=True).close()
    except (serial.SerialException, OSError, ValueError) as e:
        return str(e)
    return None


def _open_fix(problem: str) -> str:
    if "Permission denied" in problem:
        return "add the user to dialout (sudo usermod -aG dialout USER), log in again"
    if "lock" in problem.lower() or "busy" in problem.lower():
        return "the service holds it: sudo systemctl stop rhuna-table, then run doctor"
    return "check the cable and the port name (ls /dev/serial/by-id/)"


def _wait_for(cond: Callable[[], bool], timeout: float) -> None:
    done = threading.Event()
    for _ in range(int(timeout / 0.02) + 1):
        if cond():
            return
        done.wait(0.02)


def _mqtt_login(cfg: Any, timeout: float) -> str | None:
    """None when the broker accepts the login, else why not (in paho's or the socket's words)."""
    import ssl

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rhuna-doctor-{os.getpid()}")
    if cfg.username is not None:
        client.username_pw_set(cfg.username, cfg.password)
    if cfg.tls is not None:
        client.tls_set(
            ca_certs=str(cfg.tls.ca) if cfg.tls.ca else None,
            certfile=str(cfg.tls.cert) if cfg.tls.cert else None,
            keyfile=str(cfg.tls.key) if cfg.tls.key else None,
            cert_reqs=ssl.CERT_REQUIRED,
        )
        client.tls_insecure_set(cfg.tls.insecure)
    result: list[str | None] = []
    answered = threading.Event()

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.append(None if not reason.is_failure else f"refused: {reason}")
        answered.set()

    client.on_connect = on_connect
    try:
        client.connect(cfg.host, cfg.broker_port, keepalive=10)
    except (TimeoutError, OSError, ssl.SSLError) as e:
        return f"{type(e).__name__}: {e}"
    client.loop_start()
    try:
        if not answered.wait(timeout):
            return f"no CONNACK within {timeout:g} s"
        return result[0]
    finally:
        client.disconnect()
        client.loop_stop()


def _read_inky_eeprom() -> Any:
    from inky.eeprom import read_eeprom  # type: ignore[import-not-found,import-untyped,unused-ignore]

    found = read_eeprom()
    return None if found is None else found.get_variant()


def report(checks: list[Check], as_json: bool = False) -> str:
    """The checks as lines (✓/✗ and the fix) or as JSON: ``{"ok": …, "checks": […]}``."""
    ok = all(c.ok for c in checks)
    if as_json:
        return json.dumps({"ok": ok, "checks": [asdict(c) for c in checks]}, indent=1)
    failed = sum(not c.ok for c in checks)
    summary = "all good" if ok else f"{failed} problem{'s' if failed != 1 else ''} to fix"
    return "\n".join([*(c.line() for c in checks), summary])


def _devices_main(argv: list[str]) -> int:
    """``python -m companion.ops.doctor --devices CONFIG``: the device checks as JSON (the child
    that ``runuser -u rhuna --`` runs, so the ports open as the service opens them)."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m companion.ops.doctor")
    p.add_argument("--devices", required=True, metavar="CONFIG")
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--user", default="rhuna")
    args = p.parse_args(argv)
    doctor = Doctor(Path(args.devices), user=args.user, timeout=args.timeout, as_user=[])
    try:
        print(json.dumps(doctor.device_checks()))
    except ConfigError as e:
        print(json.dumps({"checks": [asdict(Check("config", False, str(e), ""))], "hubs": {}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(_devices_main(sys.argv[1:]))
