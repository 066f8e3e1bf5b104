"""The UID travels as its canonical value from the reader to the registry, never read again
(issue 40): the reader makes a ``Uid`` once from the frame's bytes, the ``TagEvent`` carries
it, and the registry keys on it as it is. Text is read only at the edges (the enrolment
file, a person's spelling)."""

from __future__ import annotations

import copy
import pickle
import queue

import pytest

import tags.registry
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.hub import HubReader
from firmware_bridge.uid import Uid, normalise_uid
from tags.registry import TagRegistry
from tests.harness import WAIT

UID = "04A1B2C3D4E5F6"
#: the bridge's own timers as a safety net only (tests/firmware_bridge/test_hub_bridge.py)
PATIENT = {"lost_after": WAIT, "hello_timeout": WAIT, "command_timeout": WAIT}


def test_the_reader_hands_the_registry_the_canonical_uid(monkeypatch):
    registry = TagRegistry({"04:a1:b2:c3:d4:e5:f6": "aria.ember.skill"})  # the file's text

    def read_again(text, *args, **kwargs):
        raise AssertionError(f"the registry read the reader's UID {text!r} again")

    monkeypatch.setattr(tags.registry, "normalise_uid", read_again)
    looked_up: queue.Queue[tuple[object, object]] = queue.Queue()

    def sink(event):  # the table loop's turn, as a reader's sink runs it: on the reader's thread
        try:
            looked_up.put((event, registry.token_id(event.uid)))
        except AssertionError as e:
            looked_up.put((event, e))

    with (
        HubEmulator(channels=2, poll_ms=5, heartbeat_ms=250) as emu,
        HubReader(emu.link, sink=sink, **PATIENT) as reader,
    ):
        assert reader.wait_online(WAIT), reader.stats.snapshot()
        emu.lay(1, UID.lower())
        event, token = looked_up.get(timeout=WAIT)
    assert type(event.uid) is Uid, type(event.uid)
    assert event.uid.raw == bytes.fromhex(UID)
    assert token == "aria.ember.skill"


def test_a_uid_is_made_from_bytes_and_is_its_canonical_text():
    uid = Uid(bytes.fromhex(UID))
    assert uid == UID == normalise_uid("04:a1:b2:c3:d4:e5:f6") and hash(uid) == hash(UID)
    assert type(normalise_uid(UID)) is Uid
    with pytest.raises(TypeError, match="normalise_uid"):
        Uid(UID)  # type: ignore[arg-type]  # text is read at an edge, not wrapped
    for again in (pickle.loads(pickle.dumps(uid)), copy.deepcopy(uid)):
        assert type(again) is Uid and again == uid


def test_text_is_still_read_at_the_edges():
    registry = TagRegistry({UID: "aria.ember.skill"})
    assert registry.token_id("04-a1-b2-c3-d4-e5-f6") == "aria.ember.skill"
    assert registry.token_id("04:A1:ZZ") is None  # not even a UID: nobody's tag
    assert registry.token_id(Uid(b"\x01\x02\x03\x04\x05")) is None  # a 125 kHz tag: unenrolled
    assert type(registry.uid("aria.ember.skill")) is Uid
