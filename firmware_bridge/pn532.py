"""A single NXP PN532 on a UART in HSU mode: frames, and a reader with the TagEvent output.

Frame format (PN532 User Manual UM0701-02, section 6.2)::

    00  00 FF  LEN LCS  TFI PD0 … PDn  DCS  00
    preamble, start code, length (TFI + data) and its checksum (LEN + LCS ≡ 0),
    frame identifier (D4 host → PN532, D5 PN532 → host), data, data checksum
    (TFI + PD… + DCS ≡ 0), postamble.

    ACK 00 00 FF 00 FF 00   NACK 00 00 FF FF 00 00   error 00 00 FF 01 FF 7F 81 00

Every command is answered first by an ACK, then by a response frame whose
first data byte is the command code + 1. The reader:

* wakes the chip from power-down with ``55 55`` and zeros (HSU needs it);
* sends SAMConfiguration (normal mode) and reads the firmware version;
* bounds passive activation with RFConfiguration MaxRetries, because
  InListPassiveTarget otherwise waits forever for a card;
* polls with InListPassiveTarget (MaxTg 2, 106 kbps type A) and deselects
  the card after each hit, so a card lying still is found on every poll
  rather than every other one;
* asks for two targets, not one (UM0701-02 §7.3.5: MaxTg "maximum number of
  targets to be initialized", at most 2; the answer's NbTg says how many): with
  MaxTg 1 a second token in the well goes unseen and the one the chip happens
  to select reads as the only one, silently replacing a drawn token. NbTg 2 is
  "two or more tags" on that well: ``on_notice`` gets a :class:`HubNotice`
  (kind ``one_token_per_well``), the tracker treats it as a collision (no
  presence decision, no removal), and the end of it is told after
  ``remove_misses`` polls with one target or none (issue 43, item 2);
* decides removal after ``remove_misses`` failed re-polls in a row (the same
  debounce the token hub uses, from ``hubcore``);
* checks LCS/DCS, asks for a retransmission (NACK) on a bad checksum, and
  counts every bad frame by kind in ``stats``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import serial

from firmware_bridge import protocol
from firmware_bridge.events import Presence
from firmware_bridge.firmware.hubcore import NOISE, TWO_TAGS, ChannelTracker
from firmware_bridge.hub import ONE_TOKEN_PER_WELL, HubNotice
from firmware_bridge.reader import HandshakeFailed, LinkLost, SerialReader, read_available
from firmware_bridge.stats import ReaderStats
from firmware_bridge.uid import format_uid

if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger(__name__)

TFI_HOST = 0xD4
TFI_PN532 = 0xD5
TFI_ERROR = 0x7F

ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")
#: HSU wake-up: 0x55 0x55, then enough zeros for the chip's oscillator to start
WAKEUP = b"\x55\x55" + bytes(14)

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DESELECT = 0x44
IN_LIST_PASSIVE_TARGET = 0x4A
IN_RELEASE = 0x52

#: InListPassiveTarget: MaxTg 2 (the most the PN532 lists), BrTy 0 (106 kbps type A)
LIST_TWO_TYPE_A = b"\x02\x00"
#: the notice's detail: what the players should do
TWO_TAGS_TEXT = "two or more tags: lift the extra token"

COMMAND_NAMES = {
    GET_FIRMWARE_VERSION: "GetFirmwareVersion",
    SAM_CONFIGURATION: "SAMConfiguration",
    RF_CONFIGURATION: "RFConfiguration",
    IN_DESELECT: "InDeselect",
    IN_LIST_PASSIVE_TARGET: "InListPassiveTarget",
    IN_RELEASE: "InRelease",
}

#: frames longer than this are not ones this driver asks for
MAX_FRAME_DATA = 64


def build_frame(data: bytes, tfi: int = TFI_HOST) -> bytes:
    """A normal information frame carrying ``data`` (command code + parameters).

    >>> build_frame(bytes([GET_FIRMWARE_VERSION])).hex(" ")
    '00 00 ff 02 fe d4 02 2a 00'
    """
    body = bytes([tfi]) + bytes(data)
    if len(body) > 255:
        raise ValueError(f"{len(body)} bytes need an extended frame; this driver sends none")
    length = len(body)
    return (
        b"\x00\x00\xff"
        + bytes([length, (-length) & 0xFF])
        + body
        + bytes([(-sum(body)) & 0xFF, 0x00])
    )


def command_frame(command: int, params: bytes = b"") -> bytes:
    return build_frame(bytes([command]) + params)


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame from the PN532: ``ack``, ``nack``, ``error`` or ``data`` (TFI + data)."""

    kind: str
    tfi: int = 0
    data: bytes = b""


class FrameParser:
    """Cuts PN532 frames out of a byte stream; counts bad ones, never raises.

    Bytes before a start code that are not preamble/postamble zeros are
    ``garbage``; a wrong LCS or DCS is ``bad_crc``; a frame longer than the
    driver ever asks for is ``over_long``; a frame cut short (the next start
    code inside it, or :meth:`expire` with a frame half read) is ``truncated``.
    """

    def __init__(self, stats: ReaderStats, max_data: int = MAX_FRAME_DATA) -> None:
        self.stats = stats
        self.max_data = max_data
        self._buf = bytearray()
        #: the bytes up to the next start code belong to a frame already counted bad
        self._in_bad = False

    def reset(self) -> None:
        self._buf.clear()
        self._in_bad = False

    def _junk(self) -> None:
        if not self._in_bad:
            self.stats.count_bad("garbage")
        self._in_bad = False

    def _bad(self, kind: str) -> None:
        self.stats.count_bad(kind)
        self._in_bad = True

    @property
    def pending(self) -> bool:
        """A frame has started but not finished."""
        return self._buf.find(b"\x00\xff") >= 0

    def expire(self) -> None:
        """The line went quiet mid-frame: count what was left and forget it."""
        if self.pending:
            self.stats.count_bad("truncated")
        elif any(self._buf) and not self._in_bad:
            self.stats.count_bad("garbage")
        self._buf.clear()
        self._in_bad = False

    def feed(self, data: bytes) -> list[Frame]:
        self._buf.extend(data)
        out: list[Frame] = []
        while True:
            frame, consumed = self._next()
            if consumed == 0:
                return out
            del self._buf[:consumed]
            if frame is not None:
                out.append(frame)

    def _next(self) -> tuple[Frame | None, int]:
        """Parse at the head of the buffer: (frame or None, bytes consumed); (None, 0) = need more."""
        buf = self._buf
        start = buf.find(b"\x00\xff")
        if start < 0:
            # keep a trailing 0x00: it may be the start code's first byte
            keep = 1 if buf.endswith(b"\x00") else 0
            junk = len(buf) - keep
            if junk and any(buf[:junk]):
                self._junk()
            return None, junk
        if any(buf[:start]):
            self._junk()
            return None, start
        self._in_bad = False
        if len(buf) < start + 4:
            return None, 0
        length, lcs = buf[start + 2], buf[start + 3]
        head = start + 4
        if length == 0x00 and lcs == 0xFF:
            return Frame("ack"), head
        if length == 0xFF and lcs == 0x00:
            return Frame("nack"), head
        if length == 0xFF and lcs == 0xFF:  # extended frame: LENM LENL LCS
            if len(buf) < start + 7:
                return None, 0
            lenm, lenl, elcs = buf[start + 4], buf[start + 5], buf[start + 6]
            if (lenm + lenl + elcs) & 0xFF:
                self._bad("bad_crc")
                return None, start + 2
            length = (lenm << 8) | lenl
            head = start + 7
        elif (length + lcs) & 0xFF:
            self._bad("bad_crc")  # the length cannot be trusted: resync at the next start code
            return None, start + 2
        if length > self.max_data:
            self._bad("over_long")
            return None, head
        if length == 0:
            self._bad("garbage")
            return None, head
        end = head + length  # index of DCS
        if len(buf) < end + 1:
            return None, 0
        body = bytes(buf[head:end])
        if (sum(body) + buf[end]) & 0xFF:
            # a new start code inside means this frame was cut short by the next one
            inner = buf.find(b"\x00\x00\xff", head)
            cut = 0 <= inner < end
            self.stats.count_bad("truncated" if cut else "bad_crc")
            return None, inner if cut else end + 1  # LCS held, so the length can be trusted
        if length == 1 and body[0] == TFI_ERROR:
            return Frame("error"), end + 1
        return Frame("data", body[0], body[1:]), end + 1


@dataclass(frozen=True, slots=True)
class Target:
    """One ISO/IEC 14443 type A target from InListPassiveTarget."""

    number: int
    sens_res: bytes
    sel_res: int
    uid: bytes


def parse_passive_targets(data: bytes) -> list[Target]:
    """The InListPassiveTarget response after ``D5 4B``: NbTg, then per target
    Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1 [, ATS]. Raises ValueError."""
    if not data:
        raise ValueError("empty InListPassiveTarget response")
    count = data[0]
    if count > 2:
        raise ValueError(f"{count} targets reported; the PN532 lists at most 2")
    targets = []
    i = 1
    for _ in range(count):
        if len(data) < i + 5:
            raise ValueError("target entry cut short")
        uid_len = data[i + 4]
        if uid_len not in (4, 7, 10) or len(data) < i + 5 + uid_len:
            raise ValueError(f"target UID length {uid_len} does not fit the response")
        targets.append(
            Target(
                data[i],
                bytes(data[i + 1 : i + 3]),
                data[i + 3],
                bytes(data[i + 5 : i + 5 + uid_len]),
            )
        )
        i += 5 + uid_len
        if data[i - uid_len - 2] & 0x20 and i < len(data):  # ISO 14443-4: ATS follows
            i += data[i]
    return targets


class PN532Error(Exception):
    """The PN532 refused a command (syntax-error frame) or answered nonsense."""


class PN532Reader(SerialReader):
    """A PN532 breakout in HSU mode (USB-serial adapter or Pi UART) as one reader channel.

    >>> import queue
    >>> reader = PN532Reader("/dev/serial/by-path/platform-3f215040.serial", sink=queue.Queue())
    >>> reader.start()   # doctest: +SKIP
    """

    kind = "pn532"

    def __init__(
        self,
        port: str,
        *,
        channel: int = 0,
        poll_interval: float = 0.05,
        passive_retries: int = 1,
        remove_misses: int = 2,
        ack_timeout: float = 0.1,
        response_timeout: float = 0.5,
        attempts: int = 3,
        **kwargs: Any,
    ) -> None:
        super().__init__(port, **kwargs)
        if not 0 <= passive_retries <= 0xFE:
            raise ValueError("passive_retries must be 0..254 (0xFF would wait for a card forever)")
        self.channel = channel
        self.poll_interval = poll_interval
        self.passive_retries = passive_retries
        self.remove_misses = remove_misses
        self.ack_timeout = ack_timeout
        self.response_timeout = response_timeout
        self.attempts = attempts
        self.firmware: tuple[int, int, int, int] | None = None
        #: told of two or more tags on the well (set by the service, as for a hub)
        self.on_notice: Callable[[HubNotice], object] | None = None
        #: the channel, while two or more tags lie on it, with the notice's detail
        self.collisions: dict[int, str] = {}
        self._clean = 0
        self._parser = FrameParser(self.stats)
        self._frames: list[Frame] = []
        self._crc_mark = 0
        self.polls = 0

    # -- one command -------------------------------------------------------------

    def _read_frame(self, port: serial.Serial, timeout: float, nack: bool) -> Frame | None:
        deadline = time.monotonic() + timeout
        while not self.stopping:
            if self._frames:
                return self._frames.pop(0)
            if nack and self.stats.bad_crc != self._crc_mark:
                self._crc_mark = self.stats.bad_crc
                port.write(NACK)  # ask the PN532 to send its last response again
            self._frames += self._parser.feed(read_available(port))
            if self._frames:
                continue
            if time.monotonic() > deadline:
                self._parser.expire()
                return None
        return None

    def call(self, port: serial.Serial, command: int, params: bytes = b"") -> bytes:
        """Send a command, take its ACK and response; returns the response data.

        Retries ``attempts`` times; raises :class:`LinkLost` when the PN532
        stays silent, :class:`PN532Error` when it keeps refusing.
        """
        name = COMMAND_NAMES.get(command, hex(command))
        why = "no answer"
        for attempt in range(self.attempts):
            if self.stopping:  # stop() cut the exchange short: no retries, no timeouts counted
                raise LinkLost(f"stopped during {name}")
            if attempt:
                # a busy PN532 hears no new command: abort the pending one with an ACK
                # frame (NXP UM0701-02, the ACK frame), then drop its late bytes, as
                # Adafruit_CircuitPython_PN532's UART _write_data flushes before writing
                port.write(ACK)
                port.flush()
                time.sleep(0.002)
            port.reset_input_buffer()
            self._parser.reset()
            self._frames.clear()  # a late answer to an earlier try must not pass for this one
            self._crc_mark = self.stats.bad_crc
            port.write(command_frame(command, params))
            ack = self._read_frame(port, self.ack_timeout, nack=False)
            if ack is None:
                if self.stopping:
                    continue
                self.stats.add("timeouts")
                why = "no ACK"
                continue
            if ack.kind == "error":
                self.stats.device_errors["syntax_error"] += 1
                why = "syntax error frame"
                continue
            if ack.kind != "ack":
                self.stats.count_bad("malformed")
                why = f"{ack.kind} frame instead of ACK"
                continue
            resp = self._read_frame(port, self.response_timeout, nack=True)
            if resp is None:
                if self.stopping:
                    continue
                self.stats.add("timeouts")
                why = "no response after the ACK"
                continue
            if resp.kind == "error":
                self.stats.device_errors["application_error"] += 1
                why = "error frame"
                continue
            if (
                resp.kind != "data"
                or resp.tfi != TFI_PN532
                or not resp.data
                or resp.data[0] != command + 1
            ):
                self.stats.count_bad("malformed")
                why = f"unexpected {resp.kind} frame {resp.data.hex()}"
                continue
            self.stats.add("frames")
            return resp.data[1:]
        if why.startswith("no "):
            raise LinkLost(f"PN532 gave {why} to {name} after {self.attempts} tries")
        raise PN532Error(f"PN532 refused {name}: {why}")

    # -- the session ------------------------------------------------------------------

    def _session(self, port: serial.Serial) -> None:
        self._parser.reset()
        port.reset_input_buffer()
        port.write(WAKEUP)
        try:
            self.call(port, SAM_CONFIGURATION, b"\x01\x14\x01")  # normal mode, 1 s, use IRQ
            fw = self.call(port, GET_FIRMWARE_VERSION)
        except (LinkLost, PN532Error) as e:
            raise HandshakeFailed(
                f"{e}; is a PN532 in HSU mode (both switches off) on {self.port}?"
            ) from e
        if len(fw) != 4 or fw[0] != 0x32:
            raise HandshakeFailed(f"GetFirmwareVersion answered {fw.hex()}: not a PN532")
        self.firmware = (fw[0], fw[1], fw[2], fw[3])
        # MaxRetries: ATR 0xFF, PSL 0x01, passive activation bounded
        self.call(port, RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, self.passive_retries]))
        self._online(f"PN532 firmware {fw[1]}.{fw[2]}")
        tracker = ChannelTracker(present_hits=1, remove_misses=self.remove_misses)
        current = self.tags.get(self.channel)
        if current is not None:  # what we reported before a reconnect still stands until re-polled
            tracker.uid = current
        while not self.stopping:
            result = self._poll(port)
            self._two_tags(result == TWO_TAGS)
            for kind, uid in tracker.update(result):
                presence = Presence.PRESENT if kind == protocol.PRESENT else Presence.REMOVED
                if presence is Presence.PRESENT:
                    self._present(self.channel, uid)
                else:
                    self._removed(self.channel, uid)
            self._wait(self.poll_interval)

    def _two_tags(self, now: bool) -> None:
        """Two or more tags on the well: a notice when it starts, and when it has been over
        for ``remove_misses`` polls (as the hub's ``collision_cleared``)."""
        if now:
            self._clean = 0
            if self.channel in self.collisions:
                return
            self.collisions[self.channel] = TWO_TAGS_TEXT
            self._notice(True, TWO_TAGS_TEXT)
        elif self.channel in self.collisions:
            self._clean += 1
            if self._clean >= self.remove_misses:
                del self.collisions[self.channel]
                self._notice(False, "one token again")

    def _notice(self, active: bool, detail: str) -> None:
        log.info("%s: %s", self.name, detail)
        if self.on_notice is None:
            return
        notice = HubNotice(
            self.name, self.channel, ONE_TOKEN_PER_WELL, active, detail, self.clock()
        )
        try:
            self.on_notice(notice)
        except Exception:
            self.stats.add("sink_errors")
            log.exception("%s: the notice consumer raised", self.name)

    def _poll(self, port: serial.Serial) -> bytes | str | None:
        """UID, None (no card), TWO_TAGS (NbTg 2: never a presence) or NOISE (an answer
        that says neither: never a removal)."""
        self.polls += 1
        try:
            targets = parse_passive_targets(
                self.call(port, IN_LIST_PASSIVE_TARGET, LIST_TWO_TYPE_A)
            )
        except ValueError as e:
            self.stats.count_bad("malformed")
            log.warning("%s: bad InListPassiveTarget answer: %s", self.name, e)
            return NOISE
        except PN532Error as e:
            log.warning("%s: %s", self.name, e)
            return NOISE
        if not targets:
            return None
        # deselect, so a card lying still answers the next poll too (not every other one);
        # a refusal costs at most one missed re-poll, which the removal debounce absorbs
        try:
            self.call(port, IN_DESELECT, b"\x00")
        except PN532Error as e:
            log.warning("%s: %s", self.name, e)
        if len(targets) > 1:  # NbTg 2: two tokens in one well, whichever the chip listed first
            log.debug("%s: %d targets", self.name, len(targets))
            return TWO_TAGS
        log.debug("%s: target %s", self.name, format_uid(targets[0].uid))
        return targets[0].uid
