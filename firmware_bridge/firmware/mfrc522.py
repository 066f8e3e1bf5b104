"""MFRC522 driver for the token hub: one chip per channel, all on one SPI bus.

Written for what the hub needs and no more: is a tag there, and what is its
UID (4, 7 or 10 bytes, ISO/IEC 14443-3 cascade levels 1–3)? Each poll is

    WUPA → anticollision + select per cascade level → HLTA → REQA

WUPA rather than REQA, and HLTA after every read, because of how a card
lying still behaves (ISO/IEC 14443-3 state machine): a selected (ACTIVE)
card treats the next REQA/WUPA as an unexpected command and drops back to
IDLE without answering, so polls would alternate hit/miss. Halting it
instead, and waking it with WUPA (which HALT cards obey, REQA they ignore),
gives an answer on every poll while it stays on the reader.

The REQA after HLTA looks for a second card (issue 43, item 2). Two stacked
tokens need not collide: the nearer card can drown the other one out (the
reader hears it alone, no CollErr), and miguelbalboa/rfid's ``PICC_Select``
documents what then happens to the other: "The chosen PICC is in state
ACTIVE(*) and all other PICCs have returned to state IDLE/HALT". The chosen
one, halted, ignores a REQA ("Invites PICCs in state IDLE to go to READY",
``PICC_RequestA``); a card in IDLE answers it. So any answer at all to that
REQA is a second card, and the poll says ``hubcore.TWO_TAGS``, never the UID
of the stronger card alone. The REQA waits ``REQA_MS`` (an ATQA comes within
0.1 ms: the frame delay of ISO/IEC 14443-3 is 1172/fc ≈ 86 µs), not the 15 ms
of a full answer window, so a token lying still costs ~1.5 ms more per poll.

Results: UID bytes; ``None`` for a clean miss (no answer before the chip's
timer ran out); ``hubcore.COLLISION`` when several tags answered at once;
``hubcore.TWO_TAGS`` when a second card answered the REQA after the HLTA;
``hubcore.NOISE`` for a garbled answer. A chip that does not answer on SPI
raises OSError, which the hub reports as a reader fault: that includes a
missing chip, whose MISO floats high and reads 0xFF (an ErrorReg of 0xFF
cannot come from a real chip: its bit 5 is reserved and reads 0), so a
missing reader is a fault and not an endless "collision".

Timing follows the reference drivers (miguelbalboa/rfid ``PCD_Reset``, ESPHome
``rc522``): after a soft reset the driver waits 50 ms, then until the PowerDown
bit of CommandReg clears, and the wait for a transceive is bounded in
milliseconds, not by a count of SPI reads whose speed depends on the bus.

Only the reader being polled has its field on: ``poll`` turns the antenna on
(TxControlReg bits 0-1, Tx1RFEn/Tx2RFEn, as ``PCD_AntennaOn``), gives the
cards the 5 ms ISO/IEC 14443 allows them to power up, and turns it off again
(``PCD_AntennaOff``). Six fields at once would draw 6 x 100 mA (MFRC522
datasheet, the transmitter's maximum), more than a Pico's 3V3(OUT) should
give, and neighbouring fields disturb each other. A field going off resets
every card in it (POWER-OFF), so each poll starts from IDLE.
"""

try:
    import utime
except ImportError:  # CPython without the tests' stand-ins: the same clock from time

    class utime:  # noqa: N801 - stands for the module
        import time as _time

        @staticmethod
        def ticks_ms():
            return int(utime._time.monotonic() * 1000)

        @staticmethod
        def ticks_diff(a, b):
            return a - b

        @staticmethod
        def sleep_ms(ms):
            utime._time.sleep(ms / 1000)

try:
    from firmware_bridge.firmware.hubcore import COLLISION, NOISE, TWO_TAGS
except ImportError:  # on the hub
    from hubcore import COLLISION, NOISE, TWO_TAGS

# registers (MFRC522 datasheet, section 9)
COMMAND = 0x01
COM_IEN = 0x02
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# commands
CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F

# ComIrqReg bits
IRQ_TIMER = 0x01
IRQ_ERR = 0x02
IRQ_IDLE = 0x10
IRQ_RX = 0x20

# ErrorReg bits
ERR_PROTOCOL = 0x01
ERR_PARITY = 0x02
ERR_COLLISION = 0x08
ERR_BUFFER_OVERFLOW = 0x10

# PICC commands
REQA = 0x26
WUPA = 0x52
HLTA = 0x50
SEL_CL = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_UID_INCOMPLETE = 0x04

#: VersionReg values that mean "no chip": MISO held low, or floating high. Every
#: other value is a chip: NXP 0x91/0x92, and clones report 0x88, 0x12, 0x82,
#: 0x80, 0x89, 0xB2 and more, and work.
NO_CHIP = (0x00, 0xFF)

# CommandReg bit 4: the chip is (still) powered down, e.g. starting after a soft reset
POWER_DOWN = 0x10

#: the timer's reload for a full answer window (15 ms at ~2 kHz) and for the REQA after HLTA
#: (3 ticks, 1.5 ms: an ATQA comes ~86 us after the request)
RELOAD_ANSWER = 30
RELOAD_REQA = 3

_OK = 0
_TIMEOUT = 1
_NOISE = 2
_COLLISION = 3


def crc_a(data):
    """ISO/IEC 14443-3 CRC_A (init 0x6363, reflected 0x8408); returns (low, high)."""
    crc = 0x6363
    for b in data:
        b = (b ^ (crc & 0xFF)) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return crc & 0xFF, crc >> 8


class MFRC522:
    """One MFRC522 on a shared SPI bus, selected by its own chip-select pin.

    ``spi`` is a configured ``machine.SPI`` (mode 0, up to 10 MHz); ``cs`` a
    ``machine.Pin`` in output mode, already driven high (``main.build`` raises
    every chip select before the first transfer on the shared bus).
    ``wait_ms`` bounds a transceive: the chip's own timer gives up after
    15 ms, so a chip that vanished mid-transceive raises after ``wait_ms``
    instead of hanging the loop until the watchdog fires.
    ``reset_ms`` bounds the wait for the PowerDown bit after a soft reset.
    """

    #: after SoftReset, before CommandReg is read: miguelbalboa/rfid MFRC522.cpp PCD_Reset
    #: (@6dd5ed86: "Let us be generous: 50ms", then delay(50) before each PowerDown read),
    #: from datasheet 8.8.2: the oscillator's start-up time + 37.74 us
    STARTUP_MS = 50
    #: the field's power-up time for the cards before the first command (ISO/IEC 14443-3: a
    #: PICC accepts a request within 5 ms of being in an unmodulated field)
    FIELD_MS = 5

    def __init__(self, spi, cs, wait_ms=40, reset_ms=150):
        self.spi = spi
        self.cs = cs
        self.wait_ms = wait_ms
        self.reset_ms = reset_ms  # beyond STARTUP_MS: PCD_Reset tries 3 x 50 ms in all
        self.version = None
        self._tx = bytearray(2)
        self._rx = bytearray(2)
        cs.value(1)

    # -- registers -------------------------------------------------------------

    def _w(self, reg, value):
        self._tx[0] = (reg << 1) & 0x7E
        self._tx[1] = value & 0xFF
        self.cs.value(0)
        try:
            self.spi.write(self._tx)
        finally:
            self.cs.value(1)

    def _r(self, reg):
        self._tx[0] = ((reg << 1) & 0x7E) | 0x80
        self._tx[1] = 0
        self.cs.value(0)
        try:
            self.spi.write_readinto(self._tx, self._rx)
        finally:
            self.cs.value(1)
        return self._rx[1]

    # -- life cycle --------------------------------------------------------------

    def reset(self):
        """Soft-reset and configure the chip; raises OSError if none answers."""
        self._w(COMMAND, CMD_SOFT_RESET)
        # the oscillator restarts: registers ignore writes until PowerDown clears, and a look
        # sooner than the reference drivers' 50 ms is not to be trusted (PCD_Reset, ESPHome rc522)
        utime.sleep_ms(self.STARTUP_MS)
        start = utime.ticks_ms()
        polls = 0
        while True:
            command = self._r(COMMAND)
            polls += 1
            if command in NO_CHIP or not command & POWER_DOWN:
                break
            # bounded by time, but never fewer than a few looks (a host under load oversleeps)
            if polls > 4 and utime.ticks_diff(utime.ticks_ms(), start) > self.reset_ms:
                raise OSError(
                    "MFRC522 still powered down %d ms after a soft reset" % (self.STARTUP_MS + self.reset_ms)
                )
            utime.sleep_ms(5)
        version = self._r(VERSION)
        if version in NO_CHIP:
            why = "MISO floats high" if version == 0xFF else "MISO stays low"
            raise OSError("no MFRC522 on this chip select (VersionReg reads 0x%02X: %s)" % (version, why))
        self.version = version
        # Timer: TAuto, prescaler 0xD3E → ~2 kHz; reload 30 → a 15 ms answer window
        self._w(T_MODE, 0x8D)
        self._w(T_PRESCALER, 0x3E)
        self._w(T_RELOAD_H, 0)
        self._w(T_RELOAD_L, RELOAD_ANSWER)
        self._w(TX_ASK, 0x40)  # 100 % ASK modulation
        self._w(MODE, 0x3D)  # CRC preset 0x6363 (ISO 14443-3)
        self.antenna_off()  # on only while this reader is polled
        return version

    def antenna_on(self):
        """TxControlReg Tx1RFEn | Tx2RFEn, as PCD_AntennaOn (MFRC522.cpp)."""
        self._w(TX_CONTROL, self._r(TX_CONTROL) | 0x03)

    def antenna_off(self):
        """Both drivers off, as PCD_AntennaOff: the field is gone, and so is its current."""
        self._w(TX_CONTROL, self._r(TX_CONTROL) & ~0x03 & 0xFF)

    # -- one exchange with the card ------------------------------------------------

    def _transceive(self, data, last_bits=0):
        """Send ``data`` (the last byte's ``last_bits`` bits only, if non-zero).

        Returns ``(status, bytes, bit_count)``.
        """
        self._w(COM_IEN, 0x77 | 0x80)
        self._w(COM_IRQ, 0x7F)  # clear every interrupt flag
        self._w(FIFO_LEVEL, 0x80)  # flush the FIFO
        self._w(COMMAND, CMD_IDLE)
        for b in data:
            self._w(FIFO_DATA, b)
        self._w(COMMAND, CMD_TRANSCEIVE)
        self._w(BIT_FRAMING, 0x80 | last_bits)  # StartSend
        start = utime.ticks_ms()
        while True:
            irq = self._r(COM_IRQ)
            if irq & (IRQ_RX | IRQ_IDLE | IRQ_TIMER):
                break
            if utime.ticks_diff(utime.ticks_ms(), start) > self.wait_ms:
                raise OSError("MFRC522 never finished a transceive in %d ms (ComIrqReg 0x%02X)" % (self.wait_ms, irq))
        self._w(BIT_FRAMING, 0)
        err = self._r(ERROR)
        if err == 0xFF:  # bit 5 is reserved and reads 0 on a real chip
            raise OSError("MFRC522 reads 0xFF: MISO floats high (chip missing or unpowered)")
        if irq & IRQ_TIMER and not irq & IRQ_RX:
            return _TIMEOUT, b"", 0
        if err & ERR_COLLISION:
            return _COLLISION, b"", 0
        if err & (ERR_BUFFER_OVERFLOW | ERR_PARITY | ERR_PROTOCOL):
            return _NOISE, b"", 0
        n = self._r(FIFO_LEVEL)
        last = self._r(CONTROL) & 0x07
        bits = (n - 1) * 8 + last if last else n * 8
        out = bytearray()
        for _ in range(n):
            out.append(self._r(FIFO_DATA))
        return _OK, bytes(out), bits

    # -- the poll ---------------------------------------------------------------

    def poll(self):
        """One look at the field: UID bytes, None, COLLISION or NOISE; the field is on meanwhile."""
        self.antenna_on()
        try:
            utime.sleep_ms(self.FIELD_MS)
            return self._look()
        finally:
            self.antenna_off()

    def _look(self):
        status, atqa, bits = self._transceive(bytes((WUPA,)), last_bits=7)
        if status == _TIMEOUT:
            return None
        if status == _COLLISION:
            return COLLISION
        if status != _OK or bits != 16:
            self._halt()  # a half-woken card back to IDLE/HALT, so the next WUPA finds it
            return NOISE
        result = self._select()
        self._halt()  # the card lying still then answers the next WUPA too
        if isinstance(result, bytes) and self._another_card():
            return TWO_TAGS
        return result

    def _another_card(self):
        """One REQA after the HLTA: the card just read is HALT and ignores it, so any answer
        (an ATQA, a collision, a garble) is another card in the field."""
        self._w(T_RELOAD_L, RELOAD_REQA)
        try:
            status, _atqa, _bits = self._transceive(bytes((REQA,)), last_bits=7)
        finally:
            self._w(T_RELOAD_L, RELOAD_ANSWER)
        return status != _TIMEOUT

    def _select(self):
        """Anticollision and select through the cascade levels: the UID, or why not."""
        uid = bytearray()
        for sel in SEL_CL:
            status, cl, bits = self._transceive(bytes((sel, 0x20)))
            if status == _COLLISION:
                return COLLISION
            if status != _OK or len(cl) != 5 or cl[0] ^ cl[1] ^ cl[2] ^ cl[3] != cl[4]:
                return NOISE
            frame = bytes((sel, 0x70)) + cl
            status, sak, bits = self._transceive(frame + bytes(crc_a(frame)))
            if status != _OK or len(sak) != 3 or bytes(crc_a(sak[:1])) != sak[1:]:
                return NOISE
            if sak[0] & SAK_UID_INCOMPLETE:
                if cl[0] != CASCADE_TAG:
                    return NOISE
                uid.extend(cl[1:4])
                continue
            uid.extend(cl[:4])
            return bytes(uid)
        return NOISE

    def _halt(self):
        frame = bytes((HLTA, 0x00))
        self._transceive(frame + bytes(crc_a(frame)))  # success is silence
