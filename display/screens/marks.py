"""How an outcome looks, so SUCCESS, FAILURE and an error banner are never mistaken for each other.

At arm's length the table reads the shape and the colour before the word:

- SUCCESS: solid black, white letters, a tick (✔) — on every panel;
- FAILURE: solid accent on a red or yellow panel; on black/white, a heavy black frame on white
  with a cross (✘) — never the solid black of a SUCCESS or of an error banner;
- an error banner (:mod:`display.screens.banner`): a full-width block with "!" in a disc.

>>> from display.canvas import Canvas
>>> from display.panels import panel_spec
>>> style(Canvas(panel_spec("2.13"), "bw"), "FAILURE").label
'✘ FAILURE'
"""

from __future__ import annotations

from dataclasses import dataclass

from display.canvas import Canvas
from display.layout import Box
from display.panels import ACCENT, BLACK, WHITE

GLYPHS = {"SUCCESS": "✔", "FAILURE": "✘"}


@dataclass(frozen=True, slots=True)
class Style:
    """Fill (None: white), ink, frame width (0: none) and the word with its glyph."""

    fill: int | None
    ink: int
    frame: int
    label: str


def style(c: Canvas, word: str) -> Style:
    """The look of ``SUCCESS`` / ``FAILURE`` / ``GAIN`` (or any other word) on this canvas."""
    glyph = GLYPHS.get(word)
    label = f"{glyph} {word}" if glyph else word
    if word == "FAILURE":
        if c.colour == "bwr":
            return Style(ACCENT, WHITE, 0, label)
        if c.colour == "bwy":
            return Style(ACCENT, BLACK, 0, label)
        return Style(None, BLACK, max(2, c.m.line + 1), label)
    return Style(BLACK, WHITE, 0, label)


def block(c: Canvas, box: Box, s: Style) -> None:
    """Paint the block ``s`` describes (the text goes on top of it)."""
    if s.fill is not None:
        c.rect(box, fill=s.fill)
    if s.frame:
        c.rect(box, outline=BLACK, width=s.frame)
