"""``rhuna-table doctor``: what a newcomer gets wrong on a first Pi, each found and said how to fix.

Every check is one :class:`~settings.checks.Check` (a name, ✓ or ✗, what it found, the
fix), and each part checks its own (docs/hardware.md, "doctor"); :class:`Doctor` only runs
them in this order and :func:`report` prints them:

* the config loads, and the service would start on it (``check-config``'s refusals);
* the Pi's own (:mod:`companion.ops.health`): the board, the service user's groups, the
  supply, the state directory;
* the readers' (:mod:`firmware_bridge.health`): the header UART for a PN532, each reader's
  device, hub and chips, their draw on the Pico's 3V3(OUT);
* the panel's (:mod:`display.health`): SPI and I2C as the panel needs them, the panel found;
* the pins' (:mod:`hardware.health`): the pin plan, the gpiozero pin factory;
* the broker's, the claim on the table id's, the running service's panel (its retained
  ``…/panel``: answering, or not responding in its words) and the venue bridge's
  (:mod:`companion.mqtt.health`).

The checks read the machine through :class:`~settings.machine.Machine`, whose ``root`` is
``/`` on a Pi and a folder holding a fake ``/proc``, ``/sys``, ``/boot/firmware`` and
``/etc`` in the tests. Serial ports, the broker and the state directory are the real ones
the config names.

Run as root on the Pi, the port and state-directory checks run as the service's user
(``runuser -u rhuna --``, a child ``python -m companion.ops.doctor --devices``), so they
find what the unit would. Another part's check is one more step in :meth:`Doctor.run`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion.config import Config
from companion.mqtt import health as mqtt_health
from companion.ops import health as pi
from display import health as panel_health
from firmware_bridge import health as readers_health
from hardware import health as pins_health
from settings.checks import Check, Checks
from settings.errors import ConfigError
from settings.machine import BootConfig, Machine

__all__ = ["BootConfig", "Check", "Doctor", "Machine", "report"]


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
    #: what each hub said in its hello (reader name → channels, firmware), for reader_power
    hubs: readers_health.Hubs = field(default_factory=dict)

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
            self.service_starts,
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
            self.claim,
            self.panel_responding,
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

    # the steps: each one part's checks on its slice of the config ------------------------------

    def service_starts(self, cfg: Config) -> Checks:
        return pi.service_starts(cfg)

    def board(self, cfg: Config) -> Checks:
        return pi.board(self.machine, cfg)

    def spi(self, cfg: Config) -> Checks:
        return panel_health.spi(cfg.display.driver, self.machine)

    def uart(self, cfg: Config) -> Checks:
        return readers_health.uart(cfg.readers, self.machine)

    def layout(self, cfg: Config) -> Checks:
        return pins_health.layout(cfg.gpio, cfg.display.driver, cfg.readers)

    def groups(self, cfg: Config) -> Checks:
        return pi.groups(self.machine, self.user, cfg)

    def power_supply(self, cfg: Config) -> Checks:
        return pi.power_supply(self.machine, self.throttled)

    def readers(self, cfg: Config) -> Checks:
        return readers_health.readers(cfg.readers, self.timeout, self.hubs)

    def reader_power(self, cfg: Config) -> Checks:
        return readers_health.reader_power(cfg.readers, self.hubs)

    def panel(self, cfg: Config) -> Checks:
        return panel_health.panel(cfg.display, self.inky_eeprom)

    def pins(self, cfg: Config) -> Checks:
        return pins_health.pin_factory(cfg.gpio, self.machine.is_pi5)

    def broker(self, cfg: Config) -> Checks:
        return mqtt_health.broker(cfg.mqtt, str(cfg.source), self.timeout)

    def claim(self, cfg: Config) -> Checks:
        return mqtt_health.claim(cfg.mqtt, str(cfg.source), cfg.table_file, self.timeout)

    def panel_responding(self, cfg: Config) -> Checks:
        return mqtt_health.panel_responding(cfg.mqtt, str(cfg.source), cfg.table_file, self.timeout)

    def venue_bridge(self, cfg: Config) -> Checks:
        where = self.machine.path(mqtt_health.BRIDGE_CONF)
        return mqtt_health.bridge(cfg.mqtt, str(cfg.source), where, self.timeout)

    def state_dir(self, cfg: Config) -> Checks:
        return pi.state_dir(Path(cfg.state_dir), self.user)


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
