"""What every token reader delivers: a tag laid on or taken off a reader channel.

Whatever the hardware (the MFRC522 token hub, a PN532, a line-printing USB
reader or an emulator), the service sees only these values. It maps ``uid`` to
a token through the tag registry; nothing here knows about tokens or rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Presence(StrEnum):
    """A tag appeared on a channel, or left it."""

    PRESENT = "present"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class TagEvent:
    """A tag laid on (``present``) or taken off (``removed``) one reader channel.

    ``uid`` is upper-case hex without separators (the registry's key);
    ``timestamp`` comes from the reader's injectable clock (``time.monotonic``
    by default) at the moment the host learned of the change.

    >>> e = TagEvent("hub", 2, "04A1B2C3", Presence.PRESENT, 12.5)
    >>> e.present, e.uid_bytes, e.to_json()["presence"]
    (True, b'\\x04\\xa1\\xb2\\xc3', 'present')
    """

    reader: str
    channel: int
    uid: str
    presence: Presence
    timestamp: float

    @property
    def present(self) -> bool:
        return self.presence is Presence.PRESENT

    @property
    def uid_bytes(self) -> bytes:
        return bytes.fromhex(self.uid)

    def to_json(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "channel": self.channel,
            "uid": self.uid,
            "presence": self.presence.value,
            "timestamp": self.timestamp,
        }


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """A reader's link changed: ``connecting``, ``online``, ``lost``, ``offline`` or ``stopped``.

    ``detail`` says why, in words a person at the table can act on
    ("no device at /dev/serial/by-id/…; is the hub plugged in?").
    """

    reader: str
    state: str
    detail: str
    timestamp: float


def format_uid(uid: bytes) -> str:
    """The canonical text form of a UID: upper-case hex, no separators."""
    return uid.hex().upper()


_SEPARATORS = re.compile(r"[\s:\-.]")


def parse_uid(text: str) -> bytes:
    """Read a UID written as hex, with or without ``0x`` and ``:``/``-``/space separators.

    >>> parse_uid("04:a1:b2:c3").hex()
    '04a1b2c3'

    Raises ValueError naming what was wrong.
    """
    raw = _SEPARATORS.sub("", text.strip())
    if raw[:2].lower() == "0x":
        raw = raw[2:]
    if not raw or len(raw) % 2 or not all(c in "0123456789abcdefABCDEF" for c in raw):
        raise ValueError(f"{text!r} is not a hex UID (expected e.g. 04A1B2C3 or 04:A1:B2:C3)")
    return bytes.fromhex(raw)
