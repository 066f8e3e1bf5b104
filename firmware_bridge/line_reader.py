"""Cheap USB-serial RFID readers that print one UID per line.

They differ in how they write the UID (hex with or without separators,
decimal, with a prefix such as ``UID: ``, between STX/ETX bytes) and in
whether they repeat it while the card stays on them. Both are configuration:

* ``uid_format``: ``"hex"`` (``04A1B2C3``, ``04:a1:b2:c3``, ``0x04A1B2C3``) or
  ``"decimal"`` (``0078230467``, read big-endian into ``uid_bytes`` bytes);
  ``pattern``: a regular expression whose ``uid`` group holds the UID
  (default: the whole line); ``terminators``: the bytes that end a line.
* ``removal_timeout``: for readers that repeat the UID while the card lies
  on them, the card is removed when its UID has not been printed for this
  many seconds. ``None`` for "tap" readers that print once per tap: each new
  line is a present immediately followed by a removed, and the same UID again
  within ``debounce`` seconds is a repeat, not a new tap.
"""

from __future__ import annotations

import re
import time
from typing import Any

import serial

from firmware_bridge.events import Presence
from firmware_bridge.reader import SerialReader, read_available
from firmware_bridge.uid import parse_uid

UID_FORMATS = ("hex", "decimal")


class LineFormat:
    """How one model of reader writes a UID on a line. ``parse`` raises ValueError."""

    def __init__(
        self,
        uid_format: str = "hex",
        pattern: str | None = None,
        uid_bytes: int | None = None,
    ) -> None:
        if uid_format not in UID_FORMATS:
            raise ValueError(f"uid_format must be one of {UID_FORMATS}, not {uid_format!r}")
        self.uid_format = uid_format
        self.pattern = re.compile(pattern) if pattern else None
        if self.pattern is not None and "uid" not in self.pattern.groupindex:
            raise ValueError(f"pattern {pattern!r} needs a named group (?P<uid>…)")
        self.uid_bytes = uid_bytes

    def parse(self, line: str) -> bytes:
        text = line.strip()
        if self.pattern is not None:
            m = self.pattern.search(text)
            if m is None:
                raise ValueError(f"line {text!r} does not match {self.pattern.pattern!r}")
            text = m.group("uid")
        if self.uid_format == "hex":
            uid = parse_uid(text, lengths=None)  # 125 kHz readers print 5-byte IDs
        else:
            if not text.isdigit():
                raise ValueError(f"{text!r} is not a decimal UID")
            number = int(text)
            size = self.uid_bytes or max(4, (number.bit_length() + 7) // 8)
            try:
                uid = number.to_bytes(size, "big")
            except OverflowError:
                raise ValueError(f"{text} does not fit in {size} bytes") from None
        if not 2 <= len(uid) <= 16:
            raise ValueError(f"UID of {len(uid)} bytes is not plausible")
        return uid


class LineReader(SerialReader):
    """A reader that prints UIDs as text lines, as one reader channel.

    >>> import queue
    >>> r = LineReader("/dev/serial/by-id/usb-1a86_USB_Serial-if00-port0", sink=queue.Queue(),
    ...                baudrate=9600, uid_format="decimal", removal_timeout=None)
    """

    kind = "line"

    def __init__(
        self,
        port: str,
        *,
        channel: int = 0,
        uid_format: str = "hex",
        pattern: str | None = None,
        uid_bytes: int | None = None,
        terminators: bytes = b"\r\n",
        removal_timeout: float | None = 0.5,
        debounce: float = 1.0,
        max_line: int = 128,
        **kwargs: Any,
    ) -> None:
        super().__init__(port, **kwargs)
        self.channel = channel
        self.format = LineFormat(uid_format, pattern, uid_bytes)
        self.terminators = re.compile(b"[" + re.escape(terminators) + b"]")
        self.removal_timeout = removal_timeout
        self.debounce = debounce
        self.max_line = max_line
        self._buf = bytearray()
        self._overflow = False
        self._last_seen = 0.0
        self._last_tap: tuple[bytes, float] | None = None

    def _session(self, port: serial.Serial) -> None:
        self._buf.clear()
        self._overflow = False
        port.reset_input_buffer()
        # a card reported before an unplug gets a fresh removal_timeout to be printed again:
        # the reader could not print while it was away, so staying put is not a removal
        self._last_seen = time.monotonic()
        self._online(f"line reader on {self.port} ({self.format.uid_format})")
        while not self.stopping:
            data = read_available(port)
            now = time.monotonic()
            for line in self._lines(data):
                self._line(line, now)
            if (
                self.removal_timeout is not None
                and self.channel in self.tags
                and now - self._last_seen > self.removal_timeout
            ):
                self._removed(self.channel)

    def _lines(self, data: bytes) -> list[bytes]:
        out = []
        parts = self.terminators.split(data)
        for i, part in enumerate(parts):
            if not self._overflow:
                self._buf += part
                if len(self._buf) > self.max_line:
                    self.stats.count_bad("over_long")
                    self._overflow = True
                    self._buf.clear()
            if i < len(parts) - 1:  # a terminator followed this part
                if self._buf:
                    out.append(bytes(self._buf))
                self._buf.clear()
                self._overflow = False
        return out

    def _line(self, raw: bytes, now: float) -> None:
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            self.stats.count_bad("garbage")
            return
        if not any(c.isalnum() for c in text):
            self.stats.count_bad("garbage")
            return
        try:
            uid = self.format.parse(text)
        except ValueError:
            self.stats.count_bad("malformed")
            return
        self.stats.add("frames")
        if self.removal_timeout is None:
            if (
                self._last_tap is not None
                and self._last_tap[0] == uid
                and now - self._last_tap[1] < self.debounce
            ):
                self.stats.add("duplicates")
            else:
                self._emit(self.channel, uid, Presence.PRESENT)
                self._emit(self.channel, uid, Presence.REMOVED)
            self._last_tap = (uid, now)
            return
        self._last_seen = now
        self._present(self.channel, uid)
