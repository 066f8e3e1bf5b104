"""The misread soak's parts (benchmarks/reads.py, issue 43 item 6): its plan meets every fault
kind in a quick run, and the hub emulator's faults it injects do what they say (a detuned tag
read on one poll in three, a flickering one, a reset). The soak itself runs in
tests/benchmarks/test_run_as_modules.py (``--quick``), against the real service."""

from __future__ import annotations

import random

from benchmarks.reads import KINDS, SPARE_KINDS, schedule
from firmware_bridge.emulator import HubEmulator
from tests.harness import wait_until

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
