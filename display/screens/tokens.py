"""Token icons: the drawn tokens in draw order, each with the value it adds (P12–P18).

A Hero Bag token is a rounded square, a Favor token a circle (it came from
another bag); the value is big, the mark under it says what the token is
(C/V/I by Shade, P Potential, W0–W2 Weight, S Strain). A negative value is
filled so that a −4 from Xantyr is seen before it is read. Slots still to draw
are dashed; a slot waiting for its Redraw shows a circular arrow.
"""

from __future__ import annotations

from collections.abc import Sequence

from display.canvas import Canvas
from display.layout import Box
from display.panels import BLACK, WHITE
from display.viewmodel import signed, token_code
from engine.contracts.view import TokenView


def slot_count(drawn: int, favor: int, empty: int, redraw: bool) -> int:
    return drawn + favor + int(redraw) + max(0, empty)


def row_width(c: Canvas, n: int, side: int) -> int:
    return n * side + max(0, n - 1) * c.m.gap


def draw_row(
    c: Canvas,
    box: Box,
    drawn: Sequence[TokenView],
    favor: Sequence[TokenView],
    *,
    empty: int,
    redraw: bool,
    side: int | None = None,
) -> Box:
    """Icons left to right in ``box``; returns the box the icons used."""
    m = c.m
    slots: list[tuple[str, TokenView | None]] = [("token", t) for t in drawn]
    slots += [("favor", t) for t in favor]
    if redraw:
        slots.append(("redraw", None))
    slots += [("empty", None)] * max(0, empty)
    if not slots:
        return Box(box.x0, box.y0, box.x0, box.y1)
    n = len(slots)
    side = min(side or m.token, (box.w - (n - 1) * m.gap) // n)
    height = min(box.h, int(side * 1.3))
    top = box.y0 + (box.h - height) // 2
    x = box.x0
    for kind, token in slots:
        cell = Box(x, top, x + side, top + height)
        if kind == "empty":
            c.dashed(cell.inset(1), dash=max(2, side // 8), width=1)
        elif kind == "redraw":
            c.dashed(cell.inset(1), dash=max(2, side // 8), width=1)
            _redraw_mark(c, cell)
        else:
            assert token is not None
            draw_token(c, cell, token, circle=(kind == "favor"))
        x += side + m.gap
    return Box(box.x0, top, x - m.gap, top + height)


def draw_token(c: Canvas, cell: Box, token: TokenView, *, circle: bool = False) -> None:
    """A token: its value big, its mark small under it (one line ``2C`` when the icon is short)."""
    m = c.m
    value = int(token.get("value") or 0)
    fill, ink = c.emphasis() if value < 0 else (WHITE, BLACK)
    if circle:
        c.draw.ellipse(cell.rect, fill=fill, outline=BLACK, width=m.line)
    else:
        c.rounded(cell, max(2, cell.w // 6), fill=fill, outline=BLACK, width=m.line)
    inner = cell.inset(m.line + 1, m.line)
    if circle:  # an ellipse is narrower than its box away from the middle
        inner = inner.inset(max(1, cell.w // 12), 0)
    code = token_code(token)
    code_size = max(m.small, int(inner.h * 0.26))
    value_size = max(m.big, int(inner.h * 0.62))
    if inner.h < 2 * m.small + 4:
        c.text(
            inner,
            f"{signed(value)}{code}",
            m.body,
            bold=True,
            align="center",
            valign="ink",
            fill=ink,
        )
        return
    value_box, code_box = inner.top(int(inner.h * 0.62))
    c.text(value_box, signed(value), value_size, bold=True, align="center", valign="ink", fill=ink)
    c.text(code_box, code, code_size, align="center", valign="ink", fill=ink)


def _redraw_mark(c: Canvas, cell: Box) -> None:
    """A circular arrow: "a Redraw is waiting for its token" (P11)."""
    r = max(4, min(cell.w, cell.h) // 3)
    cx, cy = cell.x0 + cell.w // 2, cell.y0 + cell.h // 2
    w = max(2, c.m.line)
    c.draw.arc((cx - r, cy - r, cx + r, cy + r), 60, 360, fill=BLACK, width=w)
    # arrow head where the arc starts (lower right), pointing back along it
    h = max(3, r // 2)
    ax, ay = cx + int(r * 0.5), cy + int(r * 0.87)
    c.draw.polygon([(ax - h, ay - h), (ax + h // 2, ay), (ax - h, ay + h)], fill=BLACK)
