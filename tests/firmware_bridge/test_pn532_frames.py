"""PN532 HSU frames, checked against the byte examples of NXP's PN532 User Manual (UM0701-02)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import pn532
from firmware_bridge.pn532 import Frame, FrameParser, build_frame, command_frame
from firmware_bridge.stats import ReaderStats


def h(text: str) -> bytes:
    return bytes.fromhex(text)


@pytest.mark.parametrize(
    ("command", "params", "wire"),
    [
        # UM0701-02 §7.2.2 GetFirmwareVersion
        (pn532.GET_FIRMWARE_VERSION, b"", "00 00 FF 02 FE D4 02 2A 00"),
        # §7.3.5 InListPassiveTarget: 1 target, 106 kbps type A
        (pn532.IN_LIST_PASSIVE_TARGET, h("01 00"), "00 00 FF 04 FC D4 4A 01 00 E1 00"),
        # §7.2.10 SAMConfiguration: normal mode, timeout 0x14 (1 s), use IRQ
        (pn532.SAM_CONFIGURATION, h("01 14 01"), "00 00 FF 05 FB D4 14 01 14 01 02 00"),
        # §7.3.1 RFConfiguration item 5 (MaxRetries): ATR 0xFF, PSL 1, passive activation 1
        (pn532.RF_CONFIGURATION, h("05 FF 01 01"), "00 00 FF 06 FA D4 32 05 FF 01 01 F4 00"),
    ],
    ids=["GetFirmwareVersion", "InListPassiveTarget", "SAMConfiguration", "MaxRetries"],
)
def test_command_frames_match_the_user_manual(command, params, wire):
    assert command_frame(command, params) == h(wire)
    # and read back: LEN + LCS ≡ 0, TFI + data + DCS ≡ 0
    assert FrameParser(ReaderStats()).feed(h(wire)) == [
        Frame("data", 0xD4, bytes([command]) + params)
    ]


def test_ack_nack_and_the_syntax_error_frame():
    assert h("00 00 FF 00 FF 00") == pn532.ACK
    assert h("00 00 FF FF 00 00") == pn532.NACK
    assert h("00 00 FF 01 FF 7F 81 00") == pn532.ERROR_FRAME
    frames = FrameParser(ReaderStats()).feed(pn532.ACK + pn532.ERROR_FRAME + pn532.NACK)
    assert [f.kind for f in frames] == ["ack", "error", "nack"]


def test_responses_from_the_user_manual_parse():
    stats = ReaderStats()
    parser = FrameParser(stats)
    # GetFirmwareVersion answer: IC 0x32 (PN532), version 1.6, supports ISO A, B, 18092
    fw = parser.feed(h("00 00 FF 06 FA D5 03 32 01 06 07 E8 00"))
    assert fw == [Frame("data", 0xD5, h("03 32 01 06 07"))]
    # InListPassiveTarget answer for a MIFARE Classic 1K: NbTg 1, Tg 1, SENS_RES 00 04, SEL_RES 08
    (target_frame,) = parser.feed(h("00 00 FF 0C F4 D5 4B 01 01 00 04 08 04 92 2E 58 32 84 00"))
    (target,) = pn532.parse_passive_targets(target_frame.data[1:])
    assert (target.number, target.sens_res, target.sel_res, target.uid) == (
        1,
        h("0004"),
        0x08,
        h("922E5832"),
    )
    assert pn532.parse_passive_targets(b"\x00") == []
    assert stats.bad_frames == 0


def test_preamble_wakeup_and_zeros_are_not_garbage():
    stats = ReaderStats()
    frames = FrameParser(stats).feed(bytes(20) + pn532.ACK + bytes(5) + pn532.ACK)
    assert [f.kind for f in frames] == ["ack", "ack"]
    assert stats.bad_frames == 0
    assert pn532.WAKEUP.startswith(b"\x55\x55") and not any(pn532.WAKEUP[2:])


GOOD = h("00 00 FF 06 FA D5 03 32 01 06 07 E8 00")


@pytest.mark.parametrize(
    ("stream", "kind"),
    [
        (h("00 00 FF 06 FB D5 03 32 01 06 07 E8 00"), "bad_crc"),  # LCS wrong
        (h("00 00 FF 06 FA D5 03 32 01 06 07 E9 00"), "bad_crc"),  # DCS wrong
        (h("13 37 42") + GOOD, "garbage"),  # noise before a frame
        (GOOD[:8] + GOOD, "truncated"),  # the next frame starts inside this one
        (h("00 00 FF 50 B0") + bytes(10), "over_long"),  # longer than any answer we ask for
    ],
)
def test_bad_frames_are_counted_by_kind_and_the_next_good_frame_decodes(stream, kind):
    stats = ReaderStats()
    parser = FrameParser(stats)
    frames = parser.feed(stream)
    frames += parser.feed(GOOD)
    assert frames[-1] == Frame("data", 0xD5, h("03 32 01 06 07"))
    assert getattr(stats, kind) == 1 and stats.bad_frames == 1


def test_a_frame_cut_off_by_silence_is_counted_truncated_on_expiry():
    stats = ReaderStats()
    parser = FrameParser(stats)
    assert parser.feed(GOOD[:7]) == []
    assert parser.pending
    parser.expire()
    assert stats.truncated == 1
    assert parser.feed(GOOD) == [Frame("data", 0xD5, h("03 32 01 06 07"))]


def test_extended_frames_are_understood():
    body = bytes([0xD5, 0x4B]) + bytes(range(1, 11))
    length = len(body)
    wire = (
        h("00 00 FF FF FF")
        + bytes([0, length, (-length) & 0xFF])
        + body
        + bytes([(-sum(body)) & 0xFF, 0])
    )
    assert FrameParser(ReaderStats()).feed(wire) == [Frame("data", 0xD5, body[1:])]


@settings(max_examples=300)
@given(st.binary(max_size=600))
def test_fuzz_random_bytes_never_raise_and_the_next_good_frame_decodes(noise):
    stats = ReaderStats()
    parser = FrameParser(stats)
    parser.feed(noise)
    parser.expire()
    assert parser.feed(GOOD) == [Frame("data", 0xD5, h("03 32 01 06 07"))]


@pytest.mark.parametrize(
    "data",
    [b"", h("03"), h("01 01 00 04 08 05 01 02 03 04 05"), h("01 01 00 04 08 07 01 02")],
)
def test_malformed_target_lists_are_refused(data):
    with pytest.raises(ValueError, match=r"\w"):
        pn532.parse_passive_targets(data)


def test_build_frame_refuses_what_needs_an_extended_frame():
    with pytest.raises(ValueError, match="extended frame"):
        build_frame(bytes(300))
