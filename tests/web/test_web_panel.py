"""A hung panel on the pages (issue 43 item 5): a Waveshare whose BUSY never clears is said in
words, "The panel is not responding: …", on the overlay, table.html and gm.html while it
stands (beside the board's unsync, the two stacked, not lying over each other), the table
plays on meanwhile, and once BUSY clears the words go.

Real parts: Mosquitto with the accounts and ACL `rhuna-table accounts` writes (the overlay and
table.html log in as the public viewers ``example.overlay`` and ``example.display``: the
generated ACL lets them read ``…/panel``), the real service driving the Waveshare driver on
tests/harness/epaper.py's stand-in of the vendor's package, the pages in Debian's Chromium.
Screenshots: test-artefacts/web/panel-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ARIA, BEGIN
from tests.harness.broker import WAIT
from tests.harness.epaper import WAVESHARE_PANEL, busy_pin, stand_in_epaper
from tests.harness.web import PHONE, AccountsBroker, axe, screenshot, served_table

MS = 2 * WAIT * 1000
HUNG = "#panel-health:not([hidden]) .panel-text"


@pytest.fixture
def pages(
    tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[dict[str, Any], Any]]:
    """{overlay, table, gm}: each page on the accounts' broker, the panel heard answering."""
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with (
            stand_in_epaper(tmp_path / "vendor", monkeypatch),
            served_table(
                tmp_path / "svc", broker, login=broker.login("service"), display=WAVESHARE_PANEL
            ) as table,
        ):
            stream = browser.new_context(viewport={"width": 1280, "height": 720})
            tv = browser.new_context(viewport={"width": 1280, "height": 800})
            phone = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
            opened = {
                "overlay": stream.new_page(),
                "table": tv.new_page(),
                "gm": phone.new_page(),
            }
            errors: list[str] = []
            for page in opened.values():
                page.on("pageerror", lambda e: errors.append(str(e)))
            opened["overlay"].goto(broker.url("overlay").replace("/gm.html", "/overlay.html"))
            opened["table"].goto(broker.url("display").replace("/gm.html", "/table.html"))
            opened["gm"].goto(broker.url())
            for page in opened.values():
                page.wait_for_selector("#status[data-state='live']", timeout=MS)
                page.wait_for_function(
                    "() => window.rhuna.store.snapshot.tables.get('example')?.sections.panel"
                    "?.responding === true",
                    timeout=MS,
                )
            try:
                yield opened, table
            finally:
                busy_pin(table.service.worker.panel)[0] = 1  # never left stuck for the stop
            for context in (stream, tv, phone):
                context.close()
            assert errors == [], errors
    finally:
        broker.stop()


def test_a_hung_panel_is_said_on_every_page_until_it_answers(pages):
    opened, table = pages
    worker = table.service.worker
    assert worker is not None and worker.wait_idle(WAIT)  # the first frame is on the glass
    for page in opened.values():
        assert page.locator("#panel-health").is_hidden()  # nothing said while it answers
    worker.deadline_floor = 0.5  # 3 × 0.05 s is less: the floor is the deadline
    busy = busy_pin(worker.panel)
    busy[0] = 0  # the ribbon works loose: BUSY never clears
    table.command(dict(BEGIN))  # a frame the panel never finishes; the table does not wait
    for name, page in opened.items():
        line = page.locator(HUNG)
        line.wait_for(timeout=MS)
        text = line.inner_text()
        assert text.startswith("⚠ The panel is not responding: a "), (name, text)
        assert text.endswith("has taken over 0.5 s; check its ribbon cable and HAT"), (name, text)
    # the table plays on: a declaration reaches every page while the panel is stuck
    table.command(dict(ARIA))
    for page in opened.values():
        page.wait_for_function(
            "() => window.rhuna.store.snapshot.tables.get('example')?.sections.performance"
            "?.contributions.length === 1",
            timeout=MS,
        )
    assert worker.not_responding is not None  # still stuck all along
    # an unknown tag: the board's unsync beside it, the two stacked on the overlay
    table.hub.lay(2, "04DEADBEEF0001")
    for name, page in opened.items():
        page.locator("#board-sync:not([hidden])").wait_for(timeout=MS)
        panel = page.locator("#panel-health").bounding_box()
        board = page.locator("#board-sync").bounding_box()
        assert panel is not None and board is not None
        assert panel["y"] + panel["height"] <= board["y"], (name, panel, board)
        screenshot(page, f"panel-not-responding-{name}")
    for name, page in opened.items():  # WCAG 2.2 AA, as the other pages' states
        found = [v for v in axe(page) if any("panel" in n for n in v["nodes"])]
        assert found == [], (name, found)
    busy[0] = 1  # mended: the refresh returns
    for page in opened.values():
        page.wait_for_selector("#panel-health", state="hidden", timeout=MS)
