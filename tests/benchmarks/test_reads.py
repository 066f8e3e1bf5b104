"""The misread soak's parts (benchmarks/reads.py, issue 43 item 6): its plan meets every fault
kind in a quick run, and the hub emulator's faults it injects do what they say (a detuned tag
read on one poll in three, a flickering one, a reset). The soak itself runs in
tests/benchmarks/test_run_as_modules.py (``--quick``), against the real service."""

from __future__ import annotations

import queue
import random

from benchmarks.reads import KINDS, SPARE_KINDS, pn_lifted, schedule
from firmware_bridge.emulator import HubEmulator, PN532Emulator
from firmware_bridge.events import Presence, TagEvent
from firmware_bridge.pn532 import (
    ACK,
    IN_DESELECT,
    IN_LIST_PASSIVE_TARGET,
    LIST_TWO_TYPE_A,
    RF_CONFIGURATION,
    SAM_CONFIGURATION,
    WAKEUP,
    PN532Reader,
    command_frame,
)
from tests.harness import WAIT, wait_until

UID = bytes.fromhex("04A1B2C3D4E5F6")


def test_a_quick_plan_meets_every_fault_kind_three_draws_a_performance() -> None:
    plan = schedule(42, random.Random(0))
    met = {k for kinds in plan for k in kinds}
    assert set(KINDS) - {"clean"} <= met
    assert all(len([k for k in kinds if k not in SPARE_KINDS]) == 3 for kinds in plan)
    assert sum(3 for _ in plan) >= 42


def test_a_detuned_tag_is_read_on_one_poll_in_three_until_tuned_again() -> None:
    hub = HubEmulator(channels=2)  # not started: its readers polled here, as hubcore does
    try:
        reader = hub.readers[0]
        reader.uid = UID
        hub.detune(0, 3)
        assert [reader.poll() for _ in range(6)] == [None, None, UID] * 2
        hub.detune(0, 1)
        assert [reader.poll() for _ in range(3)] == [UID] * 3
    finally:
        hub.stop()


def test_a_flickering_tag_misses_polls_but_never_enough_in_a_row_to_be_removed() -> None:
    hub = HubEmulator(channels=1, seed=3)
    try:
        reader = hub.readers[0]
        reader.uid = UID
        hub.flicker(0, 0.5)
        reads = [reader.poll() for _ in range(300)]
        assert None in reads and UID in reads
        runs = "".join("." if r is None else "x" for r in reads).split("x")
        assert max(len(r) for r in runs) < hub.remove_misses
        hub.flicker(0, 0.0)
        assert [reader.poll() for _ in range(5)] == [UID] * 5
    finally:
        hub.stop()


def test_a_hub_reset_boots_it_again_on_the_same_port_with_the_token_still_laid() -> None:
    with HubEmulator(channels=2, poll_ms=2.0) as hub:
        hub.lay(1, UID)
        assert hub.wait_polls(3)
        port = hub.link
        hub.reset()
        wait_until(lambda: hub.boots == 2, "the second boot")
        assert hub.wait_polls(3)
        assert hub.link == port and hub.readers[1].uid == UID


def _answers(pn: PN532Emulator, frame: bytes) -> list[bytes]:
    """One turn of the emulated PN532 on ``frame`` from the host: what it sent back."""
    sent: list[bytes] = []
    pn._out = sent.append  # type: ignore[method-assign]  # its output, caught here
    pn._tick(frame)
    return sent


def test_the_pn532_counts_the_empty_polls_its_host_took_since_the_card_left() -> None:
    """Driven one frame at a time (no thread, no pty): an answer is taken when the host sends
    its next command; the ACK frame that aborts before a retry means it was not."""
    pn = PN532Emulator()  # not started
    pn._power_on()
    poll = command_frame(IN_LIST_PASSIVE_TARGET, LIST_TWO_TYPE_A)
    deselect = command_frame(IN_DESELECT, b"\x00")
    _answers(pn, WAKEUP + command_frame(SAM_CONFIGURATION, b"\x01\x14\x01"))
    _answers(pn, command_frame(RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, 0x01])))
    pn.lay(UID)
    assert _answers(pn, poll)[1][7] == 1  # NbTg 1: the card
    _answers(pn, deselect)
    pn.lift()
    assert _answers(pn, poll)[1][7] == 0 and pn.empty_polls == 0  # answered, not yet taken
    _answers(pn, ACK)  # the host timed out and aborts: that answer was never taken
    _answers(pn, poll)
    assert pn.empty_polls == 0
    _answers(pn, poll)  # the retry's answer taken, and a new poll
    assert pn.empty_polls == 1
    _answers(pn, poll)
    assert pn.empty_polls == 2
    _answers(pn, command_frame(SAM_CONFIGURATION, b"\x01\x14\x01"))  # a new session
    assert pn.empty_polls == 0
    pn.lay(UID)
    pn.miss_rate = 1.0  # a card lying there, missed: a miss to the host, but no lift
    _answers(pn, poll)
    _answers(pn, poll)
    assert pn.empty_polls == 0


def test_the_soak_lays_again_on_the_pn532_only_once_its_reader_said_the_card_lifted() -> None:
    """The failure of a 10,000-draw run (cass.potential.lore.1 never recorded): the soak laid
    the token the last Performance had lifted from the PN532 again before the reader had
    polled the well empty ``remove_misses`` times, so to the table it never left (after Reset
    "back in its bag now: put it there"), and the soak waited for a draw that could not come."""
    events: queue.Queue[TagEvent] = queue.Queue()
    with PN532Emulator() as pn, PN532Reader(pn.link, sink=events) as reader:
        assert reader.wait_online(WAIT)
        pn.lay(UID)
        assert events.get(timeout=WAIT).presence is Presence.PRESENT
        pn.lift()  # the end of a Performance
        assert pn_lifted(pn, WAIT, reader.remove_misses)
        pn.lay(UID)  # the same token at once: the next Performance's draw on the PN532
        assert events.get_nowait().presence is Presence.REMOVED  # said before it returned
        assert events.get(timeout=WAIT).presence is Presence.PRESENT
