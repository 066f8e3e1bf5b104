"""Waveshare over many refreshes: one SPI descriptor for the panel's life, the HAT's power kept on.

``epaper`` is the stand-in of the vendor's package in tests/harness/epaper.py (waveshare-epaper
1.4 where it matters: py-spidev's ``open()`` keeps no old descriptor, ``module_exit()`` cuts
the HAT's power, ``ReadBusy`` has no timeout); its device node is a real file, so the
descriptors are real and counted in ``/proc/self/fd``.
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
from tests.harness.epaper import busy_pin, stand_in_epaper


@pytest.fixture
def epaper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with stand_in_epaper(tmp_path, monkeypatch) as device:
        yield device


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
    busy = busy_pin(panel)
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
        busy[0] = 0  # the ribbon works loose: BUSY never clears
        worker.submit(1)
        wait_until(lambda: told, "the panel said not responding")
        assert told[0].startswith("panel not responding: a partial refresh has taken over 0.3 s")
        assert worker.not_responding == told[0] and worker.stats.overdue == 1
        worker.submit(2)  # the table's side never waits for the stuck panel
        assert worker.stats.submitted == 3
        busy[0] = 1  # mended
        wait_until(lambda: len(told) == 2, "the panel said responding again")
        assert told[1] is None and worker.not_responding is None
        assert worker.wait_idle(WAIT)
        assert worker.stats.errors == 0
    finally:
        busy[0] = 1
        worker.stop()
