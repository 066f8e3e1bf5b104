"""The Pi's own health checks for ``rhuna-table doctor``: what no one part owns.

* the board (``/proc/device-tree/model``); off a Pi it says so, and what it checked anyway;
* the service user is in the groups its devices need (dialout, gpio, spi, i2c);
* the supply: ``vcgencmd get_throttled`` (under-voltage, throttling);
* the state directory is writable and has room, or can be made by the user who runs the check
  (the service's, as ``rhuna-table enroll`` needs it before the first start);
* the service would start: ``check-config``'s own refusals (a missing registry, a journal of
  another table …), which the unit meets as exit status 2 and does not retry.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from companion.config import Config
from settings.checks import Check, Checks
from settings.errors import ConfigError
from settings.machine import Machine

#: the state directory needs at least this much free space (the journal, snapshots, frames)
MIN_FREE_BYTES = 200 * 1024 * 1024
#: the boards with no under-voltage detection circuit (Raspberry Pi's documentation)
ZERO_RANGE = ("Raspberry Pi Zero",)
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


def board(machine: Machine, cfg: Config) -> Checks:
    found = machine.board()
    if found.is_pi:
        yield Check("board", True, found.model)
        return
    needs = _pi_only(cfg)
    checked = "the config, the pin plan, the groups, the readers' ports, the broker, the state dir"
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


def power_supply(machine: Machine, throttled: Callable[[], str | None] | None = None) -> Checks:
    """``throttled``: ``vcgencmd get_throttled``'s output (None: not read); default: run it."""
    found = machine.board()
    if not found.is_pi:
        return
    read = throttled or _vcgencmd_throttled
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
    if not flags and found.model.startswith(ZERO_RANGE):
        # the Zero range has no under-voltage detection circuit (Raspberry Pi's documentation,
        # "Power supply"): the 0 it reads says nothing about the supply (issue 44, D11)
        yield Check(
            "supply",
            True,
            f"not measured: a {found.model.split(' Rev')[0]} has no under-voltage detection"
            f" (get_throttled={value:#x} reads throttling only); use a 5.1 V 2.5 A supply",
        )
        return
    if not flags:
        yield Check("supply", True, f"no under-voltage or throttling since boot ({value:#x})")
        return
    supply = (
        "the official 27 W USB-C supply (5.1 V, 5 A)"
        if found.kind == "pi5"
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


def groups(machine: Machine, user: str, cfg: Config) -> Checks:
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
    have = machine.groups_of(user)
    if have is None:
        yield Check(
            "groups",
            False,
            f"there is no user {user!r} to run the service",
            "sudo systemd/install.sh creates it (or pass --user NAME)",
        )
        return
    missing = [g for g in needed if g not in have]
    if missing:
        yield Check(
            "groups",
            False,
            f"{user} is not in {', '.join(missing)}",
            f"sudo usermod -aG {','.join(missing)} {user}; then restart the service",
        )
    else:
        yield Check("groups", True, f"{user} is in {', '.join(needed)}")


def state_dir(path: Path, user: str) -> Checks:
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
                f"sudo chown -R {user} {path} (systemd's StateDirectory= does this)",
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
    if not path.exists():
        parent = existing if existing.is_dir() else existing.parent
        if not os.access(parent, os.W_OK | os.X_OK):
            # the unit's StateDirectory= makes it only at the service's first start, and the
            # guide enrols before that (issue 44, D1): `rhuna-table enroll` fails here
            yield Check(
                "state dir",
                False,
                f"{path} does not exist, and {user} cannot create it in {parent}:"
                " `rhuna-table enroll` fails before the service's first start",
                f"sudo install -d -o {user} -g {user} -m 0750 {path}"
                " (sudo systemd/install.sh does this)",
            )
            return
    there = "" if path.exists() else " (created at the first start)"
    yield Check("state dir", True, f"{path}{there}, {free // (1024 * 1024)} MB free")


def _pi_only(cfg: Config) -> list[str]:
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


def service_starts(cfg: Config) -> Checks:
    """What ``rhuna-table run`` would refuse at start (``check-config``'s plan): the unit exits
    2 on it and is not restarted (RestartPreventExitStatus=2), so doctor says it first."""
    from companion.config import ConfigErrors
    from companion.ops.start_plan import plan

    try:
        plan(cfg)
    except ConfigErrors as e:
        first = str(e.errors[0]).removeprefix(f"{cfg.source}: ")
        more = f" (and {len(e.errors) - 1} more)" if len(e.errors) > 1 else ""
        yield Check(
            "service start",
            False,
            f"the service would refuse to start: {first}{more}",
            f"rhuna-table check-config {cfg.source} lists each with its fix",
        )
        return
    except ConfigError as e:
        yield Check(
            "service start",
            False,
            f"the service would refuse to start: {e}",
            f"rhuna-table check-config {cfg.source} says how to fix it",
        )
        return
    yield Check("service start", True, "check-config passes: `rhuna-table run` would start")
