"""Debounce and the read's own timing, stated and measured (issue 43, item 3; docs/readers.md,
"Settle time"): a token counts once read steadily for the settle time; a bounce, a flicker or
a re-read never counts twice; a token lifted and laid again is one draw (P6, P22).

The hub's own logic (``hubcore``) on a virtual clock: each poll takes ``POLL_MS`` of virtual
time, so the figures are the hub's, not this machine's.
"""

from __future__ import annotations

from firmware_bridge import protocol as p
from firmware_bridge.firmware.hubcore import COLLISION, TWO_TAGS, ChannelTracker, Hub

UID = bytes.fromhex("04A1B2C3")
POLL_MS = 20  # an MFRC522 poll, 15-25 ms (docs/serial-protocol.md, section 5)


class Reader:
    def __init__(self) -> None:
        self.uid: bytes | None = None

    def poll(self) -> bytes | None:
        return self.uid

    def reset(self) -> None:
        pass


def settle_ms(channels: int, channel: int, phase: int) -> int:
    """Virtual ms from laying a token on ``channel`` (``phase`` polls into a cycle) to PRESENT."""
    now = [0]
    frames: list[bytes] = []
    readers = [Reader() for _ in range(channels)]
    hub = Hub(readers, frames.append, lambda: now[0], heartbeat_ms=10**9)
    while not hub.ready or hub._hello_wanted:
        hub.step()
        now[0] += POLL_MS
    while hub._next != phase:
        hub.step()
        now[0] += POLL_MS
    frames.clear()
    readers[channel].uid = UID
    laid = now[0]
    while True:
        now[0] += POLL_MS  # the poll takes its time; its result is known at its end
        hub.step()
        for t, _seq, payload in p.Decoder().feed(b"".join(frames)):
            if t == p.PRESENT:
                assert p.parse_tag(payload) == (channel, UID)
                return now[0] - laid


def test_the_settle_time_is_two_reads_a_cycle_apart():
    """present_hits = 2 reads of that channel in a row: on a six-reader hub at 20 ms a poll,
    140 ms (laid just before its poll) to 240 ms (just after); one reader alone: 40 ms."""
    six = [settle_ms(6, 0, phase) for phase in range(6)]
    assert (min(six), max(six)) == (140, 240)
    one = [settle_ms(1, 0, 0)]
    assert one == [40]  # the Millennium board's figure: 41 ms a scan, 2-5 scans of debounce


def test_a_flicker_is_never_a_token():
    """One stray read between misses, or reads broken by a collision or two tags: no present."""
    for between in (None, COLLISION, TWO_TAGS):
        tracker = ChannelTracker(present_hits=2, remove_misses=3)
        assert tracker.update(UID) == []
        assert tracker.update(between) == []  # the streak is broken: not steady
        assert tracker.update(UID) == [], f"counted across a {between!r}"
        assert tracker.update(UID) == [(p.PRESENT, UID)]  # two in a row: now it counts


def test_a_bounce_or_a_re_read_is_one_present():
    """A token lying still re-read every poll, and missed for fewer than remove_misses polls
    (it bounced, or the reader missed it), is reported present once."""
    tracker = ChannelTracker(present_hits=2, remove_misses=3)
    said = [tracker.update(UID) for _ in range(2)]
    for _ in range(20):
        said += [tracker.update(None), tracker.update(None), tracker.update(UID)]
    assert [e for s in said for e in s] == [(p.PRESENT, UID)]
