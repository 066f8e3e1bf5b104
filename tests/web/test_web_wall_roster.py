"""The venue's roster end to end: ``rhuna-table venue`` writes each table's ``game`` and
``worldkeeper`` into ``tables.json``, and the wall (tables.html ``roster=tables.json``) says
them on the table's card, under its name (docs/convention.md, docs/web.md "A wall for a
hall"). A real Mosquitto of the test's own, Debian's Chromium; the file the command wrote is
what the page fetches."""

from __future__ import annotations

import json
from pathlib import Path

from companion.cli import main
from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import publish_retained

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (the test extras)")

MS = WAIT * 1000


def test_the_game_and_worldkeeper_the_venue_command_writes_are_on_the_wall_card(
    tmp_path: Path, broker, browser
) -> None:
    (tmp_path / "venue.toml").write_text(
        '[venue]\nhost = "venue.local"\n[wall]\npassword = "w"\n[director]\npassword = "d"\n'
        '[[table]]\nid = "kitchen"\nname = "The kitchen table"\n'
        'game = "Rhuna: The Salt Road"\nworldkeeper = "Marguerite-Aurélie"\npassword = "k"\n'
        '[[table]]\nid = "hall"\nname = "Hall B"\npassword = "h"\n',
        "utf-8",
    )
    assert main(["venue", str(tmp_path / "venue.toml"), "--out", str(tmp_path / "out")]) == 0
    roster = (tmp_path / "out" / "venue" / "tables.json").read_text("utf-8")
    assert json.loads(roster)["tables"][0]["worldkeeper"] == "Marguerite-Aurélie"
    publish_retained(broker, {"rhuna/kitchen/status": "online", "rhuna/hall/status": "online"})
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.route(
        "**/tables.json",
        lambda route: route.fulfill(body=roster, content_type="application/json"),
    )
    page.goto(broker.url("tables.html", roster="tables.json", rotate="off"))
    kitchen = page.locator('.table-card[data-table="kitchen"]')
    expect(kitchen.locator("h2")).to_have_text("The kitchen table", timeout=MS)
    expect(kitchen.locator(".card-game")).to_have_text(
        "Rhuna: The Salt Road · WorldKeeper Marguerite-Aurélie"
    )
    hall = page.locator('.table-card[data-table="hall"]')
    expect(hall.locator("h2")).to_have_text("Hall B")
    expect(hall.locator(".card-game")).to_have_count(0)  # no game, no WorldKeeper: no line
    context.close()
