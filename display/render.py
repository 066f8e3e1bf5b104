"""Render a table view to a panel-sized picture: the screen the moment calls for, and any banner.

>>> from display.render import render
>>> image = render({"table": "t", "heroes": {}, "performance": None}, "2.13", "bw")
>>> image.size, image.mode
((250, 122), 'P')

Which screen: a Performance on the Draw Board (until Reset) comes first, then
combat, then the Time Board between Performances. A banner, when given, sits
on top of whichever screen it is. Rendering is pure: the same view gives the
same bytes, which is what the golden-image tests and the worker's "skip an
unchanged picture" rely on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image

from display.canvas import Canvas
from display.panels import Colour, PanelSpec, check_colour, panel_spec
from display.screens import banner as banner_screen
from display.screens import between, combat, performance
from display.screens.banner import Banner
from display.viewmodel import section


@dataclass(frozen=True, slots=True)
class Frame:
    """What the display worker is handed: the view (its ``costs`` section included) and an
    optional banner."""

    view: Mapping[str, Any]
    banner: Banner | None = None


def screen_of(view: Mapping[str, Any]) -> str:
    """``performance``, ``combat`` or ``between``."""
    if section(view, "performance") is not None:
        return "performance"
    if section(view, "combat") is not None:
        return "combat"
    return "between"


def draw(
    view: Mapping[str, Any],
    panel: str | PanelSpec = "2.13",
    colour: Colour | str = "bw",
    *,
    banner: Banner | None = None,
) -> Canvas:
    """Render onto a :class:`Canvas` (the picture plus the record of every string drawn)."""
    spec = panel_spec(panel)
    c = Canvas(spec, check_colour(str(colour)))
    box = c.full.inset(spec.metrics.margin)
    if banner is not None:
        top, box = box.top(banner_screen.height(c, banner), spec.metrics.gap + 1)
        banner_screen.draw(c, top, banner)
    kind = screen_of(view)
    if kind == "performance":
        performance.draw(c, box, view)
    elif kind == "combat":
        combat.draw(c, box, view)
    else:
        between.draw(c, box, view)
    return c


def render(
    view: Mapping[str, Any],
    panel: str | PanelSpec = "2.13",
    colour: Colour | str = "bw",
    *,
    banner: Banner | None = None,
) -> Image.Image:
    """The picture for ``view`` on ``panel`` ("2.13", "2.9", "4.2", "7.5" or "WxH")."""
    return draw(view, panel, colour, banner=banner).image


def render_frame(frame: Frame, panel: str | PanelSpec, colour: Colour | str) -> Image.Image:
    return render(frame.view, panel, colour, banner=frame.banner)


class Renderer:
    """A render callable for one panel, for :class:`display.worker.DisplayWorker`.

    >>> Renderer("2.9", "bwr")(Frame({"heroes": {}})).size
    (296, 128)
    """

    def __init__(self, panel: str | PanelSpec, colour: Colour | str = "bw") -> None:
        self.spec = panel_spec(panel)
        self.colour = check_colour(str(colour))

    def __call__(self, frame: Frame) -> Image.Image:
        return render_frame(frame, self.spec, self.colour)
