"""A stand-in for Waveshare's ``waveshare-epaper`` package, whose BUSY a test can hold busy.

The vendor package cannot be imported off a Raspberry Pi, so ``epaper`` here is a package
written into a test's folder that follows waveshare-epaper 1.4 where it matters:
``epaper.epaper(model)`` imports ``epaper.<path>.<model>`` (``epaper/__init__.py``);
``epdconfig`` builds a ``RaspberryPi`` implementation and copies its public methods onto the
module (``epdconfig.py``, end of file), whose ``module_init()`` switches the HAT's power pin on
and calls ``SPI.open(0, 0)``, and whose ``module_exit()`` closes SPI and switches the power
off; each model's ``init()`` (and the 7.5" V2's ``init_part()``) starts with
``epdconfig.module_init()`` and its ``sleep()`` ends with ``epdconfig.module_exit()``
(``epd2in13_V4.py``, ``epd7in5_V2.py``). Its ``SpiDev`` behaves as py-spidev 3.8 does
(``spidev_module.c``, ``SpiDev_open_dev``): ``open()`` opens the device node and stores the
new descriptor over the old one, never closing it. The device node is a real file, so the
descriptors are real and counted in ``/proc/self/fd``.

``ReadBusy`` loops with no timeout, as ``epd7in5_V2.py``'s does: :func:`busy_pin` is the BUSY
level a test sets to 0 for a panel that never finishes its refresh (a loose ribbon, issue 43
item 5), and back to 1 to mend it. The display tests (tests/display/test_display_waveshare_spi.py)
and the service's (tests/companion/mqtt/test_mqtt_panel.py) share it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

EPDCONFIG = """
import os
import sys

DEVICE = {device!r}
power = []  # every change of the HAT's power pin, in order
busy = [1]  # the BUSY pin's level: a test sets 0 for a panel that never finishes


class SpiDev:
    def __init__(self):
        self.fd = -1

    def open(self, bus, device):
        self.fd = os.open(DEVICE, os.O_RDWR)  # the old descriptor, if any, is simply lost

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1

    def writebytes(self, data):
        os.write(self.fd, bytes(data[:1]))

    def writebytes2(self, data):
        os.write(self.fd, bytes(data[:1]))


class Pin:
    def __init__(self, name):
        self.name = name

    def on(self):
        if self.name == "PWR":
            power.append(1)

    def off(self):
        if self.name == "PWR":
            power.append(0)


class RaspberryPi:
    RST_PIN = 17
    DC_PIN = 25
    CS_PIN = 8
    BUSY_PIN = 24
    PWR_PIN = 18

    def __init__(self):
        self.SPI = SpiDev()
        self.GPIO_PWR_PIN = Pin("PWR")
        self.GPIO_RST_PIN = Pin("RST")
        self.GPIO_DC_PIN = Pin("DC")

    def digital_write(self, pin, value):
        pass

    def digital_read(self, pin):
        return busy[0]  # BUSY: 1 idle, 0 busy (epd7in5_V2's ReadBusy waits while it reads 0)

    def delay_ms(self, ms):
        pass

    def spi_writebyte(self, data):
        self.SPI.writebytes(data)

    def spi_writebyte2(self, data):
        self.SPI.writebytes2(data)

    def module_init(self, cleanup=False):
        self.GPIO_PWR_PIN.on()
        self.SPI.open(0, 0)
        return 0

    def module_exit(self, cleanup=False):
        self.SPI.close()
        self.GPIO_RST_PIN.off()
        self.GPIO_DC_PIN.off()
        self.GPIO_PWR_PIN.off()


implementation = RaspberryPi()

for func in [x for x in dir(implementation) if not x.startswith('_')]:
    setattr(sys.modules[__name__], func, getattr(implementation, func))
"""

EPD = """
import time

from . import epdconfig


class EPD:
    width = {width}
    height = {height}

    def init(self):
        if epdconfig.module_init() != 0:
            return -1
        epdconfig.spi_writebyte([0x12])
        return 0

    def init_part(self):
        if epdconfig.module_init() != 0:
            return -1
        epdconfig.spi_writebyte([0x01])
        return 0

    def getbuffer(self, image):
        return bytearray(image.tobytes())

    def ReadBusy(self):  # as epd7in5_V2.py: no timeout at all
        while epdconfig.digital_read(epdconfig.BUSY_PIN) == 0:
            time.sleep(0.02)

    def display(self, image):
        epdconfig.spi_writebyte2(image)
        self.ReadBusy()

    displayPartBaseImage = display
    displayPartial = display

    def display_Partial(self, image, x0, y0, x1, y1):
        epdconfig.spi_writebyte2(image)
        self.ReadBusy()

    def sleep(self):
        epdconfig.spi_writebyte([0x10])
        epdconfig.delay_ms(2000)
        epdconfig.module_exit()
"""

INIT = """
import importlib

PATH = ['e-Paper', 'RaspberryPi_JetsonNano', 'python', 'lib', 'waveshare_epd']


def epaper(model):
    return importlib.import_module('.'.join(['epaper'] + PATH + [model]))
"""


#: a service's ``[display]`` for the 7.5" V2 on the stand-in: refreshes of 0.05 s, so a refresh's
#: deadline is the display worker's floor (``deadline_floor``, which a test may lower)
WAVESHARE_PANEL = (
    '[display]\ndriver = "waveshare"\npanel = "7.5"\ncolour = "bw"\nmodel = "epd7in5_V2"\n'
    "full_refresh_s = 0.05\npartial_refresh_s = 0.05\n"
)


@contextmanager
def stand_in_epaper(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The ``epaper`` stand-in written in ``folder`` and importable while the block runs (first
    on the import path, through ``monkeypatch``); yields its SPI device node. Every ``epaper``
    module is forgotten after."""
    folder.mkdir(parents=True, exist_ok=True)
    device = folder / "spidev0.0"
    device.write_bytes(b"")
    lib = (
        folder
        / "epaper"
        / "e-Paper"
        / "RaspberryPi_JetsonNano"
        / "python"
        / "lib"
        / "waveshare_epd"
    )
    lib.mkdir(parents=True)
    (folder / "epaper" / "__init__.py").write_text(INIT)
    for d in lib.parents:
        if d == folder / "epaper":
            break
        (d / "__init__.py").write_text("")
    (lib / "__init__.py").write_text("")
    (lib / "epdconfig.py").write_text(EPDCONFIG.format(device=str(device)))
    (lib / "epd2in13_V4.py").write_text(EPD.format(width=122, height=250))
    (lib / "epd7in5_V2.py").write_text(EPD.format(width=800, height=480))
    _forget()
    with monkeypatch.context() as patched:
        patched.syspath_prepend(str(folder))
        try:
            yield device
        finally:
            _forget()


def _forget() -> None:
    for name in [n for n in sys.modules if n == "epaper" or n.startswith("epaper.")]:
        del sys.modules[name]


def busy_pin(panel: Any) -> list[int]:
    """The stand-in's BUSY level of an open Waveshare panel (display.drivers.waveshare): set
    ``[0]`` to 0 and ``ReadBusy`` loops for ever; 1 again and the refresh finishes."""
    return sys.modules[type(panel.epd).__module__].epdconfig.busy
