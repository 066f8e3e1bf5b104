"""gm.html shows only the replies that belong to the table's current state (issue 32, item 1).

The real service and broker (tests/web/test_web_gm.py's rig: Mosquitto with the accounts' ACL,
`rhuna-table run`, Debian's Chromium at 390×844). A reply is keyed to what it belongs to in the
published state (web/src/gm/ui.ts, Outlets): the Performance's number, or for a refusal the
section it was refused in.
"""

from __future__ import annotations

from typing import Any

from tests.harness.broker import WAIT
from tests.harness.web import screenshot
from tests.web.test_web_gm import browser, replied, rig, state, tab

__all__ = ["browser", "rig"]


def outlet(page: Any, key: str) -> Any:
    return page.locator(f"output.reply[data-for='{key}']")


def begin(page: Any) -> None:
    page.click("button[data-difficulty='6']")
    page.click("#performance-panel button:has-text('Begin')")
    replied(page, "begin")


def declare_aria(page: Any) -> None:
    card = page.locator(".card", has_text="Aria: declare")
    card.locator("select[name='capability']").select_option("skill")
    card.locator("button:has-text('Declare Aria')").click()
    replied(page, "declare-aria")


def test_a_new_performance_clears_the_last_ones_replies(rig):
    page, table, _ = rig
    begin(page)
    declare_aria(page)
    first = state(table).performance.number
    assert "✓ declare" in outlet(page, "declare-aria").inner_text()
    page.click("#performance-panel button:has-text('Cancel')")
    replied(page, "perf")
    assert state(table).performance is None
    begin(page)
    assert state(table).performance.number != first
    # Aria's card is the declare card again, and it no longer says "✓ declare"
    card = page.locator(".card", has_text="Aria: declare")
    card.wait_for()
    page.wait_for_function(
        "n => window.rhuna.store.snapshot.tables.get('example')?.sections.performance?.number === n",
        arg=state(table).performance.number,
        timeout=2 * WAIT * 1000,
    )
    assert outlet(page, "declare-aria").get_attribute("data-state") == "idle"
    assert "declare" not in card.inner_text().split("Declare Aria")[-1]
    # the Begin that opened this Performance still says so
    assert "✓ begin_performance" in outlet(page, "begin").inner_text()
    screenshot(page, "gm-replies-new-performance")


def test_a_refusal_is_cleared_once_its_section_moved(rig):
    page, table, _ = rig
    tab(page, "time")
    assert state(table).time.weather is None
    page.click("#time-panel button:has-text('Draw (the service draws)')")
    out = replied(page, "time", expect="refused")
    assert "[T1]" in out.inner_text()
    screenshot(page, "gm-replies-refused")
    page.click("#time-panel .card:has-text('Weather') button:has-text('Overworld')")
    replied(page, "weather")
    assert state(table).time.weather is not None
    # the weather is drawn: "draw_time refused [T1] weather unknown" is gone
    page.wait_for_function(
        "() => document.querySelector(\"output.reply[data-for='time']\").dataset.state === 'idle'",
        timeout=2 * WAIT * 1000,
    )
    assert "refused" not in page.locator("#time-panel").inner_text()
    assert "✓ draw_weather" in outlet(page, "weather").inner_text()
    screenshot(page, "gm-replies-refusal-cleared")


def test_a_favor_token_is_named_once(rig):
    page, table, _ = rig
    begin(page)
    declare_aria(page)
    page.click(".card:has-text('Aria:') button:has-text('Call Favor')")
    replied(page, "draw-aria")
    assert len(state(table).performance.contributions[0].favor) == 1
    item = page.locator("ul.drawn li.favor")
    item.wait_for()
    text = item.inner_text()
    assert "Favor: Favor" not in text, text
    assert text.startswith("Favor: "), text
    screenshot(page, "gm-replies-favor")


def test_another_tab_starts_at_its_top(rig):
    page, _, _ = rig
    begin(page)
    # two tabs longer than the screen: the Performance's cards, the Time Board's forms opened
    tab(page, "time")
    page.click("#time-panel summary:has-text('More: who keeps watch')")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 300
    tab(page, "performance")
    page.wait_for_selector("#tab-performance:not([hidden])")
    assert page.evaluate("document.body.scrollHeight") > 844 + 100
    assert page.evaluate("window.scrollY") == 0
    screenshot(page, "gm-replies-tab-top")
