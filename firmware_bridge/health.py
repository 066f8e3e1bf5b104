"""The readers' health checks for ``rhuna-table doctor`` (docs/hardware.md, "doctor").

* for a PN532 on the header: the device that is GPIO14/15 on *this* board
  (:mod:`settings.board`: ttyS0 on a Pi 3, Pi 4 or Zero 2 W unless
  ``dtoverlay=disable-bt``; ttyAMA0 with ``dtparam=uart0=on`` on a Pi 5), no serial console on it;
* each reader's device is there and opens; a hub says hello, and its protocol,
  firmware and chip versions are reported, its faulty channels named, the config's roles
  held against the channels it reports; a hub at the REPL is "in maintenance";
* the readers' draw against the Pico's 3V3(OUT).

``hubs`` is what the hubs said (reader name → channels, firmware), filled by
:func:`readers` and read by :func:`reader_power`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence

from firmware_bridge.config import ReaderConfig
from settings.board import Board, console_devices, header_uart, resolve
from settings.checks import Check, Checks
from settings.machine import Machine

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

#: what each hub said in its hello: reader name → (channels, firmware version)
Hubs = dict[str, tuple[int, str]]


# the header UART ------------------------------------------------------------------------------


def uart(readers: Sequence[ReaderConfig], machine: Machine) -> Checks:
    pn532 = [r for r in readers if r.backend == "pn532"]
    header = [r for r in pn532 if _on_header(r.port or "")]
    if not header:
        detail = "no PN532 on the Pi's UART" if not pn532 else "PN532 on a USB adapter"
        yield Check("uart", True, f"not needed ({detail})")
        return
    board = machine.board()
    if not board.is_pi:
        yield Check("uart", True, "not checked (not a Raspberry Pi)")
        return
    for r in header:
        yield uart_of(r, board, machine)


def uart_of(r: ReaderConfig, board: Board, machine: Machine) -> Check:
    """One PN532 on the header: the device that really is GPIO14/15 here, the console, on."""
    where, boot = machine.config_txt()
    name, port, on = f"uart {r.name}", str(r.port), board.short
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
        w for w, dev in console_devices(machine.cmdline(), board, boot.overlays) if dev == device
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


# each reader's device -------------------------------------------------------------------------


def readers(readers: Sequence[ReaderConfig], timeout: float, hubs: Hubs) -> Checks:
    if not readers:
        yield Check("readers", True, "none configured (GPIO and MQTT only)")
    for r in readers:
        yield reader(r, timeout, hubs)


def reader(r: ReaderConfig, timeout: float, hubs: Hubs) -> Check:
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
        return hub(name, port, baud, r, timeout, hubs)
    if r.backend == "pn532":
        return pn532(name, port, baud, timeout)
    return Check(name, True, f"{port} opens (a line reader says nothing until a tag)")


def hub(name: str, port: str, baud: int, r: ReaderConfig, timeout: float, hubs: Hubs) -> Check:
    from firmware_bridge.hub import HubReader

    statuses: list[str] = []
    with HubReader(
        port, sink=lambda e: None, baudrate=baud, on_status=lambda s: statuses.append(s.detail)
    ) as found:
        online = found.wait_online(timeout) and found.info is not None
        info = found.info
        if online and info is not None:
            _wait_for(lambda: len(found.chips) >= info.channels, timeout)
        chips_seen = dict(found.chips)
        faults = [ch for ch, bad in sorted(found.channel_faults.items()) if bad]
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
    hubs[r.name] = (info.channels, str(info.firmware_version))
    chips = " ".join(f"{chips_seen.get(ch, 0):#04x}" for ch in range(info.channels))
    detail = (
        f"hub {info.hub_id}, protocol {info.protocol}, firmware {info.firmware_version},"
        f" {info.channels} channels, chips {chips}"
    )
    roles = r.roles if not isinstance(r.roles, str) else {}
    beyond = sorted(ch for ch in roles if ch >= info.channels)
    if beyond:
        listed = ", ".join(f"{ch} ({roles[ch]})" for ch in beyond)
        return Check(
            name,
            False,
            f"{detail}; the config gives roles to channel {listed}, which the hub does not have",
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


def pn532(name: str, port: str, baud: int, timeout: float) -> Check:
    from firmware_bridge.pn532 import PN532Reader

    with PN532Reader(port, sink=lambda e: None, baudrate=baud) as found:
        online = found.wait_online(timeout)
        firmware = found.firmware
    if not online or firmware is None:
        return Check(
            name,
            False,
            f"no PN532 answered on {port}",
            "set both mode switches to HSU (off), cross TX/RX, 115200 baud",
        )
    return Check(name, True, f"PN532 firmware {firmware[1]}.{firmware[2]} on {port}")


# the readers' supply --------------------------------------------------------------------------


def reader_power(readers: Sequence[ReaderConfig], hubs: Hubs) -> Checks:
    """Each hub's readers on the Pico's 3V3(OUT), against its guidance of under 300 mA."""
    for r in readers:
        if r.backend != "hub":
            continue
        channels, firmware = hubs.get(r.name, (0, ""))
        answered = bool(channels)
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
        if not answered:
            # a sum for readers no hub reported is a guess: never a ✓ (issue 44, D12)
            yield Check(
                "reader power",
                False,
                f"not measured: {r.name}'s hub did not answer (its reader line says why);"
                f" if it has {channels} readers: {detail.split(': ', 1)[1]}",
                "connect the hub as its reader line says, then run doctor again",
            )
        elif worst <= PICO_3V3_MA:
            yield Check("reader power", True, detail)
        else:
            fix = "give the readers their own 3.3 V regulator (≥ 500 mA, fed from 5 V; GND common"
            fix += " with the Pico), and leave 3V3(OUT) unconnected to them"
            if not one_field:
                fix = "update the hub firmware (1.2: one antenna at a time), or " + fix
            yield Check("reader power", False, detail, fix)


# helpers --------------------------------------------------------------------------------------


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
