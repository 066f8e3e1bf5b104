"""Host bridge for the token hub (protocol v1, ``docs/serial-protocol.md``).

The hub decides presence and removal itself (debounced, several clean misses
before a removal); the bridge's job is to keep an exact copy of "what lies on
which channel" across everything a serial line can do wrong:

* every frame carries a sequence number: a gap (a frame lost to noise) makes
  the bridge ask for the hub's inventory and reconcile, so a lost PRESENT or
  REMOVED still turns into exactly one event;
* each heartbeat carries the hub's presence mask, cross-checked the same way;
* after an unplug or a hub reboot the handshake is followed by the inventory,
  and only the differences are emitted: a token that stayed put is not
  reported twice, one taken away meanwhile is reported removed;
* no frame for ``lost_after`` seconds (three heartbeats) declares the hub lost
  and reconnects.

Two tokens in one well are not a tag event: the hub reports a collision
(``ERROR collision``, then ``collision_cleared``), and the bridge hands
``on_notice`` a :class:`HubNotice` for each, and keeps the wells in
collision in :attr:`HubReader.collisions`, so the table can say "one token
per well" while the first token stays drawn.

A tag the hub reads now and then, never steadily enough to count (firmware 1.4:
``ERROR reads_poorly`` with the UID, then ``reads_poorly_cleared``), is a
:data:`READS_POORLY` notice the same way, kept in :attr:`HubReader.poorly`:
never a tag event, so nothing is counted from it (issue 43). An older hub never
sends it; an older host logs it as an unknown code.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import serial

from firmware_bridge import protocol as p
from firmware_bridge.reader import HandshakeFailed, LinkLost, SerialReader, read_available
from firmware_bridge.uid import Uid, format_uid, reads_poorly_uid

log = logging.getLogger(__name__)

LED_MODES = {"off": p.LED_OFF, "on": p.LED_ON, "blink": p.LED_BLINK}


@dataclass(frozen=True, slots=True)
class HubInfo:
    """What the hub said about itself in its hello."""

    protocol: int
    firmware: tuple[int, int, int]
    channels: int
    features: int
    heartbeat_ms: int
    hub_id: str

    @property
    def firmware_version(self) -> str:
        return ".".join(str(n) for n in self.firmware)

    @property
    def has_led(self) -> bool:
        return bool(self.features & p.FEATURE_LED)

    @property
    def has_buzzer(self) -> bool:
        return bool(self.features & p.FEATURE_BUZZER)


#: HubNotice.kind of two tokens (or more) on one reader
ONE_TOKEN_PER_WELL = "one_token_per_well"
#: HubNotice.kind of a tag read now and then, never steadily enough to count
READS_POORLY = "reads_poorly"


@dataclass(frozen=True, slots=True)
class HubNotice:
    """Something the table should tell the players about one well, not a tag event.

    ``kind`` is :data:`ONE_TOKEN_PER_WELL` or :data:`READS_POORLY`; ``active`` is True when
    it starts and False when it is over (the extra token lifted, the tag read steadily or
    gone, or the hub restarted); ``uid`` is the tag read poorly (hex), when the hub said it.
    """

    reader: str
    channel: int
    kind: str
    active: bool
    detail: str
    timestamp: float
    uid: Uid | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "channel": self.channel,
            "kind": self.kind,
            "active": self.active,
            "detail": self.detail,
            "timestamp": self.timestamp,
        }


class CommandFailed(Exception):
    """The hub refused a command (ACK status not OK) or could not be asked."""


ACK_REASONS = {
    p.ACK_UNKNOWN: "the hub does not know this command (older firmware?)",
    p.ACK_BAD_ARGUMENT: "the hub rejected an argument (channel out of range?)",
    p.ACK_NOT_FITTED: "the hub has no such hardware fitted (LED/buzzer)",
}


class HubReader(SerialReader):
    """The token hub: several MFRC522 reader channels behind one USB serial port.

    >>> import queue
    >>> events = queue.Queue()
    >>> hub = HubReader("/dev/serial/by-id/usb-Rhuna_TokenHub_E6614C-if00", sink=events)
    >>> hub.start().wait_online(5)                        # doctest: +SKIP
    True
    >>> hub.feedback(2, led="blink", buzzer_ms=80).result(1)   # doctest: +SKIP
    """

    kind = "hub"

    def __init__(
        self,
        port: str,
        *,
        hello_timeout: float = 1.5,
        lost_after: float | None = None,
        command_timeout: float = 1.0,
        on_notice: Callable[[HubNotice], object] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(port, **kwargs)
        self.on_notice = on_notice
        #: the wells where the hub reports several tokens now: channel -> the hub's text
        self.collisions: dict[int, str] = {}
        #: the wells where the hub reads a tag poorly now: channel -> its UID (hex) or None
        self.poorly: dict[int, Uid | None] = {}
        self.hello_timeout = hello_timeout
        self.lost_after = lost_after
        self.command_timeout = command_timeout
        self.info: HubInfo | None = None
        #: per channel, from the inventory: the reader chip's version (0 = not said) and its fault
        self.chips: dict[int, int] = {}
        self.channel_faults: dict[int, bool] = {}
        self._decoder = p.Decoder(accept=p.HUB_MESSAGES, on_bad=self.stats.count_bad)
        self._outbox: queue.SimpleQueue[tuple[int, bytes, Future[int]]] = queue.SimpleQueue()
        self._pending: dict[int, tuple[Future[int], float]] = {}
        self._tx_seq = 0
        self._expected_seq: int | None = None
        self._resync_at = 0.0  # when the last inventory request went out

    # -- commands (any thread) -------------------------------------------------

    def feedback(self, channel: int, led: str = "on", buzzer_ms: int = 0) -> Future[int]:
        """Light a channel's LED (``off``/``on``/``blink``) and/or beep; channel 255 = all.

        Returns a Future that resolves once the hub acknowledges, or fails with
        :class:`CommandFailed` naming why (not fitted, hub offline, no answer).
        """
        if led not in LED_MODES:
            raise ValueError(f"led must be one of {sorted(LED_MODES)}, not {led!r}")
        if not 0 <= buzzer_ms <= 0xFFFF:
            raise ValueError(f"buzzer_ms {buzzer_ms} out of range 0..65535")
        return self._send(p.FEEDBACK, p.feedback_payload(channel, LED_MODES[led], buzzer_ms))

    def rescan(self, channel: int = p.ALL_CHANNELS) -> Future[int]:
        """Re-initialise a channel's reader (255 = all) after a reader fault."""
        return self._send(p.RESCAN, p.rescan_payload(channel))

    def maintenance(self) -> Future[int]:
        """Stop the hub's firmware for an update: it restarts into the REPL (docs/hardware.md)."""
        return self._send(p.MAINTENANCE, b"")

    def ping(self, payload: bytes = b"") -> Future[int]:
        """Round-trip check; the Future resolves when the PONG comes back."""
        return self._send(p.PING, payload[: p.MAX_PING])

    def _send(self, msg_type: int, payload: bytes) -> Future[int]:
        future: Future[int] = Future()
        if self.state != "online":
            future.set_exception(CommandFailed(f"hub {self.name} is {self.state}, not online"))
        else:
            self._outbox.put((msg_type, payload, future))
        return future

    # -- the session (reader thread) -------------------------------------------

    def _session(self, port: serial.Serial) -> None:
        self._decoder.reset()
        self._expected_seq = None
        port.reset_input_buffer()
        info, backlog = self._handshake(port)
        for channel in list(self.poorly):  # a hub tells again, after its hello, what still does
            self._poorly(channel, None, False)
        lost_after = self.lost_after or max(3 * info.heartbeat_ms / 1000, 0.5)
        self._online(
            f"hub {info.hub_id!r}, firmware {info.firmware_version}, {info.channels} channels"
        )
        last_rx = time.monotonic()
        try:
            for msg_type, seq, payload in backlog:  # what arrived with the hello
                self._handle(port, msg_type, seq, payload)
            while not self.stopping:
                data = read_available(port)
                now = time.monotonic()
                if data:
                    for msg_type, seq, payload in self._decoder.feed(data):
                        last_rx = now
                        self._handle(port, msg_type, seq, payload)
                self._flush_outbox(port, now)
                if now - last_rx > lost_after:
                    raise LinkLost(
                        f"no frame from hub {info.hub_id!r} for {lost_after:.1f} s "
                        f"(heartbeat every {info.heartbeat_ms} ms)"
                    )
        finally:
            self._fail_pending(f"hub {self.name} went {self.state}")

    def _handshake(self, port: serial.Serial) -> tuple[HubInfo, list[tuple[int, int, bytes]]]:
        """Ask for the hello until it comes; returns it and the frames that followed it."""
        deadline = time.monotonic() + self.hello_timeout
        next_request = 0.0
        while not self.stopping:
            now = time.monotonic()
            if now >= deadline:
                raise HandshakeFailed(
                    f"no hello from {self.port} within {self.hello_timeout} s; "
                    f"is it a token hub running protocol v{p.PROTOCOL_VERSION}?"
                )
            if now >= next_request:
                self._write(port, p.HELLO_REQUEST, b"")
                next_request = now + 0.25
            frames = self._decoder.feed(read_available(port))
            for i, (msg_type, seq, payload) in enumerate(frames):
                if msg_type != p.HELLO:
                    continue  # state before the hello is superseded by the inventory after it
                self.stats.add("frames")
                try:
                    info = HubInfo(*p.parse_hello(payload))
                except ValueError as e:
                    self.stats.count_bad("malformed")
                    log.warning("%s: malformed hello: %s", self.name, e)
                    continue
                if info.protocol != p.PROTOCOL_VERSION:
                    raise HandshakeFailed(
                        f"hub speaks protocol v{info.protocol}, this bridge v{p.PROTOCOL_VERSION}: "
                        "flash matching firmware (docs/readers.md)"
                    )
                self.info = info
                self._expected_seq = (seq + 1) & 0xFF
                return info, frames[i + 1 :]
        raise HandshakeFailed("stopped during handshake")

    def _write(self, port: serial.Serial, msg_type: int, payload: bytes) -> int:
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        port.write(p.encode_frame(msg_type, seq, payload))
        return seq

    def _flush_outbox(self, port: serial.Serial, now: float) -> None:
        while True:
            try:
                msg_type, payload, future = self._outbox.get_nowait()
            except queue.Empty:
                break
            # a caller may cancel() a command still waiting here: it is then not sent; once
            # sent it is RUNNING and can no longer be cancelled, so settling it cannot fail
            if not future.set_running_or_notify_cancel():
                continue
            seq = self._write(port, msg_type, payload)
            self._pending[seq] = (future, now + self.command_timeout)
        for seq, (future, deadline) in list(self._pending.items()):
            if now > deadline:
                del self._pending[seq]
                self.stats.add("timeouts")
                future.set_exception(CommandFailed(f"no answer from hub {self.name}"))

    def _fail_pending(self, why: str) -> None:
        for future, _ in self._pending.values():
            future.set_exception(CommandFailed(why))
        self._pending.clear()
        while True:
            try:
                future = self._outbox.get_nowait()[2]
            except queue.Empty:
                break
            if future.set_running_or_notify_cancel():  # False: the caller cancelled it
                future.set_exception(CommandFailed(why))

    def _resync(self, port: serial.Serial, why: str) -> None:
        """Ask for the hub's inventory (at most every 0.2 s) to repair the host's view."""
        now = time.monotonic()
        if now - self._resync_at < 0.2:
            return
        self._resync_at = now
        self.stats.add("resyncs")
        log.info("%s: resynchronising: %s", self.name, why)
        self._write(port, p.INVENTORY_REQUEST, b"")

    def _handle(self, port: serial.Serial, msg_type: int, seq: int, payload: bytes) -> None:
        self.stats.add("frames")
        if msg_type == p.HELLO:  # the hub rebooted under us; its inventory follows
            self._expected_seq = (seq + 1) & 0xFF
            for channel in list(self.collisions):  # it tells again what still collides
                self._collision(channel, False, "the hub restarted")
            for channel in list(self.poorly):  # and what still reads poorly
                self._poorly(channel, None, False)
            try:
                self.info = HubInfo(*p.parse_hello(payload))
            except ValueError:
                self.stats.count_bad("malformed")
            return
        if self._expected_seq is not None and seq != self._expected_seq:
            gap = (seq - self._expected_seq) & 0xFF
            self.stats.add("lost_frames", gap)
            self._resync(port, f"{gap} frame(s) lost before seq {seq}")
        self._expected_seq = (seq + 1) & 0xFF
        try:
            self._dispatch(port, msg_type, payload)
        except ValueError as e:
            self.stats.count_bad("malformed")
            log.warning("%s: malformed %s frame: %s", self.name, p.MESSAGE_NAMES[msg_type], e)

    def _check_channel(self, channel: int) -> None:
        if self.info is not None and channel >= self.info.channels:
            raise ValueError(f"channel {channel}, but the hub has {self.info.channels}")

    def _dispatch(self, port: serial.Serial, msg_type: int, payload: bytes) -> None:
        if msg_type in (p.PRESENT, p.REMOVED):
            channel, uid = p.parse_tag(payload)
            self._check_channel(channel)
            if msg_type == p.PRESENT:
                if channel in self.poorly:  # read steadily now (its clear lost on the line?)
                    self._poorly(channel, None, False)
                self._present(channel, uid)
            elif not self._removed(channel, uid):
                self._resync(port, f"hub removed {format_uid(uid)} from channel {channel}")
        elif msg_type == p.INVENTORY:
            channel, status, uid = p.parse_inventory(payload)
            self._check_channel(channel)
            self.chips[channel] = p.inventory_chip(payload)
            self.channel_faults[channel] = status == p.CHANNEL_FAULT
            self._reconcile(channel, uid or None)
        elif msg_type == p.HEARTBEAT:
            _uptime, mask = p.parse_heartbeat(payload)
            self.stats.add("heartbeats")
            mine = sum(1 << ch for ch in self.tags)
            if mask != mine:
                self._resync(port, f"hub mask {mask:#06x} != host {mine:#06x}")
        elif msg_type == p.ERROR:
            code, channel, text = p.parse_error(payload)
            name = p.ERROR_NAMES.get(code, f"code_{code}")
            self.stats.device_errors[name] += 1
            where = "" if channel == p.NO_CHANNEL else f" on channel {channel}"
            if code in (p.ERR_COLLISION, p.ERR_COLLISION_CLEARED) and channel != p.NO_CHANNEL:
                self._check_channel(channel)
                log.info("%s: hub reports %s%s: %s", self.name, name, where, text)
                self._collision(channel, code == p.ERR_COLLISION, text)
            elif (
                code in (p.ERR_READS_POORLY, p.ERR_READS_POORLY_CLEARED) and channel != p.NO_CHANNEL
            ):
                self._check_channel(channel)
                log.info("%s: hub reports %s%s: %s", self.name, name, where, text)
                self._poorly(channel, reads_poorly_uid(text), code == p.ERR_READS_POORLY)
            else:
                log.warning("%s: hub reports %s%s: %s", self.name, name, where, text)
        elif msg_type == p.ACK:
            _cmd_type, cmd_seq, status = p.parse_ack(payload)
            self._settle(cmd_seq, status)
        elif msg_type == p.PONG:
            # PONG echoes the ping's seq in its first byte, then the ping payload
            if not payload:
                raise ValueError("empty pong")
            self._settle(payload[0], p.ACK_OK)

    def _collision(self, channel: int, active: bool, text: str) -> None:
        if active == (channel in self.collisions):
            return  # nothing new
        if active:
            self.collisions[channel] = text or "one token per well"
        else:
            del self.collisions[channel]
        if self.on_notice is None:
            return
        notice = HubNotice(self.name, channel, ONE_TOKEN_PER_WELL, active, text, self.clock())
        try:
            self.on_notice(notice)
        except Exception:
            self.stats.add("sink_errors")
            log.exception("%s: the notice consumer raised", self.name)

    def _poorly(self, channel: int, uid: bytes | None, active: bool) -> None:
        if active == (channel in self.poorly):
            return  # nothing new
        hex_uid = format_uid(uid) if uid is not None else None
        if active:
            self.poorly[channel] = hex_uid
        else:
            hex_uid = self.poorly.pop(channel)
        if self.on_notice is None:
            return
        detail = "a token reads poorly" if active else "read steadily again, or gone"
        notice = HubNotice(self.name, channel, READS_POORLY, active, detail, self.clock(), hex_uid)
        try:
            self.on_notice(notice)
        except Exception:
            self.stats.add("sink_errors")
            log.exception("%s: the notice consumer raised", self.name)

    def _settle(self, cmd_seq: int, status: int) -> None:
        entry = self._pending.pop(cmd_seq, None)
        if entry is None:
            return
        future = entry[0]
        if status == p.ACK_OK:
            future.set_result(status)
        else:
            future.set_exception(CommandFailed(ACK_REASONS.get(status, f"status {status}")))
