"""What every token reader delivers: a tag laid on or taken off a reader channel.

Whatever the hardware (the MFRC522 token hub, a PN532, a line-printing USB
reader or an emulator), the service sees only these values. It maps ``uid`` to
a token through the tag registry; nothing here knows about tokens or rules.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
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


#: the link changes a person at a reader is told of (``connecting`` and ``stopped`` are the
#: walk's own doing)
TOLD = ("online", "lost", "offline")


def present_tags(
    inbox: queue.Queue[TagEvent | ReaderStatus],
    going: Callable[[], bool],
    tell: Callable[[str], None],
    poll: float,
) -> Iterator[TagEvent]:
    """Each tag laid on a reader (``present``), in the order ``inbox`` has them, while
    ``going()``: the one loop of a walk at the readers (``rhuna-table enroll`` and ``audit``).

    A link going online, lost or offline is a line to ``tell`` instead; a tag taken off is
    nothing. ``going`` is asked before each look, and at least every ``poll`` seconds while
    the inbox is empty (a stop, or the person pressing Enter, is seen that soon).

    >>> inbox = queue.Queue()
    >>> inbox.put(ReaderStatus("hub", "lost", "unplugged", 1.0))
    >>> inbox.put(TagEvent("hub", 0, Uid(b"\\x04\\xa1"), Presence.REMOVED, 1.5))
    >>> inbox.put(TagEvent("hub", 1, Uid(b"\\x04\\xa1"), Presence.PRESENT, 2.0))
    >>> [(e.channel, e.uid) for e in present_tags(inbox, lambda: not inbox.empty(), print, 0)]
      reader hub lost: unplugged
    [(1, '04A1')]
    """
    while going():
        try:
            item = inbox.get(timeout=poll)
        except queue.Empty:
            continue
        if isinstance(item, ReaderStatus):
            if item.state in TOLD:
                tell(f"  reader {item.reader} {item.state}: {item.detail}")
            continue
        if item.present:
            yield item
