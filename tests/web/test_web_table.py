"""table.html, the table's own screen, in Debian's Chromium against a real Mosquitto and the real
service: the history in the browser's time zone (issue 32 item 1); what a fight left on the
heroes after it ended (item 12)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

from engine.view import table_view
from tests.harness import ARIA, BEGIN
from tests.harness.broker import WAIT
from tests.harness.record import fight_commands, night_table
from tests.harness.web import (
    publish_retained,
    screenshot,
    served_table,
)

MS = WAIT * 1000
ZONE = "America/New_York"


def test_the_history_reads_in_the_browsers_time_zone(browser, broker, table):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, timezone_id=ZONE)
    page = context.new_page()
    page.goto(broker.url("table.html", last=5))
    table.command(BEGIN)
    item = page.locator("#history-list .history-item time").first
    item.wait_for(timeout=MS)
    at = datetime.fromisoformat(item.get_attribute("datetime").replace("Z", "+00:00"))
    local = at.astimezone(ZoneInfo(ZONE)).strftime("%H:%M:%S")
    assert at.utcoffset() is not None and local != at.strftime("%H:%M:%S")
    assert item.inner_text() == local, (item.inner_text(), local, at.isoformat())
    # a live history line for an Undo says what it took back (issue 32 item 8)
    table.command({"cmd": "undo"})
    first = page.locator("#history-list .history-item").first
    first.filter(has_text="Undone #").wait_for(timeout=MS)
    assert "Undone #1 begin_performance difficulty=5 (" in first.inner_text(), first.inner_text()
    screenshot(page, "table-history-new-york")
    context.close()


def test_the_history_colours_an_outcome_by_its_typed_field_not_its_words(browser, broker, table):
    """issue 28 item 2: …/history's rows carry each resolved group's ``success`` (HistoryEntry
    .outcomes, P19), and table.html colours the row by it. A Performance resolved on the real
    service: its row is an outcome of the engine's verdict. A hand-made table whose narration
    says SUCCESS but whose outcome is a failure: the row is a failure (the words are not read)."""
    table.command(BEGIN)
    table.command(ARIA)
    for seed in range(12):  # seeded draws until Aria has drawn all she may (P6)
        [aria] = table_view(table.service.loop.state)["performance"]["contributions"]
        if aria["draws_left"] == 0:
            break
        table.command({"cmd": "draw", "hero": "aria", "seed": seed})
    resolved = [
        e for e in table.command({"cmd": "resolve"}).events if e.type == "performance_resolved"
    ]
    assert len(resolved) == 1
    verdict = "success" if resolved[0].data["success"] else "failure"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(broker.url("table.html", last=5))
    row = page.locator("#history-list .history-item.kind-outcome").first
    row.wait_for(timeout=MS)
    assert verdict in (row.get_attribute("class") or "").split(), row.get_attribute("class")
    entry = {
        "seq": 7, "at": 1_764_000_000.0, "time": "2025-11-24 16:00:00", "source": "stdin",
        "command": "resolve", "events": ["Aria: 6 vs 6 — SUCCESS"], "audiences": ["public"],
        "outcomes": [False],
    }  # fmt: skip
    publish_retained(
        broker,
        {
            "rhuna/hall/history": json.dumps({"entries": [entry], "recap": None}),
            "rhuna/hall/status": "online",
        },
    )
    page.goto(broker.url("table.html", table="hall", last=5))
    row = page.locator("#history-list .history-item").first
    row.wait_for(timeout=MS)
    classes = (row.get_attribute("class") or "").split()
    assert "kind-outcome" in classes and "failure" in classes, classes
    context.close()


def test_after_the_fight_each_heros_injuries_are_on_their_card(browser, broker, tmp_path):
    table_file = tmp_path / "night.toml"
    table_file.write_text(night_table(), "utf-8")
    with served_table(tmp_path / "fight", broker, table_file=table_file) as table:
        for cmd in fight_commands():
            table.command(cmd)
        state = table.service.loop.state
        assert state.combat.fight is None  # the fight is over
        aria = state.combat.roster["aria"]
        assert aria.injuries, "the example fight injures Aria"
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(broker.url("table.html", last=5))
        card = page.locator("#heroes .hero[data-hero='aria'] .hero-injuries")
        card.wait_for(timeout=MS)
        text = card.inner_text()
        assert text.startswith(f"Injuries {aria.injury_count}"), text
        by_type: dict[str, int] = {}
        for injury in aria.injuries:
            by_type[injury.type] = by_type.get(injury.type, 0) + injury.hits
        for kind, hits in by_type.items():
            word = kind.replace("_", " ") + (f" ×{hits}" if hits > 1 else "")
            assert word in text, (word, text)
        # the hero sheet's own Wounds are still shown beside them
        assert page.locator("#heroes .hero[data-hero='aria'] .track-wounds").count() == 1
        screenshot(page, "table-after-the-fight")
        context.close()
