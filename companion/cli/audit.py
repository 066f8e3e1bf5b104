"""``rhuna-table audit BAG``: check a bag before play, its tokens passed over a reader one by one.

It reads the same config as ``rhuna-table run`` and opens every one of its readers with the
service's own builder; :mod:`tags.audit` decides what each tag read means::

    audit of the Favor Bag (23 tokens): pass each over any reader; Enter ends it
      1 of 23: Favor: The Warden (control)
      already seen: Favor: The Warden (control)
      Aria's skill Ember (control): from another bag, it belongs in Aria's Hero Bag
    …
    audit of the Favor Bag: 22 of 23 seen, 1 missing, 0 extra, 1 from another bag
      missing: Favor: The Fool (impulse) (favor.23)

It ends when every token of the bag has been seen, at Enter, or at Ctrl-C, and prints the
answer. Exit status: 0 when the bag is complete (every token, nothing else), 1 when something
is missing, extra or from another bag, 130 after Ctrl-C.

Like ``enroll`` it needs the readers the service holds, so it holds the state directory's lock
and is refused beside a running service; there, the same audit is the remote's or a button's
(the command ``audit_bag``, docs/readers.md).
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from companion.cli.stopping import INTERRUPTED, stop_on_signals
from firmware_bridge.events import ReaderStatus, TagEvent, present_tags
from settings.errors import ConfigError
from tags.audit import Audit, Heard

if TYPE_CHECKING:
    from companion.config import ReaderConfig

#: seconds between two looks at the stop flags while waiting for a tag
POLL = 0.05
BUSY_FIX = (
    "the audit needs the readers the service holds: audit from the remote (gm.html) or a"
    " button while it runs (the command audit_bag), or stop it (sudo systemctl stop"
    " rhuna-table) and audit here"
)


def register(sub: Any) -> None:
    from companion.cli.run import DEFAULT_CONFIG

    p = sub.add_parser(
        "audit",
        help="check a bag before play: pass its tokens over a reader, see what is missing",
        description="Pass a bag's tokens over any configured reader, one after another; at"
        " Enter (or once every token is seen) it says what is missing, what is extra and what"
        " belongs to another bag, against the table file. Stop the service first. See"
        " docs/readers.md.",
    )
    p.add_argument("bag", help="the bag: a bag id (favor, time.morning …) or a hero (aria)")
    p.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"the service config (default {DEFAULT_CONFIG})"
    )
    p.set_defaults(func=audit)


def audit(
    args: argparse.Namespace, out: TextIO | None = None, enter: threading.Event | None = None
) -> int:
    """The subcommand; ``enter`` (tests) stands for the Enter key (default: stdin's)."""
    from companion.cli.enroll import _quiet_readers
    from companion.config import load_config
    from companion.service import load_registry
    from companion.table.store import locked
    from engine import load_table

    out = out or sys.stdout
    config = load_config(args.config)
    state = load_table(config.table_file)
    walk = Audit(state, load_registry(config, state), args.bag)  # a bag it has not: refused now
    if not config.readers:
        raise ConfigError(
            f"{config.source}: no [[readers]]: an audit needs a token reader — add the one at"
            " the table (docs/readers.md)"
        )
    emulated = [rc.name for rc in config.readers if rc.backend == "emulated-hub"]
    if emulated:
        raise ConfigError(
            f"{config.source}: reader {emulated[0]} is an emulated hub, inside this process: no"
            " token can be laid on it — run `python -m firmware_bridge emulate hub` and name its"
            " port in a hub reader, or audit at a real reader"
        )
    with locked(config.state_dir, BUSY_FIX), _quiet_readers(config.log_level):
        inbox: queue.Queue[TagEvent | ReaderStatus] = queue.Queue()
        with reading(config.readers, inbox):
            say(
                out,
                f"audit of {walk.bag_name} ({len(walk.expected)} tokens): pass each over any"
                " reader, one after another; Enter ends it",
            )
            return run_audit(walk, inbox, out, enter=enter or _enter_pressed())


def run_audit(
    walk: Audit,
    inbox: queue.Queue[TagEvent | ReaderStatus],
    out: TextIO,
    *,
    enter: threading.Event | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Say each tag read until every token is seen, ``enter`` is set (the person is done) or
    ``stop`` (SIGINT/SIGTERM on the main thread); then the answer. 0: the bag is complete; 1:
    something is missing, extra or from another bag; 130: stopped by Ctrl-C."""
    stop = stop or threading.Event()
    enter = enter or threading.Event()

    def going() -> bool:
        return not walk.finished and not stop.is_set() and not enter.is_set()

    with stop_on_signals(stop) as got:
        for item in present_tags(inbox, going, lambda line: say(out, line), POLL):
            read = walk.read(item.uid)
            mark = "  " if read.verdict in (Heard.COUNTED, Heard.AGAIN) else "! "
            say(out, mark + read.text)
    result = walk.result()
    if stop.is_set() and not walk.finished:
        say(out, "stopped:")
    for line in result.lines():
        say(out, line)
    if got and not walk.finished:
        return INTERRUPTED
    return 0 if result.complete else 1


def _enter_pressed() -> threading.Event:
    """Set when a line (Enter) is read from stdin; an end of input (no terminal) sets nothing."""
    pressed = threading.Event()

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            if sys.stdin.readline():
                pressed.set()

    threading.Thread(target=read, name="enter", daemon=True).start()
    return pressed


@contextlib.contextmanager
def reading(
    readers: Sequence[ReaderConfig], inbox: queue.Queue[TagEvent | ReaderStatus]
) -> Iterator[None]:
    """Start every reader, opened as the service opens them, into ``inbox``; stop them after."""
    from firmware_bridge.open_reader import open_reader

    started = []
    try:
        for rc in readers:
            reader, _ = open_reader(rc, inbox.put, inbox.put)
            reader.start()
            started.append(reader)
        yield
    finally:
        for reader in started:
            reader.stop()


def say(out: TextIO, line: str) -> None:
    print(line, file=out, flush=True)
