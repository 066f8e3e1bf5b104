"""An emulated PN532 in HSU mode on a pty, faithful where drivers usually go wrong.

It sleeps until woken by ``55 55`` + zeros; ACKs every well-formed command
before answering it; answers a bad checksum with silence and a host NACK with
its last response again; keeps InListPassiveTarget waiting forever for a card
unless RFConfiguration MaxRetries bounded it; and, like the real chip, sees a
card left selected only on every other InListPassiveTarget unless the host
deselects or releases it in between. ``lay_second(uid)`` puts a second card
on the antenna: InListPassiveTarget with MaxTg 2 lists both (NbTg 2), with
MaxTg 1 only the first, as the chip does (UM0701-02 §7.3.5). ``empty_polls``
counts the "no card" answers the host has taken since a card was last in the
field, so a script can wait until the host has seen a card lifted before it
lays one again.
"""

from __future__ import annotations

import os
import random

from firmware_bridge.emulator.device import EmulatedDevice
from firmware_bridge.pn532 import (
    ACK,
    ERROR_FRAME,
    GET_FIRMWARE_VERSION,
    IN_DESELECT,
    IN_LIST_PASSIVE_TARGET,
    IN_RELEASE,
    RF_CONFIGURATION,
    SAM_CONFIGURATION,
    TFI_HOST,
    TFI_PN532,
    FrameParser,
    build_frame,
)
from firmware_bridge.stats import ReaderStats
from firmware_bridge.uid import parse_uid


class PN532Emulator(EmulatedDevice):
    """A PN532 breakout on a pty; ``lay(uid)`` / ``lift()`` a card on its antenna.

    >>> with PN532Emulator() as pn:  # a real pty
    ...     pn.lay("04A1B2C3D4E5F6")
    """

    def __init__(
        self,
        link: str | os.PathLike[str] | None = None,
        *,
        firmware: tuple[int, int, int, int] = (0x32, 0x01, 0x06, 0x07),
        miss_rate: float = 0.0,
        seed: int = 0,
    ) -> None:
        super().__init__(link, name="usb-Prolific_PN532_HSU-if00-port0")
        self.firmware = firmware
        self.miss_rate = miss_rate
        self.uid: bytes | None = None
        self.second: bytes | None = None  # a second card in the field
        self.sak = 0x08
        self.commands: list[int] = []  # every command code received, in order
        self.nacks = 0
        self.rx_stats = ReaderStats()  # what the emulator made of the host's bytes
        self._rng = random.Random(seed)
        self._corrupt = 0
        self._stall = 0
        self.aborts = 0  # ACK frames from the host that aborted a pending command
        #: InListPassiveTarget answers of no card (none in the field) in a row that the host has
        #: taken, since a card was last laid or listed or the host last configured the chip (a
        #: new session): an answer is taken when the host's next frame is a command, not the ACK
        #: frame that aborts before a retry (UM0701-02, "ACK frame"). So at least this many
        #: misses has the host's removal debounce counted since the card left, and handed on
        #: what it decided (PN532Reader: ``remove_misses``) before it sent the next command
        self.empty_polls = 0
        self._empty_answered = False  # the last answer was "no card", not taken yet

    # -- scripting ----------------------------------------------------------------

    def lay(self, uid: str | bytes) -> None:
        with self._lock:
            self.uid = parse_uid(uid)
            self._card_selected = False
            self._no_empty_polls()

    def lift(self) -> None:
        with self._lock:
            self.uid = None
            self.second = None
            self._card_selected = False
            self._no_empty_polls()

    def _no_empty_polls(self) -> None:
        self.empty_polls = 0
        self._empty_answered = False

    def lay_second(self, uid: str | bytes | None) -> None:
        """A second card beside the first (``None``: take it off again)."""
        with self._lock:
            self.second = None if uid is None else parse_uid(uid)
            self._card_selected = False

    def stall_next(self, commands: int = 1) -> None:
        """Acknowledge the next ``commands`` commands and then stay busy with them, never answering.

        A busy PN532 takes no new command until the host aborts the pending one
        with an ACK frame (NXP UM0701-02, PN532 User Manual, "ACK frame").
        """
        with self._lock:
            self._stall += commands

    def corrupt_next(self, responses: int = 1) -> None:
        """Send the next ``responses`` response frames with a wrong DCS (line noise)."""
        with self._lock:
            self._corrupt += responses

    # -- the chip -------------------------------------------------------------------

    def _power_on(self) -> None:
        self.awake = False
        self.max_retries = 0xFF  # the power-on default: try for ever
        self.sam_configured = False
        self._card_selected = False
        self._waiting_for_card = False
        self._max_tg = 1
        self._busy = False
        self._last_response = b""
        self._empty_answered = False
        self._parser = FrameParser(self.rx_stats)

    def _respond(self, data: bytes) -> None:
        frame = build_frame(data, TFI_PN532)
        self._last_response = frame
        if self._corrupt:
            self._corrupt -= 1
            bad = bytearray(frame)
            bad[-2] ^= 0x01  # the DCS
            frame = bytes(bad)
        self._out(frame)

    def _tick(self, incoming: bytes) -> None:
        if not incoming:
            if self._waiting_for_card and self.uid is not None:
                self._waiting_for_card = False
                self._list_target()
            return
        if not self.awake:
            i = incoming.find(b"\x55")
            if i < 0:
                return  # asleep: frames without the wake-up are not heard
            self.awake = True
            incoming = incoming[i:].lstrip(b"\x55")
        for frame in self._parser.feed(incoming):
            if frame.kind == "ack":  # the host aborts whatever is pending
                if self._busy or self._waiting_for_card:
                    self.aborts += 1
                self._empty_answered = False  # a retry follows: the last answer was not taken
                self._busy = False
                self._waiting_for_card = False
            elif frame.kind == "nack":
                self.nacks += 1
                self._out(self._last_response)
            elif self._busy or self._waiting_for_card:
                continue  # still busy with the last command: a new one is not heard
            elif frame.kind == "data" and frame.tfi == TFI_HOST and frame.data:
                self._command(frame.data[0], frame.data[1:])

    def _command(self, cmd: int, params: bytes) -> None:
        self.commands.append(cmd)
        if self._empty_answered:  # the host took the last "no card" and moved on
            self._empty_answered = False
            self.empty_polls += 1
        self._out(ACK)
        if self._stall:
            self._stall -= 1
            self._busy = True
            return
        if cmd == GET_FIRMWARE_VERSION:
            self._respond(bytes([cmd + 1, *self.firmware]))
        elif cmd == SAM_CONFIGURATION:
            self.sam_configured = True
            self.empty_polls = 0  # a new session: the host's debounce starts again
            self._respond(bytes([cmd + 1]))
        elif cmd == RF_CONFIGURATION:
            if params[:1] == b"\x05" and len(params) == 4:
                self.max_retries = params[3]
            self._respond(bytes([cmd + 1]))
        elif cmd in (IN_DESELECT, IN_RELEASE):
            self._card_selected = False
            self._respond(bytes([cmd + 1, 0x00]))
        elif (
            cmd == IN_LIST_PASSIVE_TARGET
            and params[:1] in (b"\x01", b"\x02")
            and params[1:2] == b"\x00"
            and self.sam_configured
        ):
            self._max_tg = params[0]
            self._list_target()
        else:
            self._out(ERROR_FRAME)

    def _list_target(self) -> None:
        seen = self.uid is not None and self._rng.random() >= self.miss_rate
        if seen and self._card_selected:
            # still selected from the last listing: it ignores the wake-up this time
            self._card_selected = False
            seen = False
        if not seen:
            if self.max_retries == 0xFF:
                self._waiting_for_card = True  # blocks until a card comes, as the chip does
                return
            self._respond(bytes([IN_LIST_PASSIVE_TARGET + 1, 0x00]))
            self._empty_answered = self.uid is None  # a card lying there missed is no lift
            return
        assert self.uid is not None
        self._card_selected = True
        self._no_empty_polls()
        cards = [self.uid]
        if self.second is not None and self._max_tg >= 2:
            cards.append(self.second)
        entries = b""
        for tg, uid in enumerate(cards, 1):
            sens_res = b"\x00\x44" if len(uid) == 7 else b"\x00\x04"
            entries += bytes([tg]) + sens_res + bytes([self.sak, len(uid)]) + uid
        self._respond(bytes([IN_LIST_PASSIVE_TARGET + 1, len(cards)]) + entries)
