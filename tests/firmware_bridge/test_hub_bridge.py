"""The host bridge against the emulated token hub, over real ptys (no mocks of pyserial).

The emulator runs the hub firmware's own logic (hubcore) on virtual readers
and appears at a stable ``serial/by-id`` style symlink that it re-points on
every replug, so the bridge reopens by name as it would on a Pi.
"""

from __future__ import annotations

import itertools
import threading

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.emulator import HubEmulator, VirtualPort
from firmware_bridge.events import Presence, ReaderStatus, TagEvent
from firmware_bridge.hub import CommandFailed, HubReader
from firmware_bridge.reader import Backoff
from tests.harness import WAIT, wait_until
from tests.harness.readers import brief

A = "04A1B2C3"
B = "04A1B2C3D4E5F6"
C = "0102030405060708090A"
#: a token laid last as a marker: the hub sends its PRESENT after every frame it sent before,
#: and the bridge hands events on in that order, so once the marker's event is the next one,
#: no event the test says must not come (a duplicate, a removal) came before it. That is a
#: certain absence, where a quiet window only says none came within so many ms.
M = "08090A0B"
#: the bridge's own timers as a safety net only: on a loaded machine the emulator's thread can
#: wait for a core longer than three 250 ms heartbeats (lost_after 0.75 s), the 1.5 s hello or
#: the 1 s command timeout, and that is a reconnect or a failed command the test did not ask
#: for. Only the tests of a silent hub or a command left unanswered let one expire.
PATIENT = {"lost_after": WAIT, "hello_timeout": WAIT, "command_timeout": WAIT}


@pytest.fixture
def emu():
    with HubEmulator(channels=4, poll_ms=5, heartbeat_ms=250) as hub:
        yield hub


@pytest.fixture
def reader(emu, events):
    ticks = itertools.count()
    r = HubReader(emu.link, sink=events.queue, clock=lambda: float(next(ticks)), **PATIENT)
    r.start()
    assert r.wait_online(WAIT), r.stats.snapshot()
    yield r
    r.stop()


def test_handshake_reads_the_hubs_hello(emu, events):
    statuses: list[ReaderStatus] = []
    with HubReader(emu.link, sink=events.queue, on_status=statuses.append, **PATIENT) as r:
        assert r.wait_online(WAIT)
        assert r.info is not None
        assert (r.info.protocol, r.info.hub_id, r.info.channels) == (1, "EMU-0001", 4)
        assert r.info.heartbeat_ms == 250 and r.info.has_led and r.info.has_buzzer
    assert [s.state for s in statuses] == ["connecting", "online", "stopped"]
    assert events.drain(0) == []  # the reader has stopped: what it gave is all in the queue


def test_present_and_removed_per_channel_with_injected_clock(emu, reader, events):
    emu.lay(2, A)
    e = events.next()
    assert isinstance(e, TagEvent)
    assert (e.reader, e.channel, e.uid, e.presence) == ("hub", 2, A, Presence.PRESENT)
    assert e.timestamp == float(int(e.timestamp))  # from the injected clock, not the wall
    emu.lay(0, B)
    emu.lay(3, C)
    got = {(x.channel, x.uid) for x in (events.next(), events.next())}
    assert got == {(0, B), (3, C)}
    emu.lift(2)
    assert brief([events.next()]) == [(2, A, "removed")]
    emu.lay(1, M)
    assert brief([events.next()]) == [(1, M, "present")]  # and nothing twice before it


def test_a_token_lying_on_a_reader_for_10_s_gives_one_present_event(events):
    """The classic double-read complaint. Hub time runs 10x faster than real time here
    (HubEmulator.time_scale), so 10 s of hub time with a flaky reader (30 % of polls
    miss) take about one real second; the debounce that absorbs it is the firmware's."""
    emu = HubEmulator(poll_ms=20, heartbeat_ms=1000, time_scale=10, miss_rate=0.3, seed=7)
    with emu, HubReader(emu.link, sink=events.queue, **PATIENT) as r:
        assert r.wait_online(WAIT)
        emu.lay(1, A)
        t0 = emu.ticks_ms()
        assert events.next().presence is Presence.PRESENT
        # at least 10 s of hub time, and flaky enough to prove something: a loaded machine
        # polls less often per hub second, so the misses are waited for, not assumed
        wait_until(
            lambda: emu.ticks_ms() - t0 >= 10_000 and emu.readers[1].misses > 20,
            "10 s of hub time with over 20 missed polls",
        )
        emu.lay(2, M)
        assert brief([events.next()]) == [(2, M, "present")]  # no second present before it
        assert r.stats.heartbeats >= 8
        emu.lift(1)
        assert brief([events.next()]) == [(1, A, "removed")]
        emu.lift(2)
        assert brief([events.next()]) == [(2, M, "removed")]  # no second removal before it


def test_unplug_and_replug_mid_draw_recovers_and_loses_nothing(emu, reader, events):
    """Back online after the replug, with what changed while away and nothing twice (how
    soon, against its 2 s target: benchmarks/serial_bridge.py)."""
    emu.lay(0, A)
    emu.lay(1, B)
    assert {e.uid for e in (events.next(), events.next())} == {A, B}
    emu.unplug()
    wait_until(lambda: reader.state == "offline", "the bridge noticing the unplug")
    # while the hub is away, a player takes A and lays C; B stays put
    emu.lift(0)
    emu.lay(2, C)
    emu.replug()  # a freshly booted hub: it scans what lies there now
    assert reader.wait_online(WAIT), reader.stats.snapshot()
    got = events.next(), events.next()
    assert sorted(brief(got)) == [(0, A, "removed"), (2, C, "present")]
    # and nothing is lost after it
    emu.lay(3, A)
    emu.lift(1)
    assert sorted(brief([events.next(), events.next()])) == [(1, B, "removed"), (3, A, "present")]
    emu.lay(0, M)
    assert brief([events.next()]) == [(0, M, "present")]  # and nothing twice before it
    assert reader.stats.disconnects == 1 and reader.stats.unexpected_errors == 0


def test_a_token_that_stays_put_through_a_replug_is_not_reported_twice(emu, reader, events):
    emu.lay(1, B)
    events.next()
    for n in range(3):
        emu.unplug()
        # the bridge has seen this unplug before the replug (a replug it had not noticed would
        # still be a reconnect: its old port is gone)
        wait_until(lambda n=n: reader.stats.disconnects == n + 1, f"unplug {n + 1} noticed")
        emu.replug()
        # wait for this very reconnect: wait_online() alone returns at once if the bridge
        # has not even noticed the unplug yet, and the loop would test nothing
        wait_until(lambda n=n: reader.stats.connects == n + 2, f"reconnect {n + 1}")
    assert reader.stats.disconnects == 3
    emu.lay(2, M)
    assert brief([events.next()]) == [(2, M, "present")]  # B was not reported again before it
    assert reader.tags == {1: bytes.fromhex(B), 2: bytes.fromhex(M)}


def test_garbage_half_over_long_and_bad_crc_frames_are_counted_and_the_next_good_frame_decodes(
    emu, reader, events
):
    good = p.encode_frame(p.HEARTBEAT, 0, p.heartbeat_payload(0, 0))
    emu.send_raw(b"\x03\x99\x98\x00")  # garbage
    emu.send_raw(good[:5] + b"\x00")  # half a frame
    emu.send_raw(b"\x42" * 200 + b"\x00")  # over-long
    body = bytearray(p.frame_body(p.HEARTBEAT, 0, p.heartbeat_payload(5, 0)))
    body[-1] ^= 0x01
    emu.send_raw(p.cobs_encode(bytes(body)) + b"\x00")  # bad CRC
    emu.lay(3, A)
    assert brief([events.next()]) == [(3, A, "present")]
    s = reader.stats
    assert (s.garbage, s.truncated, s.over_long, s.bad_crc) == (1, 1, 1, 1)
    assert s.unexpected_errors == 0 and reader.state == "online"


def test_line_noise_sprayed_at_the_bridge_is_survived(emu, reader, events):
    for seed in range(5):
        emu.spray_garbage(2000, seed=seed)
    emu.lay(0, A)
    assert brief([events.next()]) == [(0, A, "present")]
    assert reader.stats.bad_frames > 0
    assert reader.stats.unexpected_errors == 0


def test_a_frame_with_a_malformed_payload_is_counted_not_believed(emu, reader, events):
    emu.send_frame(p.PRESENT, b"\x01\x05\x01\x02\x03\x04\x05")  # a 5-byte UID
    emu.send_frame(p.PRESENT, p.tag_payload(9, bytes.fromhex(A)))  # channel 9 of 4
    wait_until(lambda: reader.stats.malformed == 2, "two malformed frames counted")
    emu.lay(0, M)
    assert brief([events.next()]) == [(0, M, "present")]  # neither was believed before it


@pytest.mark.parametrize("damage", ["drop_next", "corrupt_next"])
def test_a_lost_or_damaged_event_frame_is_recovered_from_the_inventory(emu, reader, events, damage):
    getattr(emu, damage)(1)
    emu.lay(2, B)  # its PRESENT frame never arrives intact
    assert brief([events.next()]) == [(2, B, "present")]
    assert reader.stats.lost_frames >= 1 and reader.stats.resyncs >= 1
    emu.lay(3, M)
    assert brief([events.next()]) == [(3, M, "present")]  # B not twice before it


def test_a_silent_hub_is_declared_lost_and_picked_up_again(emu, events):
    # the bridge's own lost_after (three heartbeats): it is what finds the hub silent
    with HubReader(emu.link, sink=events.queue) as reader:
        assert reader.wait_online(WAIT)
        emu.go_silent()
        wait_until(lambda: reader.stats.lost == 1, "the hub declared lost after missed heartbeats")
        emu.lay(1, A)  # the token laid while the hub is away
        emu.resume()
        assert reader.wait_online(WAIT)
        assert brief([events.next()]) == [(1, A, "present")]


@pytest.mark.error_log  # it provokes the ERROR it is about
def test_a_consumer_that_raises_does_not_stop_the_reader(emu, events):
    seen: list[TagEvent] = []

    def fragile(event: TagEvent) -> None:
        seen.append(event)
        if len(seen) == 1:
            raise RuntimeError("consumer bug")

    with HubReader(emu.link, sink=fragile, **PATIENT) as r:
        assert r.wait_online(WAIT)
        emu.lay(0, A)
        wait_until(lambda: len(seen) == 1, "the first tag past the failing sink")
        emu.lay(1, B)
        wait_until(lambda: len(seen) == 2, "the second tag past the failing sink")
        assert r.stats.sink_errors == 1 and r.state == "online"


def test_a_bug_in_the_backend_is_logged_counted_and_followed_by_a_reconnect(
    emu, events, monkeypatch, caplog
):
    calls = {"n": 0}
    real = HubReader._dispatch

    def buggy(self, port, msg_type, payload):
        if msg_type == p.PRESENT and calls["n"] == 0:
            calls["n"] += 1
            raise KeyError("bug")
        return real(self, port, msg_type, payload)

    monkeypatch.setattr(HubReader, "_dispatch", buggy)
    with HubReader(emu.link, sink=events.queue, **PATIENT) as r:
        assert r.wait_online(WAIT)
        emu.lay(0, A)
        # the present is lost to the bug, then recovered by the reconnect's inventory
        assert brief([events.next()]) == [(0, A, "present")]
        assert r.stats.unexpected_errors == 1 and r.stats.connects == 2
    assert "unexpected error" in caplog.text


def test_feedback_ping_and_rescan_are_acknowledged(emu, reader):
    assert reader.feedback(2, led="blink", buzzer_ms=80).result(WAIT) == p.ACK_OK
    assert emu.feedback_log == [(2, p.LED_BLINK, 80)]
    assert reader.ping(b"rhuna").result(WAIT) == p.ACK_OK
    assert reader.rescan().result(WAIT) == p.ACK_OK
    with pytest.raises(CommandFailed, match="rejected an argument"):
        reader.feedback(7).result(WAIT)
    with pytest.raises(ValueError, match="led must be one of"):
        reader.feedback(0, led="purple")


def test_a_cancelled_command_is_dropped_without_disturbing_the_link(emu, events):
    """A caller may cancel() the Future it got; the reader thread must not trip over it."""
    with HubReader(emu.link, sink=events.queue, command_timeout=0.2) as r:
        assert r.wait_online(WAIT)
        emu.drop_next(1)  # the PONG is lost: the command stays pending until it times out
        r.ping(b"late").cancel()
        emu.go_silent()  # one cancelled at once: before or after it went out, either is fine
        r.ping(b"never").cancel()
        wait_until(lambda: r.stats.lost >= 1, "the silent hub declared lost")
        emu.resume()
        assert r.wait_online(WAIT)
        r.command_timeout = WAIT  # 0.2 s was for the lost PONG; this one must not time out
        assert r.ping(b"again").result(WAIT) == p.ACK_OK
        # no reconnect but after a loss: the lost_after this test needs (three 250 ms
        # heartbeats) may also find a hub whose thread a loaded machine kept from a core, and
        # that is one more loss and its reconnect, not a trip over a cancelled command
        assert r.stats.unexpected_errors == 0 and 2 <= r.stats.connects <= r.stats.lost + 1


def test_a_hub_without_a_buzzer_says_so(events):
    with (
        HubEmulator(poll_ms=5, features=p.FEATURE_LED) as emu,
        HubReader(emu.link, sink=events.queue, **PATIENT) as r,
    ):
        assert r.wait_online(WAIT)
        with pytest.raises(CommandFailed, match="no such hardware"):
            r.feedback(0, buzzer_ms=100).result(WAIT)


def test_a_dead_reader_channel_is_reported_by_the_hub(emu, reader, events):
    emu.lay(1, A)
    events.next()
    emu.break_reader(1)
    wait_until(lambda: reader.stats.device_errors["reader_fault"] == 1, "the fault reported")
    # a dead reader is not a removal: the hub polls it past its removal count (remove_misses),
    # then the marker, so a removal it wrongly made would come before the marker's PRESENT
    assert emu.wait_polls(emu.remove_misses + 1, WAIT)
    emu.lay(2, M)
    assert brief([events.next()]) == [(2, M, "present")]
    emu.break_reader(1, dead=False)


def test_a_hub_not_yet_plugged_in_is_waited_for_with_back_off(tmp_path, events):
    link = tmp_path / "by-id" / "usb-Rhuna_TokenHub_LATE-if00"
    with HubReader(str(link), sink=events.queue, backoff=Backoff(0.02, 2, 0.2)) as r:
        wait_until(lambda: r.stats.open_failures >= 3, "several attempts")
        assert r.state == "offline"
        with HubEmulator(link, poll_ms=5) as emu:
            assert r.wait_online(WAIT)
            emu.lay(0, A)
            assert events.next().uid == A


@pytest.mark.parametrize(
    ("port", "baudrate", "says"),
    [
        ("nosuch://hub", 115200, "protocol 'nosuch' not known"),
        ("/dev/serial/by-id/usb-Rhuna_TokenHub_CFG-if00", -5, "Not a valid baudrate"),
    ],
)
def test_a_port_setting_no_device_could_fix_says_to_check_the_config(port, baudrate, says, events):
    statuses: list[ReaderStatus] = []
    with HubReader(port, sink=events.queue, baudrate=baudrate, on_status=statuses.append) as r:
        wait_until(lambda: r.stats.open_failures >= 1, "an open attempt")
    (offline,) = [s for s in statuses if s.state == "offline"]
    assert says in offline.detail and "check the reader's port and baudrate" in offline.detail
    assert "plugged in" not in offline.detail


def test_a_hub_speaking_another_protocol_version_is_refused(tmp_path, events):
    port = VirtualPort(tmp_path / "by-id" / "usb-Other-if00")
    port.plug()
    stop = threading.Event()

    def device():
        hello = p.encode_frame(
            p.HELLO, 0, b"\x02" + p.hello_payload((9, 0, 0), 2, 0, 1000, "v2")[1:]
        )
        while not stop.is_set():
            port.wait_readable(0.05)
            if port.read():
                port.write(hello)

    t = threading.Thread(target=device, daemon=True)
    t.start()
    statuses: list[ReaderStatus] = []
    try:
        with HubReader(str(port.link), sink=events.queue, on_status=statuses.append) as r:
            wait_until(lambda: r.stats.handshake_failures >= 1, "the handshake refused")
            assert r.state == "offline"
        assert any("protocol v2" in s.detail for s in statuses)
    finally:
        stop.set()
        t.join()
        port.close()


def test_stop_ends_the_thread_promptly(emu, events):
    r = HubReader(emu.link, sink=events.queue).start()
    assert r.wait_online(WAIT)
    r.stop()  # returns once the thread has ended (how soon: benchmarks/serial_bridge.py)
    assert r._thread is not None and not r._thread.is_alive()
    assert r.state == "stopped"


def test_maintenance_command_from_the_host_cli_and_chip_versions_in_the_inventory(capsys):
    """issue 14 (1.2, 1.5): `python -m firmware_bridge maintenance PORT`; the hub's chip versions."""
    from firmware_bridge.cli import main as cli

    with HubEmulator(channels=2) as emu:
        emu.readers[1].version = 0xB2  # a clone board
        with HubReader(str(emu.link), sink=lambda e: None, **PATIENT) as reader:
            assert reader.wait_online(WAIT)
            # the inventory follows the hello
            wait_until(lambda: len(reader.chips) == 2, "both chips' versions")
            assert reader.chips == {0: 0x92, 1: 0xB2}
        assert cli(["maintenance", str(emu.link)]) == 0
        assert emu.maintenance_requests == 1
        # a replug (a power cycle: the reset that ends maintenance) brings the hub back
        # (issue 44, D13: the emulator stayed silent)
        emu.replug()
        with HubReader(str(emu.link), sink=lambda e: None, **PATIENT) as reader:
            assert reader.wait_online(WAIT), "the hub after maintenance and a replug"
    assert "in maintenance" in capsys.readouterr().out


def test_two_tokens_in_one_well_are_a_notice_not_a_removal_then_a_draw(emu, events):
    """issue 30: the hub's collision reaches the host as a HubNotice, the first token stays drawn."""
    from firmware_bridge.hub import ONE_TOKEN_PER_WELL, HubNotice

    notices: list[HubNotice] = []
    with HubReader(emu.link, sink=events.queue, on_notice=notices.append, **PATIENT) as r:
        assert r.wait_online(WAIT)
        emu.lay(1, "04A1B2C3D4E5F6")
        assert brief([events.next()]) == [(1, "04A1B2C3D4E5F6", "present")]
        emu.crowd(1)
        wait_until(lambda: len(notices) == 1, "the one-token-per-well notice")
        assert (notices[0].channel, notices[0].kind, notices[0].active) == (
            1,
            ONE_TOKEN_PER_WELL,
            True,
        )
        assert "one token per well" in notices[0].detail
        assert r.collisions == {1: notices[0].detail}
        assert r.stats.device_errors["collision"] == 1
        emu.crowd(1, False)
        wait_until(lambda: len(notices) == 2, "the notice's end")
        assert (notices[1].channel, notices[1].active) == (1, False)
        assert r.collisions == {}
        emu.lay(2, M)
        assert brief([events.next()]) == [(2, M, "present")]  # no removed, no second present
        assert r.tags == {1: bytes.fromhex("04A1B2C3D4E5F6"), 2: bytes.fromhex(M)}
