"""The token hub's logic, free of hardware: presence decisions and the protocol.

Runs unchanged on the Pico (MicroPython, with ``main.py`` wiring the real
MFRC522 readers, USB serial and watchdog) and on the host (CPython), where the
device emulator drives it with virtual readers and the tests drive it with a
stand-in for the hardware. Hence: the MicroPython/CPython common subset, and
every piece of hardware passed in.

Presence is decided here, not on the host, because only the hub sees every
raw poll:

* a tag is *present* after ``present_hits`` consecutive polls read the same
  UID (one stray read is not a token);
* it is *removed* only after ``remove_misses`` consecutive clean misses (an
  MFRC522 misses now and then with a card lying still on it);
* a poll that cannot tell (a garbled answer, a reader fault) counts as
  neither, so a flaky or dead reader never invents a removal;
* a collision (two tokens in one well) proves a tag is there: it clears the
  misses, so a second token laid beside the first never turns into a
  removal and then a new draw; the hub tells the host ``collision`` ("one
  token per well") once, and ``collision_cleared`` after ``remove_misses``
  polls without one.
* two tags found another way, by the REQA the driver sends after halting the
  card it read (``TWO_TAGS``: the card read is HALT and ignores a REQA, so an
  answer is a second card the first one drowned out), count exactly as a
  collision, and are told as ``collision`` with ``TWO_TAGS_TEXT``: a token laid
  over the drawn one never reads as that token alone and replaces it (issue 43,
  item 2).
* a tag read now and then but never ``present_hits`` times in a row (a detuned tag, a token
  off-centre) is never a token either, but it is not silence: when one UID is read on at least
  ``poor_hits`` of the last ``poor_window`` polls while nothing is present, the hub tells the
  host ``reads_poorly`` once (the UID in its text, :func:`protocol.reads_poorly_text`), and
  ``reads_poorly_cleared`` when the tag reads steadily (it is then present, counted as usual)
  or has not been read for ``poor_window`` polls (issue 43; docs/readers.md, "A token that
  reads poorly").
"""

try:
    from firmware_bridge import protocol as p
except ImportError:  # on the hub, protocol.py sits beside this file
    import protocol as p  # type: ignore[no-redef,import-not-found]

try:  # for the type checker only; MicroPython has neither module
    from collections.abc import Callable, Sequence
    from typing import Any
except ImportError:  # pragma: no cover
    pass

#: 1.5: BOOTSEL enters maintenance once let go after a second held, not while held (a reset
#: with it held started the RP2040's USB boot drive); 1.4: reads_poorly
FIRMWARE_VERSION = (1, 5, 0)

#: message types reserved for host -> hub commands
HOST_RANGE = tuple(range(0x40, 0x80))

#: poll results that are neither a UID nor a clean miss
COLLISION = "collision"
NOISE = "noise"
#: a UID was read, then the REQA after its HLTA was answered: two or more tags lie there
TWO_TAGS = "two_tags"

#: the ERROR text of a collision: what the table should tell the players
COLLISION_TEXT = "one token per well: lift the extra token"
#: ... and of two tags found by the REQA after HLTA (the stronger one read, the other not)
TWO_TAGS_TEXT = "two or more tags: lift the extra token"

#: a tag read on at least POOR_HITS of the last POOR_WINDOW polls of its channel, never
#: present_hits in a row, "reads poorly": a tag read one poll in three is flagged within 9 polls
POOR_HITS = 3
POOR_WINDOW = 9


class ChannelTracker:
    """Turns one reader's raw polls into debounced present/removed decisions."""

    def __init__(
        self,
        present_hits: int = 2,
        remove_misses: int = 3,
        poor_hits: int = POOR_HITS,
        poor_window: int = POOR_WINDOW,
    ) -> None:
        if present_hits < 1 or remove_misses < 1:
            raise ValueError("present_hits and remove_misses must be at least 1")
        self.present_hits = present_hits
        self.remove_misses = remove_misses
        # more reads than a steady tag needs, in a window that holds them with misses between
        self.poor_hits = max(poor_hits, present_hits + 1)
        self.poor_window = max(poor_window, self.poor_hits)
        self.uid: bytes | None = None  # the tag reported present, or None
        #: a tag read now and then, never present_hits times in a row: flagged, never counted
        self.poor: bytes | None = None
        self._recent: list[bytes | None] = []  # the UIDs (or None) of the last poor_window polls
        self._candidate: bytes | None = None
        self._hits = 0
        self._misses = 0

    def update(self, result: "bytes | str | None") -> "list[tuple[int, bytes]]":
        """Feed one poll result (UID bytes, None, COLLISION, TWO_TAGS or NOISE).

        Returns a list of ``(protocol.PRESENT | protocol.REMOVED, uid)``; a
        tag swapped for another yields its removal, then the new presence.
        """
        if result is None:
            pass
        elif not isinstance(result, (bytes, bytearray)):
            if result in (COLLISION, TWO_TAGS):  # a tag lies there: not a miss, whatever came before
                self._misses = 0
                self._forget()  # nor a step towards another tag's presence
                self._remember(None)
            return []  # COLLISION / TWO_TAGS / NOISE: no presence decision either way
        events = self._decide(result)
        self._remember(None if result is None else bytes(result))
        return events

    def _remember(self, read: "bytes | None") -> None:
        """The poll's UID into the window, then whether a tag reads poorly (:attr:`poor`)."""
        recent = self._recent
        recent.append(read)
        if len(recent) > self.poor_window:
            recent.pop(0)
        if self.uid is not None:
            self.poor = None  # read steadily now: present, counted as usual
        elif self.poor is not None:
            if self.poor not in recent:
                self.poor = None  # not read for a whole window: gone
        elif read is not None and recent.count(read) >= self.poor_hits:
            self.poor = read

    def _decide(self, result: "bytes | None") -> "list[tuple[int, bytes]]":
        events: list[tuple[int, bytes]] = []
        if self.uid is not None:
            if result == self.uid:
                self._misses = 0
                self._forget()
                return events
            self._misses += 1
            if self._misses >= self.remove_misses:
                events.append((p.REMOVED, self.uid))
                self.uid = None
                self._misses = 0
        self._track(result)
        if self.uid is None and self._candidate is not None and self._hits >= self.present_hits:
            self.uid = self._candidate
            self._forget()
            events.append((p.PRESENT, self.uid))
        return events

    def _track(self, result: "bytes | None") -> None:
        if result is None:
            self._forget()
        elif result == self._candidate:
            self._hits += 1
        else:
            self._candidate = bytes(result)
            self._hits = 1

    def _forget(self) -> None:
        self._candidate = None
        self._hits = 0


class Hub:
    """The hub: polls its readers round-robin and speaks protocol v1 to the host.

    ``readers``: objects with ``poll()`` -> UID bytes / None / COLLISION /
    NOISE (raising OSError when the reader is dead) and ``reset()``.
    ``write(frame_bytes)`` sends to the host. ``ticks_ms``/``ticks_diff`` are
    MicroPython's ``time`` functions (wrap-safe), or plain ints on the host.
    ``feedback(channel, led, buzzer_ms)`` drives LEDs/buzzer, if fitted.

    The host's hello is answered only after the boot scan (every channel
    polled ``present_hits`` times), so the first inventory is the truth and a
    token lying on a reader through a power cycle is never reported removed.
    """

    def __init__(
        self,
        readers: "Sequence[Any]",
        write: "Callable[[bytes], object]",
        ticks_ms: "Callable[[], int]",
        ticks_diff: "Callable[[int, int], int] | None" = None,
        hub_id: str = "hub",
        fw_version: "tuple[int, int, int]" = FIRMWARE_VERSION,
        heartbeat_ms: int = 1000,
        present_hits: int = 2,
        remove_misses: int = 3,
        features: int = 0,
        feedback: "Callable[[int, int, int], object] | None" = None,
        boot_errors: "Sequence[tuple[int, int, str]]" = (),
        maintenance: "Callable[[], object] | None" = None,
    ) -> None:
        if not 1 <= len(readers) <= p.MAX_CHANNELS:
            raise ValueError("a hub has 1..16 reader channels")
        self.readers = readers
        self.write = write
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff or (lambda a, b: a - b)
        self.hub_id = hub_id
        self.fw_version = fw_version
        self.heartbeat_ms = heartbeat_ms
        self.features = features
        self.feedback = feedback
        self.maintenance = maintenance  # stops the firmware for an update (main.py)
        n = len(readers)
        self.trackers = [ChannelTracker(present_hits, remove_misses) for _ in range(n)]
        self.faulty = [False] * n
        self._collided = [False] * n
        self._clean = [0] * n  # polls without a collision since the last one
        self._clear_after = remove_misses
        self._boot_polls = [0] * n
        self._boot_target = present_hits
        self.ready = False
        self._hello_wanted = True  # announce ourselves once the boot scan is done
        self._pending_errors = list(boot_errors)  # (code, channel, text) sent after the hello
        for code, channel, _text in boot_errors:
            if code == p.ERR_READER_FAULT and channel < n:
                self.faulty[channel] = True  # reported once, retried every heartbeat
        # every type in the host's range, so a newer host's command gets a clear "unknown" ACK
        self._decoder = p.Decoder(accept=HOST_RANGE)
        self._bad_reported = 0
        self._seq = 0
        self._next = 0
        self._boot_ms = ticks_ms()
        self._last_heartbeat = self._boot_ms
        self.frames_sent = 0
        # a lone delimiter first (protocol spec, section 4): it ends whatever half frame the
        # host holds from before a reset, so the hello that follows is not lost with it
        self.write(b"\x00")

    # -- output ----------------------------------------------------------------

    def send(self, msg_type: int, payload: bytes = b"") -> None:
        frame = p.encode_frame(msg_type, self._seq, payload)
        self._seq = (self._seq + 1) & 0xFF
        self.frames_sent += 1
        self.write(frame)

    def _error(self, code: int, channel: int, text: str) -> None:
        if self.ready and not self._hello_wanted:
            self.send(p.ERROR, p.error_payload(code, channel, text))
        else:
            self._pending_errors.append((code, channel, text))

    def present_mask(self) -> int:
        mask = 0
        for ch in range(len(self.trackers)):
            if self.trackers[ch].uid is not None:
                mask |= 1 << ch
        return mask

    def _announce(self) -> None:
        self._hello_wanted = False
        self.send(
            p.HELLO,
            p.hello_payload(self.fw_version, len(self.readers), self.features, self.heartbeat_ms, self.hub_id),
        )
        self._inventory()
        errors = self._pending_errors
        self._pending_errors = []
        for code, channel, text in errors:
            self.send(p.ERROR, p.error_payload(code, channel, text))
        for ch in range(len(self.trackers)):  # the host forgets its notices on a hello
            poor = self.trackers[ch].poor
            if poor is not None:
                self.send(p.ERROR, p.error_payload(p.ERR_READS_POORLY, ch, p.reads_poorly_text(poor)))

    def _inventory(self) -> None:
        for ch in range(len(self.trackers)):
            uid = self.trackers[ch].uid
            status = p.CHANNEL_FAULT if self.faulty[ch] else p.CHANNEL_OK
            chip = getattr(self.readers[ch], "version", None) or 0
            self.send(p.INVENTORY, p.inventory_payload(ch, status, uid or b"", chip))

    def _heartbeat(self, now: int) -> None:
        self._last_heartbeat = now
        uptime = self.ticks_diff(now, self._boot_ms)
        self.send(p.HEARTBEAT, p.heartbeat_payload(uptime, self.present_mask()))
        bad = 0
        for kind in p.BAD_KINDS:
            bad += self._decoder.counts[kind]
        if bad != self._bad_reported:
            self.send(p.ERROR, p.error_payload(p.ERR_BAD_FRAME, p.NO_CHANNEL, "%d bad frame(s) from host" % (bad - self._bad_reported)))
            self._bad_reported = bad
        for ch in range(len(self.readers)):
            if self.faulty[ch]:
                self._reset_reader(ch)

    # -- input -----------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host: decode and obey every complete command."""
        for msg_type, seq, payload in self._decoder.feed(data):
            try:
                self._command(msg_type, seq, payload)
            except ValueError as e:
                self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_BAD_ARGUMENT))
                self._error(p.ERR_BAD_ARGUMENT, p.NO_CHANNEL, str(e))

    def _command(self, msg_type: int, seq: int, payload: bytes) -> None:
        if msg_type == p.HELLO_REQUEST:
            self._hello_wanted = True
            if self.ready:
                self._announce()
        elif msg_type == p.INVENTORY_REQUEST:
            if self.ready and not self._hello_wanted:
                self._inventory()
        elif msg_type == p.PING:
            self.send(p.PONG, bytes((seq,)) + payload[: p.MAX_PING])
        elif msg_type == p.FEEDBACK:
            channel, led, buzzer_ms = p.parse_feedback(payload)
            status = p.ACK_OK
            if channel != p.ALL_CHANNELS and channel >= len(self.readers):
                status = p.ACK_BAD_ARGUMENT
            elif self.feedback is None or (led != p.LED_OFF and not self.features & p.FEATURE_LED):
                status = p.ACK_NOT_FITTED
            elif buzzer_ms and not self.features & p.FEATURE_BUZZER:
                status = p.ACK_NOT_FITTED
            else:
                self.feedback(channel, led, buzzer_ms)
            self.send(p.ACK, p.ack_payload(msg_type, seq, status))
        elif msg_type == p.RESCAN:
            channel = p.parse_rescan(payload)
            if channel != p.ALL_CHANNELS and channel >= len(self.readers):
                self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_BAD_ARGUMENT))
                return
            for ch in range(len(self.readers)):
                if channel in (ch, p.ALL_CHANNELS):
                    self._reset_reader(ch)
            self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_OK))
        elif msg_type == p.MAINTENANCE:
            if self.maintenance is None:
                self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_NOT_FITTED))
                return
            self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_OK))
            self.maintenance()  # on the hub: does not return (restarts into the REPL)
        else:  # a command from a newer host
            self.send(p.ACK, p.ack_payload(msg_type, seq, p.ACK_UNKNOWN))
            self._error(p.ERR_UNKNOWN_COMMAND, p.NO_CHANNEL, "command 0x%02X unknown" % msg_type)

    # -- polling ---------------------------------------------------------------

    def _reset_reader(self, ch: int) -> None:
        try:
            self.readers[ch].reset()
        except Exception:  # a dead reader stays faulty; the next heartbeat retries
            return
        if self.faulty[ch]:
            self.faulty[ch] = False

    def _poll(self, ch: int) -> "bytes | str | None":
        try:
            result: bytes | str | None = self.readers[ch].poll()
        except Exception as e:  # OSError from SPI, or anything a broken reader does
            if not self.faulty[ch]:
                self.faulty[ch] = True
                self._error(p.ERR_READER_FAULT, ch, "reader not answering: %s" % e)
            return NOISE
        if isinstance(result, str) and result in (COLLISION, TWO_TAGS):  # bytes == str warns in MicroPython
            self._clean[ch] = 0
            if not self._collided[ch]:
                self._collided[ch] = True
                self._error(p.ERR_COLLISION, ch, COLLISION_TEXT if result == COLLISION else TWO_TAGS_TEXT)
        elif self._collided[ch]:
            self._clean[ch] += 1
            if self._clean[ch] >= self._clear_after:
                self._collided[ch] = False
                self._error(p.ERR_COLLISION_CLEARED, ch, "one token again")
        return result

    def step(self) -> None:
        """Poll the next channel, report what changed, send a heartbeat when due.

        The main loop calls this as fast as the readers allow (an MFRC522
        poll of an empty field takes 15–25 ms), servicing host input between.
        """
        ch = self._next
        self._next = (ch + 1) % len(self.readers)
        tracker = self.trackers[ch]
        poor = tracker.poor
        events = tracker.update(self._poll(ch))
        if tracker.poor != poor:
            if poor is not None:  # before a PRESENT that cleared it, so the host hears them in order
                self._error(p.ERR_READS_POORLY_CLEARED, ch, p.reads_poorly_text(poor))
            if tracker.poor is not None:
                self._error(p.ERR_READS_POORLY, ch, p.reads_poorly_text(tracker.poor))
        if self.ready:
            if not self._hello_wanted:
                for kind, uid in events:
                    self.send(kind, p.tag_payload(ch, uid))
        else:
            self._boot_polls[ch] += 1
            if min(self._boot_polls) >= self._boot_target:
                self.ready = True
        if self.ready and self._hello_wanted:
            self._announce()  # also covers a change that happened before the hello
        now = self.ticks_ms()
        if self.ready and self.ticks_diff(now, self._last_heartbeat) >= self.heartbeat_ms:
            self._heartbeat(now)
