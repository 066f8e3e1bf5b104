"""Waveshare e-Paper HATs through the ``waveshare-epaper`` package (the ``waveshare`` extra).

The model comes from config (``epd2in13_V4`` …) because these boards cannot be
detected. Partial refresh differs per model (docs/display.md): the 2.13" V3/V4 use
``displayPartial`` after a ``displayPartBaseImage``, the 2.9" V2
``display_Partial`` after ``display_Base``, the 7.5" V2 ``init_part`` and a
window; three-colour models have none and take ~15 s. Importing a Waveshare
module off a Raspberry Pi fails at import time, so nothing is imported until
the driver is opened, and tests inject a fake ``epd``.

SPI is opened once for the panel's lifetime. Every vendor ``init()`` /
``init_part()`` calls ``epdconfig.module_init()``, which runs
``SPI.open(0, 0)`` on the same ``spidev.SpiDev``; spidev's ``open()`` stores the
new descriptor over the old one without closing it (py-spidev
``spidev_module.c``, ``SpiDev_open_dev``), so each full refresh leaked one
``/dev/spidev0.0`` descriptor until the service ran out. ``module_exit()``
would close it but also switches off the HAT's power pin, so it is left for
``close()`` (the vendor's ``sleep()`` calls it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from PIL import Image

from display.drivers.base import DriverUnavailable, Panel, layer
from display.panels import ACCENT, BLACK, Colour, check_colour, panel_spec
from settings.errors import ConfigError

INSTALL = "pip install 'rhuna-table[waveshare]'"


@dataclass(frozen=True, slots=True)
class Model:
    """How one Waveshare module is driven."""

    panel: str
    colour: Colour
    full_refresh_s: float
    #: "single": partial(buf) after base(buf); "window": init_part() + display_Partial(buf, 0, 0, w, h)
    partial: str | None = None
    partial_method: str = ""
    base_method: str = "display"
    partial_refresh_s: float | None = None


MODELS: dict[str, Model] = {
    "epd2in13_V4": Model(
        "2.13", "bw", 2.0, "single", "displayPartial", "displayPartBaseImage", 0.3
    ),
    "epd2in13_V3": Model(
        "2.13", "bw", 2.0, "single", "displayPartial", "displayPartBaseImage", 0.3
    ),
    "epd2in9_V2": Model("2.9", "bw", 2.0, "single", "display_Partial", "display_Base", 0.3),
    "epd4in2_V2": Model("4.2", "bw", 4.0, "single", "display_Partial", "display", 0.5),
    "epd4in2": Model("4.2", "bw", 4.0),
    "epd7in5_V2": Model("7.5", "bw", 5.0, "window", "display_Partial", "display", 0.5),
    "epd2in13b_V4": Model("2.13", "bwr", 15.0),
    "epd2in9b_V3": Model("2.9", "bwr", 15.0),
    "epd2in9b_V4": Model("2.9", "bwr", 15.0),
    "epd4in2b_V2": Model("4.2", "bwr", 15.0),
    "epd7in5b_V2": Model("7.5", "bwr", 15.0),
}


def load(model: str) -> Any:
    """``epaper.epaper(model).EPD()``, or :class:`DriverUnavailable` saying what is missing."""
    try:
        import epaper  # type: ignore[import-not-found,unused-ignore]
    except ImportError as e:
        raise DriverUnavailable(
            f"the waveshare display driver needs the waveshare-epaper package ({e}): {INSTALL}"
        ) from None
    try:
        return epaper.epaper(model).EPD()
    except Exception as e:  # the vendor module raises whatever its GPIO/SPI setup raises off a Pi
        raise DriverUnavailable(
            f"cannot open Waveshare {model}: {type(e).__name__}: {e} — this needs a Raspberry Pi"
            " with SPI enabled (or use the png driver)"
        ) from None


def spi_once(epd: Any) -> None:
    """Make the vendor's ``epdconfig.module_init()`` open SPI only while it is not open.

    The epd modules look ``epdconfig.module_init`` up on every call, so wrapping
    the module's functions covers every model; ``module_exit()`` (from the
    vendor's ``sleep()``) closes SPI, and the next ``init()`` opens it again.
    """
    module = sys.modules.get(type(epd).__module__)
    config = getattr(module, "epdconfig", None)
    if config is None or getattr(config, "_rhuna_spi_once", False):
        return
    real_init, real_exit = config.module_init, config.module_exit
    is_open = [False]

    def module_init(*args: Any, **kwargs: Any) -> Any:
        if is_open[0]:
            return 0  # SPI and the HAT's power are still on from the last init
        result = real_init(*args, **kwargs)
        is_open[0] = result == 0
        return result

    def module_exit(*args: Any, **kwargs: Any) -> Any:
        is_open[0] = False
        return real_exit(*args, **kwargs)

    config.module_init, config.module_exit = module_init, module_exit
    config._rhuna_spi_once = True


class WavesharePanel(Panel):
    """One Waveshare HAT. Full refreshes re-``init()`` the controller; partial ones keep it awake."""

    def __init__(
        self,
        model: str,
        epd: Any = None,
        *,
        colour: Colour | str | None = None,
        full_refresh_s: float | None = None,
        partial_refresh_s: float | None = None,
    ) -> None:
        spec = MODELS.get(model)
        if spec is None:
            known = ", ".join(sorted(MODELS))
            raise ConfigError(f"unknown Waveshare model {model!r}: use one of {known}")
        self.model = model
        self.info = spec
        self.spec = panel_spec(spec.panel)
        self.colour = spec.colour if colour is None else check_colour(str(colour))
        if (self.colour == "bw") != (spec.colour == "bw"):
            raise ConfigError(
                f"display colour {self.colour!r} does not match Waveshare {model} ({spec.colour})"
            )
        self.full_refresh_s = (
            spec.full_refresh_s if full_refresh_s is None else float(full_refresh_s)
        )
        self.partial_refresh_s = spec.partial_refresh_s
        if spec.partial is not None and partial_refresh_s is not None:
            self.partial_refresh_s = float(partial_refresh_s)
        self.epd = epd if epd is not None else load(model)
        spi_once(self.epd)
        self._mode: str | None = (
            None  # "full" or "partial": what the controller was last set up for
        )

    def show(self, image: Image.Image, *, partial: bool = False) -> None:
        self.check(image)
        epd, info = self.epd, self.info
        black = epd.getbuffer(layer(image, BLACK))
        if self.colour != "bw":
            epd.init()
            epd.display(black, epd.getbuffer(layer(image, ACCENT)))
            self._mode = "full"
            return
        if partial and info.partial is not None and self._mode is not None:
            if info.partial == "window":
                if self._mode != "partial":
                    epd.init_part()
                getattr(epd, info.partial_method)(black, 0, 0, epd.width, epd.height)
            else:
                getattr(epd, info.partial_method)(black)
            self._mode = "partial"
            return
        epd.init()
        # the base image also primes the controller's "previous frame" for the next partials
        getattr(epd, info.base_method)(black)
        self._mode = "full"

    def close(self) -> None:
        if self._mode is not None:
            self.epd.sleep()
            self._mode = None


def open(
    model: str | None = None,
    epd: Any = None,
    colour: str | None = None,
    panel: str | None = None,
    full_refresh_s: float | None = None,
    partial_refresh_s: float | None = None,
) -> WavesharePanel:
    """``open(model="epd2in13_V4")``; ``panel``, if given, must match the model's size."""
    if not model:
        raise ConfigError(
            "the waveshare display driver needs display.model (e.g. epd2in13_V4):"
            f" one of {', '.join(sorted(MODELS))}"
        )
    opened = WavesharePanel(
        model,
        epd,
        colour=colour,
        full_refresh_s=full_refresh_s,
        partial_refresh_s=partial_refresh_s,
    )
    if panel is not None and panel_spec(panel).size != opened.spec.size:
        raise ConfigError(
            f'display panel {panel!r} does not match Waveshare {model} ({opened.spec.name}")'
        )
    return opened
