"""Pimoroni Inky pHAT / wHAT, auto-detected from the board's EEPROM (the ``inky`` extra).

Inky boards have no partial refresh: every update is a full one (docs/display.md, Drivers),
so the worker paces itself to the full refresh time. Each Inky family numbers
its inks differently (the pHAT says white 0, the Impression says black 0), so
frames are translated through the device's own ``WHITE``/``BLACK``/``RED``
codes rather than assumed.

Tests inject a fake ``device``; on a Raspberry Pi ``open()`` finds the board.

inky 2.x claims its GPIO lines (CS0 = GPIO8, DC, RESET, BUSY) the first time it
refreshes (``Inky.setup()``, called from ``_update``), through ``gpiodevice``,
which turns "a pin is in use" into ``SystemExit("Woah there, …")``. With only
``dtparam=spi=on`` the kernel's SPI driver holds GPIO8 as its chip select, so
the first frame would end the display thread. The panel therefore claims its
pins when it opens, and a conflict is a start-up error naming the fix
(``dtoverlay=spi0-0cs``: SPI without kernel chip selects).
"""

from __future__ import annotations

import logging
from typing import Any

from PIL import Image

from display.drivers.base import DriverUnavailable, Panel
from display.panels import ACCENT, BLACK, WHITE, Colour, check_colour, panel_spec, spec_for_size
from settings.errors import ConfigError

log = logging.getLogger("rhuna.display")

INSTALL = "pip install 'rhuna-table[inky]'"

_COLOURS: dict[str, Colour] = {"black": "bw", "red": "bwr", "yellow": "bwy", "red/yellow": "bwr"}

#: seconds a full refresh takes: black/white boards are quicker than three-colour ones
DEFAULT_REFRESH_S: dict[Colour, float] = {"bw": 4.0, "bwr": 15.0, "bwy": 15.0}

CONFIG_TXT = (
    "dtparam=spi=on, dtoverlay=spi0-0cs and dtparam=i2c_arm=on in /boot/firmware/config.txt"
)


def detect() -> Any:
    """The board ``inky.auto.auto()`` finds, or :class:`DriverUnavailable` saying why not."""
    try:
        from inky.auto import auto  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except (ImportError, OSError, RuntimeError, SystemExit) as e:
        raise DriverUnavailable(
            f"the inky display driver needs Pimoroni's inky library ({e}): {INSTALL}"
        ) from None
    try:
        return auto(ask_user=False)
    except (OSError, RuntimeError, ValueError, SystemExit) as e:
        raise DriverUnavailable(
            f"no Inky board found ({e}); check that I2C and SPI are enabled and the board is seated,"
            " or use the png driver"
        ) from None


class InkyPanel(Panel):
    """An Inky board; ``device`` is what ``inky.auto.auto()`` returns (or a stand-in)."""

    partial_refresh_s = None  # Inky has no partial refresh

    def __init__(
        self,
        device: Any,
        *,
        colour: Colour | str | None = None,
        full_refresh_s: float | None = None,
    ) -> None:
        self.device = device
        width, height = tuple(getattr(device, "resolution", (device.width, device.height)))
        self.spec = spec_for_size(int(width), int(height))
        native = _COLOURS.get(str(getattr(device, "colour", "black")))
        if native is None:
            raise DriverUnavailable(
                f"Inky colour {device.colour!r} (a multi-colour Impression?) is not supported:"
                " use a black, red or yellow pHAT/wHAT, or the png driver"
            )
        chosen = native if colour is None else check_colour(str(colour))
        if chosen == "bw" and native != "bw":
            # black and white frames show on any board; only its third ink stays unused
            log.info(
                "Inky %s board driven in black and white: set [display] colour = %r to use its %s",
                device.colour,
                native,
                device.colour,
            )
        elif chosen != native and not (
            native == "bwr" and chosen == "bwy" and device.colour == "red/yellow"
        ):
            raise ConfigError(
                f"display colour {chosen!r} does not match the Inky board ({device.colour})"
            )
        self.colour = chosen
        self.full_refresh_s = (
            DEFAULT_REFRESH_S[chosen] if full_refresh_s is None else float(full_refresh_s)
        )
        accent = device.YELLOW if chosen == "bwy" else device.RED
        if chosen == "bw":
            accent = device.BLACK
        codes = {WHITE: device.WHITE, BLACK: device.BLACK, ACCENT: accent}
        self._identity = all(k == v for k, v in codes.items())
        self._table = bytes(codes.get(i, device.WHITE) for i in range(256))
        self._claim_pins()

    def _claim_pins(self) -> None:
        """Run the board's ``setup()`` now (GPIO lines, SPI), not at the first refresh."""
        setup = getattr(self.device, "setup", None)
        if setup is None:
            return
        try:
            setup()
        except (SystemExit, RuntimeError, OSError) as e:  # gpiodevice raises SystemExit
            detail = " ".join(str(e).split())
            hint = ""
            if "claimed" in detail or "in use" in detail:
                hint = (
                    "; the kernel's SPI driver holds the chip-select pin: add"
                    " dtoverlay=spi0-0cs to /boot/firmware/config.txt and reboot"
                )
            raise DriverUnavailable(
                f"the Inky board cannot claim its pins ({type(e).__name__}: {detail}){hint}"
                f" (it needs {CONFIG_TXT})"
            ) from None

    def frame_for_device(self, image: Image.Image) -> Image.Image:
        """The frame with its palette indices in the board's numbering."""
        if self._identity:
            return image
        out = Image.frombytes("P", image.size, image.tobytes().translate(self._table))
        return out

    def show(self, image: Image.Image, *, partial: bool = False) -> None:
        self.check(image)
        self.device.set_border(self.device.WHITE)
        self.device.set_image(self.frame_for_device(image))
        self.device.show()  # blocks until the board has refreshed


def open(
    device: Any = None,
    colour: str | None = None,
    full_refresh_s: float | None = None,
    panel: str | None = None,
) -> InkyPanel:
    """Auto-detect the board (or use ``device``). The size comes from the board; ``panel``, if
    given, must agree with it."""
    opened = InkyPanel(
        device if device is not None else detect(), colour=colour, full_refresh_s=full_refresh_s
    )
    if panel is not None and panel_spec(panel).size != opened.spec.size:
        raise ConfigError(
            f"display panel {panel!r} does not match the Inky board"
            f" ({opened.spec.width}×{opened.spec.height})"
        )
    return opened
