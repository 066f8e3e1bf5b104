"""``rhuna-table demo``: the whole table on embedded defaults, with no hardware at all.

The emulated token hub sits on a real pty; tokens "laid" on its readers travel as
serial frames to the HubReader, through the tag registry into commands, through
the engine, and out to the PNG panel (``demo-out/…/latest.png`` and numbered
frames). Wheel and button presses are commands from the script. Then the example
fight runs through the same loop, and the panel shows the combat wheel.

Each table is the real :class:`~companion.service.Service`, built as ``rhuna-table run``
builds it from an emulated config (:mod:`companion.scripted`: the emulated hub, gpiozero's
MockFactory pins, the PNG panel), so every command is committed to its journal in
``--out``'s ``<table>/state/`` (``rhuna-table history demo-out/table/state``); each run
starts a fresh journal there (the last run's is replaced).

MQTT: with Mosquitto installed the demo starts a private broker (plain MQTT plus
WebSockets serving the web pages, with throwaway accounts: companion/ops/demo_broker.py)
and prints the overlay, table display and wall URLs. On a terminal (standard input and
output both ttys) both tables and the pages stay served after the script until Ctrl-C
(each service's own loop: the WorldKeeper's remote is answered too); without one (a test,
CI, a pipe) the demo ends with its script. ``--serve`` keeps them served anyway,
``--no-serve`` never. ``--mqtt HOST:PORT`` publishes on a broker of yours instead,
``--no-mqtt`` not at all.

Ctrl-C stops it cleanly, in the script or after it: every table is stopped and its journal
closed, then the broker; the exit status is then 130 (128 + SIGINT, as for every
``rhuna-table`` command).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.cli.stopping import INTERRUPTED, exit_status, relayed
from companion.table.loop import Outcome
from engine import load_table
from engine.narrate import describe
from engine.state import TableState
from settings.errors import ConfigError

if TYPE_CHECKING:
    from companion.config import Config
    from companion.scripted import ScriptedTable

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: (name, table, script) played by default
DEFAULT_PLAYS = [
    ("table", EXAMPLES / "table.toml", EXAMPLES / "demo.jsonl"),
    ("fight", EXAMPLES / "fight.toml", EXAMPLES / "fight.jsonl"),
]
#: the emulated hub's channels: the Draw Board slots 0–3, Favor 4, Time 5
CHANNELS = 6
ROLES = {4: "favor", 5: "time"}
#: the journal's folder in each play's --out folder
STATE = "state"


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
        metavar="HOST[:PORT]",
        help="publish the table on this MQTT broker when one answers there (default: a private"
        " Mosquitto of the demo's own when mosquitto is installed, else localhost:1883)",
    )
    p.add_argument("--no-mqtt", action="store_true", help="do not publish on MQTT")
    p.add_argument(
        "--serve",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="after the script, keep the tables and the web pages served until Ctrl-C"
        " (default: on a terminal, when the demo has its own broker; --no-serve: never)",
    )
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
    from display.panels import check_colour, panel_spec

    for option, check in (("--panel", panel_spec), ("--colour", check_colour)):
        try:  # a bad --panel or --colour fails before anything is printed
            check(getattr(args, option[2:]))
        except ConfigError as e:
            raise ConfigError(f"demo {option}: {e}") from None
    if args.table or args.script:
        if not args.script:
            raise ConfigError("demo: --table needs --script")
        table = Path(args.table) if args.table else EXAMPLES / "table.toml"
        plays = [(table.stem, table, Path(args.script))]
    else:
        plays = DEFAULT_PLAYS
    states = [(name, table, load_table(table), script) for name, table, script in plays]
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _interrupt) if main_thread else None
    try:
        code = _run(args, states)
    except KeyboardInterrupt:  # in the script: its tables and the broker are stopped by now
        print("\n  Stopped (Ctrl-C) before the end of the script.", flush=True)
        return INTERRUPTED
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    return code


def _interrupt(signum: int, frame: Any) -> None:
    """The first Ctrl-C stops the demo; more while its tables stop are that same request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def on_terminal() -> bool:
    """Whether someone is watching: standard input and output both a terminal."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def _run(args: argparse.Namespace, states: list[tuple[str, Path, TableState, Path]]) -> int:
    with ExitStack() as served:
        broker = _private_broker(args, [s.table_id for _, _, s, _ in states])
        if broker is not None:
            served.callback(broker.stop)
        serve = args.serve if args.serve is not None else broker is not None and on_terminal()
        code = 0
        for name, table, state, script in states:
            out = Path(args.out) / name
            if broker is not None:
                mqtt: tuple[str, int] | None = ("127.0.0.1", broker.port)
            else:
                mqtt = None if args.no_mqtt else broker_answering(args.mqtt or "localhost:1883")
                if not args.no_mqtt and mqtt is None:
                    print(f"\n  (no MQTT broker answers on {args.mqtt}: not publishing)")
            login = broker.login(state.table_id) if broker is not None else None
            keep = served if serve else None
            code = play(
                table, state, script, out, args.panel, args.colour, mqtt, login=login, keep=keep
            )
            print(f"\n  panel frames: {out}/frame-*.png, newest {out}/latest.png")
            if code:
                return code
        if broker is not None:
            _print_urls(broker, [s.table_id for _, _, s, _ in states], serve)
        if serve:
            if broker is not None:
                where = f"the pages above stay up (127.0.0.1:{broker.ws_port})"
            else:
                where = "the tables stay up on MQTT"
            print(f"\n  Serving the tables: {where}; Ctrl-C to stop.", flush=True)
            code = _wait_for_stop()
    if serve:  # the tables, then the broker, have stopped
        print("  Stopped.", flush=True)
    return code if serve else 0


def _wait_for_stop() -> int:
    """Until Ctrl-C (130) or SIGTERM (0); a background job may have SIGINT ignored: take it
    back. The tables and the broker stop after, as the ``served`` stack closes."""
    stop = threading.Event()
    got: list[int] = []
    with relayed(stop) as fire:  # never stop.set() in the handler: it may come inside wait()

        def handle(signum: int, _frame: Any) -> None:
            got.append(signum)
            fire()

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, handle)
        stop.wait()
        # a second Ctrl-C while the tables stop is the same request, not a traceback (and
        # never a write to the relay's pipe once it is closed)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("\n  Stopping the tables and the pages.", flush=True)
    return exit_status(got)


def _private_broker(args: argparse.Namespace, tables: list[str]) -> Any:
    """The demo's own Mosquitto (MQTT + WebSockets + the pages), when it can have one."""
    from companion.ops.demo_broker import DemoBroker

    if args.no_mqtt or args.mqtt or DemoBroker.binary() is None:
        if args.serve and (args.no_mqtt or DemoBroker.binary() is None):
            raise ConfigError(
                "demo: --serve needs Mosquitto (Debian package mosquitto; scripts/bootstrap"
                " installs it) and MQTT (drop --no-mqtt)"
            )
        return None
    try:
        broker = DemoBroker(sorted(set(tables))).start()
    except RuntimeError as e:
        print(f"\n  (the demo's own MQTT broker did not start: {e}; not publishing)")
        return None
    pages = "and the web pages " if broker.pages else ""
    print(
        f"\n  MQTT: a private Mosquitto on 127.0.0.1:{broker.port}, WebSockets {pages}on"
        f" port {broker.ws_port}"
    )
    if broker.pages is None:
        print("  (the web pages are not built: `make web`, then run the demo again)")
    return broker


def _print_urls(broker: Any, tables: list[str], serving: bool) -> None:
    print("\n  Open the table in a browser (or as an OBS browser source):")
    seen: set[str] = set()
    for table in tables:
        for what, url in broker.urls(table):
            if url in seen or (what == "convention wall" and table != tables[-1]):
                continue
            seen.add(url)
            print(
                f"    {what} [{table}]: {url}"
                if what != "convention wall"
                else f"    {what}: {url}"
            )
    if not serving:
        print("  (they work while the demo runs; run it on a terminal, or add --serve, to keep")
        print("   them served afterwards: .venv/bin/rhuna-table demo --serve)")


def _injuries(state: TableState) -> dict[str, str]:
    """hero id → its combatant's injuries in words ("6 injuries (dies above 6)", "dead"), for
    each hero a fight has injured or killed (C8, C9); none without a fight."""
    from engine.combat.pools import death_limit
    from engine.combat.rules import CombatRules

    if state.combat is None:
        return {}
    r = CombatRules(state.rules)
    said: dict[str, str] = {}
    for c in state.combat.roster.values():
        if c.hero is None or c.hero not in state.heroes or not (c.injuries or c.dead):
            continue
        n = c.injury_count
        words = f"{n} injur{'y' if n == 1 else 'ies'}"
        said[c.hero] = f"{words}, dead" if c.dead else f"{words} (dies above {death_limit(c, r)})"
    return said


def sheets(state: TableState) -> list[str]:
    """The heroes' tracks; after a fight, each injured hero's combat injuries beside them and
    why they are not Wounds (C8–C9 against P15)."""
    injuries = _injuries(state)
    lines = [
        f"  {h.name:<8} Fatigue {h.fatigue}/{h.fatigue_capacity}  "
        f"Strain {h.strain}/{h.strain_capacity}  Wounds {h.wounds}  "
        f"Favor {h.favor}  Redraws {h.redraws}  bag {len(state.bags[h.bag].contents)} tokens"
        + (f"  · fight: {injuries[h.id]}" if h.id in injuries else "")
        for h in state.heroes.values()
    ]
    if injuries:
        lines.append(
            "  (a fight's injuries (C8–C9) are not Wounds: a Wound comes from Strain past its"
            " capacity (P14–P15))"
        )
    return lines


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
    table_file: Path,
    state: TableState,
    script: Path,
    out: Path,
    panel: str,
    colour: str,
    mqtt: tuple[str, int] | None = None,
    *,
    login: tuple[str, str] | None = None,
    keep: ExitStack | None = None,
) -> int:
    """Play ``script`` on the table of ``table_file`` (``state``: that table, loaded to check
    the script against): the real service on an emulated config (companion/scripted.py),
    its journal in ``out/state``, fresh each run. With ``keep``, leave the service
    serving (its own loop: the web pages' commands too), closed with that stack."""
    from companion.cli.replay import read_session
    from companion.scripted import ScriptedTable, emulated_config

    steps = read_session(script)
    for line, step in steps:
        problem = _problem(step) or _unknown(state, step)
        if problem is not None:
            print(f"  {script}:{line}: {json.dumps(step)}: {problem}")
            return 1
    section: dict[str, Any] | None = None
    if mqtt is not None:
        section = {"host": mqtt[0], "port": mqtt[1]}
        if login is not None:
            section["username"], section["password"] = login
    config = emulated_config(
        table_file,
        out / STATE,
        out_dir=out,
        panel=panel,
        colour=colour,
        channels=CHANNELS,
        roles=ROLES,
        mqtt=section,
        source=f"demo ({table_file.name})",
    )
    _fresh_journal(config.state_dir)  # a demo still playing there: one error, before the header
    print(f'\nRhuna table companion — {script.name} on {out} ({panel}" {colour} PNG panel)')
    print(*sheets(state), sep="\n")
    with ExitStack() as local:
        owner = keep if keep is not None else local
        # the journal was just cleared on purpose: a fresh session, not a night gone missing
        table = owner.enter_context(ScriptedTable(config, flipbook=True, new_session=True))
        print(f"  token hub emulated on {table.hub.link}; {len(table.registry)} tags enrolled")
        if section is not None:
            _say_mqtt(config, table.loop.state.table_id)
        print()
        for line, step in steps:
            try:
                outcome = _step(table, step)
            except (KeyError, ValueError, TimeoutError) as e:
                # a KeyError's str() is its repr ('…' in quotes): print the message itself
                print(f"  {script}:{line}: {e.args[0] if e.args else type(e).__name__}")
                return 1
            if outcome is not None:
                _show(outcome)
        final = table.loop.state
        journal, committed = out / STATE / table.service.store.path.name, table.service.store.seq
        if keep is not None:
            table.serve()
    print("\n  At the end:")
    print(*sheets(final), sep="\n")
    print(f"\n  journal: {journal}, {committed} commands (rhuna-table history {out / STATE})")
    return 0


def _fresh_journal(state_dir: Path) -> None:
    """Each run plays its script on a fresh table: the last run's journal goes (under the
    state directory's lock, so never under a demo still playing into the same --out)."""
    from companion.table.journal import MARK
    from companion.table.store import JOURNAL, locked

    with locked(state_dir, "wait for it to end, or give this one another --out"):
        for suffix in ("", "-wal", "-shm"):
            (state_dir / f"{JOURNAL}{suffix}").unlink(missing_ok=True)
        (state_dir / MARK).unlink(missing_ok=True)


def _say_mqtt(config: Config, table_id: str) -> None:
    """Where the service's MQTT bridge (its ``[mqtt]`` extension, docs/mqtt.md) publishes."""
    from companion.mqtt import load_mqtt_config

    mqtt = load_mqtt_config(config.mqtt, str(config.source))
    base = f"{mqtt.base_topic}/{mqtt.table_id or table_id}"
    print(
        f"  MQTT: publishing on {mqtt.host}:{mqtt.broker_port} under {base}/ (state, events,"
        " status)"
    )


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


def _unknown(state: TableState, step: dict[str, Any]) -> str | None:
    """A hero, ring or token the table does not have: a script error, not a Performance begun
    on the wheel's defaults (checked against the table before the hub starts)."""
    from hardware.wheel import RINGS

    dial = step.get("dial")
    if isinstance(dial, dict):
        for ring in dial:
            if ring not in RINGS:
                return f"the wheel has no ring {ring} (rings: {', '.join(RINGS)})"
        hero = dial.get("hero")
        if hero is not None and str(hero) not in state.heroes:
            return f"no hero {hero} at this table (heroes: {', '.join(state.heroes)})"
        capability = dial.get("capability")
        if capability is not None and str(capability) not in state.capabilities:
            return (
                f"no capability {capability} at this table"
                f" (capabilities: {', '.join(state.capabilities)})"
            )
    token = step.get("lay")
    if token is not None and str(token) not in state.tokens:
        return f"no token {token} at this table (token ids look like aria.ember.skill, favor.07)"
    return None


def _step(table: ScriptedTable, step: dict[str, Any]) -> Outcome | None:
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
