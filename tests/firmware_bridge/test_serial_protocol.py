"""The hub wire protocol (docs/serial-protocol.md): framing, CRC, payloads, the decoder.

The fuzz tests hold the decoder to its contract: whatever bytes arrive, no
exception escapes; every stretch between two delimiters is either exactly one
good frame or exactly one counted bad frame; an intact frame after damage is
decoded.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p

payloads = st.binary(max_size=p.MAX_PAYLOAD)
msg_types = st.sampled_from(p.HUB_MESSAGES)
frames = st.tuples(msg_types, st.integers(0, 255), payloads)


def segments(stream: bytes) -> int:
    """How many non-empty stretches between delimiters a stream completes."""
    return sum(1 for s in stream.split(b"\x00")[:-1] if s)


def test_crc16_ccitt_false_check_value():
    # the catalogue check value of CRC-16/CCITT-FALSE
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16_table(b"123456789") == 0x29B1


@given(st.binary(max_size=300))
def test_crc16_table_path_matches_c_path(data):
    """MicroPython uses the table; CPython the C helper: they must agree."""
    assert p.crc16_table(data) == p.crc16(data)


@given(st.binary(max_size=600))
def test_cobs_round_trip_and_no_zero_inside(data):
    enc = p.cobs_encode(data)
    assert 0 not in enc
    assert p.cobs_decode(enc) == data
    assert len(enc) <= len(data) + len(data) // 254 + 1


def test_cobs_known_vectors():
    # examples from the COBS paper / Wikipedia
    assert p.cobs_encode(b"\x00") == b"\x01\x01"
    assert p.cobs_encode(b"\x00\x00") == b"\x01\x01\x01"
    assert p.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert p.cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"
    assert p.cobs_encode(bytes(range(1, 255))) == b"\xff" + bytes(range(1, 255))
    # a zero right after a full 254-byte block opens a new block: the 0xFF block implies none
    assert (
        p.cobs_encode(bytes(range(1, 255)) + b"\x00")
        == b"\xff" + bytes(range(1, 255)) + b"\x01\x01"
    )


# runs of non-zero bytes around the 254-byte block limit, joined by zeros: the edge cases
# st.binary() alone almost never generates
long_runs = st.lists(
    st.binary(min_size=250, max_size=258).map(lambda b: b.replace(b"\x00", b"\x01")),
    min_size=1,
    max_size=3,
).flatmap(lambda runs: st.sampled_from([b"\x00", b"\x00\x00"]).map(lambda z: z.join(runs) + z))


@given(st.one_of(long_runs, long_runs.map(lambda b: b.rstrip(b"\x00"))))
def test_cobs_round_trip_across_full_blocks(data):
    enc = p.cobs_encode(data)
    assert 0 not in enc
    assert p.cobs_decode(enc) == data


def test_frame_layout_matches_the_spec_example():
    # docs/serial-protocol.md: PRESENT seq 1, channel 2, UID 04 A1 B2 C3
    frame = p.encode_frame(p.PRESENT, 1, p.tag_payload(2, bytes.fromhex("04A1B2C3")))
    body = p.cobs_decode(frame[:-1])
    assert body[:3] == bytes([p.PRESENT, 1, 6])
    assert body[3:9] == bytes.fromhex("020404A1B2C3")
    assert int.from_bytes(body[9:], "big") == p.crc16(body[:9])
    assert frame.endswith(b"\x00") and frame.count(0) == 1
    # the bytes docs/serial-protocol.md shows, so the spec and the code cannot drift apart
    assert frame.hex(" ") == "0c 02 01 06 02 04 04 a1 b2 c3 eb b8 00"


@given(st.lists(frames, max_size=20))
def test_decoder_decodes_every_frame_of_a_clean_stream(items):
    stream = b"".join(p.encode_frame(t, s, pl) for t, s, pl in items)
    d = p.Decoder()
    out = []
    # in arbitrary chunk sizes, as a serial port hands them over
    rnd = random.Random(len(stream))
    i = 0
    while i < len(stream):
        n = rnd.randint(1, 40)
        out += d.feed(stream[i : i + n])
        i += n
    assert out == [(t, s, pl) for t, s, pl in items]
    assert sum(d.counts.values()) == 0


def good(t=p.HEARTBEAT, seq=7, payload=b"\x00\x00\x00\x01\x00\x00"):
    return p.encode_frame(t, seq, payload)


@pytest.mark.parametrize(
    ("damage", "kind"),
    [
        (lambda f: f[: len(f) // 2] + b"\x00", p.TRUNCATED),  # half a frame, then a delimiter
        (lambda f: bytes([f[0], f[1], f[2] ^ 0x40]) + f[3:], p.BAD_CRC),  # one flipped bit
        (lambda f: b"\xfe" * (p.MAX_ENCODED + 1) + b"\x00", p.OVER_LONG),
        (lambda f: b"\x07\x99\x98\x97\x96\x95\x94\x00", p.GARBAGE),  # not a frame at all
        (lambda f: p.encode_frame(0x3E, 0, b""), p.UNKNOWN),  # well formed, unknown type
    ],
)
def test_each_kind_of_bad_frame_is_counted_and_the_next_good_frame_decodes(damage, kind):
    d = p.Decoder()
    bad = damage(good())
    out = d.feed(bad + good(seq=8))
    assert d.counts[kind] == 1
    assert sum(d.counts.values()) == 1
    assert out == [(p.HEARTBEAT, 8, b"\x00\x00\x00\x01\x00\x00")]


def test_over_long_is_counted_once_however_long_it_goes_on():
    d = p.Decoder()
    for _ in range(50):
        d.feed(b"\x55" * 100)
    assert d.counts[p.OVER_LONG] == 1
    assert d.feed(b"\x00" + good()) == [(p.HEARTBEAT, 7, b"\x00\x00\x00\x01\x00\x00")]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000), frames)
def test_fuzz_random_bytes_never_raise_and_resync_at_the_next_delimiter(noise, frame):
    d = p.Decoder()
    d.feed(noise)
    t, s, pl = frame
    assert d.feed(b"\x00" + p.encode_frame(t, s, pl)) == [(t, s, pl)]


def corrupt(rnd: random.Random, frame: bytes, other: bytes) -> bytes:
    """One kind of damage a serial line does to a frame (delimiter included)."""
    how = rnd.randrange(5)
    if how == 0:  # truncated: the tail is lost, the next delimiter arrives
        return frame[: rnd.randrange(0, len(frame) - 1)] + b"\x00"
    if how == 1:  # a bit flipped somewhere (may even create a delimiter)
        i = rnd.randrange(len(frame) - 1)
        b = bytearray(frame)
        b[i] ^= 1 << rnd.randrange(8)
        return bytes(b)
    if how == 2:  # spliced: the head of one frame glued to the tail of another
        return frame[: rnd.randrange(1, len(frame) - 1)] + other[rnd.randrange(0, len(other) - 1) :]
    if how == 3:  # a burst of noise inside the frame
        i = rnd.randrange(len(frame) - 1)
        return frame[:i] + rnd.randbytes(rnd.randrange(1, 8)) + frame[i:]
    return rnd.randbytes(rnd.randrange(1, 100)) + b"\x00"  # garbage between frames


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(frames, st.booleans()), min_size=1, max_size=25), st.integers(0, 2**32))
def test_fuzz_damaged_streams_every_segment_is_one_good_or_one_counted_bad_frame(items, seed):
    rnd = random.Random(seed)
    stream = b""
    intact = []
    encoded = [p.encode_frame(t, s, pl) for (t, s, pl), _ in items]
    for i, ((t, s, pl), damaged) in enumerate(items):
        if damaged:
            stream += corrupt(rnd, encoded[i], encoded[(i + 1) % len(encoded)])
        else:
            # an intact frame after damage decodes (the damage ended at a delimiter)
            stream += b"\x00" + encoded[i]
            intact.append((t, s, pl))
    d = p.Decoder()
    out = []
    i = 0
    while i < len(stream):
        n = rnd.randint(1, 64)
        out += d.feed(stream[i : i + n])
        i += n
    out += d.feed(b"\x00")  # close whatever was left open
    assert all(f in out for f in intact)
    assert len(out) + sum(d.counts.values()) == segments(stream + b"\x00")


@pytest.mark.parametrize(
    ("parse", "payload"),
    [
        (p.parse_tag, b"\x02\x05\x01\x02\x03\x04\x05"),  # a 5-byte UID
        (p.parse_tag, b"\x02\x04\x01\x02"),  # UID shorter than its length byte
        (p.parse_tag, b"\x10\x04\x01\x02\x03\x04"),  # channel 16
        (p.parse_inventory, b"\x01\x00\x07\x01"),
        (p.parse_hello, b"\x01\x01\x00\x00\x00\x00\x03\xe8hub"),  # zero channels
        (p.parse_heartbeat, b"\x00\x00"),
        (p.parse_ack, b"\x41"),
        (p.parse_feedback, b"\x00\x09\x00\x00"),  # LED mode 9
        (p.parse_rescan, b""),
    ],
)
def test_malformed_payloads_are_refused_with_a_reason(parse, payload):
    with pytest.raises(ValueError, match=r"\w+"):
        parse(payload)


def test_payloads_round_trip():
    hello = p.hello_payload((1, 2, 3), 4, p.FEATURE_LED, 1000, "HUB-7")
    assert p.parse_hello(hello) == (p.PROTOCOL_VERSION, (1, 2, 3), 4, p.FEATURE_LED, 1000, "HUB-7")
    uid7 = bytes.fromhex("04A1B2C3D4E5F6")
    assert p.parse_tag(p.tag_payload(3, uid7)) == (3, uid7)
    assert p.parse_inventory(p.inventory_payload(1, p.CHANNEL_OK, b"")) == (1, 0, b"")
    assert p.parse_heartbeat(p.heartbeat_payload(2**32 + 5, 0b1010)) == (5, 0b1010)
    assert p.parse_error(p.error_payload(p.ERR_READER_FAULT, 2, "no SPI")) == (1, 2, "no SPI")
    assert p.parse_ack(p.ack_payload(p.FEEDBACK, 300, p.ACK_OK)) == (p.FEEDBACK, 44, 0)
    assert p.parse_feedback(p.feedback_payload(255, p.LED_BLINK, 1500)) == (255, 2, 1500)
