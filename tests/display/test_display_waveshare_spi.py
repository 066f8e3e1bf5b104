"""Waveshare over many refreshes: one SPI descriptor for the panel's life, the HAT's power kept on.

The vendor package cannot be imported off a Raspberry Pi, so ``epaper`` is a
stand-in package written here that follows waveshare-epaper 1.4 where it
matters: ``epaper.epaper(model)`` imports ``epaper.<path>.<model>``
(``epaper/__init__.py``); ``epdconfig`` builds a ``RaspberryPi``
implementation and copies its public methods onto the module
(``epdconfig.py``, end of file), whose ``module_init()`` switches the HAT's
power pin on and calls ``SPI.open(0, 0)``, and whose ``module_exit()``
closes SPI and switches the power off; each model's ``init()`` (and the
7.5" V2's ``init_part()``) starts with ``epdconfig.module_init()`` and its
``sleep()`` ends with ``epdconfig.module_exit()`` (``epd2in13_V4.py``,
``epd7in5_V2.py``). Its ``SpiDev`` behaves as py-spidev 3.8 does
(``spidev_module.c``, ``SpiDev_open_dev``): ``open()`` opens the device
node and stores the new descriptor over the old one, never closing it. The
device node is a real file, so the descriptors are real and counted in
``/proc/self/fd``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from display.drivers import open_panel
from display.worker import DisplayWorker
from tests.harness import WAIT, wait_until

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


@pytest.fixture
def epaper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    device = tmp_path / "spidev0.0"
    device.write_bytes(b"")
    lib = (
        tmp_path
        / "epaper"
        / "e-Paper"
        / "RaspberryPi_JetsonNano"
        / "python"
        / "lib"
        / "waveshare_epd"
    )
    lib.mkdir(parents=True)
    (tmp_path / "epaper" / "__init__.py").write_text(INIT)
    for d in lib.parents:
        if d == tmp_path / "epaper":
            break
        (d / "__init__.py").write_text("")
    (lib / "__init__.py").write_text("")
    (lib / "epdconfig.py").write_text(EPDCONFIG.format(device=str(device)))
    (lib / "epd2in13_V4.py").write_text(EPD.format(width=122, height=250))
    (lib / "epd7in5_V2.py").write_text(EPD.format(width=800, height=480))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in sys.modules if n == "epaper" or n.startswith("epaper.")]:
        monkeypatch.delitem(sys.modules, name)
    yield device
    for name in [n for n in sys.modules if n == "epaper" or n.startswith("epaper.")]:
        del sys.modules[name]


def open_descriptors(path: Path) -> int:
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            if os.readlink(fd) == str(path):
                count += 1
        except OSError:
            pass
    return count


@pytest.mark.parametrize("model", ["epd2in13_V4", "epd7in5_V2"])
def test_a_hundred_updates_hold_one_spi_descriptor_and_never_cut_the_power(epaper, model):
    panel = open_panel("waveshare", model=model, full_refresh_s=0, partial_refresh_s=0)
    config = sys.modules[type(panel.epd).__module__].epdconfig
    w, h = panel.spec.size

    def render(n: int) -> Image.Image:
        image = Image.new("P", (w, h), 0)
        image.putpixel((n % w, 0), 1)  # a different picture every time
        return image

    worker: DisplayWorker[int] = DisplayWorker(panel, render, full_every=4)
    worker.start()
    counts = []
    for n in range(100):
        worker.submit(n)
        assert worker.wait_idle(WAIT)
        counts.append(open_descriptors(epaper))
    assert worker.stats.refreshes == 100 and worker.stats.full >= 20
    assert max(counts) == 1, f"descriptors leaked: {counts[:12]} …"
    assert config.power == [1], "module_exit() switched the HAT off between refreshes"
    worker.stop()  # close(): the vendor's sleep() -> module_exit()
    assert open_descriptors(epaper) == 0
    assert config.power == [1, 0]


def test_a_busy_that_never_clears_marks_the_panel_not_responding_and_nothing_waits(epaper):
    """issue 43, item 5: a loose ribbon, BUSY stuck busy, ReadBusy looping for ever: past its
    deadline (a few times the panel's refresh time) the panel is said not responding, in
    words, while submits go on returning at once; BUSY clears: it responds again."""
    panel = open_panel("waveshare", model="epd7in5_V2", full_refresh_s=0.05, partial_refresh_s=0.05)
    config = sys.modules[type(panel.epd).__module__].epdconfig
    w, h = panel.spec.size

    def render(n: int) -> Image.Image:
        image = Image.new("P", (w, h), 0)
        image.putpixel((n % w, 0), 1)
        return image

    told: list = []
    worker: DisplayWorker[int] = DisplayWorker(
        panel, render, full_every=4, deadline_floor=0.3, on_health=told.append
    )
    assert worker.refresh_deadline(False) == 0.3  # 3 x 0.05 s is less than the floor
    worker.start()
    try:
        worker.submit(0)
        assert worker.wait_idle(WAIT)
        assert (worker.not_responding, told, worker.stats.overdue) == (None, [], 0)
        config.busy[0] = 0  # the ribbon works loose: BUSY never clears
        worker.submit(1)
        wait_until(lambda: told, "the panel said not responding")
        assert told[0].startswith("panel not responding: a partial refresh has taken over 0.3 s")
        assert worker.not_responding == told[0] and worker.stats.overdue == 1
        worker.submit(2)  # the table's side never waits for the stuck panel
        assert worker.stats.submitted == 3
        config.busy[0] = 1  # mended
        wait_until(lambda: len(told) == 2, "the panel said responding again")
        assert told[1] is None and worker.not_responding is None
        assert worker.wait_idle(WAIT)
        assert worker.stats.errors == 0
    finally:
        config.busy[0] = 1
        worker.stop()
