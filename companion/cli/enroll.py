"""``rhuna-table enroll``: give every token its RFID tag, one scan at a time (docs/enroll.md).

It reads the same config as ``rhuna-table run``, opens one of its readers (the one
with an ``enroll`` role, else ``--reader NAME``, else the first) with the service's
own builder, and walks the bags (:mod:`tags.enroll` decides everything)::

    now scan: Aria's skill Ember (control) (aria.ember.skill) [1/163]
      ok: tag 04A1B2C3D4E5F6 is Aria's skill Ember (control) (aria.ember.skill)
    now scan: Aria's second skill Ember (control) (aria.ember.skill.2) [2/163]

The registry is saved (atomically, fsync'd) after every accepted tag, so Ctrl-C or a
power cut loses at most the token being scanned, and the next run goes on from there.

It holds the state directory's lock while it enrols, exactly as the service does:
the service holds the reader's serial port and reads the registry only when it
starts, so the two must not run at once — enrolling beside a running service is
refused, and the service will not start until the enrolment ends.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from companion.cli.stopping import INTERRUPTED, stop_on_signals
from firmware_bridge.events import ReaderStatus, TagEvent, present_tags
from settings.errors import ConfigError
from tags.enroll import Enrolment, Verdict, bag_reports, strangers
from tags.registry import TagRegistry, open_registry

if TYPE_CHECKING:
    from companion.config import Config, ReaderConfig
    from engine.state import TableState

#: seconds between two looks at the Ctrl-C flag while waiting for a tag
POLL = 0.1
BUSY_FIX = (
    "enrolment needs the reader the service holds, and the service reads the registry only"
    " when it starts: stop it (sudo systemctl stop rhuna-table), enrol, then start it again"
)


def register(sub: Any) -> None:
    from companion.cli.run import DEFAULT_CONFIG

    p = sub.add_parser(
        "enroll",
        help="give each token its RFID tag: scan them bag by bag into the tag registry",
        description='Walk the bags token by token ("now scan: …"), saving the tag registry'
        " after every token. Stop the service first. See docs/enroll.md.",
    )
    p.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"the service config (default {DEFAULT_CONFIG})"
    )
    p.add_argument(
        "--bag",
        action="append",
        default=[],
        metavar="BAG",
        help="a bag to enrol: a hero (aria), favor, time.morning, time (every Time Bag),"
        " weather, temporary …; repeatable; default: every bag (Hero Bags, Favor, Time,"
        " Weather, temporary tokens)",
    )
    p.add_argument(
        "--reader",
        metavar="NAME",
        help="the [[readers]] name to scan on (default: the one with an enroll role, else the"
        " first)",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--redo", metavar="TOKEN", help="give one token a new tag (e.g. aria.ember.skill)"
    )
    what.add_argument(
        "--list", action="store_true", help="show what is enrolled and what is missing, per bag"
    )
    p.set_defaults(func=enroll)


def enroll(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from companion.config import load_config
    from companion.table.store import locked
    from engine import load_table

    out = out or sys.stdout
    config = load_config(args.config)
    if config.synthetic:
        raise ConfigError(
            f"{config.source}: [registry] synthetic = true: every token already has a made-up"
            " tag, so there is nothing to enrol — for real tags, replace it with"
            ' file = "registry.json", then run rhuna-table enroll'
        )
    if args.redo and args.bag:
        raise ConfigError("--redo names one token, --bag a walk: give one or the other")
    path = config.registry_file
    assert path is not None  # the config gives a file whenever synthetic is false
    state = load_table(config.table_file)
    if args.list:  # only reads the file: fine beside a running service
        show_list(state, open_registry(path, fix=REGISTRY_FIX), args.bag, path, out)
        return 0
    rc, channels = choose_reader(config, args.reader)
    with locked(config.state_dir, BUSY_FIX), _quiet_readers(config.log_level):
        # read under the lock: no one else writes it now
        registry = open_registry(path, fix=REGISTRY_FIX)
        if args.redo:
            walk = Enrolment.for_redo(state, registry, args.redo)
        else:
            walk = Enrolment.for_bags(state, registry, args.bag)
        if walk.finished:
            say(
                out,
                f"{path}: all {walk.total} token(s) already have a tag — nothing to scan"
                " (--list shows them; --redo TOKEN gives one a new tag)",
            )
            return 0
        save_registry(registry, path)  # a registry we cannot write fails now, before any scan
        with reading(rc) as reader:
            where = describe_channels(rc, channels)
            if args.redo:
                old = registry.uid(args.redo)
                had = f" (its tag {old} stays until a new one is taken)" if old else ""
                say(out, f"re-enrolling {args.redo}{had}: lay its token on {where}")
            else:
                say(
                    out,
                    f"enrolling {walk.total - walk.done} of {walk.total} token(s) into {path}:"
                    f" lay each token on {where} when asked, and lift it once it is taken."
                    " Every tag is saved as it is taken; Ctrl-C stops.",
                )
            return run_walk(
                walk,
                reader.inbox,
                out,
                save=lambda: save_registry(registry, path),
                channels=channels,
                feedback=reader.feedback,
            )


# --- the walk at the reader ------------------------------------------------------------------


def run_walk(
    walk: Enrolment,
    inbox: queue.Queue[TagEvent | ReaderStatus],
    out: TextIO,
    *,
    save: Callable[[], None],
    channels: frozenset[int] | None = None,
    feedback: Callable[[int, bool], None] | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Prompt for each pending token and judge each tag laid until the walk is finished
    (0) or ``stop`` is set — by SIGINT/SIGTERM when run on the main thread (130).

    ``inbox`` carries the reader's TagEvents and ReaderStatus changes; an accepted tag
    is ``save``d before the next prompt. ``channels``: the only channels that count
    (an ``enroll`` role); ``feedback(channel, accepted)``: a beep or a blink.
    """
    stop = stop or threading.Event()
    with stop_on_signals(stop):  # an interrupt never falls between taking a tag and saving it
        while not walk.finished and not stop.is_set():
            say(out, walk.prompt())
            for item in present_tags(
                inbox, lambda: not stop.is_set(), lambda line: say(out, line), POLL
            ):
                if channels is not None and item.channel not in channels:
                    say(
                        out,
                        f"  (channel {item.channel} of {item.reader} is not for enrolment:"
                        f" use channel {', '.join(map(str, sorted(channels)))})",
                    )
                    continue
                scan = walk.scan(item.uid)
                if scan.verdict is Verdict.ACCEPTED:
                    save()  # before saying ok: "ok" means it survives a power cut
                say(out, walk.explain(scan))
                if feedback is not None:
                    feedback(item.channel, scan.moves_on)
                if scan.moves_on:
                    break
    if not walk.finished:
        say(out, f"stopped: {walk.summary()}")
        return INTERRUPTED
    say(
        out,
        f"done: {walk.summary()}. The service reads the registry when it starts:"
        " (re)start it to use them (sudo systemctl start rhuna-table).",
    )
    return 0


@contextlib.contextmanager
def _quiet_readers(level: str) -> Iterator[None]:
    """The readers' own log lines (a link lost, retried) to errors only, unless ``[log]
    level = "debug"``: the walk prints the reader's state changes itself."""
    logger = logging.getLogger("firmware_bridge")
    previous = logger.level
    if level != "debug":
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)


@dataclass
class Connection:
    """A started reader: what it says (tags and link changes, in order), and a beep."""

    inbox: queue.Queue[TagEvent | ReaderStatus]
    #: ``feedback(channel, accepted)`` on a hub (LED and buzzer); None on other readers
    feedback: Callable[[int, bool], None] | None = None


@contextlib.contextmanager
def reading(rc: ReaderConfig) -> Iterator[Connection]:
    """Start the reader ``rc`` describes, opened as the service opens it; stop it after."""
    from firmware_bridge.hub import HubReader
    from firmware_bridge.open_reader import open_reader

    inbox: queue.Queue[TagEvent | ReaderStatus] = queue.Queue()
    reader, hub = open_reader(rc, inbox.put, inbox.put)
    connection = Connection(inbox)
    if isinstance(reader, HubReader):
        hub_reader = reader

        def beep(channel: int, accepted: bool) -> None:
            # the LED off and a short beep when taken; blinking and a long beep when refused
            with contextlib.suppress(Exception):  # a hub without LED or buzzer says so: fine
                hub_reader.feedback(
                    channel, "off" if accepted else "blink", 60 if accepted else 400
                )

        connection.feedback = beep
    if hub is not None:
        hub.start()
    reader.start()
    try:
        yield connection
    finally:
        reader.stop()
        if hub is not None:
            hub.stop()


# --- choosing, loading, saving, listing ------------------------------------------------------


def choose_reader(config: Config, name: str | None) -> tuple[ReaderConfig, frozenset[int] | None]:
    """The reader to enrol on and the channels that count (None: all of them): ``--reader``,
    else the first with an ``enroll`` role (only those channels count), else the first."""
    if not config.readers:
        raise ConfigError(
            f"{config.source}: no [[readers]]: enrolment needs a token reader — add the one at"
            " the table (docs/readers.md)"
        )
    if name is not None:
        found = [r for r in config.readers if r.name == name]
        if not found:
            names = ", ".join(r.name for r in config.readers)
            raise ConfigError(
                f"--reader {name}: {config.source} has no such reader — it has {names}"
            )
        rc = found[0]
    else:
        rc = next((r for r in config.readers if _enroll_channels(r) is not None), config.readers[0])
    if rc.backend == "emulated-hub":
        raise ConfigError(
            f"{config.source}: reader {rc.name} is an emulated hub: no real token can be laid on"
            " it — enrol at a real reader (backend hub, pn532 or line), or keep"
            " [registry] synthetic = true for emulated tables"
        )
    return rc, _enroll_channels(rc) or None


def _enroll_channels(rc: ReaderConfig) -> frozenset[int] | None:
    """The channels with the ``enroll`` role; empty: all (the whole reader is ``enroll``);
    None: the reader has no ``enroll`` role."""
    if isinstance(rc.roles, str):
        return frozenset() if rc.roles == "enroll" else None
    mine = frozenset(ch for ch, role in rc.roles.items() if role == "enroll")
    return mine or None


def describe_channels(rc: ReaderConfig, channels: frozenset[int] | None) -> str:
    if channels is None:
        return f"reader {rc.name}"
    listed = ", ".join(map(str, sorted(channels)))
    return f"reader {rc.name} (channel {listed})"


#: what to do about a registry file that cannot be read
REGISTRY_FIX = (
    'fix it or move it aside (enrolment starts a new one); it is {"tags": {"<uid>": "<token id>"}}'
)


def save_registry(registry: TagRegistry, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        registry.save(path)
    except OSError as e:
        raise ConfigError(
            f"{path}: cannot write the tag registry ({e.strerror}) — run as the service's user"
            " (sudo -u rhuna rhuna-table enroll …), or set [registry] file to a writable place"
        ) from None


def show_list(
    state: TableState, registry: TagRegistry, bags: list[str], path: Path, out: TextIO
) -> None:
    """``--list``: per bag, how many tokens have a tag and which do not."""
    reports = bag_reports(state, registry, bags)
    total = sum(len(r.enrolled) + len(r.missing) for r in reports)
    have = sum(len(r.enrolled) for r in reports)
    say(out, f"{path}: {have} of {total} token(s) have a tag")
    for r in reports:
        n = len(r.enrolled) + len(r.missing)
        mark = "complete" if not r.missing else f"{len(r.missing)} missing"
        say(out, f"  {r.bag:<20} {len(r.enrolled):>3}/{n:<3} {r.name}: {mark}")
        width = max((len(t) for t in r.missing), default=0)
        for token in r.missing:
            say(out, f"      missing  {token:<{width}}  {state.tokens[token].name}")
    others = strangers(state, registry)
    if others:
        say(
            out,
            f"  {len(others)} tag(s) name tokens this table does not have (another table's?):"
            f" {', '.join(t for _, t in others[:5])}{' …' if len(others) > 5 else ''}",
        )


def say(out: TextIO, line: str) -> None:
    print(line, file=out, flush=True)
