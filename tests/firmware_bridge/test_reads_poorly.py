"""A tag that reads poorly (issue 43, the soak's detuned tag; docs/readers.md, "A token that
reads poorly"): read on one poll in three, it never reaches ``present_hits`` reads in a row, so
it is never a token; the hub flags it instead (``ERROR reads_poorly`` with its UID) within a
bounded number of polls, and clears the flag when it reads steadily (then it counts as usual)
or is gone. A steady token still counts after two reads; one stray read is neither.

The hub's own logic (``hubcore``) under CPython and under a real MicroPython, and through the
host bridge on a real pty (the emulator's ``detune``). Everything counts polls, not time.
"""

from __future__ import annotations

from firmware_bridge import protocol as p
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.firmware.hubcore import POOR_WINDOW, ChannelTracker, Hub
from firmware_bridge.hub import READS_POORLY, HubReader
from tests.harness import WAIT, wait_until
from tests.harness.readers import Events, run_micropython

UID = bytes.fromhex("04A1B2C3")
POOR = (p.ERR_READS_POORLY, 0, "reads poorly: 04A1B2C3")
STEADY = (p.ERR_READS_POORLY_CLEARED, 0, "reads poorly: 04A1B2C3")


class Detuned:
    """One reader: ``uid`` read on one poll in ``every`` (1: every poll), nothing between."""

    def __init__(self) -> None:
        self.uid: bytes | None = None
        self.every = 1
        self.polls = 0

    def poll(self) -> bytes | None:
        self.polls += 1
        if self.uid is None or self.polls % self.every:
            return None
        return self.uid

    def reset(self) -> None:
        pass


def said(frames: list[bytes]) -> list[tuple]:
    """The PRESENT / REMOVED / ERROR frames the hub wrote, decoded."""
    out: list[tuple] = []
    for t, _seq, payload in p.Decoder().feed(b"".join(frames)):
        if t in (p.PRESENT, p.REMOVED):
            out.append((p.MESSAGE_NAMES[t], p.parse_tag(payload)))
        elif t == p.ERROR:
            out.append(("error", p.parse_error(payload)))
    return out


def booted() -> tuple[Hub, Detuned, list[bytes]]:
    frames: list[bytes] = []
    reader = Detuned()
    hub = Hub([reader], frames.append, lambda: 0, heartbeat_ms=10**9)
    while not hub.ready or hub._hello_wanted:
        hub.step()
    frames.clear()
    return hub, reader, frames


def test_a_detuned_tag_is_flagged_within_nine_polls_and_never_counted():
    hub, reader, frames = booted()
    reader.every, reader.polls = 3, 0
    reader.uid = UID
    polls = 0
    while POOR not in [s[1] for s in said(frames) if s[0] == "error"]:
        hub.step()
        polls += 1
        assert polls <= POOR_WINDOW, f"not flagged within {POOR_WINDOW} polls: {said(frames)}"
    for _ in range(300):  # a long while detuned: one notice, nothing counted
        hub.step()
    assert said(frames) == [("error", POOR)]
    reader.every = 1  # tuned again: it reads steadily, the flag clears, then it counts
    for _ in range(3):
        hub.step()
    assert said(frames) == [("error", POOR), ("error", STEADY), ("present", (0, UID))]


def test_a_detuned_tag_taken_away_clears_its_flag_and_nothing_was_counted():
    hub, reader, frames = booted()
    reader.every, reader.polls = 3, 0
    reader.uid = UID
    for _ in range(POOR_WINDOW):
        hub.step()
    reader.uid = None
    for _ in range(POOR_WINDOW + 1):
        hub.step()
    assert said(frames) == [("error", POOR), ("error", STEADY)]


def test_a_steady_token_counts_after_two_reads_and_is_never_flagged():
    tracker = ChannelTracker(present_hits=2, remove_misses=3)
    assert tracker.update(UID) == []
    assert tracker.update(UID) == [(p.PRESENT, UID)]
    for _ in range(20):  # lying still, missed now and then: no flag either
        tracker.update(None)
        tracker.update(UID)
        assert tracker.poor is None


def test_a_single_flicker_is_never_a_token_and_never_flagged():
    for stray in ([UID], [UID, None, UID]):
        tracker = ChannelTracker(present_hits=2, remove_misses=3)
        said_ = [e for r in stray + [None] * 20 for e in tracker.update(r)]
        assert said_ == [] and tracker.poor is None, stray


def test_a_flagged_tag_is_told_again_after_a_new_hello():
    hub, reader, frames = booted()
    reader.every, reader.polls = 3, 0
    reader.uid = UID
    for _ in range(POOR_WINDOW):
        hub.step()
    frames.clear()
    hub.receive(p.encode_frame(p.HELLO_REQUEST, 0, b""))  # the host restarted: it forgot
    assert ("error", POOR) in said(frames)


MICROPYTHON_DETUNED = """
import hubcore
import protocol as p

class Detuned:
    def __init__(self):
        self.uid = None
        self.every = 3
        self.polls = 0
    def poll(self):
        self.polls += 1
        if self.uid is None or self.polls % self.every:
            return None
        return self.uid
    def reset(self):
        pass

out = []
reader = Detuned()
hub = hubcore.Hub([reader], out.append, lambda: 0, heartbeat_ms=10**9)
while not hub.ready or hub._hello_wanted:
    hub.step()
del out[:]
reader.uid = bytes([4, 0xA1, 0xB2, 0xC3])
flagged = None
for n in range(60):
    hub.step()
    if flagged is None and len(out):
        flagged = n + 1
reader.every = 1
for n in range(3):
    hub.step()
print("flagged", flagged)
print(b"".join(out).hex())
"""


def test_the_reads_poorly_flag_works_under_a_real_micropython():
    lines = run_micropython(MICROPYTHON_DETUNED).strip().splitlines()
    flagged = int(lines[-2].split()[1])
    assert flagged <= POOR_WINDOW
    assert said([bytes.fromhex(lines[-1])]) == [
        ("error", POOR),
        ("error", STEADY),
        ("present", (0, UID)),
    ]


def test_the_bridge_hears_reads_poorly_as_a_notice_and_no_tag_event():
    with HubEmulator(channels=2) as emu:
        events = Events()
        told: list = []
        hub = HubReader(str(emu.link), sink=events.queue, on_notice=told.append)
        hub.start()
        try:
            assert hub.wait_online(WAIT)
            emu.detune(1, 3)
            emu.lay(1, UID)
            wait_until(lambda: 1 in hub.poorly, "the reads-poorly notice")
            assert hub.poorly[1] == "04A1B2C3"
            assert [(n.kind, n.channel, n.active, n.uid) for n in told] == [
                (READS_POORLY, 1, True, "04A1B2C3")
            ]
            assert emu.wait_polls(POOR_WINDOW)
            assert events.queue.empty(), "nothing counted from a tag that reads poorly"
            emu.detune(1, 1)
            event = events.next()
            assert (event.channel, event.uid, event.present) == (1, "04A1B2C3", True)
            wait_until(lambda: 1 not in hub.poorly, "the notice cleared")
            assert [(n.kind, n.active) for n in told] == [
                (READS_POORLY, True),
                (READS_POORLY, False),
            ]
        finally:
            hub.stop()


def test_a_flag_standing_when_the_hub_is_replugged_ends_unless_the_hub_tells_it_again():
    """The replugged hub has booted afresh: what it no longer reads poorly is not left standing
    on the host (the handshake takes the hello, so the bridge forgets, and the hub re-tells)."""
    with HubEmulator(channels=2) as emu:
        told: list = []
        hub = HubReader(str(emu.link), sink=Events().queue, on_notice=told.append)
        hub.start()
        try:
            assert hub.wait_online(WAIT)
            emu.detune(1, 3)
            emu.lay(1, UID)
            wait_until(lambda: 1 in hub.poorly, "the reads-poorly notice")
            emu.unplug()
            emu.lift(1)  # taken away while the cable was out
            emu.replug()
            wait_until(lambda: 1 not in hub.poorly, "the flag ended after the replug")
            assert [(n.kind, n.active) for n in told] == [
                (READS_POORLY, True),
                (READS_POORLY, False),
            ]
        finally:
            hub.stop()
