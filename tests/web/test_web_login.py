"""The pages' login stays out of URLs that reach a server (issue 29, item 2; web/src/params.ts).

Debian's Chromium against the real service serving the pages (``[web]``) and a real Mosquitto:
a page given its login in the fragment (``#broker=…&username=…&password=…``, as `rhuna-table
accounts urls` prints it) connects; the old query form still connects, with a console warning;
either way the address bar no longer shows the password once the page has read it, and the
service's log (at debug) never holds it. gm.html's tabs live in the same fragment: a tab is
shown, the broker kept, and a reload of the tab stays logged in.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import (
    PHONE,
    VIEWER_PASSWORD,
    AccountsBroker,
    built_pages,
    playwright_chromium,
    running_web_broker,
    served_table,
)

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (pip package playwright, in the test extras)")

MS = WAIT * 1000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    built_pages()
    with playwright_chromium() as b:
        yield b


def open_page(browser: Any, url: str) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.goto(url)
    return context, page, warnings


@pytest.mark.parametrize("old_form", [False, True], ids=["fragment", "old query form"])
def test_the_page_connects_and_the_password_leaves_the_address_and_the_log(
    tmp_path: Path, browser: Any, caplog: Any, old_form: bool
) -> None:
    caplog.set_level(logging.DEBUG)
    with (
        running_web_broker(tmp_path / "broker") as broker,
        served_table(tmp_path / "table", broker, serve_pages=True) as table,
    ):
        url = table.page_url("overlay.html", old_form=old_form, motion="off")
        assert (VIEWER_PASSWORD in url.split("#")[0]) is old_form
        context, page, warnings = open_page(browser, url)
        try:
            expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
            assert VIEWER_PASSWORD not in page.url and "username" not in page.url
            assert "motion=off" in page.url  # the other parameters stay
            said = [w for w in warnings if "login is in the URL's query" in w]
            assert len(said) == (1 if old_form else 0), warnings
            # a reload of the tab stays logged in (the tab's sessionStorage), still no password
            page.reload()
            expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
            assert VIEWER_PASSWORD not in page.url
        finally:
            context.close()
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "GET /overlay.html 200" in logged  # the page server logged the requests ...
        assert VIEWER_PASSWORD not in logged  # ... never the password


def test_gm_tabs_share_the_fragment_with_the_login(tmp_path: Path, browser: Any) -> None:
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")):
            _, password = broker.login("gm")
            context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            try:
                url = broker.url()
                assert password in url.split("#")[1] and password not in url.split("#")[0]
                page.goto(url)
                expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
                assert password not in page.url
                expect(page.locator("#tab-performance")).to_be_visible()
                assert page.url.split("#")[1].startswith("performance&broker=")
                page.locator("nav.tabs button[data-tab='time']").click()
                expect(page.locator("#tab-time")).to_be_visible()
                assert page.url.split("#")[1].startswith("time&broker=")
                page.reload()  # the tab, the broker and (from the tab's storage) the login
                expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
                expect(page.locator("#tab-time")).to_be_visible()
                assert password not in page.url
            finally:
                context.close()
            assert errors == [], errors
    finally:
        broker.stop()
