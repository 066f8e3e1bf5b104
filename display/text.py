"""The shipped fonts, and fitting text into a width: shrink first, then ellipsize.

A hero called "Wilhelmina of the Seventeenth Lantern" must never run off the
panel or under the total. Every string a layout draws goes through
:func:`fit` (one line) or :func:`fit_lines` (wrapped), which measure with the
font itself and return text that is guaranteed to fit — smaller if the size
range allows, otherwise cut with "…".

The fonts are loaded from the package with :mod:`importlib.resources` and the
BASIC layout engine, so a frame is the same bytes on every machine with the
same Pillow (which is what lets golden images be compared pixel by pixel).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.resources
from dataclasses import dataclass

from PIL import ImageFont

FONT_FILES = {False: "DejaVuSansCondensed.ttf", True: "DejaVuSansCondensed-Bold.ttf"}
ELLIPSIS = "…"

_files = contextlib.ExitStack()
atexit.register(_files.close)

Font = ImageFont.FreeTypeFont


@functools.cache
def font_path(bold: bool = False) -> str:
    """A filesystem path to a shipped font (extracted once if the package is zipped)."""
    ref = importlib.resources.files("display").joinpath("fonts", FONT_FILES[bold])
    return str(_files.enter_context(importlib.resources.as_file(ref)))


@functools.lru_cache(maxsize=256)
def font(size: int, bold: bool = False) -> Font:
    """The shipped DejaVu Sans Condensed at ``size`` pixels (cached: loading costs ~1 ms)."""
    return ImageFont.truetype(font_path(bold), size, layout_engine=ImageFont.Layout.BASIC)


#: strings up to this long are measured once per font (a frame measures the same names,
#: totals and trial wraps again and again); a longer one, such as a hostile 1 MB token id,
#: is measured each time and never kept, so the cache stays under ~1 MB
MEASURE_CACHED = 200


def measure(f: Font, text: str) -> float:
    """The width ``text`` needs: its advance, or its ink where a glyph overhangs (Î, J, f)."""
    if not text:
        return 0.0
    if len(text) > MEASURE_CACHED:
        return _measure(f, text)
    return _measured(f, text)


def _measure(f: Font, text: str) -> float:
    left, _, right, _ = f.getbbox(text, mode="1", anchor="ls")
    return max(f.getlength(text, mode="1"), float(right - min(0, left)))


# FreeType's layout is most of a frame's CPU (and holds the GIL): the table's loop waits
# behind it. Fonts come from font()'s cache, so the same size is the same key.
_measured = functools.lru_cache(maxsize=4096)(_measure)


#: the tallest Latin ink: accented capitals above, descenders below
_TALL = "ÅÉÎÀÕg|pjy"


@functools.lru_cache(maxsize=256)
def line_height(f: Font) -> int:
    """A line that holds any Latin text: the font's ascent+descent, or the ink of Å over p if taller."""
    ascent, descent = f.getmetrics()
    _, top, _, bottom = f.getbbox(_TALL, mode="1", anchor="ls")
    return int(max(ascent + descent, bottom - top))


@dataclass(frozen=True, slots=True)
class Fitted:
    """A string and the font it fits in; ``cut`` when it had to be ellipsized."""

    text: str
    font: Font
    size: int
    cut: bool


def fit(text: str, width: float, size: int, *, min_size: int, bold: bool = False) -> Fitted:
    """The largest size in ``min_size..size`` at which ``text`` fits ``width``, else cut with "…"."""
    min_size = min(min_size, size)
    f = font(size, bold)
    full = measure(f, text)
    if full <= width:
        return Fitted(text, f, size, False)
    # text width scales almost linearly with size: jump near the answer, then step down
    s = max(min_size, min(size - 1, int(size * width / max(full, 1.0))))
    while s > min_size and measure(font(s, bold), text) > width:
        s -= 1
    f = font(s, bold)
    if measure(f, text) <= width:
        return Fitted(text, f, s, False)
    return Fitted(ellipsize(text, width, f), f, s, True)


def ellipsize(text: str, width: float, f: Font) -> str:
    """The longest prefix of ``text`` that fits ``width`` with "…" after it ("" if none does)."""
    if measure(f, ELLIPSIS) > width:
        return ""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(f, text[:mid].rstrip() + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS


def wrap(text: str, width: float, f: Font) -> list[str]:
    """Greedy word wrap; a word wider than a line is cut with "…" on its own line."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if measure(f, trial) <= width:
            current = trial
            continue
        if current:
            lines.append(current)
        current = word
        if measure(f, word) > width:  # a cut word ends its line: "…" must end what it stands for
            lines.append(ellipsize(word, width, f))
            current = ""
    if current:
        lines.append(current)
    return lines


@dataclass(frozen=True, slots=True)
class FittedLines:
    lines: list[str]
    font: Font
    size: int
    cut: bool


def fit_lines(
    text: str, width: float, height: float, size: int, *, min_size: int, bold: bool = False
) -> FittedLines:
    """Wrap ``text`` into ``width``×``height``, shrinking to ``min_size``; cut the last line if need be."""
    min_size = min(min_size, size)
    for s in range(size, min_size - 1, -1):
        f = font(s, bold)
        lines = wrap(text, width, f)
        if len(lines) * line_height(f) <= height and not any(ELLIPSIS in ln for ln in lines):
            return FittedLines(lines, f, s, False)
    f = font(min_size, bold)
    lines = wrap(text, width, f)
    room = max(1, int(height // line_height(f)))
    if len(lines) > room:
        lines = lines[:room]
        if not lines[-1].endswith(ELLIPSIS):
            lines[-1] = ellipsize(lines[-1], width, f)  # "…" says that more was cut
    return FittedLines(lines, f, min_size, True)
