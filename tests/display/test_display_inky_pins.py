"""Inky on a Pi whose SPI driver holds GPIO8: the real inky 2.x and gpiodevice, the gpiochip stood in.

inky 2.x (``inky/inky.py``, ``Inky.setup``) asks ``gpiodevice.check_pins_available``
whether CS0 (GPIO8), DC, RESET and BUSY are free, then requests them; the
first call comes from ``_update``, i.e. the first ``show()``. gpiodevice's
``errors.collect`` turns a pin in use into ``SystemExit("Woah there, …")``.
With ``dtparam=spi=on`` alone the kernel's spi0 driver holds GPIO8 and GPIO7
as chip selects; ``dtoverlay=spi0-0cs`` releases them. Only the kernel side is
stood in here: a gpiochip whose lines answer ``get_line_info`` as libgpiod's
``Chip`` does, and a ``spidev`` module (as inky's own tests do).
"""

from __future__ import annotations

import logging
import sys
import types
from typing import Any, ClassVar

import pytest
from PIL import Image

from display.drivers import DriverUnavailable, open_panel
from display.drivers.base import Panel
from display.panels import panel_spec
from display.worker import DisplayWorker
from tests.harness import WAIT, missing_real_part


class Lines:
    """What ``Chip.request_lines`` returns: a LineRequest."""

    def __init__(self, chip: GpioChip) -> None:
        self.chip = chip

    def set_value(self, line: int, value: Any) -> None:
        self.chip.values[line] = value

    def get_value(self, line: int) -> Any:
        import gpiod

        return gpiod.line.Value.INACTIVE  # BUSY low: the panel is idle


class GpioChip:
    """/dev/gpiochip0 of a Pi: line n is GPIOn; ``claimed`` maps a line to its consumer."""

    def __init__(self, claimed: dict[int, str]) -> None:
        self.claimed = claimed
        self.requested: list[int] = []
        self.values: dict[int, Any] = {}

    def line_offset_from_id(self, pin: int | str) -> int:
        return int(str(pin).removeprefix("GPIO"))

    def get_line_info(self, pin: int) -> Any:
        consumer = self.claimed.get(pin, "")
        return types.SimpleNamespace(used=bool(consumer), name=f"GPIO{pin}", consumer=consumer)

    def request_lines(self, consumer: str, config: dict[int, Any]) -> Lines:
        self.requested += list(config)
        return Lines(self)


class SpiDev:
    opened: ClassVar[list[tuple[int, int]]] = []

    def open(self, bus: int, device: int) -> None:
        self.opened.append((bus, device))

    def xfer3(self, values: Any) -> None:
        pass

    def xfer(self, values: Any) -> None:
        pass


@pytest.fixture
def inky_on_a_pi(monkeypatch: pytest.MonkeyPatch) -> Any:
    try:
        import gpiodevice
        import inky.phat
    except ImportError:
        missing_real_part("Pimoroni's inky 2.x (pip install inky)")
    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=SpiDev))
    monkeypatch.setattr(inky.inky.time, "sleep", lambda s: None)  # its reset pulses

    def make(claimed: dict[int, str]) -> tuple[Any, GpioChip]:
        chip = GpioChip(claimed)
        monkeypatch.setattr(gpiodevice, "find_chip_by_platform", lambda: chip)
        return inky.phat.InkyPHAT("red"), chip

    return make


def test_with_spi_chip_selects_held_by_the_kernel_opening_the_inky_names_the_overlay(inky_on_a_pi):
    device, _chip = inky_on_a_pi({8: "spi0 CS0", 7: "spi0 CS1"})
    with pytest.raises(DriverUnavailable) as refused:
        open_panel("inky", device=device)
    message = str(refused.value)
    assert "dtoverlay=spi0-0cs" in message and "/boot/firmware/config.txt" in message
    assert "claimed by spi0 CS0" in message  # gpiodevice's own words


def test_the_vendor_really_raises_systemexit_on_its_first_refresh(inky_on_a_pi):
    """What the open-time claim guards against: without it, the first show() is a SystemExit."""
    device, _chip = inky_on_a_pi({8: "spi0 CS0"})
    with pytest.raises(SystemExit, match="Woah there"):
        device.show()


def test_the_inky_claims_its_pins_when_it_opens_not_at_the_first_frame(inky_on_a_pi):
    device, chip = inky_on_a_pi({})
    panel = open_panel("inky", device=device)
    assert sorted(chip.requested) == [8, 17, 22, 27]  # CS0, BUSY, DC, RESET
    assert SpiDev.opened[-1] == (0, 0)
    panel.show(Image.new("P", panel.spec.size, 0))  # and a frame goes out


class ExitingPanel(Panel):
    """A driver that raises what gpiodevice raises, on its first refresh only."""

    def __init__(self) -> None:
        self.spec = panel_spec("2.13")
        self.colour = "bw"
        self.shown = 0

    def show(self, image: Image.Image, *, partial: bool = False) -> None:
        self.shown += 1
        if self.shown == 1:
            raise SystemExit("Woah there, some pins we need are in use!")


def test_the_worker_survives_a_systemexit_from_a_driver_counts_and_logs_it(caplog):
    panel = ExitingPanel()
    worker: DisplayWorker[int] = DisplayWorker(panel, lambda n: Image.new("P", (250, 122), n))
    worker.start()
    with caplog.at_level(logging.ERROR, logger="rhuna.display"):
        worker.submit(1)
        assert worker.wait_idle(WAIT)
        assert worker.running, "the display thread died"
        worker.submit(0)
        assert worker.wait_idle(WAIT)
    worker.stop()
    assert panel.shown == 2
    assert worker.stats.errors == 1 and worker.stats.refreshes == 1
    assert worker.stats.last_error == "panel: SystemExit: Woah there, some pins we need are in use!"
    assert "Woah there" in caplog.text


def test_rhuna_table_run_with_the_kernels_chip_select_is_a_start_up_error_not_a_dead_thread(
    inky_on_a_pi, tmp_path, monkeypatch, capsys
):
    """The whole service: one line naming the overlay, exit 2, no traceback, nothing started."""
    import display.drivers.inky as driver
    from companion.cli import main
    from tests.harness.service import write_config

    device, _chip = inky_on_a_pi({8: "spi0 CS0"})
    monkeypatch.setattr(driver, "detect", lambda: device)
    config = write_config(tmp_path)
    config.write_text(
        config.read_text().replace(
            '[display]\ndriver = "png"\npanel = "2.13"\ncolour = "bwr"\n',
            '[display]\ndriver = "inky"\n',
        )
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert (
        last.startswith("rhuna-table: the Inky board cannot claim its pins")
        and "dtoverlay=spi0-0cs" in last
    )
    assert "Traceback" not in err
