"""The table display and the overlay say only the truth (issue 41): each kind of weather has its
own picture; the dead are marked on the wheel, and the overlay's wheel shows injuries.

Chromium on the built pages, the real service and Mosquitto (tests/web/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import screenshot

try:
    from playwright.sync_api import Page, expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (pip package playwright, in the test extras)")

MS = WAIT * 1000


@pytest.fixture
def page(browser: Any, request: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.close()
    assert not errors, f"the page threw: {errors}"


def expect_live(page: Page) -> None:
    expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)


#: the default Overworld Bag's faces (rules.toml [weather.bags]) → each its own picture
OVERWORLD = {
    "Clear": "sun",
    "Overcast": "cloud",
    "Rain": "rain",
    "Wind": "wind",
    "Fog": "fog",
    "Storm": "storm",
    "Heat": "heat",
    "Cold": "snow",
}


def test_each_kind_of_weather_has_its_own_picture(broker: Any, table: Any, page: Page) -> None:
    page.goto(broker.url("table.html"))
    expect_live(page)
    table.command({"cmd": "start_session", "bag": "overworld", "token": "weather.overworld.rain.1"})
    art = page.locator("#time .weather svg.art-weather")
    expect(art).to_have_attribute("data-weather", "rain", timeout=MS)
    seen = {}
    for name, picture in OVERWORLD.items():
        table.command({"cmd": "set_weather", "name": name})
        expect(page.locator("#time .weather")).to_contain_text(f"Weather: {name}", timeout=MS)
        expect(art).to_have_attribute("data-weather", picture, timeout=MS)
        seen[name] = art.inner_html()
    assert len(set(seen.values())) == len(OVERWORLD), "two kinds of weather share a picture"
    # the WorldKeeper's own words: snow is a snowflake, a name with no picture is the cloud
    table.command({"cmd": "set_weather", "name": "Heavy snow"})
    expect(art).to_have_attribute("data-weather", "snow", timeout=MS)
    table.command({"cmd": "set_weather", "name": "Ashfall"})
    expect(art).to_have_attribute("data-weather", "cloud", timeout=MS)
    table.command({"cmd": "set_weather", "name": "Storm"})
    expect(art).to_have_attribute("data-weather", "storm", timeout=MS)
    screenshot(page, "table-truth-weather")
