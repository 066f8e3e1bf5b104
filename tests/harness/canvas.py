"""Checks on what a display :class:`~display.canvas.Canvas` recorded, shared by the display
tests (text, clarity, render): every string it drew fits."""

from __future__ import annotations

from display.canvas import Canvas
from display.text import ELLIPSIS


def assert_texts_fit(c: Canvas) -> None:
    """Each text lies inside the panel and its box, at no less than the panel's smallest size;
    a cut one ends in an ellipsis after a prefix of the original."""
    m = c.spec.metrics
    assert c.texts, "the screen drew no text at all"
    for t in c.texts:
        where = f"{t.shown!r} (from {t.full!r}) on {c.spec.name}"
        if not t.shown:
            continue
        assert c.full.contains(*t.ink), f"{where} runs off the panel: ink {t.ink}"
        assert t.box.contains(*t.ink), f"{where} leaves its box {t.box}: ink {t.ink}"
        assert t.size >= m.small, (
            f"{where} is drawn at {t.size}px, under the panel's minimum {m.small}px"
        )
        if t.shown != t.full:
            assert t.shown.endswith(ELLIPSIS), f"{where} was cut without an ellipsis"
            assert t.full.startswith(t.shown[:-1].rstrip()), (
                f"{where} is not a prefix of the original"
            )
