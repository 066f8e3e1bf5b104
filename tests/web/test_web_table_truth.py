"""The table display and the overlay say only the truth (issue 41): each kind of weather has its
own picture; the dead are marked on the wheel, and the overlay's wheel shows injuries.

Chromium on the built pages, the real service and Mosquitto (tests/web/conftest.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.view import table_view
from tests.harness import ROOT, missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import axe, screenshot, scroll_to, served_table

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


def fight_until_the_raider_dies(table: Any) -> dict[str, Any]:
    """examples/fight.jsonl up to Bren's hammer: the raider dies (C9), Aria is injured (C8)."""
    lines = (ROOT / "examples" / "fight.jsonl").read_text().splitlines()
    for raw in [x for x in lines if x.strip() and not x.startswith("#")]:
        table.command(json.loads(raw))
        if table.service.loop.state.combat.roster["raider"].dead:
            break
    combat = json.loads(json.dumps(table_view(table.service.loop.state)))["combat"]
    return {c["id"]: c for c in combat["combatants"]}


@pytest.mark.parametrize("which", ["overlay", "table"])
def test_the_dead_are_marked_on_the_wheel_and_injuries_shown(
    tmp_path: Path, broker: Any, page: Page, which: str
) -> None:
    with served_table(tmp_path / "fight", broker, table_file=ROOT / "examples" / "fight.toml") as t:
        page.goto(broker.url(f"{which}.html", table="fight"))
        expect_live(page)
        combatants = fight_until_the_raider_dies(t)
        raider, aria = combatants["raider"], combatants["aria"]
        assert raider["dead"] and aria["injuries"] > 0 and not aria["dead"]
        wheel = page.locator("#combat .wheel")
        dead = wheel.locator(".seat[data-combatant='raider']")
        expect(dead).to_have_class(re.compile(r"\bdead\b"), timeout=MS)
        # struck through, and the word: not by colour alone
        expect(dead.locator("s")).to_have_text(raider["name"])
        expect(dead).to_have_text(f"{raider['name']} dead")
        # the engine's injuries against its limit (C8, C9)
        expect(wheel.locator(".seat[data-combatant='aria']")).to_have_text(
            f"{aria['name']} {aria['injuries']}/{aria['death_limit']} injuries"
        )
        scroll_to(page.locator("#combat"))
        screenshot(page, f"{which}-truth-dead-on-the-wheel")
        # the marks pass WCAG 2.2 AA (the struck name and the small "dead" and injuries too)
        assert axe(page) == []
