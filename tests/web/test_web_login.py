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
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import (
    PHONE,
    VIEWER_PASSWORD,
    VIEWER_USER,
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


def test_each_link_problem_says_what_to_do(tmp_path: Path, browser: Any) -> None:
    """Issue 32 item 2, on every page that has a status line (overlay, table, gm; the wall its
    own): a page without ``broker=`` whose guess fails says it needs one, with an example; a
    refused login names the user and where the password is; a table id the broker has never
    heard of, after 5 s, says so and names the tables it has."""
    with (
        running_web_broker(tmp_path / "broker") as broker,
        served_table(tmp_path / "table", broker, serve_pages=True) as table,
    ):
        served = f"http://127.0.0.1:{table.web_port}"
        cases = {
            # the service's page server is no broker: the page's guess (ws://its host/) fails
            "no broker": (
                [f"{served}/{p}?table=example" for p in ("overlay.html", "table.html", "gm.html")]
                + [f"{served}/tables.html"],
                re.compile(
                    r"offline: this page needs its broker: add broker= to its address, e\.g\. "
                    + re.escape(f"{served}/")
                    + r"\w+\.html\?table=example#broker=ws://127\.0\.0\.1:9001"
                ),
            ),
            "refused login": (
                [
                    broker.url(p, password="not-the-password")
                    for p in ("overlay.html", "table.html", "gm.html", "tables.html")
                ],
                re.escape(
                    f"offline: the broker refused user {VIEWER_USER}: check the password"
                    " from `rhuna-table accounts urls`"
                ),
            ),
            "unknown table": (
                [broker.url(p, table="kitchen") for p in ("overlay.html", "table.html", "gm.html")],
                re.escape("no table 'kitchen' on this broker; tables seen: example"),
            ),
        }
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        opened = []
        try:
            for name, (urls, words) in cases.items():
                for url in urls:
                    page = context.new_page()
                    page.goto(url)
                    opened.append((name, url, page, words))
            for name, url, page, words in opened:
                label = page.locator("#status-label")
                expect(label, f"{name}: {url}").to_have_text(re.compile(words), timeout=MS)
            # the unknown table's words waited the 5 s: before that the page just waits
            early = context.new_page()
            early.goto(broker.url("overlay.html", table="kitchen"))
            expect(early.locator("#status-label")).to_have_text("waiting for the table…")
        finally:
            context.close()
