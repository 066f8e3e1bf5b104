"""MFRC522 driver for the token hub: one chip per channel, all on one SPI bus.

Written for what the hub needs and no more: is a tag there, and what is its
UID (4, 7 or 10 bytes, ISO/IEC 14443-3 cascade levels 1–3)? Each poll is

    WUPA → anticollision + select per cascade level → HLTA

WUPA rather than REQA, and HLTA after every read, because of how a card
lying still behaves (ISO/IEC 14443-3 state machine): a selected (ACTIVE)
card treats the next REQA/WUPA as an unexpected command and drops back to
IDLE without answering, so polls would alternate hit/miss. Halting it
instead, and waking it with WUPA (which HALT cards obey, REQA they ignore),
gives an answer on every poll while it stays on the reader.

Results: UID bytes; ``None`` for a clean miss (no answer before the chip's
timer ran out); ``hubcore.COLLISION`` when several tags answered;
``hubcore.NOISE`` for a garbled answer. A chip that does not answer on SPI
raises OSError, which the hub reports as a reader fault.
"""

try:
    from firmware_bridge.firmware.hubcore import COLLISION, NOISE
except ImportError:  # on the hub
    from hubcore import COLLISION, NOISE

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
WUPA = 0x52
HLTA = 0x50
SEL_CL = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_UID_INCOMPLETE = 0x04

#: versions seen in VersionReg: NXP v1.0, v2.0, and the FM17522 clone
KNOWN_VERSIONS = (0x91, 0x92, 0x88, 0x12)

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
    ``machine.Pin`` in output mode. ``max_wait`` bounds the IRQ polling loop
    so a chip that vanished mid-transceive raises instead of hanging.
    """

    def __init__(self, spi, cs, max_wait=2000):
        self.spi = spi
        self.cs = cs
        self.max_wait = max_wait
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
        version = self._r(VERSION)
        if version not in KNOWN_VERSIONS:
            raise OSError("no MFRC522 on this chip select (VersionReg reads 0x%02X)" % version)
        self.version = version
        # Timer: TAuto, prescaler 0xD3E → ~2 kHz; reload 30 → a 15 ms answer window
        self._w(T_MODE, 0x8D)
        self._w(T_PRESCALER, 0x3E)
        self._w(T_RELOAD_H, 0)
        self._w(T_RELOAD_L, 30)
        self._w(TX_ASK, 0x40)  # 100 % ASK modulation
        self._w(MODE, 0x3D)  # CRC preset 0x6363 (ISO 14443-3)
        self._w(TX_CONTROL, self._r(TX_CONTROL) | 0x03)  # antenna on
        return version

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
        irq = 0
        for _ in range(self.max_wait):
            irq = self._r(COM_IRQ)
            if irq & (IRQ_RX | IRQ_IDLE | IRQ_TIMER):
                break
        else:
            raise OSError("MFRC522 never finished a transceive (ComIrqReg 0x%02X)" % irq)
        self._w(BIT_FRAMING, 0)
        if irq & IRQ_TIMER and not irq & IRQ_RX:
            return _TIMEOUT, b"", 0
        err = self._r(ERROR)
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
        """One look at the field: UID bytes, None, COLLISION or NOISE."""
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
        return result

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
