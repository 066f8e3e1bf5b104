"""Panel drivers, one module per backend: ``png`` (the default), ``inky``, ``waveshare``.

Like gpiozero's pin factories, the PNG panel is a first-class backend, not a
test double: it is what the demo, the tests and a laptop use. The hardware
drivers import their libraries only when chosen (the Waveshare library even
fails to import off a Raspberry Pi), and a missing library is a clear error
naming the extra to install.

>>> from display.drivers import open_panel
>>> panel = open_panel("png", out_dir="/tmp/rhuna-frames", panel="2.13")  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

from display.drivers.base import DriverUnavailable, Panel
from settings.errors import ConfigError

DRIVERS = {
    "png": "display.drivers.png",
    "inky": "display.drivers.inky",
    "waveshare": "display.drivers.waveshare",
}


def open_panel(driver: str = "png", **options: Any) -> Panel:
    """Open the named driver with its options (see each module's ``open``)."""
    module = DRIVERS.get(driver)
    if module is None:
        raise ConfigError(f"unknown display driver {driver!r}: use one of {', '.join(DRIVERS)}")
    opened: Panel = importlib.import_module(module).open(**options)
    return opened


__all__ = ["DRIVERS", "DriverUnavailable", "Panel", "open_panel"]
