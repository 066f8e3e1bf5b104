"""The serial side: token readers that turn RFID reads into :class:`TagEvent` values.

One interface (:class:`~firmware_bridge.reader.SerialReader`: a thread per
port that reconnects by itself and never raises), one module per backend:

* :mod:`firmware_bridge.hub` — the token hub (several MFRC522 readers on a
  Pico, protocol in :mod:`firmware_bridge.protocol`, ``docs/serial-protocol.md``);
* :mod:`firmware_bridge.pn532` — one PN532 in HSU (UART) mode;
* :mod:`firmware_bridge.line_reader` — USB readers that print one UID per line;
* :mod:`firmware_bridge.emulator` — emulators of all three on real ptys, used
  by the demo, the tests and the benchmarks.

The hub's MicroPython firmware lives in ``firmware_bridge/firmware/``.

>>> import queue
>>> from firmware_bridge import READERS
>>> events = queue.Queue()
>>> reader = READERS["hub"]("/dev/serial/by-id/usb-Rhuna_TokenHub_E6614C-if00", sink=events)
>>> reader.start()          # doctest: +SKIP
"""

from firmware_bridge.events import Presence, ReaderStatus, TagEvent
from firmware_bridge.hub import HubReader
from firmware_bridge.line_reader import LineReader
from firmware_bridge.pn532 import PN532Reader
from firmware_bridge.reader import Backoff, SerialReader
from firmware_bridge.stats import ReaderStats
from firmware_bridge.uid import UID_LENGTHS, Uid, UidError, format_uid, normalise_uid, parse_uid

#: reader backends by the name a table's config uses
READERS: dict[str, type[SerialReader]] = {
    "hub": HubReader,
    "pn532": PN532Reader,
    "line": LineReader,
}

__all__ = [
    "READERS",
    "UID_LENGTHS",
    "Backoff",
    "HubReader",
    "LineReader",
    "PN532Reader",
    "Presence",
    "ReaderStats",
    "ReaderStatus",
    "SerialReader",
    "TagEvent",
    "Uid",
    "UidError",
    "format_uid",
    "normalise_uid",
    "parse_uid",
]
