"""The hub firmware's logic (hubcore): presence decided on the hub, and its side of the protocol.

Run under CPython here, and under a real MicroPython in
``test_hub_core_runs_unchanged_under_micropython``.
"""

from __future__ import annotations

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.firmware.hubcore import COLLISION, NOISE, ChannelTracker, Hub
from tests.harness.readers import run_micropython

A = bytes.fromhex("04A1B2C3")
B = bytes.fromhex("04A1B2C3D4E5F6")


def feed(tracker: ChannelTracker, *results):
    out = []
    for r in results:
        out += tracker.update(r)
    return out


def test_a_tag_is_present_only_after_consecutive_hits():
    t = ChannelTracker(present_hits=2, remove_misses=3)
    assert feed(t, A) == []
    assert feed(t, None, A) == []  # a miss breaks the run
    assert feed(t, A) == [(p.PRESENT, A)]


def test_removal_needs_several_clean_misses_so_a_flaky_read_is_not_a_removal():
    t = ChannelTracker(present_hits=2, remove_misses=3)
    feed(t, A, A)
    # an MFRC522 misses a tag lying still now and then
    assert feed(t, None, None, A, None, A, None, None, A) == []
    assert feed(t, None, None, None) == [(p.REMOVED, A)]


def test_collisions_and_noise_say_nothing_either_way():
    t = ChannelTracker(present_hits=2, remove_misses=2)
    feed(t, A, A)
    assert feed(t, *[COLLISION, NOISE] * 20) == []
    assert t.uid == A


def test_a_swapped_tag_is_removed_then_the_new_one_present():
    t = ChannelTracker(present_hits=2, remove_misses=3)
    feed(t, A, A)
    assert feed(t, B, B, B) == [(p.REMOVED, A), (p.PRESENT, B)]


class ScriptedReader:
    """A reader whose next poll result the test sets (hubcore's reader interface)."""

    def __init__(self):
        self.uid = None
        self.dead = False
        self.resets = 0

    def poll(self):
        if self.dead:
            raise OSError("SPI timeout")
        return self.uid

    def reset(self):
        self.resets += 1
        if self.dead:
            raise OSError("still dead")


class Rig:
    def __init__(self, channels=3, **kw):
        self.now = 0
        self.out = bytearray()
        self.readers = [ScriptedReader() for _ in range(channels)]
        self.feedback = []
        self.hub = Hub(
            self.readers,
            self.out.extend,
            lambda: self.now,
            hub_id="T-1",
            heartbeat_ms=1000,
            features=p.FEATURE_LED,
            feedback=lambda *a: self.feedback.append(a),
            **kw,
        )
        self.decoder = p.Decoder()

    def rounds(self, n=1, ms_per_poll=20):
        for _ in range(n * len(self.readers)):
            self.now += ms_per_poll
            self.hub.step()

    def frames(self):
        got = self.decoder.feed(bytes(self.out))
        self.out.clear()
        return [(p.MESSAGE_NAMES[t], payload) for t, _, payload in got]

    def command(self, msg_type, payload=b"", seq=9):
        self.hub.receive(p.encode_frame(msg_type, seq, payload))


def test_the_hub_boots_with_a_lone_delimiter_that_frees_the_hello_from_a_half_frame():
    """Spec section 4: a reset mid-frame must not cost the hello that follows it."""
    rig = Rig()
    assert bytes(rig.out) == b"\x00"
    host = p.Decoder()
    half = p.encode_frame(p.PRESENT, 4, p.tag_payload(0, A))[:6]  # the hub reset while sending
    assert host.feed(half) == []
    rig.rounds(2)
    frames = host.feed(bytes(rig.out))
    assert [p.MESSAGE_NAMES[t] for t, _, _ in frames][:2] == ["hello", "inventory"]
    assert host.counts[p.TRUNCATED] == 1


def test_hello_waits_for_the_boot_scan_so_the_first_inventory_is_true():
    rig = Rig()
    rig.readers[1].uid = A
    rig.command(p.HELLO_REQUEST)
    assert rig.frames() == []  # nothing polled yet: no hello
    rig.rounds(2)
    frames = rig.frames()
    assert [name for name, _ in frames] == ["hello", "inventory", "inventory", "inventory"]
    assert p.parse_hello(frames[0][1])[2:] == (3, p.FEATURE_LED, 1000, "T-1")
    assert [p.parse_inventory(pl) for _, pl in frames[1:]] == [(0, 0, b""), (1, 0, A), (2, 0, b"")]


def test_present_removed_and_heartbeat_with_presence_mask():
    rig = Rig()
    rig.rounds(2)
    rig.frames()
    rig.readers[2].uid = A
    rig.rounds(2)
    assert rig.frames() == [("present", p.tag_payload(2, A))]
    rig.readers[2].uid = None
    rig.rounds(3)
    assert rig.frames() == [("removed", p.tag_payload(2, A))]
    rig.readers[0].uid = B
    rig.rounds(20)  # 60 polls of 20 ms: one heartbeat at 1 s
    frames = rig.frames()
    assert frames[0] == ("present", p.tag_payload(0, B))
    beats = [p.parse_heartbeat(pl) for name, pl in frames if name == "heartbeat"]
    assert len(beats) == 1 and beats[0][1] == 0b001


def test_sequence_numbers_count_every_frame():
    rig = Rig()
    rig.rounds(2)
    rig.readers[0].uid = A
    rig.rounds(2)
    seqs = [seq for _, seq, _ in p.Decoder().feed(bytes(rig.out))]
    assert seqs == list(range(len(seqs)))


def test_a_dead_reader_is_reported_once_and_never_invents_a_removal():
    rig = Rig()
    rig.readers[1].uid = A
    rig.rounds(2)
    rig.frames()
    rig.readers[1].dead = True
    rig.rounds(10)
    frames = rig.frames()
    errors = [p.parse_error(pl) for name, pl in frames if name == "error"]
    assert errors[0][:2] == (p.ERR_READER_FAULT, 1)
    assert len(errors) == 1
    assert "removed" not in [name for name, _ in frames]
    rig.command(p.INVENTORY_REQUEST)
    inv = [p.parse_inventory(pl) for name, pl in rig.frames() if name == "inventory"]
    assert inv[1] == (1, p.CHANNEL_FAULT, A)


def test_commands_ping_feedback_rescan_and_refusals():
    rig = Rig()
    rig.rounds(2)
    rig.frames()
    rig.command(p.PING, b"abc", seq=5)
    assert rig.frames() == [("pong", b"\x05abc")]
    rig.command(p.FEEDBACK, p.feedback_payload(1, p.LED_BLINK, 0), seq=6)
    assert rig.frames() == [("ack", p.ack_payload(p.FEEDBACK, 6, p.ACK_OK))]
    assert rig.feedback == [(1, p.LED_BLINK, 0)]
    rig.command(p.FEEDBACK, p.feedback_payload(0, p.LED_OFF, 100), seq=7)  # no buzzer fitted
    assert rig.frames() == [("ack", p.ack_payload(p.FEEDBACK, 7, p.ACK_NOT_FITTED))]
    rig.command(p.RESCAN, p.rescan_payload(9), seq=8)
    assert rig.frames() == [("ack", p.ack_payload(p.RESCAN, 8, p.ACK_BAD_ARGUMENT))]
    rig.command(p.RESCAN, p.rescan_payload(), seq=10)
    assert rig.frames() == [("ack", p.ack_payload(p.RESCAN, 10, p.ACK_OK))]
    assert [r.resets for r in rig.readers] == [1, 1, 1]


def test_a_command_the_hub_does_not_know_gets_an_unknown_ack_and_an_error():
    rig = Rig()
    rig.rounds(2)
    rig.frames()
    rig.command(0x5A, b"\x01", seq=3)  # from a newer host
    frames = rig.frames()
    assert frames[0] == ("ack", p.ack_payload(0x5A, 3, p.ACK_UNKNOWN))
    assert p.parse_error(frames[1][1])[:2] == (p.ERR_UNKNOWN_COMMAND, p.NO_CHANNEL)


def test_bad_frames_from_the_host_are_counted_and_reported_at_the_heartbeat():
    rig = Rig()
    rig.rounds(2)
    rig.frames()
    rig.hub.receive(b"\x03\x99\x98\x00")  # garbage
    rig.rounds(20)
    errors = [p.parse_error(pl) for name, pl in rig.frames() if name == "error"]
    assert errors == [(p.ERR_BAD_FRAME, p.NO_CHANNEL, "1 bad frame(s) from host")]


def test_boot_errors_follow_the_hello():
    rig = Rig(boot_errors=[(p.ERR_WATCHDOG_RESET, p.NO_CHANNEL, "restarted by the watchdog")])
    rig.rounds(2)
    names = [name for name, _ in rig.frames()]
    assert names == ["hello", "inventory", "inventory", "inventory", "error"]


def test_out_of_range_channel_count_is_refused():
    with pytest.raises(ValueError, match=r"1\.\.16"):
        Hub([], lambda b: None, lambda: 0)


SCENARIO = """
import protocol as p
from hubcore import Hub

class R:
    def __init__(self):
        self.uid = None
    def poll(self):
        return self.uid
    def reset(self):
        pass

now = [0]
out = bytearray()
readers = [R(), R()]
hub = Hub(readers, out.extend, lambda: now[0], hub_id="MPY", heartbeat_ms=100)
readers[1].uid = bytes([4, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
def rounds(n):
    for _ in range(n * 2):
        now[0] += 20
        hub.step()
rounds(2)
hub.receive(p.encode_frame(p.PING, 3, b"hi"))
readers[0].uid = bytes([1, 2, 3, 4])
rounds(2)
readers[1].uid = None
rounds(4)
print(bytes(out).hex())
print(p.crc16(b"123456789"))
"""


def test_hub_core_runs_unchanged_under_micropython():
    """The firmware's shared code (protocol.py, hubcore.py) in a real MicroPython gives the
    same bytes as under CPython."""
    mpy_frames, mpy_crc = run_micropython(SCENARIO).split()
    namespace: dict[str, object] = {}
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(
            SCENARIO.replace(
                "import protocol as p", "from firmware_bridge import protocol as p"
            ).replace(
                "from hubcore import Hub", "from firmware_bridge.firmware.hubcore import Hub"
            ),
            namespace,
        )
    cpy_frames, cpy_crc = buf.getvalue().split()
    assert mpy_crc == cpy_crc == str(0x29B1)
    assert mpy_frames == cpy_frames
    names = [p.MESSAGE_NAMES[t] for t, _, _ in p.Decoder().feed(bytes.fromhex(mpy_frames))]
    assert names[:3] == ["hello", "inventory", "inventory"]
    assert "pong" in names and "present" in names and "removed" in names and "heartbeat" in names
