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
import io
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from settings.errors import ConfigError
from settings.textfile import read_text

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
        " Board's day, band and weather; combatants' injuries, conditions, death, renown and"
        " worn armour)",
    )
    p.add_argument(
        "--reset",
        metavar="PARTS",
        help="with --carry: parts not to carry, comma-separated (fatigue, strain, wounds,"
        " favor, redraws, training, reserve, time, weather, injuries, conditions, renown,"
        " armour, all)",
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
    _say_how_to_get_pages(config, args.config)  # once the table is restored, not before a refusal
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


def _say_how_to_get_pages(config: Any, path: str) -> None:
    """A table on no hardware with MQTT off (examples/rhuna-emulated.toml): one line saying
    where the web pages and gm.html are, since this run publishes nowhere."""
    from companion.mqtt import load_mqtt_config

    if load_mqtt_config(config.mqtt, str(config.source)).enabled:
        return
    if any(r.backend != "emulated-hub" for r in config.readers):
        return
    logging.getLogger("rhuna.run").info(
        "MQTT off ([mqtt] enabled = false): no web pages, no gm.html. For them, on a private"
        " broker of this table's own: rhuna-table play --config %s",
        path,
    )


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
    from companion.ops.start_plan import plan

    given = [c for c in (args.config, args.config_option) if c is not None]
    if len(given) == 2 and given[0] != given[1]:
        raise ConfigError(
            f"check-config: two configs ({given[0]} and --config {given[1]}) — give one"
        )
    args.config = given[0] if given else DEFAULT_CONFIG
    try:
        config = load_config(args.config)
        lines = plan(config)  # companion.ops.start_plan
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
