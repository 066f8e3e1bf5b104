"""The board's unsync on the pages (issue 43 item 1): two tokens in one well are said in words
on the overlay, table.html and gm.html until one is taken away; a token laid before its hero
declared is said the same way, and gm.html's "Accept as drawn" is refused naming the rule, then,
once the hero has declared, resolves it.

Real parts: Mosquitto with the accounts and ACL `rhuna-table accounts` writes (the overlay and
table.html log in as the public viewers ``example.overlay`` and ``example.display``: the
generated ACL lets them read ``…/board``), the real service with its emulated hub on a pty,
the pages in Debian's Chromium. Screenshots: test-artefacts/web/board-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ARIA, BEGIN, CASS, wait_until
from tests.harness.broker import WAIT
from tests.harness.gm import replied
from tests.harness.service import drawn, uid_of
from tests.harness.web import PHONE, AccountsBroker, axe, screenshot, served_table

MS = 2 * WAIT * 1000
TWO = "one token per well: lift the extra token (draw-board channel 0)"
CASS_LAID = (
    "draw-board channel 1 holds Cass's Weight 0, not drawn: take it away"
    " (it belongs in Cass's Hero Bag)"
)


@pytest.fixture
def pages(tmp_path: Path, browser: Any) -> Iterator[tuple[dict[str, Any], Any]]:
    """{overlay, table, gm}: each page on the accounts' broker, the whole table arrived."""
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")) as table:
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
                    "() => window.rhuna.store.snapshot.tables.get('example')?.sections.board",
                    timeout=MS,
                )
            yield opened, table
            for context in (stream, tv, phone):
                context.close()
            assert errors == [], errors
    finally:
        broker.stop()


def said(page: Any, key: str) -> str:
    """The words the page shows for the board's alert ``key`` (waits for them)."""
    line = page.locator(f"#board-sync:not([hidden]) li[data-board='{key}']")
    line.wait_for(timeout=MS)
    return line.locator(".board-text").inner_text()


def in_sync(page: Any) -> None:
    page.wait_for_selector("#board-sync", state="hidden", timeout=MS)


def test_two_tokens_in_a_well_are_said_on_every_page_until_one_is_taken_away(pages):
    opened, table = pages
    svc = table.service
    table.command(dict(BEGIN))
    table.command(dict(ARIA))
    table.hub.lay(0, uid_of(svc, "aria.weight.0"))
    wait_until(lambda: drawn(svc) == ["aria.weight.0"], "Aria's draw")
    table.hub.crowd(0)  # a second token laid over the first
    for name, page in opened.items():
        assert said(page, "well draw-board channel 0") == f"⚠ {TWO}", name
        screenshot(page, f"board-two-tokens-{name}")
    for name, page in opened.items():  # WCAG 2.2 AA, as the other pages' states
        found = [v for v in axe(page) if any("board" in n for n in v["nodes"])]
        assert found == [], (name, found)
    # no "accept as drawn" for it: the reader cannot say what the extra token is
    assert opened["gm"].locator("#board-sync button[data-accept]").count() == 0
    table.hub.crowd(0, False)  # one taken away
    for page in opened.values():
        in_sync(page)
    assert drawn(svc) == ["aria.weight.0"]


def test_accept_as_drawn_from_gm_html_is_refused_by_the_rules_then_resolves_it(pages):
    opened, table = pages
    svc, gm = table.service, opened["gm"]
    table.command(dict(BEGIN))
    table.command(dict(ARIA))
    table.hub.lay(1, uid_of(svc, "cass.weight.0"))  # Cass has not declared: refused, unsync
    for name, page in opened.items():
        assert said(page, "board draw-board channel 1") == f"⚠ {CASS_LAID}", name
    accept = gm.locator("#board-sync button[data-accept='cass.weight.0']")
    accept.click()
    refusal = replied(gm, "accept-as-drawn", "refused")
    assert "[P23]" in refusal.inner_text()
    assert "Cass has not declared" in refusal.inner_text()
    screenshot(gm, "board-accept-refused-gm")
    assert said(gm, "board draw-board channel 1") == f"⚠ {CASS_LAID}"  # still unsync
    table.command(dict(CASS))
    accept.click()
    replied(gm, "accept-as-drawn", "ok")
    for page in opened.values():
        in_sync(page)
    assert drawn(svc) == ["cass.weight.0"]
    screenshot(gm, "board-accepted-gm")
