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
from display.text import font, line_height

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


def height(c: Canvas) -> int:
    """How much of the panel a banner takes: two lines of large text, at least."""
    m = c.m
    two_lines = 2 * line_height(font(m.big, True)) + 2 * (m.gap + m.line * 2)
    share = c.spec.height // 3 if not c.spec.roomy else c.spec.height // 4
    return max(two_lines, share)


def draw(c: Canvas, box: Box, banner: Banner) -> None:
    m = c.m
    pad = m.gap + m.line * 2
    if banner.severity == "error":
        fill, ink = c.emphasis()
        c.rect(box, fill=fill)
    else:
        ink = BLACK
        c.rect(box, outline=c.accent, width=m.line * 3 if banner.severity == "warning" else m.line)
    inner = box.inset(pad)
    mark = {"error": "!", "warning": "!", "info": "i"}[banner.severity]
    mark_w = line_height(font(m.big, True))
    mark_box, text_box = inner.left(mark_w, m.gap * 2)
    disc = Box(mark_box.x0, inner.y0 + (inner.h - mark_w) // 2, mark_box.x1, 0)
    disc = Box(disc.x0, disc.y0, disc.x1, disc.y0 + mark_w)
    c.draw.ellipse(disc.rect, outline=ink, width=max(2, m.line))
    c.text(disc, mark, m.big, bold=True, align="center", fill=ink)
    c.lines(text_box, banner.text, m.big, bold=True, fill=ink)
