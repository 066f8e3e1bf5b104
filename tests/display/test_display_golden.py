"""Golden images: every screen on every panel, compared pixel by pixel with tests/display/golden/.

After a deliberate change to a layout, regenerate them and look at the
result before committing:

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/display/test_display_golden.py

A missing golden image fails (it is never created silently, and never under CI).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from display.render import render
from display.screens.banner import Banner
from tests.harness import views as dv

GOLDEN = Path(__file__).parent / "golden"
PANELS = ("2.13", "2.9", "4.2", "7.5")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1" and os.environ.get("CI") != "true"

BANNER = Banner("Unknown tag 04:A2:19:7B: enrol it or check the reader")


def _plain(fn: Callable[[], dict[str, Any]]) -> Callable[[], tuple[dict[str, Any], Any, Any]]:
    return lambda: (fn(), None, None)


CASES: dict[str, Callable[[], tuple[dict[str, Any], Any, Any]]] = {
    "performance-mid": _plain(dv.performance_mid),  # P6, P19 with odds
    "performance-redraw": _plain(dv.performance_redraw),  # P11, P18 (Xantyr −4)
    "performance-failed": _plain(dv.performance_failed),  # P9, P13, P20 (the costs section)
    "performance-group": _plain(dv.performance_success_group),  # P23
    "between-time": _plain(dv.between_time),  # T3, T8, P13–P15
    "between-plain": _plain(dv.between_plain),
    "combat": _plain(dv.combat),  # C2–C4
    "banner": lambda: (dv.performance_mid(), None, BANNER),
}
COLOUR_CASES = ("performance-failed", "combat", "banner")

MATRIX = [(case, panel, "bw") for case in CASES for panel in PANELS] + [
    (case, panel, colour) for case in COLOUR_CASES for panel in PANELS for colour in ("bwr", "bwy")
]


@pytest.mark.parametrize(("case", "panel", "colour"), MATRIX)
def test_golden_image(case: str, panel: str, colour: str, tmp_path: Path) -> None:
    view, _, banner = CASES[case]()
    image = render(view, panel, colour, banner=banner)
    path = GOLDEN / f"{case}-{panel}-{colour}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, format="PNG", optimize=True)
        return
    assert path.exists(), (
        f"no golden image {path.name}: after checking the layout by eye, run"
        " UPDATE_GOLDEN=1 .venv/bin/pytest tests/display/test_display_golden.py"
    )
    with Image.open(path) as stored:
        stored.load()
        expected = stored.copy()
    assert (expected.mode, expected.size) == (image.mode, image.size)
    assert expected.getpalette() == image.getpalette()
    diff = ImageChops.difference(expected.convert("RGB"), image.convert("RGB"))
    box = diff.getbbox()
    if box is not None:
        actual = tmp_path / path.name
        image.save(actual)
        changed = sum(1 for px in diff.convert("L").tobytes() if px)
        pytest.fail(
            f"{path.name}: {changed} pixels differ inside {box}; this render is at {actual}."
            " If the change is deliberate: UPDATE_GOLDEN=1 .venv/bin/pytest tests/display/test_display_golden.py"
        )


def test_golden_folder_has_no_strays() -> None:
    """Every stored image belongs to a case, so a renamed case cannot leave a stale picture."""
    expected = {f"{case}-{panel}-{colour}.png" for case, panel, colour in MATRIX}
    stored = {p.name for p in GOLDEN.glob("*.png")}
    assert stored <= expected, sorted(stored - expected)
