"""What every panel driver offers the display worker: show a frame, fully or partially.

A driver says how long its refreshes take and whether it has a partial
refresh at all; the worker uses that to pace itself and to decide when a
full refresh is due. Frames are palette pictures (0 white, 1 black, 2
red/yellow) of exactly the panel's size.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from PIL import Image

from display.panels import Colour, PanelSpec
from settings.errors import ConfigError


class DriverUnavailable(ConfigError):
    """The driver's library or hardware is missing; the message says what to install or check."""


class Panel(ABC):
    """A display the worker can draw on."""

    #: the panel size and metrics the frames must be rendered for
    spec: PanelSpec
    #: which inks it has
    colour: Colour
    #: seconds a full refresh takes (the worker waits at least this long between refreshes)
    full_refresh_s: float = 0.0
    #: seconds a partial refresh takes, or None when the panel has none
    partial_refresh_s: float | None = None

    @property
    def supports_partial(self) -> bool:
        return self.partial_refresh_s is not None

    def refresh_time(self, partial: bool) -> float:
        if partial and self.partial_refresh_s is not None:
            return self.partial_refresh_s
        return self.full_refresh_s

    @abstractmethod
    def show(self, image: Image.Image, *, partial: bool = False) -> None:
        """Put ``image`` on the panel; blocks while the hardware refreshes."""

    def close(self) -> None:  # noqa: B027  (optional: most panels have nothing to power down)
        """Power the panel down (deep sleep); the picture stays on e-ink."""

    def check(self, image: Image.Image) -> None:
        if image.size != self.spec.size or image.mode != "P":
            raise ValueError(
                f"frame is {image.mode} {image.size[0]}×{image.size[1]}, the panel wants"
                f" a palette picture of {self.spec.width}×{self.spec.height}"
            )


def layer(image: Image.Image, index: int) -> Image.Image:
    """A one-bit picture of the pixels with palette ``index``: black (0) there, white elsewhere.

    Converting a palette picture with ``convert("1")`` would dither red into a
    black-and-white speckle; a lookup on the indices keeps the inks apart.
    """
    table = bytes(0 if i == index else 255 for i in range(256))
    grey = Image.frombytes("L", image.size, image.tobytes().translate(table))
    return grey.convert("1", dither=Image.Dither.NONE)
