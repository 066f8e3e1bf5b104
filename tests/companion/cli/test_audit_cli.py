"""``rhuna-table audit BAG`` (issue 43, item 4): a bag's tokens passed over the configured
readers, the answer printed. Real parts: the token hub emulated on a real pty
(firmware_bridge.emulator.HubEmulator, the hub's own firmware logic), read by the CLI's own
HubReader as the service opens it."""

from __future__ import annotations

import argparse
import io
import queue
import threading

import pytest

from companion.cli.audit import audit, run_audit
from engine import load_table
from firmware_bridge.emulator.hub import HubEmulator
from firmware_bridge.events import Presence, TagEvent
from settings.errors import ConfigError
from tags.audit import Audit
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE, WAIT, wait_until
from tests.harness.service import write_config

STATE = load_table(EXAMPLE_TABLE)
REGISTRY = TagRegistry.synthetic(STATE.tokens)
UNKNOWN = "04DEADBEEF0001"


def uid(token: str) -> str:
    found = REGISTRY.uid(token)
    assert found is not None
    return found


def test_the_audit_at_the_readers_ends_by_itself_and_names_what_came_from_elsewhere(tmp_path):
    with HubEmulator(channels=2, poll_ms=5.0) as hub:
        config = write_config(
            tmp_path, readers=f'[[readers]]\nbackend = "hub"\nname = "bags"\nport = "{hub.link}"\n'
        )
        hub.start()
        tokens = [t.id for t in STATE.tokens.values() if t.bag == "cass"]
        out = io.StringIO()

        give_up = threading.Event()  # a liveness bound: the audit ends if a read never comes

        def pass_tokens() -> None:
            try:
                for n, tag in enumerate([uid("bren.weight.0"), UNKNOWN, *map(uid, tokens)]):
                    hub.lay(n % 2, tag)
                    wait_until(lambda n=n: len(_said(out)) >= n + 2, f"read {n} said")
                    hub.lift(n % 2)
            finally:
                give_up.set()

        layer = threading.Thread(target=pass_tokens, daemon=True)
        layer.start()
        args = argparse.Namespace(config=str(config), bag="cass")
        code = audit(args, out, enter=_after(give_up, 2.0))
        layer.join(WAIT)
    text = _said(out)
    assert text[0].startswith("audit of Cass's Hero Bag (18 tokens): pass each over any reader")
    assert text[1].startswith("! ") and text[1].endswith(": from another bag, it belongs in"
                                                           " Bren's Hero Bag")  # fmt: skip
    assert text[2] == f"! {UNKNOWN}: an unknown tag (no token has it)"
    assert text[-3:] == [
        "audit of Cass's Hero Bag: 18 of 18 seen, 1 extra, 1 from another bag",
        f"  extra: tag {UNKNOWN} (unknown)",
        "  from another bag: Bren's Weight 0 (bren.weight.0), it belongs in Bren's Hero Bag",
    ]
    assert code == 1  # not complete: something came from elsewhere


def _said(out: io.StringIO) -> list[str]:
    """What the audit printed, less the readers' link changes."""
    return [line for line in out.getvalue().splitlines() if not line.startswith("  reader ")]


def _after(event: threading.Event, seconds: float) -> threading.Event:
    """Set ``seconds`` after ``event`` is: the audit, had it not ended by itself, ends then."""
    later = threading.Event()

    def wait() -> None:
        event.wait()
        later.wait(seconds)
        later.set()

    threading.Thread(target=wait, daemon=True).start()
    return later


def _event(tag: str) -> TagEvent:
    return TagEvent("bags", 0, tag, Presence.PRESENT, 0.0)


def test_enter_ends_it_with_what_is_missing():
    walk = Audit(STATE, REGISTRY, "favor")
    inbox: queue.Queue = queue.Queue()
    for n in range(1, 23):
        inbox.put(_event(uid(f"favor.{n:02}")))
    inbox.put(_event(uid("favor.01")))
    enter, out = threading.Event(), io.StringIO()

    def press_when_read() -> None:
        while out.getvalue().count("\n") < 23:
            threading.Event().wait(0.01)
        enter.set()

    threading.Thread(target=press_when_read, daemon=True).start()
    code = run_audit(walk, inbox, out, enter=enter, stop=threading.Event())
    lines = out.getvalue().splitlines()
    assert lines[21] == "  22 of 23: " + STATE.tokens["favor.22"].name
    assert lines[22] == "  already seen: " + STATE.tokens["favor.01"].name
    assert lines[23] == "audit of the Favor Bag: 22 of 23 seen, 1 missing"
    assert lines[24] == f"  missing: {STATE.tokens['favor.23'].name} (favor.23)"
    assert code == 1


def test_a_bag_the_table_lacks_and_an_emulated_hub_are_refused(tmp_path):
    config = write_config(tmp_path)
    with pytest.raises(ConfigError, match="favour: this table has no such bag"):
        audit(argparse.Namespace(config=str(config), bag="favour"), io.StringIO())
    with pytest.raises(ConfigError, match="emulated hub, inside this process"):
        audit(argparse.Namespace(config=str(config), bag="favor"), io.StringIO())
