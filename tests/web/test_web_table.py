"""table.html, the table's own screen, in Debian's Chromium against a real Mosquitto and the real
service: the history in the browser's time zone (issue 32 item 1)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.harness import BEGIN
from tests.harness.broker import WAIT
from tests.harness.web import (
    ServedTable,
    WebBroker,
    playwright_chromium,
    running_web_broker,
    screenshot,
    served_table,
)

MS = WAIT * 1000
ZONE = "America/New_York"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_chromium() as b:
        yield b


@pytest.fixture
def broker(tmp_path) -> Iterator[WebBroker]:
    with running_web_broker(tmp_path / "broker") as b:
        yield b


@pytest.fixture
def table(tmp_path, broker) -> Iterator[ServedTable]:
    with served_table(tmp_path / "table", broker) as t:
        yield t


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
    screenshot(page, "table-history-new-york")
    context.close()
