"""An emulated token hub: the real firmware logic (``hubcore``) on virtual readers.

Everything the hub decides (debounce, removal after several clean misses,
the boot scan, heartbeats, the protocol) is the firmware's own code; only the
MFRC522s are replaced by :class:`VirtualReader` objects a script can lay
tokens on, make flaky or break.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable

from firmware_bridge import protocol as p
from firmware_bridge.emulator.device import EmulatedDevice
from firmware_bridge.firmware import hubcore
from firmware_bridge.uid import parse_uid


class VirtualReader:
    """One emulated MFRC522 channel: a tag (or none), flakiness, a fault switch.

    ``miss_rate`` makes a tag lying still miss that share of polls, never more
    than ``max_run`` in a row (a real reader's behaviour that the hub's
    debounce must absorb); ``dead`` makes every poll raise OSError.
    ``version`` is the chip version the hub reports (an MFRC522's VersionReg).
    """

    def __init__(
        self, miss_rate: float = 0.0, max_run: int = 2, seed: int = 0, version: int = 0x92
    ) -> None:
        self.uid: bytes | None = None
        self.version = version
        self.miss_rate = miss_rate
        self.max_run = max_run
        self.dead = False
        self.collision = False
        self.stacked = False  # a second token under the first, drowned out: the REQA finds it
        self.read_every = 1  # a detuned tag: read on one poll in this many, missed between
        self.polls = 0
        self.misses = 0
        self._run = 0
        self._rng = random.Random(seed)

    def poll(self) -> bytes | str | None:
        self.polls += 1
        if self.dead:
            raise OSError("no answer on SPI (emulated fault)")
        if self.collision:
            return hubcore.COLLISION
        if self.stacked and self.uid is not None:
            return hubcore.TWO_TAGS  # the stronger read, then the REQA after its HLTA answered
        if self.uid is None:
            return None
        if self.read_every > 1 and self.polls % self.read_every:
            self.misses += 1
            return None  # detuned: the antenna reaches it on one poll in ``read_every`` only
        if self._run < self.max_run and self._rng.random() < self.miss_rate:
            self._run += 1
            self.misses += 1
            return None
        self._run = 0
        return self.uid

    def reset(self) -> None:
        if self.dead:
            raise OSError("reader still not answering")


class HubEmulator(EmulatedDevice):
    """A token hub on a pty, scriptable from tests, the demo and the benchmarks.

    >>> with HubEmulator(channels=4) as hub:  # a real pty, removed again on exit
    ...     hub.lay(2, "04A1B2C3")    # a token laid on channel 2
    ...     hub.lift(2)               # and taken off
    ...     hub.unplug(); hub.replug()

    ``time_scale`` runs the hub's clock faster than real time (heartbeats and
    poll pacing both scale), so "ten seconds on the reader" can take one.
    ``poll_ms`` is the virtual time one reader poll takes (15–25 ms on an
    MFRC522 with an empty field).
    """

    def __init__(
        self,
        link: str | os.PathLike[str] | None = None,
        *,
        channels: int = 6,  # as the firmware (hubmain.py CONFIG["channels"])
        hub_id: str = "EMU-0001",
        heartbeat_ms: int = 1000,
        poll_ms: float = 20.0,
        time_scale: float = 1.0,
        present_hits: int = 2,
        remove_misses: int = 3,
        features: int = p.FEATURE_LED | p.FEATURE_BUZZER,
        miss_rate: float = 0.0,
        seed: int = 0,
        on_write: Callable[[bytes, float], object] | None = None,
    ) -> None:
        super().__init__(link, name=f"usb-Rhuna_TokenHub_{hub_id}-if00")
        self.hub_id = hub_id
        self.heartbeat_ms = heartbeat_ms
        self.poll_ms = poll_ms
        self.time_scale = time_scale
        self.present_hits = present_hits
        self.remove_misses = remove_misses
        self.features = features
        self.on_write = on_write
        self.readers = [
            VirtualReader(miss_rate, max_run=remove_misses - 1, seed=seed + ch)
            for ch in range(channels)
        ]
        self.tick_s = poll_ms / 1000 / time_scale
        self.feedback_log: list[tuple[int, int, int]] = []
        self.boots = 0
        self.maintenance_requests = 0
        self.core: hubcore.Hub | None = None
        self._t0 = time.monotonic()
        self._polled = threading.Condition(self._lock)
        self._steps = 0
        self._drop = 0
        self._corrupt = 0

    # -- scripting --------------------------------------------------------------

    def lay(self, channel: int, uid: str | bytes) -> None:
        """Lay the token with ``uid`` on ``channel``'s reader."""
        with self._lock:
            self.readers[channel].uid = parse_uid(uid)

    def lift(self, channel: int) -> None:
        """Take whatever lies on ``channel`` off it."""
        with self._lock:
            self.readers[channel].uid = None

    def crowd(self, channel: int, crowded: bool = True) -> None:
        """Lay a second token beside the first (every poll a collision), or take it off again."""
        with self._lock:
            self.readers[channel].collision = crowded

    def stack(self, channel: int, stacked: bool = True) -> None:
        """Lay a second token over the first that does not collide (the nearer one drowns the
        other out): the firmware's REQA after HLTA finds it (``hubcore.TWO_TAGS``)."""
        with self._lock:
            self.readers[channel].stacked = stacked

    def detune(self, channel: int, every: int = 3) -> None:
        """A detuned tag (a token off-centre, a weak antenna): ``channel`` reads it on one poll
        in ``every`` and misses it between (``every=1``: tuned again). The firmware never
        counts it (never two reads in a row) and says it reads poorly (``ERROR reads_poorly``)
        when ``every`` is 4 or less."""
        with self._lock:
            self.readers[channel].read_every = max(1, every)

    def flicker(self, channel: int, rate: float = 0.5) -> None:
        """A flickering read: the tag on ``channel`` misses ``rate`` of the polls, never enough in
        a row to be removed (``rate=0``: steady again)."""
        with self._lock:
            self.readers[channel].miss_rate = rate

    def reset(self) -> None:
        """The hub resets (a brown-out, the watchdog): the board boots again on the same port,
        without the cable leaving; what lies on the readers stays."""
        with self._lock:
            self._power_on()

    def break_reader(self, channel: int, dead: bool = True) -> None:
        """Make a reader stop answering (a loose SPI wire), or mend it."""
        with self._lock:
            self.readers[channel].dead = dead

    def drop_next(self, frames: int = 1) -> None:
        """Lose the hub's next ``frames`` frames on the wire (the host must notice the gap)."""
        with self._lock:
            self._drop += frames

    def corrupt_next(self, frames: int = 1) -> None:
        """Flip one bit in each of the hub's next ``frames`` frames (line noise)."""
        with self._lock:
            self._corrupt += frames

    def send_frame(self, msg_type: int, payload: bytes) -> None:
        """Send a hand-made frame in sequence (e.g. one with a bad payload)."""
        with self._lock:
            if self.core is not None:
                self.core.send(msg_type, payload)

    def wait_polls(self, rounds: int = 1, timeout: float = 5.0) -> bool:
        """Block until every channel has been polled ``rounds`` more times."""
        with self._polled:
            target = self._steps + rounds * len(self.readers)
            return self._polled.wait_for(lambda: self._steps >= target, timeout)

    # -- the device ---------------------------------------------------------------

    def ticks_ms(self) -> int:
        """The hub's clock: milliseconds of (scaled) hub time since the emulator was made."""
        return int((time.monotonic() - self._t0) * 1000 * self.time_scale)

    def _write(self, frame: bytes) -> None:
        if self.silent:
            return
        if frame == b"\x00":  # the firmware's boot delimiter is not a frame to drop or damage
            self._out(frame)
            return
        if self._drop:
            self._drop -= 1
            return
        if self._corrupt:
            self._corrupt -= 1
            damaged = bytearray(frame)
            damaged[len(frame) // 2] ^= 0x10 if damaged[len(frame) // 2] != 0x10 else 0x20
            frame = bytes(damaged)
        if self.on_write is not None:
            self.on_write(frame, time.perf_counter())
        self._out(frame)

    def _feedback(self, channel: int, led: int, buzzer_ms: int) -> None:
        self.feedback_log.append((channel, led, buzzer_ms))

    def _maintenance(self) -> None:
        # the real hub restarts into the REPL: no frames until someone resets it (replug)
        self.maintenance_requests += 1
        self.silent = True

    def _power_on(self) -> None:
        # a power cycle (replug) is the reset that ends maintenance: the board boots into
        # main.py again, as it does after `mpremote reset` (issue 44, D13)
        self.silent = False
        self.boots += 1
        self.core = hubcore.Hub(
            self.readers,
            self._write,
            self.ticks_ms,
            hub_id=self.hub_id,
            heartbeat_ms=self.heartbeat_ms,
            present_hits=self.present_hits,
            remove_misses=self.remove_misses,
            features=self.features,
            feedback=self._feedback,
            maintenance=self._maintenance,
        )

    def _tick(self, incoming: bytes) -> None:
        if self.silent or self.core is None:
            return
        if incoming:
            self.core.receive(incoming)
        self.core.step()
        self._steps += 1
        self._polled.notify_all()
