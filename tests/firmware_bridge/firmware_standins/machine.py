"""Stand-in for MicroPython's ``machine`` module, to run the hub firmware off the board.

Written in the MicroPython/CPython common subset: the tests run the firmware
under CPython and under a real MicroPython (unix port) with this same file.
Chips hang off the SPI bus by chip-select pin: ``attach(cs_pin_id, chip)``;
a chip has ``transfer(out_bytes) -> in_bytes`` for one CS-low transaction.

Followed from MicroPython's rp2 port: ``Pin(n, Pin.OUT)`` without ``value``
drives the pad's output latch, which is 0 after reset
(``ports/rp2/machine_pin.c``); ``machine.reset()`` reboots through the
watchdog, so ``reset_cause()`` is then ``WDT_RESET`` (``ports/rp2/modmachine.c``:
``watchdog_reboot``; ``watchdog_caused_reboot``). A pin nobody configured
yet reads low, as an RP2040 pad resets with its pull-down enabled (RP2040
datasheet, PADS_BANK0 GPIOx reset value: PDE = 1). Two chips selected at once
is bus contention: counted in ``contended``, and MISO reads the AND of both.
``SPI_MS`` advances the stand-in clock (``utime.advance``) per transfer, for a
slow bus.
"""

IN = 0
OUT = 1
PWRON_RESET = 1
WDT_RESET = 3

RESET_CAUSE = PWRON_RESET
UNIQUE_ID = b"\xe6\x61\x4c\x3a\x12\x34\x56\x78"

#: pico-sdk (hardware_watchdog/watchdog.c): watchdog_enable() writes this to scratch[4],
#: watchdog_reboot(0, ...) -- machine.reset()'s -- writes 0 (RP2040 WATCHDOG_BASE 0x40058000)
NON_REBOOT_MAGIC = 0x6AB73121
SCRATCH4 = 0x40058000 + 0x1C
mem32 = {SCRATCH4: 0}

_levels = {}
_chips = {}
watchdogs = []
resets = []
contended = [0]
SPI_MS = 0


def attach(cs, chip):
    _chips[cs] = chip


def reset_all():
    global RESET_CAUSE, SPI_MS
    _levels.clear()
    _chips.clear()
    del watchdogs[:]
    del resets[:]
    contended[0] = 0
    SPI_MS = 0
    RESET_CAUSE = PWRON_RESET
    mem32[SCRATCH4] = 0


def watchdog_timeout():
    """The board's machine.WDT was not fed in time: a watchdog reboot, scratch[4] as it left it."""
    global RESET_CAUSE
    RESET_CAUSE = WDT_RESET
    mem32[SCRATCH4] = NON_REBOOT_MAGIC


class Reset(SystemExit):
    """What ``machine.reset()`` does here: the board would reboot; the program stops."""


def reset():
    global RESET_CAUSE
    resets.append(1)
    RESET_CAUSE = WDT_RESET  # rp2: machine.reset() is a watchdog reboot ...
    mem32[SCRATCH4] = 0  # ... through watchdog_reboot(0, SRAM_END, 0)
    raise Reset(99)


def reset_cause():
    return RESET_CAUSE


def unique_id():
    return UNIQUE_ID


class Pin:
    IN = IN
    OUT = OUT

    def __init__(self, id, mode=None, value=None):
        self.id = id
        if value is not None:
            _levels[id] = 1 if value else 0
        elif id not in _levels:
            _levels[id] = 0 if mode == OUT else 1  # rp2: an output starts low

    def value(self, v=None):
        if v is None:
            return _levels.get(self.id, 0)
        _levels[self.id] = 1 if v else 0
        return None


class SPI:
    def __init__(self, id, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None, miso=None):
        self.id = id
        self.baudrate = baudrate

    def _selected(self):
        if SPI_MS:
            import utime

            utime.advance(SPI_MS)
        out = []
        for cs in _chips:
            if _levels.get(cs, 0) == 0:  # rp2 pads reset with their pull-down on
                out.append(_chips[cs])
        if len(out) > 1:
            contended[0] += 1
        return out

    def write(self, buf):
        for chip in self._selected():
            chip.transfer(bytes(buf))

    def write_readinto(self, out, into):
        chips = self._selected()
        result = bytes(len(out))  # nobody drives MISO: it reads as zeros
        if chips:
            result = bytearray(b"\xff" * len(out))
            for chip in chips:
                got = chip.transfer(bytes(out))
                for i in range(len(result)):
                    result[i] &= got[i]
        for i in range(len(into)):
            into[i] = result[i]


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.fed = 0
        watchdogs.append(self)
        mem32[SCRATCH4] = NON_REBOOT_MAGIC  # rp2 machine_wdt.c: watchdog_enable()

    def feed(self):
        self.fed += 1


try:  # noqa: SIM105 - MicroPython has no contextlib; a test's wiring, when it wrote one
    import standin_board  # noqa: F401
except ImportError:
    pass
