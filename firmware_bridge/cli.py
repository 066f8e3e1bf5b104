"""Try the readers from a shell: run an emulated device, or watch a port's TagEvents.

    python -m firmware_bridge emulate hub            # prints its port, then reads commands:
        lay 2 04A1B2C3 | lift 2 | garbage 200 | silent | resume | unplug | replug | quit
    python -m firmware_bridge watch PORT --kind hub  # prints TagEvents and link changes
    python -m firmware_bridge maintenance PORT       # stop the hub's firmware for an update

Two terminals give a whole serial setup without hardware.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Sequence

from firmware_bridge.emulator import EmulatedDevice, HubEmulator, LineReaderEmulator, PN532Emulator
from firmware_bridge.events import ReaderStatus, TagEvent

EMULATORS: dict[str, type[EmulatedDevice]] = {
    "hub": HubEmulator,
    "pn532": PN532Emulator,
    "line": LineReaderEmulator,
}

COMMON = "garbage [N] | silent | resume | unplug | replug | sleep SECONDS | quit"
USAGE = {
    "hub": "lay CHANNEL UID | lift CHANNEL | break CHANNEL | mend CHANNEL | " + COMMON,
    "pn532": "lay UID | lift | " + COMMON,
    "line": "lay UID | lift | " + COMMON,
}


#: the most line noise one ``garbage`` line sprays (the pty drops what the host does not read)
MAX_GARBAGE = 65536


class ScriptError(ValueError):
    """A script line the emulator cannot follow; the message says what would work."""


def run_command(device: EmulatedDevice, line: str) -> str:
    """Carry out one script line on ``device``; returns what happened, in words."""
    words = line.split()
    if not words or words[0].startswith("#"):
        return ""
    cmd, args = words[0].lower(), words[1:]
    kind = next(k for k, cls in EMULATORS.items() if isinstance(device, cls))
    try:
        if cmd == "garbage":
            n = int(args[0]) if args else 256
            if not 1 <= n <= MAX_GARBAGE:
                raise ScriptError(f"garbage {n}: spray 1..{MAX_GARBAGE} bytes at a time")
            device.spray_garbage(n, seed=int(time.time()))
        elif cmd in ("silent", "resume", "unplug", "replug"):
            {
                "silent": device.go_silent,
                "resume": device.resume,
                "unplug": device.unplug,
                "replug": device.replug,
            }[cmd]()
        elif cmd == "sleep":
            time.sleep(float(args[0]))
        elif isinstance(device, HubEmulator) and cmd in ("lay", "lift", "break", "mend"):
            last = len(device.readers) - 1
            if not args[0].isdigit():  # "lay two 04": say what a channel is, not int()'s words
                raise ScriptError(
                    f"{line.strip()}: the channel is a number from 0 to {last}, not {args[0]}"
                    f" — e.g. {cmd} 2{' 04A1B2C3' if cmd == 'lay' else ''}"
                )
            channel = int(args[0])
            if not 0 <= channel <= last:
                raise ScriptError(f"channel {channel}: this hub has 0..{last}")
            if cmd == "lay":
                device.lay(channel, args[1])
            elif cmd == "lift":
                device.lift(channel)
            else:
                device.break_reader(channel, dead=cmd == "break")
        elif isinstance(device, PN532Emulator | LineReaderEmulator) and cmd in ("lay", "lift"):
            device.lay(args[0]) if cmd == "lay" else device.lift()
        else:
            raise ScriptError(f"unknown command {cmd!r}; {kind} commands: {USAGE[kind]}")
    except ScriptError:
        raise
    except IndexError:
        raise ScriptError(
            f"{line.strip()}: missing argument; {kind} commands: {USAGE[kind]}"
        ) from None
    except (ValueError, OverflowError) as e:  # OverflowError: "sleep 1e300"
        raise ScriptError(f"{line.strip()}: {e}; {kind} commands: {USAGE[kind]}") from None
    return f"ok: {line.strip()}"


def make_emulator(kind: str, link: str | None = None) -> EmulatedDevice:
    """An emulator of ``kind`` (hub, pn532, line) with its default settings."""
    if kind == "hub":
        return HubEmulator(link)
    if kind == "pn532":
        return PN532Emulator(link)
    return LineReaderEmulator(link)


def _emulate(args: argparse.Namespace) -> int:
    device = make_emulator(args.kind, args.link)
    with device:
        print(f"{args.kind} emulator on {device.link}", flush=True)
        print(f"commands: {USAGE[args.kind]}", flush=True)
        for line in sys.stdin:
            if line.strip().lower() in ("quit", "exit"):
                break
            try:
                said = run_command(device, line)
            except ScriptError as e:
                print(f"emulate: {e}", file=sys.stderr, flush=True)
                continue
            if said:
                print(said, flush=True)
    return 0


def _watch(args: argparse.Namespace) -> int:
    from firmware_bridge import READERS

    def on_event(event: TagEvent) -> None:
        print(json.dumps(event.to_json()), flush=True)

    def on_status(status: ReaderStatus) -> None:
        print(f"# {status.reader}: {status.state} ({status.detail})", flush=True)

    reader = READERS[args.kind](
        args.port, sink=on_event, on_status=on_status, baudrate=args.baudrate
    )
    with reader, contextlib.suppress(KeyboardInterrupt):
        time.sleep(args.seconds) if args.seconds else _forever()
    print("# stats " + json.dumps(reader.stats.snapshot()), flush=True)
    return 0


def _maintenance(args: argparse.Namespace) -> int:
    """Ask the hub to restart into its REPL (no watchdog, Ctrl-C on), for mpremote."""
    from firmware_bridge.hub import CommandFailed, HubReader

    with HubReader(args.port, sink=lambda event: None) as hub:
        if not hub.wait_online(args.timeout):
            print(
                f"maintenance: no hub answered on {args.port} within {args.timeout:g} s",
                file=sys.stderr,
            )
            return 1
        try:
            hub.maintenance().result(args.timeout)
        except (CommandFailed, TimeoutError) as e:
            print(
                f"maintenance: the hub refused: {e} (firmware older than 1.1? hold BOOTSEL 1 s instead)",
                file=sys.stderr,
            )
            return 1
    print(f"hub on {args.port} is in maintenance: copy files with mpremote, then `mpremote reset`")
    return 0


def _forever() -> None:
    while True:
        time.sleep(3600)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m firmware_bridge", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    em = sub.add_parser("emulate", help="run an emulated reader on a pty; commands on stdin")
    em.add_argument("kind", choices=sorted(EMULATORS))
    em.add_argument("--link", help="the stable path to create (default: a temporary by-id path)")
    em.set_defaults(func=_emulate)
    w = sub.add_parser("watch", help="print the TagEvents a reader delivers")
    w.add_argument("port", help="/dev/serial/by-id/… or a pyserial URL")
    w.add_argument("--kind", choices=["hub", "pn532", "line"], default="hub")
    w.add_argument("--baudrate", type=int, default=115200)
    w.add_argument(
        "--seconds", type=float, default=0.0, help="stop after this long (default: Ctrl-C)"
    )
    w.set_defaults(func=_watch)
    m = sub.add_parser("maintenance", help="stop the hub's firmware so mpremote can update it")
    m.add_argument("port", help="the hub's /dev/serial/by-id/… path")
    m.add_argument("--timeout", type=float, default=5.0)
    m.set_defaults(func=_maintenance)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))
