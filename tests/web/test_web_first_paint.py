"""A page from the service paints the table's state before the broker answers (issue 42 item 7).

The page server inlines the public retained topics the service last published in the page
(companion/pages/server.py), and the page routes them into its store before its first paint
(web/src/connection.ts ``takeInlined``); the broker's own retained copies take over when they
come. Here the broker is paused (SIGSTOP) while the overlay and the table display open from the
service, mid-Performance: each shows the drawn token and says it is waiting for the broker (not
"live", and not greyed as a lost link); once the broker runs again, each goes live by itself.
How soon a page paints is benchmarks/web.py's, not a test's.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.broker import WAIT
from tests.harness.web import ServedTable, WebBroker

MS = WAIT * 1000
TOKEN = "aria.ember.skill"


@pytest.fixture
def paused(web_broker: WebBroker, tmp_path: Path) -> Iterator[tuple[WebBroker, ServedTable]]:
    """The service serving the pages, a token drawn, then its broker paused (resumed after)."""
    table = ServedTable(tmp_path / "svc", web_broker, serve_pages=True)
    try:
        table.command(dict(BEGIN))
        table.command(dict(ARIA))
        table.command({"cmd": "draw", "hero": "aria", "token": TOKEN})
        topic = "rhuna/example/state"

        def drawn() -> bool:
            text = table.bridge.link.published.get(topic)
            return text is not None and TOKEN in json.dumps(json.loads(text)["performance"])

        wait_until(drawn, "the bridge to publish the drawn token")
        assert web_broker.proc is not None
        web_broker.proc.send_signal(signal.SIGSTOP)
        try:
            yield web_broker, table
        finally:
            web_broker.proc.send_signal(signal.SIGCONT)
    finally:
        table.close()


@pytest.fixture
def web_broker(tmp_path: Path) -> Iterator[WebBroker]:
    broker = WebBroker(tmp_path / "broker")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.mark.parametrize("name", ["overlay.html", "table.html"])
def test_a_page_from_the_service_shows_the_state_with_the_broker_paused(
    browser: Any, paused: tuple[WebBroker, ServedTable], name: str
) -> None:
    broker, table = paused
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(table.page_url(name))
        page.wait_for_selector(f'.token[data-token="{TOKEN}"]', timeout=MS)
        # the inlined state is the service's, the link is not up: never "live"
        assert page.evaluate("window.rhuna.store.snapshot.link") != "online"
        # connecting for the first time: "waiting", not greyed as a lost link ("offline")
        assert page.locator("#status").get_attribute("data-state") == "waiting"
        assert broker.proc is not None
        broker.proc.send_signal(signal.SIGCONT)
        page.wait_for_selector("#status[data-state='live']", timeout=2 * MS)
        page.wait_for_selector(f'.token[data-token="{TOKEN}"]', timeout=MS)
        assert not errors, errors
    finally:
        context.close()
