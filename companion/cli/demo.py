"""``rhuna-table demo``: the whole table on embedded defaults, with no hardware at all.

The emulated token hub sits on a real pty; tokens "laid" on its readers travel as
serial frames to the HubReader, through the tag registry into commands, through
the engine, and out to the PNG panel (``demo-out/…/latest.png`` and numbered
frames). Wheel and button presses are commands from the script. Then the example
fight runs through the same loop, and the panel shows the combat wheel.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.loop import Outcome
from companion.simulated import SimulatedTable
from companion.tags import ReaderRoles
from engine import load_table
from engine.errors import ConfigError
from engine.narrate import describe
from engine.state import TableState

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: (name, table, script) played by default
DEFAULT_PLAYS = [
    ("table", EXAMPLES / "table.toml", EXAMPLES / "demo.jsonl"),
    ("fight", EXAMPLES / "fight.toml", EXAMPLES / "fight.jsonl"),
]
ROLES = ReaderRoles({"draw-board": {4: "favor", 5: "time"}})
#: reader channels on the emulated hub: the Draw Board slots 0–3, Favor 4, Time 5
CHANNELS = 6


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="run the example table on emulated hardware (PNG panel)")
    p.add_argument("--table", help="table TOML (default: the shipped examples)")
    p.add_argument(
        "--script",
        help="demo script for --table, or for the example table (JSON lines, see examples/demo.jsonl)",
    )
    p.add_argument("--out", default="demo-out", help="where the panel's PNG frames go")
    p.add_argument("--panel", default="4.2", help='panel: 2.13, 2.9, 4.2, 7.5 or "WxH"')
    p.add_argument("--colour", default="bwr", help="bw, bwr or bwy")
    p.add_argument(
        "--mqtt",
        default="localhost:1883",
        metavar="HOST[:PORT]",
        help="publish the table on this MQTT broker when one answers there (default"
        " localhost:1883; watch with: mosquitto_sub -t 'rhuna/#' -v)",
    )
    p.add_argument("--no-mqtt", action="store_true", help="do not publish on MQTT")
    p.set_defaults(func=run)


def broker_answering(where: str, timeout: float = 0.5) -> tuple[str, int] | None:
    """(host, port) when something accepts a TCP connection there, else None."""
    import socket

    host, _, port = where.rpartition(":") if ":" in where else (where, "", "1883")
    try:
        address = (host or "localhost", int(port))
    except ValueError:
        raise ConfigError(f"demo: --mqtt {where!r}: give HOST or HOST:PORT") from None
    try:
        with socket.create_connection(address, timeout=timeout):
            return address
    except OSError:
        return None


def run(args: argparse.Namespace) -> int:
    if args.table or args.script:
        if not args.script:
            raise ConfigError("demo: --table needs --script")
        table = Path(args.table) if args.table else EXAMPLES / "table.toml"
        plays = [(table.stem, table, Path(args.script))]
    else:
        plays = DEFAULT_PLAYS
    for name, table, script in plays:
        out = Path(args.out) / name
        mqtt = None if args.no_mqtt else broker_answering(args.mqtt)
        if not args.no_mqtt and mqtt is None:
            print(f"\n  (no MQTT broker answers on {args.mqtt}: not publishing)")
        code = play(load_table(table), script, out, args.panel, args.colour, mqtt)
        print(f"\n  panel frames: {out}/frame-*.png, newest {out}/latest.png")
        if code:
            return code
    return 0


def sheets(state: TableState) -> list[str]:
    return [
        f"  {h.name:<8} Fatigue {h.fatigue}/{h.fatigue_capacity}  "
        f"Strain {h.strain}/{h.strain_capacity}  Wounds {h.wounds}  "
        f"Favor {h.favor}  Redraws {h.redraws}  bag {len(state.bags[h.bag].contents)} tokens"
        for h in state.heroes.values()
    ]


def _show(outcome: Outcome) -> None:
    if outcome.tag is not None:
        t = outcome.tag
        print(f"  [hub ch{t.channel}] tag {t.uid} {t.presence}", end="")
        print(f" → {json.dumps(outcome.command)}" if outcome.command else "")
    elif outcome.command is not None:
        rest = {k: v for k, v in outcome.command.items() if k != "cmd"}
        args = " ".join(f"{k}={json.dumps(v)}" for k, v in rest.items())
        name = outcome.command.get("cmd", "(no cmd)")
        print(f"  [{outcome.source}] {name} {args}".rstrip())
    if outcome.error is not None:
        print(f"      ⚠ {outcome.error}")
    for event in outcome.events:
        print(f"      {describe(outcome.state, event)}")


def play(
    state: TableState,
    script: Path,
    out: Path,
    panel: str,
    colour: str,
    mqtt: tuple[str, int] | None = None,
) -> int:
    from companion.cli.replay import read_session

    steps = read_session(script)
    for line, step in steps:
        problem = _problem(step)
        if problem is not None:
            print(f"  {script}:{line}: {json.dumps(step)}: {problem}")
            return 1
    print(f'\nRhuna table companion — {script.name} on {out} ({panel}" {colour} PNG panel)')
    print(*sheets(state), sep="\n")
    with SimulatedTable(
        state, out, panel=panel, colour=colour, channels=CHANNELS, settle=True
    ) as table:
        table.loop.roles = ROLES
        print(f"  token hub emulated on {table.hub.link}; {len(table.registry)} tags enrolled")
        bridge = _start_mqtt(table, mqtt) if mqtt else None
        print()
        for line, step in steps:
            try:
                outcome = _step(table, step)
            except (KeyError, ValueError, TimeoutError) as e:
                print(f"  {script}:{line}: {e}")
                return 1
            if outcome is not None:
                _show(outcome)
        final = table.loop.state
        if bridge is not None:
            bridge.stop()
    print("\n  At the end:")
    print(*sheets(final), sep="\n")
    return 0


def _start_mqtt(table: SimulatedTable, where: tuple[str, int]) -> Any:
    """The MQTT bridge on the demo's loop (docs/mqtt.md): retained state, events, commands."""
    from companion.mqtt import MqttBridge, load_mqtt_config

    host, port = where
    config = load_mqtt_config({"host": host, "port": port}, "demo")
    bridge = MqttBridge(config)
    bridge.start(table.loop)
    base = f"{config.base_topic}/{config.table_id or table.loop.state.table_id}"
    print(f"  MQTT: publishing on {host}:{port} under {base}/ (state, events, status)")
    return bridge


def _problem(step: Any) -> str | None:
    """Why a script line cannot be played (checked before the hub starts), or None."""
    if not isinstance(step, dict):
        return (
            "a script line must be a JSON object: a command, or dial, button, lay, lay_uid,"
            " lift, clear, say"
        )
    if "dial" in step and not isinstance(step["dial"], dict):
        return 'dial takes an object of ring → choice, e.g. {"hero": "aria", "shade": "control"}'
    if "button" in step and not isinstance(step["button"], str):
        return "button takes a button name: resolve, reset, undo, redraw, exert, call_favor, time"
    if "lay" in step or "lay_uid" in step:
        if "slot" not in step:
            return 'lay and lay_uid need "slot": the reader channel the tag is laid on'
        slot = step["slot"]
    elif "lift" in step:
        slot = step["lift"]
    else:
        return None
    if not isinstance(slot, int) or isinstance(slot, bool) or not 0 <= slot < CHANNELS:
        return f"use a reader channel 0 to {CHANNELS - 1} (0–3 the Draw Board, 4 Favor, 5 Time)"
    return None


def _step(table: SimulatedTable, step: dict[str, Any]) -> Outcome | None:
    if "say" in step:
        print(f"\n  ── {step['say']}")
        return None
    if "lay" in step:
        return table.lay(int(step["slot"]), token=str(step["lay"]))
    if "lay_uid" in step:
        return table.lay(int(step["slot"]), uid=str(step["lay_uid"]))
    if "lift" in step:
        table.lift(int(step["lift"]))
        return None
    if step.get("clear"):
        table.clear_board()
        return None
    if "dial" in step:
        return table.dial(step["dial"])
    if "button" in step:
        outcome = table.button(str(step["button"]))
        if outcome is None:
            sel = table.controls.selection()
            hint = sel["message"] or sel["warning"] or _dial_text(sel)
            print(f"  [wheel] {step['button']} button: {hint}")
        return outcome
    return table.command(step, source="worldkeeper")


def _dial_text(sel: dict[str, Any]) -> str:
    if sel["mode"] == "redraw" and sel["redraw"]:
        return f"Redraw picks {sel['redraw']['name']} — press Redraw again (or push) to send"
    if sel["ring"]:
        return f"dialling the {sel['ring']} ring" + (" · Exert" if sel["exert"] else "")
    return "ready"
