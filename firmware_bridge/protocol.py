"""Token hub wire protocol, version 1: framing, CRC-16 and message layouts.

This one file is shared by the host bridge (CPython) and the hub firmware
(MicroPython copies it to the board unchanged), so both sides can never
disagree about a byte. That is why it is written in the subset both run: no
``typing``, no dataclasses, no ``from __future__``, plain ints for constants,
annotations only with built-in names. A test runs it under a real MicroPython
to keep it that way. ``docs/serial-protocol.md`` is the specification this
module implements.

Frame on the wire: ``COBS(body) 00``, where ``body`` is
``TYPE SEQ LEN PAYLOAD[LEN] CRC16_HI CRC16_LO`` and the CRC is
CRC-16/CCITT-FALSE over ``TYPE..PAYLOAD``. The 0x00 delimiter never occurs
inside a COBS frame, so a receiver that lost track resynchronises at the
next 0x00: corruption costs one frame, never the stream.
"""

try:  # CPython: the C implementation. MicroPython's binascii has no CRC-16.
    from binascii import crc_hqx as _crc_hqx
except ImportError:  # pragma: no cover - taken on MicroPython only
    _crc_hqx = None  # type: ignore[assignment]

try:  # noqa: SIM105 - for the type checker; MicroPython has no contextlib
    from collections.abc import Callable
except ImportError:  # pragma: no cover
    pass

PROTOCOL_VERSION = 1
DEFAULT_BAUDRATE = 115200

DELIMITER = 0
HEADER_LEN = 3  # TYPE, SEQ, LEN
CRC_LEN = 2
MAX_PAYLOAD = 64
MIN_BODY = HEADER_LEN + CRC_LEN
MAX_BODY = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
#: the longest COBS encoding of a valid body (one overhead byte per 254)
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1

# Hub -> host messages
HELLO = 0x01
PRESENT = 0x02
REMOVED = 0x03
INVENTORY = 0x04
HEARTBEAT = 0x05
ERROR = 0x06
PONG = 0x07
ACK = 0x08
HUB_MESSAGES = (HELLO, PRESENT, REMOVED, INVENTORY, HEARTBEAT, ERROR, PONG, ACK)

# Host -> hub messages
HELLO_REQUEST = 0x41
INVENTORY_REQUEST = 0x42
PING = 0x43
FEEDBACK = 0x44
RESCAN = 0x45
MAINTENANCE = 0x46
HOST_MESSAGES = (HELLO_REQUEST, INVENTORY_REQUEST, PING, FEEDBACK, RESCAN, MAINTENANCE)

MESSAGE_NAMES = {
    HELLO: "hello",
    PRESENT: "present",
    REMOVED: "removed",
    INVENTORY: "inventory",
    HEARTBEAT: "heartbeat",
    ERROR: "error",
    PONG: "pong",
    ACK: "ack",
    HELLO_REQUEST: "hello_request",
    INVENTORY_REQUEST: "inventory_request",
    PING: "ping",
    FEEDBACK: "feedback",
    RESCAN: "rescan",
    MAINTENANCE: "maintenance",
}

#: ISO/IEC 14443-3 UIDs are single (4), double (7) or triple (10) size
UID_LENGTHS = (4, 7, 10)
MAX_CHANNELS = 16  # the heartbeat's presence mask is 16 bits
ALL_CHANNELS = 0xFF
NO_CHANNEL = 0xFF
MAX_HUB_ID = 24
MAX_ERROR_TEXT = 48
MAX_PING = 32

# Hardware the hub reports in its hello (bit mask)
FEATURE_LED = 0x01
FEATURE_BUZZER = 0x02

# INVENTORY channel status
CHANNEL_OK = 0
CHANNEL_FAULT = 1

# ERROR codes
ERR_READER_FAULT = 1
ERR_BAD_FRAME = 2
ERR_UNKNOWN_COMMAND = 3
ERR_BAD_ARGUMENT = 4
ERR_WATCHDOG_RESET = 5
ERR_COLLISION = 6
ERR_TX_OVERFLOW = 7
ERR_CRASH_RESTART = 8
#: the collision on CHANNEL is over: one tag (or none) again. Added in firmware 1.2 within
#: protocol v1: an older host logs it as an unknown code and carries on
ERR_COLLISION_CLEARED = 9
#: a tag on CHANNEL is read now and then, never steadily enough to count (a detuned tag, a token
#: off-centre): TEXT is :func:`reads_poorly_text` (the UID read); ``…_CLEARED`` when it reads
#: steadily or is gone. Added in firmware 1.4 within protocol v1 (issue 43): an older host logs
#: them as unknown codes and carries on, and an older hub never sends them
ERR_READS_POORLY = 10
ERR_READS_POORLY_CLEARED = 11
ERROR_NAMES = {
    ERR_READER_FAULT: "reader_fault",
    ERR_BAD_FRAME: "bad_frame",
    ERR_UNKNOWN_COMMAND: "unknown_command",
    ERR_BAD_ARGUMENT: "bad_argument",
    ERR_WATCHDOG_RESET: "watchdog_reset",
    ERR_COLLISION: "collision",
    ERR_TX_OVERFLOW: "tx_overflow",
    ERR_CRASH_RESTART: "crash_restart",
    ERR_COLLISION_CLEARED: "collision_cleared",
    ERR_READS_POORLY: "reads_poorly",
    ERR_READS_POORLY_CLEARED: "reads_poorly_cleared",
}

#: the ERROR text of ERR_READS_POORLY, before the UID in hex
READS_POORLY_PREFIX = "reads poorly: "

# ACK status
ACK_OK = 0
ACK_UNKNOWN = 1
ACK_BAD_ARGUMENT = 2
ACK_NOT_FITTED = 3

# FEEDBACK LED modes
LED_OFF = 0
LED_ON = 1
LED_BLINK = 2

# Kinds of bad frame a Decoder counts (see the spec, "Receiving")
GARBAGE = "garbage"
TRUNCATED = "truncated"
OVER_LONG = "over_long"
BAD_CRC = "bad_crc"
UNKNOWN = "unknown"
BAD_KINDS = (GARBAGE, TRUNCATED, OVER_LONG, BAD_CRC, UNKNOWN)


def _make_crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_crc_table()


def crc16_table(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE by table: the path MicroPython takes (no C helper there)."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection); "123456789" → 0x29B1."""
    if _crc_hqx is not None:
        return _crc_hqx(data, crc)
    return crc16_table(data, crc)  # pragma: no cover - MicroPython


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` with every 0x00 removed, reversibly."""
    out = bytearray()
    start = 0
    n = len(data)
    while True:
        # one block: up to 254 non-zero bytes, then the implied zero
        end = start
        limit = start + 254
        while end < n and end < limit and data[end] != 0:
            end += 1
        out.append(end - start + 1)
        out.extend(data[start:end])
        if end >= n:
            break
        if end == limit:
            # a full 254-byte block (code 0xFF) has no implied zero: a zero right
            # after it starts the next block, it is not this block's end
            start = end
        else:
            start = end + 1  # data[end] is the zero this block implies
            if start == n:
                out.append(1)  # the body ended in a zero
                break
    return bytes(out)


def cobs_decode_lenient(enc: bytes) -> tuple[bytes, bool]:
    """Undo COBS as far as ``enc`` allows. Returns ``(body, complete)``.

    ``complete`` is False when a block runs past the end of ``enc``: the tail
    of the frame was lost. The decoder uses that to tell truncated frames
    from other damage, so it never raises.
    """
    out = bytearray()
    i = 0
    n = len(enc)
    while i < n:
        code = enc[i]
        i += 1
        if code == 0:
            return bytes(out), False
        end = i + code - 1
        if end > n:
            out.extend(enc[i:n])
            return bytes(out), False
        out.extend(enc[i:end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out), True


def cobs_decode(enc: bytes) -> bytes:
    """Strict COBS decode; raises ValueError if ``enc`` is not a whole COBS block."""
    body, complete = cobs_decode_lenient(enc)
    if not complete:
        raise ValueError("COBS block runs past the end of the frame")
    return body


def frame_body(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """The unframed body ``TYPE SEQ LEN PAYLOAD CRC``."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    head = bytes((msg_type & 0xFF, seq & 0xFF, len(payload))) + bytes(payload)
    crc = crc16(head)
    return head + bytes((crc >> 8, crc & 0xFF))


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One message, ready for the wire: COBS-encoded body and the 0x00 delimiter."""
    return cobs_encode(frame_body(msg_type, seq, payload)) + b"\x00"


class Decoder:
    """Splits a byte stream into frames; never raises, counts every bad frame.

    ``feed(data)`` returns the good frames completed by ``data`` as
    ``(type, seq, payload)`` tuples. Each stretch between two delimiters is
    exactly one of: a good frame, or one bad frame counted under one kind in
    ``counts`` (and reported to ``on_bad(kind)`` if given). ``accept`` lists
    the message types this side expects; a well-formed frame of another type
    counts as ``unknown``.
    """

    def __init__(
        self, accept: tuple[int, ...] = HUB_MESSAGES, on_bad: "Callable[[str], None] | None" = None
    ) -> None:
        self.accept = accept
        self.on_bad = on_bad
        self.counts: dict[str, int] = {}
        for kind in BAD_KINDS:
            self.counts[kind] = 0
        self.frames = 0
        self._buf = bytearray()
        self._overflow = False

    def reset(self) -> None:
        """Forget a partial frame (after a reconnect); keep the counts."""
        self._buf = bytearray()
        self._overflow = False

    def _bad(self, kind: str) -> None:
        self.counts[kind] += 1
        if self.on_bad is not None:
            self.on_bad(kind)

    def _take(self, chunk: bytes) -> None:
        if self._overflow or not chunk:
            return
        self._buf.extend(chunk)
        if len(self._buf) > MAX_ENCODED:
            # count it now, drop everything up to the next delimiter
            self._buf = bytearray()
            self._overflow = True
            self._bad(OVER_LONG)

    def feed(self, data: bytes | bytearray) -> list[tuple[int, int, bytes]]:
        if not isinstance(data, bytes):
            data = bytes(data)
        out = []
        start = 0
        n = len(data)
        while start < n:
            i = data.find(b"\x00", start)
            if i < 0:
                self._take(data[start:])
                break
            self._take(data[start:i])
            start = i + 1
            if self._overflow:
                self._overflow = False
                continue
            if self._buf:
                frame = self._classify(bytes(self._buf))
                self._buf = bytearray()
                if frame is not None:
                    out.append(frame)
        return out

    def _classify(self, enc: bytes) -> tuple[int, int, bytes] | None:
        body, complete = cobs_decode_lenient(enc)
        known = len(body) > 0 and body[0] in self.accept
        n = len(body)
        if n >= HEADER_LEN:
            if body[2] > MAX_PAYLOAD:
                self._bad(GARBAGE)
                return None
            need = HEADER_LEN + body[2] + CRC_LEN
        else:
            need = MIN_BODY
        if not complete or n < need:
            self._bad(TRUNCATED if known else GARBAGE)
            return None
        if n > need:
            self._bad(GARBAGE)
            return None
        crc = crc16(body[: need - CRC_LEN])
        if (crc >> 8) != body[need - 2] or (crc & 0xFF) != body[need - 1]:
            self._bad(BAD_CRC if known else GARBAGE)
            return None
        if not known:
            self._bad(UNKNOWN)
            return None
        self.frames += 1
        return (body[0], body[1], body[HEADER_LEN : need - CRC_LEN])


# --- payload layouts ------------------------------------------------------
# Builders take plain values and return bytes; parsers take bytes and return
# tuples, raising ValueError (with a reason) on a malformed payload.


def _need(payload: bytes, n: int, what: str) -> None:
    if len(payload) < n:
        raise ValueError(f"{what} payload too short: {len(payload)} bytes, need {n}")


def _check_uid(uid: bytes) -> None:
    if len(uid) not in UID_LENGTHS:
        raise ValueError(f"UID of {len(uid)} bytes; a UID has 4, 7 or 10")


def _check_channel(channel: int) -> None:
    if not 0 <= channel < MAX_CHANNELS:
        raise ValueError(f"channel {channel} out of range 0..{MAX_CHANNELS - 1}")


def hello_payload(
    fw_version: tuple[int, int, int], channels: int, features: int, heartbeat_ms: int, hub_id: str
) -> bytes:
    """HELLO: ``PROTO FW_MAJ FW_MIN FW_PATCH CHANNELS FEATURES HB_MS(2) HUB_ID…``."""
    ident = hub_id.encode()
    if not 1 <= channels <= MAX_CHANNELS:
        raise ValueError(f"channel count {channels} out of range 1..{MAX_CHANNELS}")
    return (
        bytes(
            (
                PROTOCOL_VERSION,
                fw_version[0],
                fw_version[1],
                fw_version[2],
                channels,
                features,
                (heartbeat_ms >> 8) & 0xFF,
                heartbeat_ms & 0xFF,
            )
        )
        + ident[:MAX_HUB_ID]
    )


def parse_hello(payload: bytes) -> tuple[int, tuple[int, int, int], int, int, int, str]:
    """-> ``(protocol, (major, minor, patch), channels, features, heartbeat_ms, hub_id)``."""
    _need(payload, 8, "hello")
    channels = payload[4]
    if not 1 <= channels <= MAX_CHANNELS:
        raise ValueError(f"hello reports {channels} channels; 1..{MAX_CHANNELS} allowed")
    hub_id = bytes(payload[8 : 8 + MAX_HUB_ID])
    if len(payload) > 8 + MAX_HUB_ID:
        raise ValueError(f"hello hub id longer than {MAX_HUB_ID} bytes")
    return (
        payload[0],
        (payload[1], payload[2], payload[3]),
        channels,
        payload[5],
        (payload[6] << 8) | payload[7],
        _ascii(hub_id),
    )


def tag_payload(channel: int, uid: bytes) -> bytes:
    """PRESENT / REMOVED: ``CHANNEL UID_LEN UID…``."""
    _check_channel(channel)
    _check_uid(uid)
    return bytes((channel, len(uid))) + bytes(uid)


def parse_tag(payload: bytes) -> tuple[int, bytes]:
    """-> ``(channel, uid)``."""
    _need(payload, 2, "tag")
    channel = payload[0]
    _check_channel(channel)
    if len(payload) != 2 + payload[1]:
        raise ValueError(
            f"tag payload length {len(payload)} disagrees with UID length {payload[1]}"
        )
    uid = bytes(payload[2:])
    _check_uid(uid)
    return channel, uid


def inventory_payload(channel: int, status: int, uid: bytes, chip: int = 0) -> bytes:
    """INVENTORY: ``CHANNEL STATUS UID_LEN UID… CHIP`` (UID_LEN 0 = nothing on it).

    ``CHIP`` is the reader chip's version (an MFRC522's VersionReg; 0 = unknown);
    firmware 1.0 sent no ``CHIP`` byte, and :func:`parse_inventory` accepts both.
    """
    _check_channel(channel)
    if uid:
        _check_uid(uid)
    return bytes((channel, status, len(uid))) + bytes(uid) + bytes((chip & 0xFF,))


def parse_inventory(payload: bytes) -> tuple[int, int, bytes]:
    """-> ``(channel, status, uid_or_empty_bytes)``; :func:`inventory_chip` gives ``CHIP``."""
    _need(payload, 3, "inventory")
    channel = payload[0]
    _check_channel(channel)
    if len(payload) not in (3 + payload[2], 4 + payload[2]):
        raise ValueError(
            f"inventory payload length {len(payload)} disagrees with UID length {payload[2]}"
        )
    uid = bytes(payload[3 : 3 + payload[2]])
    if uid:
        _check_uid(uid)
    return channel, payload[1], uid


def inventory_chip(payload: bytes) -> int:
    """The reader chip version in an INVENTORY payload (0 when the hub did not say)."""
    return payload[3 + payload[2]] if len(payload) == 4 + payload[2] else 0


def heartbeat_payload(uptime_ms: int, present_mask: int) -> bytes:
    """HEARTBEAT: ``UPTIME_MS(4) PRESENT_MASK(2)``; bit n set = a tag lies on channel n."""
    u = uptime_ms & 0xFFFFFFFF
    return bytes(
        (
            (u >> 24) & 0xFF,
            (u >> 16) & 0xFF,
            (u >> 8) & 0xFF,
            u & 0xFF,
            (present_mask >> 8) & 0xFF,
            present_mask & 0xFF,
        )
    )


def parse_heartbeat(payload: bytes) -> tuple[int, int]:
    """-> ``(uptime_ms, present_mask)``."""
    if len(payload) != 6:
        raise ValueError(f"heartbeat payload is {len(payload)} bytes, expected 6")
    uptime = (payload[0] << 24) | (payload[1] << 16) | (payload[2] << 8) | payload[3]
    return uptime, (payload[4] << 8) | payload[5]


def error_payload(code: int, channel: int, text: str = "") -> bytes:
    """ERROR: ``CODE CHANNEL TEXT…`` (CHANNEL 0xFF = not about one channel)."""
    raw = text.encode()
    return bytes((code, channel)) + raw[:MAX_ERROR_TEXT]


def reads_poorly_text(uid: bytes) -> str:
    """ERR_READS_POORLY's text: the UID read, in hex (on the hub too: no ``bytes.hex``).

    >>> reads_poorly_text(bytes.fromhex("04A1B2C3"))
    'reads poorly: 04A1B2C3'
    """
    return READS_POORLY_PREFIX + "".join([f"{b:02X}" for b in uid])


def parse_error(payload: bytes) -> tuple[int, int, str]:
    """-> ``(code, channel, text)``; non-ASCII bytes in the text show as ``?``."""
    _need(payload, 2, "error")
    return payload[0], payload[1], _ascii(payload[2:])


def _ascii(raw: bytes) -> str:
    return "".join([chr(b) if 32 <= b < 127 else "?" for b in raw])


def ack_payload(cmd_type: int, cmd_seq: int, status: int) -> bytes:
    """ACK: ``CMD_TYPE CMD_SEQ STATUS``."""
    return bytes((cmd_type, cmd_seq & 0xFF, status))


def parse_ack(payload: bytes) -> tuple[int, int, int]:
    """-> ``(cmd_type, cmd_seq, status)``."""
    if len(payload) != 3:
        raise ValueError(f"ack payload is {len(payload)} bytes, expected 3")
    return payload[0], payload[1], payload[2]


def feedback_payload(channel: int, led: int, buzzer_ms: int) -> bytes:
    """FEEDBACK: ``CHANNEL LED BUZZER_MS(2)`` (CHANNEL 0xFF = all)."""
    return bytes((channel, led, (buzzer_ms >> 8) & 0xFF, buzzer_ms & 0xFF))


def parse_feedback(payload: bytes) -> tuple[int, int, int]:
    """-> ``(channel, led, buzzer_ms)``."""
    if len(payload) != 4:
        raise ValueError(f"feedback payload is {len(payload)} bytes, expected 4")
    if payload[1] not in (LED_OFF, LED_ON, LED_BLINK):
        raise ValueError(f"LED mode {payload[1]} unknown")
    return payload[0], payload[1], (payload[2] << 8) | payload[3]


def rescan_payload(channel: int = ALL_CHANNELS) -> bytes:
    """RESCAN: ``CHANNEL`` (0xFF = every channel)."""
    return bytes((channel,))


def parse_rescan(payload: bytes) -> int:
    """-> ``channel``."""
    if len(payload) != 1:
        raise ValueError(f"rescan payload is {len(payload)} bytes, expected 1")
    return payload[0]
