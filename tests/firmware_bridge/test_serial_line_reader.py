"""Line-printing USB RFID readers, against the emulated one over real ptys."""

from __future__ import annotations

import time

import pytest

from firmware_bridge.emulator import LineReaderEmulator
from firmware_bridge.line_reader import LineFormat, LineReader
from tests.harness import WAIT, wait_until
from tests.harness.readers import brief

A = "04A1B2C3"
#: a second card, laid last as a marker (see then_only)
OTHER = "08090A0B"
#: a card is removed when its repeated line (every 50 ms) stops for this long: 2 s, not the
#: 0.3 s it was, so a loaded machine that keeps the emulator thread from a core for a few
#: hundred ms does not look like a lifted card (the removal itself still has to come)
REMOVAL = 2.0


@pytest.mark.parametrize(
    ("fmt", "line", "uid"),
    [
        (LineFormat("hex"), "04A1B2C3", "04a1b2c3"),
        (LineFormat("hex"), "04:a1:b2:c3:d4:e5:f6\r", "04a1b2c3d4e5f6"),
        (LineFormat("hex"), "0x04A1B2C3", "04a1b2c3"),
        (LineFormat("decimal"), "0078230467", "04a9b3c3"),
        (LineFormat("decimal", uid_bytes=5), "0078230467", "0004a9b3c3"),
        (
            LineFormat("hex", pattern=r"UID: (?P<uid>[0-9A-Fa-f ]+)"),
            "Card UID: 04 A1 B2 C3",
            "04a1b2c3",
        ),
        (
            LineFormat("hex", pattern=r"\x02(?P<uid>[0-9A-F]{10})[0-9A-F]{2}"),
            "\x020F00A1B2C3DD",
            "0f00a1b2c3",
        ),
    ],
)
def test_line_formats(fmt, line, uid):
    assert fmt.parse(line).hex() == uid


@pytest.mark.parametrize(
    ("fmt", "line"),
    [
        (LineFormat("hex"), "hello"),
        (LineFormat("hex"), "04A1B"),
        (LineFormat("decimal"), "12ab"),
        (LineFormat("decimal", uid_bytes=2), "99999999"),
        (LineFormat("hex", pattern=r"UID: (?P<uid>\w+)"), "no uid here"),
    ],
)
def test_lines_that_are_not_uids_are_refused(fmt, line):
    with pytest.raises(ValueError, match=r"\w"):
        fmt.parse(line)


def test_a_bad_configuration_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="uid_format must be one of"):
        LineFormat("base64")
    with pytest.raises(ValueError, match=r"named group \(\?P<uid>"):
        LineFormat(pattern=r"UID: (\w+)")


def then_only(emu, events, laid: str) -> None:
    """The marker for a one-card reader: lift the card lying there and lay another; the next
    two events must be that removal and that present. A duplicate of the first card, or a
    removal of it and a present again, made before would come first (the reader hands events
    on in order): a certain absence, where a quiet window only says none came so soon."""
    emu.lift()
    assert brief([events.next()]) == [(0, laid, "removed")]
    emu.lay(OTHER)
    assert brief([events.next()]) == [(0, OTHER, "present")]


def test_a_repeating_reader_gives_one_present_while_the_card_stays_and_removed_after(events):
    with (
        LineReaderEmulator(style="colon", repeat_s=0.05) as emu,
        LineReader(emu.link, sink=events.queue, removal_timeout=REMOVAL) as r,
    ):
        assert r.wait_online(WAIT)
        emu.lay(A)
        assert brief([events.next()]) == [(0, A, "present")]
        wait_until(lambda: r.stats.duplicates >= 10, "10 repeated lines read")
        then_only(emu, events, A)  # one present while it lay there, one removal after


def test_a_tap_reader_gives_present_and_removed_per_tap_and_ignores_repeats(events):
    with (
        LineReaderEmulator(style="decimal", repeat_s=None) as emu,
        LineReader(
            emu.link, sink=events.queue, uid_format="decimal", removal_timeout=None, debounce=0.5
        ) as r,
    ):
        assert r.wait_online(WAIT)
        emu.lay("00112233")
        assert brief([events.next(), events.next()]) == [
            (0, "00112233", "present"),
            (0, "00112233", "removed"),
        ]
        emu.send_raw(emu.line_for(bytes.fromhex("00112233")))  # the same card again at once
        wait_until(lambda: r.stats.duplicates == 1, "the repeat counted as a duplicate")
        emu.lay(OTHER)  # the marker: another tap, whose events must be the next ones
        assert brief([events.next(), events.next()]) == [
            (0, OTHER, "present"),
            (0, OTHER, "removed"),
        ]


def test_noise_long_lines_and_non_uids_are_counted_and_the_next_line_is_read(events):
    with (
        LineReaderEmulator(repeat_s=None) as emu,
        LineReader(emu.link, sink=events.queue, removal_timeout=None) as r,
    ):
        assert r.wait_online(WAIT)
        emu.send_raw(b"\xff\xfe\x80\r\n")  # not ASCII
        emu.send_raw(b"7" * 500 + b"\r\n")  # over-long
        emu.send_raw(b"READY\r\n")  # a banner, not a UID
        emu.lay(A)
        assert events.next().uid == A
        s = r.stats
        assert (s.garbage, s.over_long, s.malformed) == (1, 1, 1)


def test_unplug_and_replug_recovers(events):
    with (
        LineReaderEmulator(repeat_s=None) as emu,
        LineReader(emu.link, sink=events.queue, removal_timeout=None) as r,
    ):
        assert r.wait_online(WAIT)
        emu.unplug()
        wait_until(lambda: r.state == "offline", "the reader noticing the unplug")
        emu.replug()
        assert r.wait_online(WAIT)
        emu.lay(A)
        assert events.next().uid == A


def test_a_card_that_stays_on_a_repeating_reader_through_a_replug_is_not_reported_twice(events):
    """A token lying on the reader is counted once: not removed and laid again by an unplug."""
    with (
        LineReaderEmulator(repeat_s=0.05) as emu,
        LineReader(emu.link, sink=events.queue, removal_timeout=REMOVAL) as r,
    ):
        assert r.wait_online(WAIT)
        emu.lay(A)
        assert brief([events.next()]) == [(0, A, "present")]
        emu.unplug()
        wait_until(lambda: r.state == "offline", "the reader noticing the unplug")
        # away longer than removal_timeout: the scenario itself, a lower bound a loaded
        # machine only lengthens (nothing is looked at after it but what the reader then does)
        time.sleep(REMOVAL + 0.2)
        emu.replug()
        wait_until(lambda: r.stats.connects == 2, "the reconnect")
        # lines read after the reconnect: a removal made at the reconnect, and the present
        # again that the lines would bring, are both behind us (and before the marker)
        frames = r.stats.frames
        wait_until(lambda: r.stats.frames >= frames + 3, "3 lines read after the reconnect")
        then_only(emu, events, A)
