"""``rhuna-table play``: your own table on this machine, with the web pages and gm.html.

``play TABLE`` runs the real service (as ``rhuna-table run`` does) on an emulated config —
the table file on the emulated token hub, the wheel on gpiozero's MockFactory, the PNG panel
— and publishes it on a private Mosquitto of its own: plain MQTT on 127.0.0.1 and WebSockets
serving the web pages, both on free ports, with generated accounts (the service, the gm, the
overlay and the display, the wall) behind an ACL, as ``rhuna-table demo``'s broker
(companion/ops/demo_broker.py). It prints the URLs of the overlay, the table display, the
wall and the WorldKeeper's remote (gm.html), each carrying its login, and serves until
Ctrl-C. ``--config rhuna.toml`` plays that config instead (its readers, panel and journal),
its ``[mqtt]`` broker set aside for the private one.

Nothing is thrown away between runs: the table's folder
(``$XDG_STATE_HOME/rhuna/<table id>``, by default ``~/.local/state/rhuna/<table id>``;
``--state DIR``; with ``--config`` its ``[state] dir``) holds the journal, so the next
``play`` goes on with the same night (``--new-session`` starts another), the panel's frames,
and the broker's folder (``broker/``): its accounts, so the printed URLs keep their
passwords, its ports while they are free, and its retained messages. It never publishes on a broker it did not start.

Ctrl-C stops the table (every acknowledged command is in the journal), then the broker;
no traceback, exit status 130 (SIGTERM: 0), as every ``rhuna-table`` command.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.cli import plain
from companion.cli.stopping import exit_status, stop_on_signals
from settings.errors import ConfigError

if TYPE_CHECKING:
    from companion.config import Config
    from companion.ops.demo_broker import DemoBroker

#: the broker's folder in the table's state folder (accounts, ports, Mosquitto's files)
BROKER = "broker"
#: the ``[mqtt]`` keys of a ``--config`` that ``play`` keeps: the rest name another broker
KEPT_MQTT = ("table_id", "keepalive", "max_queued", "reconnect_min_delay", "reconnect_max_delay")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play your own table on this machine: the web pages and gm.html on a private"
        " broker, the night kept across runs",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "table",
        nargs="?",
        metavar="TABLE",
        help="your table file (example: examples/table.toml), on the emulated token hub",
    )
    p.add_argument(
        "--config",
        help="a service config (rhuna.toml) to play instead of TABLE: its readers, panel and"
        " [state] dir; its [mqtt] broker is set aside for the private one",
    )
    p.add_argument(
        "--state",
        metavar="DIR",
        help="the table's folder: journal, panel, broker (default: $XDG_STATE_HOME/rhuna/<table"
        " id>, ~/.local/state/rhuna/<table id>)",
    )
    p.add_argument(
        "--new-session",
        action="store_true",
        help="archive the night's journal and start from the table file",
    )
    p.add_argument(
        "--carry",
        action="store_true",
        help="with --new-session: start from where the last session ended (as run --carry)",
    )
    p.add_argument(
        "--reset",
        metavar="PARTS",
        help="with --carry: parts not to carry, comma-separated (as run --reset)",
    )
    p.set_defaults(func=run)


def state_home(env: Mapping[str, str] | None = None) -> Path:
    """Where a user's tables live: ``$XDG_STATE_HOME/rhuna`` (an absolute path, as the XDG
    spec wants), else ``~/.local/state/rhuna``.

    >>> str(state_home({"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}))
    '/x/state/rhuna'
    >>> str(state_home({"XDG_STATE_HOME": "relative", "HOME": "/home/u"}))
    '/home/u/.local/state/rhuna'
    """
    env = os.environ if env is None else env
    given = env.get("XDG_STATE_HOME", "")
    if given and Path(given).is_absolute():
        return Path(given) / "rhuna"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "state" / "rhuna"


def run(args: argparse.Namespace) -> int:
    from companion.ops.demo_broker import DemoBroker

    if (args.table is None) == (args.config is None):
        raise ConfigError(
            "play: give your table file (rhuna-table play examples/table.toml) or --config"
            " rhuna.toml, one of the two"
        )
    if args.config is not None and args.state is not None:
        raise ConfigError(
            "play --config: the config's [state] dir is the table's folder: drop --state"
        )
    if (args.carry or args.reset) and not (args.carry and args.new_session):
        raise ConfigError(
            "--carry goes with --new-session (and --reset with --carry): rhuna-table play"
            " TABLE --new-session --carry [--reset PARTS]"
        )
    if DemoBroker.binary() is None:
        raise ConfigError(
            "play: the pages need Mosquitto, which is not installed — sudo apt install"
            " mosquitto (scripts/bootstrap does), or play without pages: rhuna-table run"
            " --config examples/rhuna-emulated.toml --commands -"
        )
    base, table_id, state_dir = _the_table(args)
    stop = threading.Event()
    with stop_on_signals(stop) as got, _held(state_dir / BROKER):
        broker = _start_broker(table_id, state_dir / BROKER)
        try:
            config = _with_broker(base, broker, table_id)
            code = 0
            if not stop.is_set():  # no Ctrl-C while the broker started
                _say(config, broker, table_id)
                code = _serve(config, args, stop)
        finally:
            broker.stop()
        code = exit_status(got) if got else code
        print(
            f"  Stopped: the table and its broker. The night is kept in {state_dir}:"
            " the same command goes on with it (--new-session starts another).",
            flush=True,
        )
    return code


def _the_table(args: argparse.Namespace) -> tuple[Config, str, Path]:
    """(the config to play, with MQTT still off; the table's id on MQTT; its folder)."""
    from companion.config import load_config
    from companion.mqtt import load_mqtt_config
    from companion.ops.account_model import check_name
    from companion.scripted import emulated_config
    from engine import load_table

    if args.config is not None:
        config = load_config(args.config)
        table_id = load_mqtt_config(config.mqtt, str(config.source)).table_id
        table_id = check_name(table_id or load_table(config.table_file).table_id, "table id")
        return config, table_id, config.state_dir
    table = Path(args.table)
    table_id = check_name(load_table(table).table_id, "table id")
    state_dir = Path(args.state).expanduser() if args.state else state_home() / table_id
    config = emulated_config(
        table, state_dir, out_dir=state_dir / "panel", source=f"play ({table.name})"
    )
    return config, table_id, state_dir


@contextlib.contextmanager
def _held(folder: Path) -> Iterator[None]:
    """One ``play`` a table folder at a time (the service's own lock is taken later, after
    the broker: a second ``play`` must not get as far as starting a broker of its own)."""
    from companion.table.statedir import make_dir

    make_dir(folder.parent)
    folder.mkdir(mode=0o700, exist_ok=True)  # the broker's accounts: this user's alone
    fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(
                f"play: {folder.parent} is being played already (another rhuna-table play):"
                " stop it there (Ctrl-C), or give this one --state DIR"
            ) from None
        yield
    finally:
        os.close(fd)


def _start_broker(table_id: str, folder: Path) -> DemoBroker:
    from companion.ops.demo_broker import DemoBroker

    try:
        return DemoBroker([table_id], folder=folder).start()
    except RuntimeError as e:
        raise ConfigError(f"play: the private Mosquitto did not start: {e}") from None


def _with_broker(config: Config, broker: DemoBroker, table_id: str) -> Config:
    """``config`` publishing on the private broker, as the table's service account."""
    from companion.mqtt import load_mqtt_config

    user, password = broker.login(table_id)
    section: dict[str, Any] = {k: v for k, v in config.mqtt.items() if k in KEPT_MQTT}
    section.update(host="127.0.0.1", port=broker.port, username=user, password=password)
    load_mqtt_config(section, str(config.source))  # checked as the service will
    return dataclasses.replace(config, mqtt=section)


def _say(config: Config, broker: DemoBroker, table_id: str) -> None:
    from companion.table.journal import JOURNAL
    from companion.table.journal_file import inspect

    journal = config.state_dir / JOURNAL
    seen = inspect(config.state_dir)
    if seen is None or "error" in seen:
        night = "a new night" if seen is None else f"there, not readable here ({seen['error']})"
    else:
        n = seen["seq"]
        night = f"{n} command{'' if n == 1 else 's'} so far: the night goes on"
    print(f"\nRhuna table companion — table {table_id!r} ({config.table_file}) on this machine")
    print(f"  journal: {journal}, {night}")
    if config.display.driver == "png":
        print(f"  panel frames: {config.display.options.get('out_dir')}/latest.png")
    pages = "and the web pages " if broker.pages else ""
    print(
        f"  MQTT: a private Mosquitto on 127.0.0.1:{broker.port}, WebSockets {pages}on port"
        f" {broker.ws_port} (its accounts and ports kept in {broker.dir})"
    )
    if broker.pages is None:
        print("  (the web pages are not built: `make web`, then play again)")
    print("\n  Open the table in a browser (each URL carries its login):")
    for what, url in broker.urls(table_id):
        print(f"    {what}: {url}")
    print("\n  Playing: gm.html's commands land in the journal; Ctrl-C to stop.\n", flush=True)


def _serve(config: Config, args: argparse.Namespace, stop: threading.Event) -> int:
    """The service, as ``rhuna-table run`` runs it, until ``stop`` (Ctrl-C, SIGTERM)."""
    from companion.cli.run import setup_logging
    from companion.service import Service

    carry = None
    if args.carry:
        from companion.record.carry import parse_reset

        carry = parse_reset(args.reset)
    setup_logging(config.log_level)
    return Service(config, new_session=args.new_session, carry=carry).run(stop)
