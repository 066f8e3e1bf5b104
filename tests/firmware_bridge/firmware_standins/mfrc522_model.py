"""A register-level model of an MFRC522 and of ISO/IEC 14443-3 type A cards.

The stand-in the hub firmware's SPI talks to (MicroPython/CPython common
subset, like ``machine.py``). It models what the driver relies on: the FIFO,
the Transceive command with StartSend and TxLastBits, the interrupt and error
flags, VersionReg and soft reset; and each card's state machine (IDLE, READY,
ACTIVE, HALT) with anticollision and select per cascade level, CRC_A checked
on every frame that carries one. A card that is selected and then woken
again without being halted drops back to IDLE silently, as the standard says,
which is what makes careless drivers see a card lying still only every other
poll.

Also modelled, from the MFRC522 datasheet (NXP, rev. 3.9) and what the
reference drivers guard against (miguelbalboa/rfid ``MFRC522.cpp``):

* a soft reset restarts the oscillator: for ``startup_ms`` (50, the
  reference drivers' figure) CommandReg reads PowerDown (bit 4) set and
  writes are ignored; every read of CommandReg in that time is counted in
  ``early_reads``: ``PCD_Reset`` sleeps 50 ms before its first look;
* the field: TxControlReg bits 0-1 switch the antenna; a card in a field
  that goes off loses power (POWER-OFF: IDLE again). Every model's field is
  tracked in ``FIELDS_ON``: turning one on while another is on counts a
  ``FIELD_VIOLATIONS`` (one field at a time, the hub's power budget);
* ``version``: VersionReg, 0x91/0x92 for NXP parts, 0x82, 0x80, 0x89, 0xB2 …
  for working clones;
* ``miso_high``: the chip is missing and MISO floats high, every read is
  0xFF; ``dead``: MISO held low, every read is 0x00;
* ``hung``: the chip accepts a Transceive and never raises an interrupt;
* ``lift_after(n)``: the cards leave the field after ``n`` more frames, e.g. in
  the middle of a cascade (a token snatched off the reader mid-read);
* ``lay(uid, weak=True)``: a card stacked under another, drowned out (the
  capture effect): whenever a stronger card answers the same frame the chip
  hears the stronger alone, with no CollErr, so anticollision selects the
  stronger and the weak one, having heard a SELECT of another UID, drops back
  to IDLE (miguelbalboa/rfid ``PICC_Select``: "all other PICCs have returned
  to state IDLE/HALT"). A REQA after the stronger one's HLTA is then answered by
  the weak one alone: a halted card ignores REQA, an IDLE one answers ATQA.
"""

COMMAND = 0x01
COM_IRQ = 0x04
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
TX_CONTROL = 0x14
VERSION = 0x37

IDLE = "idle"
READY = "ready"
ACTIVE = "active"
HALT = "halt"

SEL = (0x93, 0x95, 0x97)

try:
    import utime
except ImportError:  # pragma: no cover - CPython without the stand-ins
    import time as utime  # type: ignore[no-redef]

#: the models whose antenna is on now, and how often a second one came on beside another
FIELDS_ON = []
FIELD_VIOLATIONS = [0]


def crc_a(data):
    crc = 0x6363
    for b in data:
        b = (b ^ (crc & 0xFF)) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes((crc & 0xFF, crc >> 8))


class Card:
    """One PICC: a UID of 4, 7 or 10 bytes and the ISO 14443-3 state machine."""

    def __init__(self, uid, sak=0x08, weak=False):
        self.uid = bytes(uid)
        self.sak = sak
        self.weak = weak
        self.state = IDLE
        self.from_halt = False
        self.level = 0
        if len(uid) == 4:
            self.parts = [self.uid]
            size = 0
        elif len(uid) == 7:
            self.parts = [b"\x88" + self.uid[:3], self.uid[3:]]
            size = 1
        else:
            self.parts = [b"\x88" + self.uid[:3], b"\x88" + self.uid[3:6], self.uid[6:]]
            size = 2
        self.atqa = bytes((0x04 | (size << 6), 0x00))

    def _unexpected(self):
        self.state = HALT if self.from_halt else IDLE
        return None

    def receive(self, data, last_bits):
        if last_bits == 7 and len(data) == 1:
            cmd = data[0] & 0x7F
            if (cmd == 0x26 and self.state == IDLE) or (cmd == 0x52 and self.state in (IDLE, HALT)):
                self.from_halt = self.state == HALT
                self.state = READY
                self.level = 0
                return self.atqa
            if cmd == 0x26 and self.state == HALT:
                return None  # REQA does not wake a halted card
            return self._unexpected()
        if len(data) == 2 and data[0] in SEL and data[1] == 0x20 and self.state == READY:
            level = SEL.index(data[0])
            if level != self.level or level >= len(self.parts):
                return self._unexpected()
            part = self.parts[level]
            return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
        if len(data) == 9 and data[0] in SEL and data[1] == 0x70 and self.state == READY:
            level = SEL.index(data[0])
            part = self.parts[level] if level < len(self.parts) else b""
            if crc_a(data[:7]) != data[7:] or level != self.level or data[2:6] != part:
                return self._unexpected()
            if level + 1 < len(self.parts):
                self.level += 1
                sak = 0x04
            else:
                self.state = ACTIVE
                sak = self.sak
            return bytes((sak,)) + crc_a(bytes((sak,)))
        halt = len(data) == 4 and data[0] == 0x50 and data[1] == 0 and crc_a(data[:2]) == data[2:]
        if halt and self.state == ACTIVE:
            self.state = HALT
            return None
        return self._unexpected()


class MFRC522Model:
    """The chip: registers, FIFO, Transceive; ``cards`` lists the cards in its field.

    ``dead = True`` makes the chip stop answering on SPI (MISO reads 0);
    ``garble`` corrupts the next N received frames (a parity error).
    """

    def __init__(self, version=0x92, startup_ms=50):
        self.version = version
        self.startup_ms = startup_ms
        self.early_reads = 0
        self._reset_at = None
        self.cards = []
        self.dead = False
        self.miso_high = False
        self.hung = False
        self.garble = 0
        self.transceives = 0
        self._lift_in = None
        self._reset()

    def lift_after(self, frames):
        self._lift_in = frames

    def _reset(self):
        self.regs = bytearray(64)
        self.regs[COMMAND] = 0x20  # RcvOff, the reset value
        self.regs[VERSION] = self.version
        self.regs[TX_CONTROL] = 0x80
        self.fifo = bytearray()
        self._field(False)

    def _field(self, on):
        if on and self not in FIELDS_ON:
            if FIELDS_ON:
                FIELD_VIOLATIONS[0] += 1
            FIELDS_ON.append(self)
        elif not on and self in FIELDS_ON:
            FIELDS_ON.remove(self)
            for card in self.cards:  # no field, no power: back to IDLE
                card.state = IDLE
                card.from_halt = False

    def starting(self):
        """True while the oscillator restarts after a soft reset."""
        if self._reset_at is None:
            return False
        if utime.ticks_diff(utime.ticks_ms(), self._reset_at) >= self.startup_ms:
            self._reset_at = None
            return False
        return True

    # the field, as a test script sees it
    def lay(self, uid, sak=0x08, weak=False):
        card = Card(uid, sak, weak)  # entering the field powers the card up: IDLE
        self.cards.append(card)
        return card

    def lift(self, uid=None):
        self.cards = [c for c in self.cards if uid is not None and c.uid != bytes(uid)]

    # SPI
    def transfer(self, out):
        if self.miso_high:
            return b"\xff" * len(out)
        if self.dead:
            return bytes(len(out))
        addr = out[0]
        reg = (addr >> 1) & 0x3F
        if self.starting():
            result = bytearray(len(out))
            if addr & 0x80:
                if reg == COMMAND:
                    self.early_reads += 1
                for i in range(1, len(out)):
                    result[i] = self.regs[reg] | (0x10 if reg == COMMAND else 0)
            return bytes(result)  # writes are lost while the oscillator starts
        if addr & 0x80:
            result = bytearray(len(out))
            for i in range(1, len(out)):
                result[i] = self._read(reg)
            return bytes(result)
        for v in out[1:]:
            self._write(reg, v)
        return bytes(len(out))

    def _read(self, reg):
        if reg == FIFO_DATA:
            if not self.fifo:
                return 0
            v = self.fifo[0]
            self.fifo = self.fifo[1:]  # MicroPython's bytearray has no pop()
            return v
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg, v):
        if reg == FIFO_DATA:
            self.fifo.append(v)
        elif reg == FIFO_LEVEL:
            if v & 0x80:
                self.fifo = bytearray()
        elif reg == COM_IRQ:
            if v & 0x80:
                self.regs[COM_IRQ] |= v & 0x7F
            else:
                self.regs[COM_IRQ] &= ~(v & 0x7F) & 0xFF
        elif reg == COMMAND:
            if v & 0x0F == 0x0F:
                self._reset()
                self._reset_at = utime.ticks_ms()
            else:
                self.regs[COMMAND] = v
        elif reg == TX_CONTROL:
            self.regs[TX_CONTROL] = v
            self._field(bool(v & 0x03))
        elif reg == BIT_FRAMING:
            self.regs[BIT_FRAMING] = v
            if v & 0x80 and self.regs[COMMAND] & 0x0F == 0x0C:
                self._transmit(v & 0x07)
        else:
            self.regs[reg] = v

    def _transmit(self, last_bits):
        self.transceives += 1
        if self._lift_in is not None:
            if self._lift_in == 0:
                self.lift()
                self._lift_in = None
            else:
                self._lift_in -= 1
        if self.hung:
            return
        data = bytes(self.fifo)
        self.fifo = bytearray()
        self.regs[ERROR] = 0
        self.regs[CONTROL] = 0
        answers = []
        drowned = []  # weak cards' answers, heard only if no stronger card answers
        if self.regs[TX_CONTROL] & 0x03:  # antenna on
            for card in self.cards:
                r = card.receive(data, last_bits)
                if r is not None:
                    (drowned if card.weak else answers).append(r)
        if not answers:
            answers = drowned
        if not answers:
            self.regs[COM_IRQ] |= 0x01  # the timer ran out: nobody answered
            return
        self.regs[COM_IRQ] |= 0x30  # RxIRq | IdleIRq
        if self.garble:
            self.garble -= 1
            self.regs[ERROR] |= 0x02  # ParityErr
            self.regs[COM_IRQ] |= 0x02
        distinct = []
        for a in answers:
            if a not in distinct:
                distinct.append(a)
        if len(distinct) > 1:
            self.regs[ERROR] |= 0x08  # CollErr
            self.regs[COM_IRQ] |= 0x02
        self.fifo = bytearray(distinct[0])
