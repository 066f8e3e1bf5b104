"""recap.html opens offline in Debian's headless Chromium, with no console error, and shows
every chart: the odds before and after each draw (P19), luck and calibration, Fatigue /
Strain / Wounds (P13–P15), the Time Board's day (T3), the fights' rounds (C2, C4)."""

from __future__ import annotations

import base64
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.record.recap import CHARTS
from tests.harness.record import Night
from tests.harness.web import playwright_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright: issue 11's launcher (fails in CI when missing)."""
    with playwright_chromium() as b:
        yield b


@pytest.fixture(scope="module")
def recap(night: Night, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("recap")
    frames = night.state_dir / "panel"
    if not frames.is_dir():  # the png panel's out_dir in the test config
        frames = next(p.parent for p in night.state_dir.parent.rglob("latest.png"))
    args = ["export", str(night.state_dir), "--to", str(out), "--frames", str(frames)]
    assert main(args) == 0
    return out / "recap.html"


def test_recap_is_one_file_that_needs_nothing_from_the_network(recap: Path) -> None:
    text = recap.read_text("utf-8")
    assert "<script" not in text  # nothing to run, nothing to fail
    links = re.findall(r'(?:src|href)="([^"]+)"', text)
    assert links and all(link.startswith("data:") for link in links), links
    # moved elsewhere alone, it is still whole
    assert "http://" not in text.replace("http://www.w3.org", "")
    assert "https://" not in text


def test_recap_opens_in_chromium_with_no_console_error_and_shows_each_chart(
    browser: Any, recap: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "shared.html"
    shutil.copy(recap, alone)  # as mailed: no folder beside it
    page = browser.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(alone.as_uri())
    page.wait_for_load_state("load")
    assert errors == []
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    for chart in CHARTS:
        figure = page.locator(f"#chart-{chart} img")
        assert figure.count() == 1, chart
        width = figure.evaluate("img => img.complete ? img.naturalWidth : 0")
        assert width > 200, chart
        box = figure.bounding_box()
        assert box is not None and box["height"] > 100, chart
    frames = page.locator(".frames img")
    assert frames.count() >= 1
    assert frames.first.evaluate("img => img.naturalWidth") == 250  # the 2.13" panel
    assert "Performance 1 (Difficulty 5): Aria 5 vs 5: SUCCESS" in page.inner_text("body")
    page.close()


def chart_svg(recap: Path, chart: str) -> str:
    text = recap.read_text("utf-8")
    m = re.search(rf'id="chart-{chart}".*?src="data:image/svg\+xml;base64,([^"]+)"', text)
    assert m, chart
    return base64.b64decode(m.group(1)).decode("utf-8")


def test_each_chart_draws_the_nights_data(recap: Path) -> None:
    assert "best-play odds" in chart_svg(recap, "odds")
    assert "Aria" in chart_svg(recap, "luck") and "Cass" in chart_svg(recap, "luck")
    assert "perfectly fair" in chart_svg(recap, "calibration")
    assert "Strain" in chart_svg(recap, "health") and "Wounds" in chart_svg(recap, "health")
    assert "day 1 morning" in chart_svg(recap, "time")
    fights = chart_svg(recap, "fights")
    assert "F1 R1" in fights and "F1 R3" in fights and "no fight tonight" not in fights
