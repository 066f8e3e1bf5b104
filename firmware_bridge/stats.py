"""Counters a reader keeps about its link, so a noisy cable shows up as numbers, not crashes."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

#: the kinds of bad frame every reader counts (``protocol.BAD_KINDS`` plus ``malformed``)
BAD_FRAME_KINDS = ("garbage", "truncated", "over_long", "bad_crc", "unknown", "malformed")


@dataclass
class ReaderStats:
    """Counts kept by one reader. Written by the reader's thread only; read anywhere.

    Bad frames by kind:
      ``garbage`` bytes that cannot be a frame; ``truncated`` a frame whose tail
      is missing; ``over_long`` longer than any valid frame; ``bad_crc`` the
      checksum failed (CRC-16 on the hub, LCS/DCS on a PN532); ``unknown`` a
      well-formed frame of a type this side does not know; ``malformed`` a
      frame that checks out but whose content does not (a 5-byte UID, a
      channel the hub does not have, a line that is not a UID).
    """

    garbage: int = 0
    truncated: int = 0
    over_long: int = 0
    bad_crc: int = 0
    unknown: int = 0
    malformed: int = 0
    frames: int = 0  # good frames (or lines) received
    events: int = 0  # TagEvents delivered
    duplicates: int = 0  # repeated present/removed the host already knew, suppressed
    lost_frames: int = 0  # gaps in the hub's sequence numbers
    resyncs: int = 0  # inventory requests sent to recover state
    heartbeats: int = 0
    timeouts: int = 0  # a device did not answer in time
    connects: int = 0  # successful handshakes
    disconnects: int = 0  # the port went away under us (unplug)
    open_failures: int = 0  # the port could not be opened (not plugged in)
    handshake_failures: int = 0
    lost: int = 0  # declared lost after missed heartbeats / a silent device
    unexpected_errors: int = 0  # bugs caught at the thread's edge
    sink_errors: int = 0  # the consumer's callback raised
    device_errors: Counter[str] = field(default_factory=Counter)  # error reports from the device
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def bad_frames(self) -> int:
        return sum(getattr(self, kind) for kind in BAD_FRAME_KINDS)

    def count_bad(self, kind: str) -> None:
        """Count one bad frame of ``kind`` (one of :data:`BAD_FRAME_KINDS`)."""
        if kind not in BAD_FRAME_KINDS:
            raise ValueError(f"unknown bad-frame kind {kind!r}")
        with self._lock:
            setattr(self, kind, getattr(self, kind) + 1)

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + n)

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready copy of every counter (for MQTT, logs and benchmarks)."""
        with self._lock:
            out: dict[str, Any] = {
                f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")
            }
        out["device_errors"] = dict(out["device_errors"])
        out["bad_frames"] = sum(out[k] for k in BAD_FRAME_KINDS)
        return out
