"""The banner: an error (unknown tag, wrong bag, reader lost, broker down) that cannot be missed.

Errors do not come from the engine — the service knows the reader went quiet —
so the banner is passed beside the view. It takes the top of the panel (a
third of a strip panel, a quarter of a roomy one), solid in the accent colour
(or black) for an error, a heavy frame for a warning, a thin one for a note,
and the screen below it keeps showing the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from display.canvas import Canvas
from display.layout import Box
from display.panels import BLACK
from display.text import font, line_height, wrap

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Banner:
    """A message the table must see now.

    >>> Banner("Unknown tag 04:A2:19:7B: enrol it or check the reader").severity
    'error'
    """

    text: str
    severity: Severity = "error"


def size(c: Canvas) -> int:
    """The banner's type size: large on a roomy panel; body size on a strip, so that the screen
    below keeps its who-and-what line."""
    return c.m.big if c.spec.roomy else c.m.body


def _pad(c: Canvas) -> int:
    return c.m.gap + c.m.line * (2 if c.spec.roomy else 1)


def height(c: Canvas, banner: Banner | None = None) -> int:
    """How much of the panel a banner takes: as many lines as its text wraps to (at least two on
    a roomy panel, where it also keeps a quarter of the height), never more than half the panel
    (past that the text shrinks, then is cut with "…")."""
    m = c.m
    pad = _pad(c)
    s = size(c)
    f = font(s, True)
    lh = line_height(f)
    width = c.spec.width - 2 * m.margin - 2 * pad - lh - 2 * m.gap - 1
    n = len(wrap(banner.text, width, f)) if banner is not None else 2
    need = max(n, 2 if c.spec.roomy else 1) * lh + 2 * pad
    if c.spec.roomy:
        need = max(need, c.spec.height // 4)
    return min(need, c.spec.height // 2)


def draw(c: Canvas, box: Box, banner: Banner) -> None:
    m = c.m
    pad = _pad(c)
    if banner.severity == "error":
        fill, ink = c.emphasis()
        c.rect(box, fill=fill)
    else:
        ink = BLACK
        c.rect(box, outline=c.accent, width=m.line * 3 if banner.severity == "warning" else m.line)
    inner = box.inset(pad)
    mark = {"error": "!", "warning": "!", "info": "i"}[banner.severity]
    s = size(c)
    mark_w = line_height(font(s, True))
    mark_box, text_box = inner.left(mark_w, m.gap * 2)
    disc = Box(mark_box.x0, inner.y0 + (inner.h - mark_w) // 2, mark_box.x1, 0)
    disc = Box(disc.x0, disc.y0, disc.x1, disc.y0 + mark_w)
    c.draw.ellipse(disc.rect, outline=ink, width=max(2, m.line))
    c.text(disc, mark, s, bold=True, align="center", fill=ink)
    c.lines(text_box, banner.text, s, bold=True, fill=ink)
