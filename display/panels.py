"""The e-ink panels we lay out for: size, colours, and the type sizes each one can carry.

A panel is described once here and every layout reads its numbers from
:class:`Metrics`, so a screen is written once and scales from the 2.13" strip
to the 7.5" board. The type sizes were chosen by looking at rendered frames
at the panel's real pixel pitch; ``docs/display.md`` lists what they mean in
millimetres.

Pictures are palette images whose indices match Pimoroni Inky's own colour
codes (0 white, 1 black, 2 red/yellow), so a frame needs no conversion on the
most common panel and a one-byte lookup on the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from settings.errors import ConfigError

Colour = Literal["bw", "bwr", "bwy"]
COLOURS: tuple[Colour, ...] = ("bw", "bwr", "bwy")

#: palette indices of every frame
WHITE, BLACK, ACCENT = 0, 1, 2

#: how the PNG frames look on a computer screen (close to the real inks)
_RGB: dict[Colour, tuple[int, ...]] = {
    "bw": (255, 255, 255, 0, 0, 0),
    "bwr": (255, 255, 255, 0, 0, 0, 200, 16, 16),
    "bwy": (255, 255, 255, 0, 0, 0, 236, 196, 0),
}


def palette(colour: Colour) -> list[int]:
    """The RGB palette (flat list) for a frame of ``colour``."""
    return list(_RGB[colour])


@dataclass(frozen=True, slots=True)
class Metrics:
    """Type sizes and spacing in pixels (font sizes are the em size Pillow is given)."""

    margin: int
    gap: int
    #: the smallest text on this panel (documented as its minimum text height)
    small: int
    #: declarations, hero rows, status lines
    body: int
    #: hero name, outcome word, banner text
    big: int
    #: the running total
    huge: int
    #: side of a token icon
    token: int
    #: border line width
    line: int


@dataclass(frozen=True, slots=True)
class PanelSpec:
    """One panel size. ``roomy`` panels (4.2" and up) show detail the strips leave out."""

    name: str
    width: int
    height: int
    #: active area in millimetres (from the panel makers' data sheets)
    active_mm: tuple[float, float]
    metrics: Metrics

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def roomy(self) -> bool:
        return self.height >= 240

    @property
    def mm_per_px(self) -> float:
        return self.active_mm[0] / self.width


PANELS: dict[str, PanelSpec] = {
    "2.13": PanelSpec("2.13", 250, 122, (48.55, 23.71), Metrics(3, 3, 12, 13, 17, 46, 30, 2)),
    "2.9": PanelSpec("2.9", 296, 128, (66.89, 29.05), Metrics(3, 3, 12, 14, 18, 50, 32, 2)),
    "4.2": PanelSpec("4.2", 400, 300, (84.80, 63.60), Metrics(6, 5, 15, 18, 24, 100, 52, 2)),
    "7.5": PanelSpec("7.5", 800, 480, (163.20, 97.92), Metrics(10, 8, 20, 26, 36, 170, 84, 3)),
}

_SIZE = re.compile(r"^\s*(\d+)\s*[x×]\s*(\d+)\s*$")


def panel_spec(name: str | PanelSpec) -> PanelSpec:
    """A panel by name (``2.13``, ``2.13in``, ``7.5"``) or by size (``250x122``).

    Any other size gets the metrics of the named panel closest in height, so
    a board the auto-detection reports (an old 212×104 Inky pHAT) still works.
    """
    if isinstance(name, PanelSpec):
        return name
    key = name.strip().lower().removesuffix("in").removesuffix('"').strip()
    if key in PANELS:
        return PANELS[key]
    m = _SIZE.match(key)
    if m:
        return spec_for_size(int(m.group(1)), int(m.group(2)))
    known = ", ".join(PANELS)
    raise ConfigError(f"{name} is not a panel — use one of {known} or a size like 250x122")


def spec_for_size(width: int, height: int) -> PanelSpec:
    """The panel spec for a pixel size, named or not (landscape orientation)."""
    if width < height:
        width, height = height, width
    for spec in PANELS.values():
        if spec.size == (width, height):
            return spec
    if width < 200 or height < 96:
        raise ConfigError(
            f"a {width}×{height} panel is too small to show a Performance — use 200×96 or more"
        )
    near = min(PANELS.values(), key=lambda s: abs(s.height - height))
    mm = near.mm_per_px
    return PanelSpec(f"{width}x{height}", width, height, (width * mm, height * mm), near.metrics)


def check_colour(colour: str) -> Colour:
    """Validate a colour name from config or the command line."""
    for c in COLOURS:
        if colour == c:
            return c
    raise ConfigError(
        f"{colour} is not a panel colour — use bw (black/white), bwr (with red) or bwy (with yellow)"
    )
