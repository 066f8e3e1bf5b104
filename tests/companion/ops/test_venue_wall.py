"""The wall in Chromium at the venue (docs/convention.md): ten table brokers bridged to the
venue, tables.html served by the venue broker with the wall's login and the roster; one
table's uplink cut says "offline (uplink)" on its card, distinct from a table whose service
stopped, and comes back with every event of the outage, in order, none missed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import WAIT
from tests.harness.broker import send
from tests.harness.venue import Rig
from tests.harness.web import playwright_chromium, screenshot

#: one page of the wall (six cards a page since the wall for a hall, issue 42 item 8)
TABLES = 6
CUT = "t003"
STOPPED = "t005"
EVENTS = 12


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path, TABLES, keepalive=5, cut=CUT, pages=True).start()
    try:
        yield r
    finally:
        r.stop()


def event(seq: int) -> dict[str, Any]:
    if seq == EVENTS:
        return {
            "seq": seq,
            "type": "performance_resolved",
            "success": True,
            "text": f"Aria: 9 vs 6 — SUCCESS (event {seq})",
            "at": "2026-12-02T18:00:00Z",
            "audience": "public",  # the engine's audience: the wall shows public words only
        }
    return {
        "seq": seq,
        "type": "token_drawn",
        "text": f"Aria draws Ember +1 (event {seq})",
        "at": "2026-12-02T18:00:00Z",
        "audience": "public",
    }


CARD = "document.querySelector('[data-table=\"{}\"]')"


def card_state(page: Any, table: str) -> dict[str, str] | None:
    return page.evaluate(
        """(id) => {
          const c = document.querySelector(`[data-table="${id}"]`);
          return c && {state: c.dataset.state, uplink: c.dataset.uplink,
                       status: c.querySelector('.card-status').textContent,
                       outcome: c.querySelector('.card-outcome')?.textContent ?? '',
                       name: c.querySelector('h2').textContent};
        }""",
        table,
    )


def test_the_wall_at_the_venue_shows_every_table_and_an_uplink_cut_then_all_of_its_events(
    rig: Rig,
) -> None:
    for t, b in rig.tables.items():
        send(b.port, f"rhuna/{t}/status", "online", retain=True)
    send(rig.tables[STOPPED].port, f"rhuna/{STOPPED}/status", "offline", retain=True)
    with playwright_chromium() as browser:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(rig.page_url("tables.html", rotate="off"))
        # every table of the roster, under its name, each uplink up; the stopped service is
        # offline by its own status, not by its uplink
        page.wait_for_function(
            f"""() => [...document.querySelectorAll('.table-card')].filter(
                  c => c.dataset.uplink === 'up').length === {TABLES}
                && document.querySelectorAll('.table-card[data-state="live"]').length
                   === {TABLES - 1}
                && document.querySelector('.table-card h2').textContent === 'Table t001'""",
            timeout=WAIT * 3000,
        )
        names = page.locator(".table-card h2").all_text_contents()
        assert sorted(names) == [f"Table t{i:03d}" for i in range(1, TABLES + 1)], names
        stopped = card_state(page, STOPPED)
        assert stopped is not None and stopped["status"].startswith("offline: the table service")

        assert rig.cut is not None
        rig.cut.drop()
        port = rig.tables[CUT].port
        for n in range(1, EVENTS + 1):
            send(port, f"rhuna/{CUT}/events", event(n))
        # the bridge's will at the venue once its keepalives find the cut (1.5 × 5 s)
        page.wait_for_function(
            f"{CARD.format(CUT)}?.querySelector('.card-status').textContent === 'offline (uplink)'",
            timeout=30_000,
        )
        cut = card_state(page, CUT)
        assert cut is not None and cut["state"] == "offline" and cut["uplink"] == "down", cut
        assert "SUCCESS" not in cut["outcome"]  # none of the outage's events is here yet
        screenshot(page, "venue-wall-uplink-cut-1080p")
        page.set_viewport_size({"width": 1280, "height": 720})
        screenshot(page, "venue-wall-uplink-cut-720p")

        rig.cut.restore()
        page.wait_for_function(
            f"""() => {{
              const c = {CARD.format(CUT)};
              const t = window.rhuna.store.snapshot.tables.get('{CUT}');
              return c.dataset.state === 'live' && c.dataset.uplink === 'up'
                && t.events.length >= {EVENTS}
                && c.querySelector('.card-outcome')?.textContent.includes('(event {EVENTS})');
            }}""",
            timeout=40_000,
        )
        record = page.evaluate(
            f"""() => {{ const t = window.rhuna.store.snapshot.tables.get('{CUT}');
                 return {{seqs: t.events.map(e => e.seq), gaps: t.gaps.length}}; }}"""
        )
        # all of them, each once (the store drops QoS 1 duplicates), in order, no gap
        assert record == {"seqs": list(range(1, EVENTS + 1)), "gaps": 0}, json.dumps(record)
        back = card_state(page, CUT)
        assert back is not None and back["status"] == "online"
        assert back["outcome"] == f"Aria: 9 vs 6 — SUCCESS (event {EVENTS})"
        page.close()
