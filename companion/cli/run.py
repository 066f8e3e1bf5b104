"""``rhuna-table run`` (the daemon) and ``rhuna-table check-config`` (what it would run).

``run --config rhuna.toml`` restores the table from its journal and serves it
until SIGTERM/SIGINT. ``--new-session`` archives the journal first (a new table
file, or a fresh evening). ``--commands FILE`` (``-``: standard input)
also reads JSON commands and answers ``ack <seq>`` once each is committed; at the
end of the file (or of the input) the service stops once every command read is
answered — committed to the journal — unless ``--keep-running`` is given.

``check-config rhuna.toml`` checks everything a start would check without
opening any device, and prints the plan — or every error, with exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from settings.errors import ConfigError
from settings.textfile import read_text

if TYPE_CHECKING:
    from companion.config import Config
    from hardware.config import GpioConfig

DEFAULT_CONFIG = "/etc/rhuna-table/rhuna.toml"

#: journald reads a ``<N>`` prefix as the line's syslog priority
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3}


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the table service (the daemon)")
    p.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"the service config (default {DEFAULT_CONFIG})"
    )
    p.add_argument(
        "--new-session",
        action="store_true",
        help="archive the journal and start from the table file (after changing the table)",
    )
    p.add_argument(
        "--carry",
        action="store_true",
        help="with --new-session: start from where the last session ended (heroes' Fatigue,"
        " Strain and its tokens, Wounds, Favor, Redraws, Training, Active Reserve; the Time"
        " Board's day, band and weather; combatants' injuries, conditions, renown)",
    )
    p.add_argument(
        "--reset",
        metavar="PARTS",
        help="with --carry: parts not to carry, comma-separated (fatigue, strain, wounds,"
        " favor, redraws, training, reserve, time, weather, injuries, conditions, renown, all)",
    )
    p.add_argument(
        "--commands",
        metavar="FILE",
        help='also read JSON commands, one per line, from FILE ("-": standard input); each'
        " committed one is answered `ack <seq>` on standard output; at the end of FILE the"
        " service stops once all are committed",
    )
    p.add_argument(
        "--keep-running",
        action="store_true",
        help="with --commands: keep serving after the end of the commands (readers, wheel, MQTT)",
    )
    p.set_defaults(func=run)

    c = sub.add_parser("check-config", help="check a service config and say what it would run")
    c.add_argument(
        "config", nargs="?", default=None, help=f"config file (default {DEFAULT_CONFIG})"
    )
    c.add_argument(
        "--config",
        dest="config_option",
        metavar="CONFIG",
        help="the same, as every other subcommand takes it",
    )
    c.set_defaults(func=check_config)


class JournaldFormatter(logging.Formatter):
    """``<3>rhuna.store: …``: journald keeps the level, and adds the time itself."""

    def format(self, record: logging.LogRecord) -> str:
        priority = _PRIORITY.get(record.levelno, 3 if record.levelno > logging.ERROR else 6)
        return f"<{priority}>{record.name}: {super().format(record)}"


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (as logging's last resort
    does), so a swapped or closed stream (tests) never breaks a reader thread's log line."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> TextIO:
        return sys.stderr


def setup_logging(level: str) -> None:
    """Log to standard error; under systemd (``$JOURNAL_STREAM``) in journald's form. Other
    handlers on the root logger are left alone; a second call replaces only ours."""
    handler = StderrHandler()
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournaldFormatter("%(message)s"))
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")
        )
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, StderrHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())


def run(args: argparse.Namespace) -> int:
    from companion.config import load_config
    from companion.service import Extension, Service

    config = load_config(args.config)
    setup_logging(config.log_level)
    extra: list[Extension] = []
    stop = threading.Event()
    source = None
    if args.commands:
        from companion.table.command_source import JsonLinesCommands

        stream = _commands(args.commands)
        on_end = None if args.keep_running else stop.set
        source = JsonLinesCommands(stream, sys.stdout, on_end=on_end)
        extra.append(source)
    carry = None
    if args.carry or args.reset:
        from companion.record.carry import parse_reset

        if not (args.carry and args.new_session):
            raise ConfigError(
                "--carry goes with --new-session (and --reset with --carry): rhuna-table run"
                " --new-session --carry [--reset PARTS]"
            )
        carry = parse_reset(args.reset)
    service = Service(config, new_session=args.new_session, carry=carry, extra=extra)
    code = service.run(stop)
    if source is not None and code == 0:
        # a run that took none of its commands did not do what it was asked: never exit 0
        if source.journal_row is not None:
            print(
                f"rhuna-table: --commands {args.commands}: line {source.journal_row} is a"
                " journal row (an export's events.jsonl or history --json), not a command —"
                f" {source.taken} taken; to load that session use `rhuna-table replay"
                f" TABLE_FILE {args.commands}`",
                file=sys.stderr,
            )
            return 1
        if source.refused and not source.taken:
            print(
                f"rhuna-table: --commands {args.commands}: every one of its {source.refused}"
                " commands was refused (each refusal above says why and the fix); none taken",
                file=sys.stderr,
            )
            return 1
    return code


def _commands(name: str) -> TextIO:
    """The stream of ``--commands``: standard input, or a file read (and checked) whole — a
    UTF-16 or Latin-1 file is one clear error before the service starts, not a dead thread."""
    if name == "-":
        return sys.stdin
    path = Path(name)
    try:
        if not path.is_file():  # a FIFO or a device: read as it comes
            return path.open(encoding="utf-8")
        return io.StringIO(read_text(path))
    except OSError as e:
        raise ConfigError(f"--commands {name}: cannot read it ({e.strerror})") from None


def check_config(args: argparse.Namespace) -> int:
    from companion.config import ConfigErrors, load_config

    given = [c for c in (args.config, args.config_option) if c is not None]
    if len(given) == 2 and given[0] != given[1]:
        raise ConfigError(
            f"check-config: two configs ({given[0]} and --config {given[1]}) — give one"
        )
    args.config = given[0] if given else DEFAULT_CONFIG
    try:
        config = load_config(args.config)
        lines = plan(config)
    except ConfigErrors as e:
        for error in e.errors:
            print(error, file=sys.stderr)
        print(f"{args.config}: {len(e.errors)} problem(s); nothing would run", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    print(f"{args.config}: OK — `rhuna-table run` would use:")
    for line in lines:
        print(f"  {line}")
    return 0


def plan(config: Config) -> list[str]:
    """What a start would do, line by line; :class:`ConfigErrors` listing everything a start
    would refuse (table, journal, state directory, registry, pins, MQTT) at once."""
    from companion.service import load_registry
    from companion.table.store import JOURNAL, fingerprint, inspect
    from engine import load_table
    from settings.checker import Problems

    problems = Problems(str(config.source))
    out: list[str] = []
    state = None
    if not config.table_file.exists():
        problems.add(
            "table.file",
            f"{config.table_file} does not exist",
            'write [table] file = "…" with the path of your table file (example:'
            " examples/table.toml; relative paths start at the config's folder)",
        )
    else:
        try:
            state = load_table(config.table_file)
        except ConfigError as e:
            problems.note(e)
    if state is not None:
        out.append(
            f"table     {config.table_file}: table {state.table_id!r}, {len(state.heroes)} heroes,"
            f" {len(state.tokens)} tokens"
        )
    journal = config.state_dir / JOURNAL
    refused = _state_dir_refused(config.state_dir)
    if refused is not None:
        problems.note(ConfigError(refused))
    why = None if refused is not None else _unwritable(config.state_dir)
    if why:
        problems.add("state.dir", why, _STATE_FIX.format(dir=config.state_dir))
    try:
        seen = inspect(config.state_dir)
    except ConfigError as e:
        problems.note(e)
        seen = {"error": "damaged"}
    if seen is None:
        out.append(f"journal   {journal}: none yet (created at the first start)")
    elif "error" in seen:
        out.append(f"journal   {journal}: present, not readable here ({seen['error']})")
    elif state is not None:
        meta = seen["meta"]
        if meta.get("fingerprint") != fingerprint(state):
            problems.note(
                ConfigError(
                    f"{config.table_file}: this table file is not the one the journal in {journal}"
                    f" was started with ({meta.get('table_file', '?')}) — put it back as it was,"
                    " or start a new session: rhuna-table run --config … --new-session"
                )
            )
        out.append(
            f"journal   {journal}: #{seen['seq']} commands, snapshot #{seen['snapshot_seq']},"
            f" started {meta.get('created', '?')}; snapshots every {config.snapshot_every}"
        )
    if not config.readers:
        out.append("readers   none (commands come from the wheel, MQTT or --commands)")
    for i, reader in enumerate(config.readers):
        out.append(("readers   " if i == 0 else "          ") + reader.describe())
    if config.synthetic:
        tokens = len(state.tokens) if state is not None else "?"
        out.append(f"registry  synthetic: a made-up tag for each of the {tokens} tokens")
    elif state is not None:
        try:
            registry = load_registry(config, state)
            what = (
                f"{len(registry)} enrolled tags" if len(registry) else "none (no readers need it)"
            )
            out.append(f"registry  {config.registry_file}: {what}")
        except ConfigError as e:
            problems.note(e)
    d = config.display
    if d.driver == "none":
        out.append("display   none")
    else:
        where = f" → {d.options['out_dir']}/latest.png" if d.driver == "png" else ""
        extra = "".join(f", {k} {v}" for k, v in d.options.items() if k != "out_dir")
        out.append(
            f'display   {d.driver} {d.panel}" {d.colour}{where}; a full refresh every'
            f" {d.full_every}{extra}"
        )
    from display.config import library_problem

    why = library_problem(d.driver)
    if why:
        problem, _, fix = why.partition(" — ")
        problems.add("display.driver", problem, fix)
    out.append(f"wheel     {_wheel(config.gpio)}")
    if config.gpio is not None:
        from hardware.controls import pin_factory_problem

        why = pin_factory_problem(config.gpio.pin_factory)
        if why:
            problem, _, fix = why.partition(" — ")
            problems.add("gpio.pin_factory", problem, fix)
    try:
        out.append(f"mqtt      {_mqtt(config, state.table_id if state else '?')}")
    except ConfigError as e:
        problems.absorb(e)
    out.append(f"log       {config.log_level}")
    if config.recap and config.recaps_dir is not None:
        link = f", linked as {config.recap_url}" if config.recap_url else ""
        out.append(
            f"record    a session's recap when it ends → {config.recaps_dir}/<session>{link}"
        )
    else:
        out.append("record    no recap when a session ends ([record] recap = false)")
    problems.raise_if_any()
    return out


_STATE_FIX = (
    "create it for the service's user (sudo install -d -o rhuna -g rhuna {dir}), let systemd"
    " make it (StateDirectory=rhuna-table), or give [state] dir = a folder you can write"
)


def _state_dir_refused(folder: Path) -> str | None:
    """What ``run`` would say of its state directory (companion/table/store.py, word for word):
    one it cannot create, or one another service holds (the lock); None if it would start.
    Nothing is left behind: a folder made to find out is removed, and no lock file is made."""
    import fcntl

    from companion.table.store import _BUSY_FIX, LOCK

    made: list[Path] = []
    probe = folder
    while not probe.exists() and probe != probe.parent:
        made.append(probe)
        probe = probe.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return (
            f"state.dir {folder}: cannot create it ({e.strerror}) — create it for the"
            " service's user, or set [state] dir to a writable directory"
        )
    finally:
        for path in made:  # deepest first
            with contextlib.suppress(OSError):
                path.rmdir()
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY)
    except OSError:
        return None  # no lock file: nobody holds it (a start makes it)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        return (
            f"{folder}: another rhuna-table (pid {holder}) is running on this state"
            f" directory — {_BUSY_FIX}"
        )
    finally:
        os.close(fd)  # closing drops the flock, if this took it
    return None


def _unwritable(folder: Path) -> str | None:
    """Why the service could not write its journal in ``folder`` (created if missing), or None."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        who = "this user" if os.geteuid() else "root"
        verb = (
            "cannot be written"
            if probe == folder
            else f"cannot be created ({probe} is not writable)"
        )
        return f"{folder} {verb} by {who}"
    return None


def _mqtt(config: Config, table_id: str) -> str:
    from companion.mqtt import load_mqtt_config

    mqtt = load_mqtt_config(config.mqtt, str(config.source))
    if not mqtt.enabled:
        return "off ([mqtt] enabled = false)"
    tls = " with TLS" if mqtt.tls is not None else ""
    return (
        f"{mqtt.host}:{mqtt.broker_port}{tls}, topics {mqtt.base_topic}/"
        f"{mqtt.table_id or table_id}/… (connects in the background; a broker that is down"
        " is retried)"
    )


def _wheel(gpio: GpioConfig | None) -> str:
    if gpio is None:
        return "off ([gpio] enabled = false)"
    push = f", push {gpio.encoder_push}" if gpio.encoder_push is not None else ""
    buttons = ", ".join(f"{name} {b.pin}" for name, b in gpio.buttons.items())
    return (
        f"pins via {gpio.pin_factory or 'gpiozero default'}: encoder {gpio.encoder_a}/"
        f"{gpio.encoder_b}{push}; buttons {buttons}"
    )
