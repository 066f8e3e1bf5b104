"""An emulated line-printing USB RFID reader on a pty."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from firmware_bridge.emulator.device import EmulatedDevice
from firmware_bridge.uid import format_uid, parse_uid

FORMATS: dict[str, Callable[[bytes], str]] = {
    "hex": format_uid,
    "colon": lambda uid: ":".join(f"{b:02x}" for b in uid),
    "decimal": lambda uid: f"{int.from_bytes(uid, 'big'):010d}",
}


class LineReaderEmulator(EmulatedDevice):
    """Prints the UID of the card laid on it as a line.

    ``repeat_s``: the reader prints the UID again every ``repeat_s`` seconds
    while the card stays (None: once per lay, like a "tap" reader).
    ``style``: ``hex``, ``colon``, ``decimal``, or a template with ``{uid}``
    formatted by ``hex`` (e.g. ``"UID: {uid}"``).
    """

    def __init__(
        self,
        link: str | os.PathLike[str] | None = None,
        *,
        style: str = "hex",
        template: str = "{uid}",
        newline: bytes = b"\r\n",
        repeat_s: float | None = 0.1,
    ) -> None:
        super().__init__(link, name="usb-1a86_USB_Serial-if00-port0")
        if style not in FORMATS:
            raise ValueError(f"style must be one of {sorted(FORMATS)}")
        self.style = style
        self.template = template
        self.newline = newline
        self.repeat_s = repeat_s
        self.uid: bytes | None = None
        self._next_print = 0.0
        self.lines = 0

    def lay(self, uid: str | bytes) -> None:
        with self._lock:
            self.uid = parse_uid(uid, lengths=None)  # 125 kHz readers too
            self._next_print = 0.0

    def lift(self) -> None:
        with self._lock:
            self.uid = None

    def line_for(self, uid: bytes) -> bytes:
        return self.template.format(uid=FORMATS[self.style](uid)).encode() + self.newline

    def _power_on(self) -> None:
        self._next_print = 0.0

    def _tick(self, incoming: bytes) -> None:
        now = time.monotonic()
        if self.uid is None or now < self._next_print:
            return
        self._out(self.line_for(self.uid))
        self.lines += 1
        self._next_print = now + self.repeat_s if self.repeat_s is not None else float("inf")
