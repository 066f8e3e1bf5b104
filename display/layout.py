"""Rectangles that split: the only geometry the screens need.

Screens carve the panel into boxes (take a row off the top, a column off the
right) instead of placing things at absolute pixels, which is what lets one
screen serve four panel sizes and make room for an error banner.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Box:
    """A pixel rectangle; ``x1``/``y1`` are exclusive."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def w(self) -> int:
        return max(0, self.x1 - self.x0)

    @property
    def h(self) -> int:
        return max(0, self.y1 - self.y0)

    @property
    def rect(self) -> tuple[int, int, int, int]:
        """Pillow's inclusive corner coordinates."""
        return (self.x0, self.y0, self.x1 - 1, self.y1 - 1)

    def contains(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        """Is the (exclusive) rectangle inside this box?"""
        return self.x0 <= x0 and self.y0 <= y0 and x1 <= self.x1 and y1 <= self.y1

    def inset(self, dx: int, dy: int | None = None) -> Box:
        dy = dx if dy is None else dy
        return Box(
            self.x0 + dx,
            self.y0 + dy,
            max(self.x0 + dx, self.x1 - dx),
            max(self.y0 + dy, self.y1 - dy),
        )

    def top(self, h: int, gap: int = 0) -> tuple[Box, Box]:
        """Take a row of height ``h`` off the top: (row, rest below it after ``gap``)."""
        h = min(h, self.h)
        return (
            Box(self.x0, self.y0, self.x1, self.y0 + h),
            Box(self.x0, min(self.y1, self.y0 + h + gap), self.x1, self.y1),
        )

    def bottom(self, h: int, gap: int = 0) -> tuple[Box, Box]:
        h = min(h, self.h)
        return (
            Box(self.x0, self.y1 - h, self.x1, self.y1),
            Box(self.x0, self.y0, self.x1, max(self.y0, self.y1 - h - gap)),
        )

    def left(self, w: int, gap: int = 0) -> tuple[Box, Box]:
        w = min(w, self.w)
        return (
            Box(self.x0, self.y0, self.x0 + w, self.y1),
            Box(min(self.x1, self.x0 + w + gap), self.y0, self.x1, self.y1),
        )

    def right(self, w: int, gap: int = 0) -> tuple[Box, Box]:
        w = min(w, self.w)
        return (
            Box(self.x1 - w, self.y0, self.x1, self.y1),
            Box(self.x0, self.y0, max(self.x0, self.x1 - w - gap), self.y1),
        )

    def rows(self, n: int, gap: int = 0) -> list[Box]:
        """``n`` equal rows (the last one takes the rounding)."""
        if n <= 0:
            return []
        each = (self.h - gap * (n - 1)) // n
        out = []
        for i in range(n):
            y0 = self.y0 + i * (each + gap)
            out.append(Box(self.x0, y0, self.x1, self.y1 if i == n - 1 else y0 + each))
        return out

    def cols(self, n: int, gap: int = 0) -> list[Box]:
        if n <= 0:
            return []
        each = (self.w - gap * (n - 1)) // n
        out = []
        for i in range(n):
            x0 = self.x0 + i * (each + gap)
            out.append(Box(x0, self.y0, self.x1 if i == n - 1 else x0 + each, self.y1))
        return out
