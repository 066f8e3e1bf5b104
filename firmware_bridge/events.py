"""What every token reader delivers: a tag laid on or taken off a reader channel.

Whatever the hardware (the MFRC522 token hub, a PN532, a line-printing USB
reader or an emulator), the service sees only these values. It maps ``uid`` to
a token through the tag registry; nothing here knows about tokens or rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from firmware_bridge.uid import Uid, format_uid, parse_uid  # noqa: F401 - the codec, re-exported


class Presence(StrEnum):
    """A tag appeared on a channel, or left it."""

    PRESENT = "present"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class TagEvent:
    """A tag laid on (``present``) or taken off (``removed``) one reader channel.

    ``uid`` is the canonical :class:`~firmware_bridge.uid.Uid` the reader made from the
    frame's bytes (upper-case hex without separators: the registry's key, looked up as it
    is); ``timestamp`` comes from the reader's injectable clock (``time.monotonic`` by
    default) at the moment the host learned of the change.

    >>> e = TagEvent("hub", 2, Uid(b"\\x04\\xa1\\xb2\\xc3"), Presence.PRESENT, 12.5)
    >>> e.present, e.uid, e.uid_bytes, e.to_json()["presence"]
    (True, '04A1B2C3', b'\\x04\\xa1\\xb2\\xc3', 'present')
    """

    reader: str
    channel: int
    uid: Uid
    presence: Presence
    timestamp: float

    @property
    def present(self) -> bool:
        return self.presence is Presence.PRESENT

    @property
    def uid_bytes(self) -> bytes:
        return parse_uid(self.uid, lengths=None)  # any length a reader delivers (EM4100: 5)

    def to_json(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "channel": self.channel,
            "uid": str(self.uid),
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
