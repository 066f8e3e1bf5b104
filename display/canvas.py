"""A panel-sized palette picture plus the drawing calls the screens use.

Every piece of text goes through :meth:`Canvas.text` (or :meth:`Canvas.lines`), which
writes each control character or bidi override as its escape (``\\x1b``, ``\\u202e``:
:func:`settings.plain.shown`, text is text), fits it to its box and records what was asked
for, what was drawn and where its ink landed. The record is what the text-fits tests check:
nothing outside its box, nothing below the panel's minimum size, every cut marked with "…".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageDraw

from display.layout import Box
from display.panels import ACCENT, BLACK, WHITE, Colour, PanelSpec, palette
from display.text import Font, fit, fit_lines, line_height
from settings.plain import shown as plain

Align = Literal["left", "center", "right"]
VAlign = Literal["middle", "ink", "top"]


@dataclass(frozen=True, slots=True)
class TextRecord:
    """One drawn string: the full text, what fitted, its size, its ink box and its allotted box."""

    full: str
    shown: str
    size: int
    ink: tuple[int, int, int, int]
    box: Box


class Canvas:
    """Draw on one frame. Colours are palette indices: WHITE, BLACK, ACCENT."""

    def __init__(self, spec: PanelSpec, colour: Colour) -> None:
        self.spec = spec
        self.colour = colour
        self.m = spec.metrics
        self.image = Image.new("P", spec.size, WHITE)
        self.image.putpalette(palette(colour))
        self.draw = ImageDraw.Draw(self.image)
        self.draw.fontmode = "1"  # e-ink has no grey: crisp one-bit glyphs, no dithered edges
        self.texts: list[TextRecord] = []

    @property
    def full(self) -> Box:
        return Box(0, 0, self.spec.width, self.spec.height)

    @property
    def accent(self) -> int:
        """Ink for things that must stand out (red on a red panel; black where yellow is too pale)."""
        return ACCENT if self.colour == "bwr" else BLACK

    def emphasis(self) -> tuple[int, int]:
        """(fill, ink) of a highlighted block: inverted on black/white, coloured otherwise."""
        if self.colour == "bwr":
            return ACCENT, WHITE
        if self.colour == "bwy":
            return ACCENT, BLACK  # black on yellow reads; white on yellow does not
        return BLACK, WHITE

    # --- shapes -------------------------------------------------------------

    def rect(
        self, box: Box, *, fill: int | None = None, outline: int | None = None, width: int = 1
    ) -> None:
        if box.w <= 0 or box.h <= 0:
            return
        self.draw.rectangle(box.rect, fill=fill, outline=outline, width=width)

    def rounded(
        self,
        box: Box,
        radius: int,
        *,
        fill: int | None = None,
        outline: int | None = None,
        width: int = 1,
    ) -> None:
        if box.w <= 0 or box.h <= 0:
            return
        self.draw.rounded_rectangle(box.rect, radius, fill=fill, outline=outline, width=width)

    def hline(self, x0: int, x1: int, y: int, *, fill: int = BLACK, width: int = 1) -> None:
        self.draw.line((x0, y, x1, y), fill=fill, width=width)

    def dashed(self, box: Box, *, dash: int = 4, fill: int = BLACK, width: int = 1) -> None:
        """A dashed outline: an empty draw slot still to come."""
        x0, y0, x1, y1 = box.rect
        for x in range(x0, x1 + 1, dash * 2):
            e = min(x + dash - 1, x1)
            self.draw.line((x, y0, e, y0), fill=fill, width=width)
            self.draw.line((x, y1, e, y1), fill=fill, width=width)
        for y in range(y0, y1 + 1, dash * 2):
            e = min(y + dash - 1, y1)
            self.draw.line((x0, y, x0, e), fill=fill, width=width)
            self.draw.line((x1, y, x1, e), fill=fill, width=width)

    # --- text ---------------------------------------------------------------

    def text(
        self,
        box: Box,
        text: str,
        size: int,
        *,
        bold: bool = False,
        min_size: int | None = None,
        align: Align = "left",
        valign: VAlign = "middle",
        fill: int = BLACK,
    ) -> TextRecord:
        """Draw one line of ``text`` fitted into ``box``; returns what was drawn and where."""
        text = plain(text)  # a name an old journal holds with an ESC or a U+202E: its escape
        floor = self.m.small if min_size is None else min_size
        size = self._height_cap(box, text, size, floor, bold, valign)
        fitted = fit(text, box.w - 1, size, min_size=min(floor, size), bold=bold)
        return self._place(box, text, fitted.text, fitted.font, fitted.size, align, valign, fill)

    def lines(
        self,
        box: Box,
        text: str,
        size: int,
        *,
        bold: bool = False,
        min_size: int | None = None,
        align: Align = "left",
        fill: int = BLACK,
    ) -> list[TextRecord]:
        """Wrap ``text`` into ``box`` (shrinking, then cutting the last line), centred vertically."""
        text = plain(text)
        floor = self.m.small if min_size is None else min_size
        fitted = fit_lines(text, box.w - 1, box.h, size, min_size=floor, bold=bold)
        lh = line_height(fitted.font)
        top = box.y0 + max(0, (box.h - lh * len(fitted.lines)) // 2)
        out = []
        words = text.split()
        used = 0
        for i, line in enumerate(fitted.lines):
            row = Box(box.x0, top + i * lh, box.x1, min(box.y1, top + (i + 1) * lh))
            n = len(line.split())
            last = i == len(fitted.lines) - 1
            # what this line stands for: its words, or everything left when the last line was cut
            full = " ".join(words[used:] if last and fitted.cut else words[used : used + n])
            used += n
            out.append(
                self._place(row, full, line, fitted.font, fitted.size, align, "middle", fill)
            )
        return out

    def width_of(self, text: str, size: int, *, bold: bool = False) -> int:
        from display.text import font, measure

        return (
            int(measure(font(size, bold), plain(text)) + 0.999) + 1
        )  # +1: the fitting keeps a pixel spare; measured as drawn (its escapes written out)

    def _height_cap(
        self, box: Box, text: str, size: int, floor: int, bold: bool, valign: VAlign
    ) -> int:
        """The largest size ≤ ``size`` whose line (or, for ``ink``, whose ink) fits the box height."""
        from display.text import font

        while size > floor:
            f = font(size, bold)
            ink = _ink_height(f, text)
            need = ink if valign == "ink" else max(ink, line_height(f))
            if need <= box.h:
                break
            size -= 1
        return size

    def _place(
        self,
        box: Box,
        full: str,
        shown: str,
        f: Font,
        size: int,
        align: Align,
        valign: VAlign,
        fill: int,
    ) -> TextRecord:
        # place by the ink, not the advance: a "T" or a "J" may overhang its advance box
        left, _, right, _ = f.getbbox(shown or " ", mode="1", anchor="ls")
        if align == "center":
            x = box.x0 + (box.w - (right - left)) / 2 - left
        elif align == "right":
            x = box.x1 - right
        else:
            x = float(box.x0 - min(0, left))
        ascent, descent = f.getmetrics()
        if valign == "ink":
            _, top, _, bottom = f.getbbox(shown or " ", mode="1", anchor="ls")
            y = box.y0 + (box.h - (bottom - top)) // 2 - top
        elif valign == "top":
            y = box.y0 + ascent
        else:
            y = box.y0 + (box.h - ascent - descent) // 2 + ascent
        x = int(x)
        if shown:  # accents over capitals can rise above the ascent: keep the ink in the box
            _, top, _, bottom = f.getbbox(shown, mode="1", anchor="ls")
            if y + bottom > box.y1:
                y = box.y1 - int(bottom)
            if y + top < box.y0:
                y = box.y0 - int(top)
            self.draw.text((x, y), shown, font=f, fill=fill, anchor="ls")
            ink = self.draw.textbbox((x, y), shown, font=f, anchor="ls")
        else:
            ink = (x, y, x, y)
        corners = (int(ink[0]), int(ink[1]), int(ink[2]), int(ink[3]))
        record = TextRecord(full, shown, size, corners, box)
        self.texts.append(record)
        return record


def _ink_height(f: Font, text: str) -> int:
    """Height of the ink of ``text`` (what a big number needs, without room for descenders)."""
    _, top, _, bottom = f.getbbox(text or " ", mode="1", anchor="ls")
    return int(bottom - top)
