"""``rhuna-table doctor``: what a newcomer gets wrong on a first Pi, each found and said how to fix.

Every check is one :class:`Check` (a name, ✓ or ✗, what it found, the fix). The
checks read the machine through :class:`Machine`, whose ``root`` is ``/`` on a
Pi and a folder holding a fake ``/proc``, ``/sys``, ``/boot/firmware`` and
``/etc`` in the tests. Serial ports, the broker and the state directory are
the real ones the config names.

What is checked (docs/hardware.md, "Doctor"):

* the config loads (``check-config`` says more);
* SPI is on, with the overlay the chosen panel needs (Inky: ``dtoverlay=spi0-0cs``,
  as inky 2.x drives GPIO8 itself; Waveshare: without it, the kernel drives CE0), and
  I2C for the Inky's EEPROM;
* for a PN532: the serial console is off and the UART on (``dtparam=uart0=on`` on a Pi 5,
  where ``/dev/serial0`` is the debug connector);
* the service user is in the groups its devices need (dialout, gpio, spi, i2c);
* each reader's device is there and opens; a hub says hello, and its protocol,
  firmware and chip versions are reported, its faulty channels named;
* the panel is detected (an Inky's EEPROM) or its model is set;
* the gpiozero pin factory starts (lgpio on a Pi 5);
* the broker takes the configured account;
* the state directory is writable and has room.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from settings.errors import ConfigError

#: the state directory needs at least this much free space (the journal, snapshots, frames)
MIN_FREE_BYTES = 200 * 1024 * 1024
SERIAL_CONSOLES = ("console=serial0", "console=ttyAMA0", "console=ttyS0", "console=ttyAMA10")


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
        return "Raspberry Pi 5" in self.model()

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
        for step in (
            self.spi,
            self.uart,
            self.groups,
            self.readers,
            self.panel,
            self.pins,
            self.broker,
            self.state_dir,
        ):
            checks.extend(step(cfg))
        return checks

    # SPI, I2C and the panel ------------------------------------------------------------------

    def spi(self, cfg: Any) -> Iterator[Check]:
        driver = cfg.display.driver
        if driver not in ("inky", "waveshare"):
            yield Check("spi", True, f"not needed (display driver {driver})")
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
        where, boot = self.machine.config_txt()
        words = self.machine.cmdline().split()
        console = [w for w in words if w.split(",")[0] in SERIAL_CONSOLES]
        for r in header:
            port = r.port
            if console:
                yield Check(
                    f"uart {r.name}",
                    False,
                    f"the serial console ({console[0]}) owns the UART {port} is on",
                    "sudo raspi-config: Interface Options > Serial Port > login shell No,"
                    " hardware Yes; reboot",
                )
            elif self.machine.is_pi5 and port.endswith("serial0"):
                yield Check(
                    f"uart {r.name}",
                    False,
                    "on a Pi 5 /dev/serial0 is the debug connector, not the header pins",
                    f'port = "/dev/ttyAMA0" in [[readers]] {r.name}, and dtparam=uart0=on in {where}',
                )
            elif self.machine.is_pi5 and not boot.on("uart0"):
                yield Check(
                    f"uart {r.name}",
                    False,
                    "the header UART of a Pi 5 is off",
                    f"add dtparam=uart0=on to {where} and reboot",
                )
            elif not self.machine.is_pi5 and boot.settings.get("enable_uart") != "1":
                yield Check(
                    f"uart {r.name}",
                    False,
                    "the UART is off",
                    f"add enable_uart=1 to {where} (raspi-config: Serial Port hardware Yes), reboot",
                )
            else:
                yield Check(f"uart {r.name}", True, f"serial console off, UART on ({port})")

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
            return self.hub(name, port, baud)
        if r.backend == "pn532":
            return self.pn532(name, port, baud)
        return Check(name, True, f"{port} opens (a line reader says nothing until a tag)")

    def hub(self, name: str, port: str, baud: int) -> Check:
        from firmware_bridge.hub import HubReader

        statuses: list[str] = []
        with HubReader(
            port, sink=lambda e: None, baudrate=baud, on_status=lambda s: statuses.append(s.detail)
        ) as hub:
            if not hub.wait_online(self.timeout) or hub.info is None:
                why = statuses[-1] if statuses else "no hello"
                return Check(
                    name,
                    False,
                    f"no hub answered on {port} ({why})",
                    "flash the hub firmware (docs/hardware.md) and check it is the hub's port",
                )
            info = hub.info
            _wait_for(lambda: len(hub.chips) >= info.channels, self.timeout)
            chips = " ".join(f"{hub.chips.get(ch, 0):#04x}" for ch in range(info.channels))
            faults = [ch for ch, bad in sorted(hub.channel_faults.items()) if bad]
        detail = (
            f"hub {info.hub_id}, protocol {info.protocol}, firmware {info.firmware_version},"
            f" {info.channels} channels, chips {chips}"
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
        return Check(name, True, detail)

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
