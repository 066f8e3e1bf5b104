"""Stand-in for MicroPython's ``machine`` module, to run the hub firmware off the board.

Written in the MicroPython/CPython common subset: the tests run the firmware
under CPython and under a real MicroPython (unix port) with this same file.
Chips hang off the SPI bus by chip-select pin: ``attach(cs_pin_id, chip)``;
a chip has ``transfer(out_bytes) -> in_bytes`` for one CS-low transaction.
"""

IN = 0
OUT = 1
PWRON_RESET = 1
WDT_RESET = 3

RESET_CAUSE = PWRON_RESET
UNIQUE_ID = b"\xe6\x61\x4c\x3a\x12\x34\x56\x78"

_levels = {}
_chips = {}
watchdogs = []


def attach(cs, chip):
    _chips[cs] = chip


def reset_all():
    global RESET_CAUSE
    _levels.clear()
    _chips.clear()
    del watchdogs[:]
    RESET_CAUSE = PWRON_RESET


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
            _levels[id] = value
        elif id not in _levels:
            _levels[id] = 1

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
        out = []
        for cs in _chips:
            if _levels.get(cs, 1) == 0:
                out.append(_chips[cs])
        return out

    def write(self, buf):
        for chip in self._selected():
            chip.transfer(bytes(buf))

    def write_readinto(self, out, into):
        result = bytes(len(out))  # nobody drives MISO: it reads as zeros
        for chip in self._selected():
            result = chip.transfer(bytes(out))
        for i in range(len(into)):
            into[i] = result[i]


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.fed = 0
        watchdogs.append(self)

    def feed(self):
        self.fed += 1
