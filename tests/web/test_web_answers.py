"""Answers computed off the table's turn (issue 27), in Debian's Chromium against a real
Mosquitto: while the service publishes the odds (or the attack forecast) as ``pending`` the
overlay and the table display say so in words, in place of the figures, and never show the
previous state's figures beside the new state; the real answer then replaces the words; and
``too_big`` says that they cannot be counted exactly.

The views are the real engine's (``table_view`` with a turn's ``work`` allowance, as the
service builds them), published retained on the service's own topics in the bridge's order
(``…/state`` first, then each section that changed: ``iter_state_messages``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from companion.cli.replay import read_session
from companion.mqtt.messages import iter_state_messages
from companion.mqtt.topics import Topics
from engine.view import table_view
from tests.harness import EXAMPLE_TABLE, ROOT, missing_real_part
from tests.harness.answers import cold
from tests.harness.broker import WAIT, Watcher
from tests.harness.web import (
    SERVICE_PASSWORD,
    SERVICE_USER,
    WebBroker,
    screenshot,
)

try:
    from playwright.sync_api import Page, expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (pip package playwright, in the test extras)")

MS = WAIT * 1000
TOPICS = Topics("rhuna", "example")
#: the turn's allowance that leaves an Intersect group's odds pending
TURN_WORK = int(engine.load_table(EXAMPLE_TABLE).rules["answers"]["turn"])  # [answers] turn
PENDING = "Odds: working them out…"
TOO_BIG = "Odds: too many outcomes to count exactly"
FORECAST_PENDING = "Forecast: working it out…"
BEGIN = {"cmd": "begin_performance", "difficulty": 8, "weight": "mass"}
BREN = {
    "cmd": "declare",
    "hero": "bren",
    "shade": "control",
    "capability": "steel",
    "action": "target",
}
ARIA_WITH_BREN = {
    "cmd": "declare",
    "hero": "aria",
    "shade": "control",
    "capability": "skill",
    "action": "target",
    "intersect": "bren",
}

#: every text the Performance panel showed, one per paint (the DOM's own record: a state
#: that lasts a few milliseconds is seen too)
PERFORMANCE_SEEN = """
window.performanceSeen = [];
document.addEventListener("DOMContentLoaded", () => {
  const section = document.getElementById("performance");
  new MutationObserver(() => window.performanceSeen.push(section.textContent)).observe(
    section, { subtree: true, childList: true, characterData: true, attributes: true });
});
"""


def _cold(state: engine.TableState, **allowance: Any) -> dict[str, Any]:
    """``state``'s view with a turn's allowance, the engine's memoised answers forgotten
    first: an answer it already knows costs no steps and is ready at once (rightly), which
    would make a pending view depend on what ran before in this process."""
    cold()
    return _json(table_view(state, **allowance))


def _json(view: Any) -> dict[str, Any]:
    return json.loads(json.dumps(view))  # type: ignore[no-any-return]


class Publisher:
    """Publishes views as the bridge does: retained, QoS 1, ``…/state`` first, then only the
    topics whose payload changed, ``…/status`` online."""

    def __init__(self, broker: WebBroker) -> None:
        self.watcher = Watcher(
            broker.port, [f"{TOPICS.root}/#"], username=SERVICE_USER, password=SERVICE_PASSWORD
        )
        self.sent: dict[str, str] = {}
        self._publish(TOPICS.status, "online")

    def _publish(self, topic: str, payload: str) -> None:
        self.watcher.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
        self.sent[topic] = payload

    def view(self, view: dict[str, Any]) -> None:
        for topic, payload in iter_state_messages(view, TOPICS):
            if self.sent.get(topic) != payload:
                self._publish(topic, payload)

    def close(self) -> None:
        self.watcher.close()


@pytest.fixture
def publisher(broker) -> Iterator[Publisher]:
    p = Publisher(broker)
    yield p
    p.close()


def _open(browser: Any, url: str, size: dict[str, int]) -> tuple[Any, Page, list[str]]:
    context = browser.new_context(viewport=size)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(PERFORMANCE_SEEN)
    page.goto(url)
    return context, page, errors


def _best(view: dict[str, Any]) -> str:
    """``Best play 95.39%``: the service's headline figure, as the page prints it."""
    [group] = view["odds"]["groups"]
    return f"Best play {group['best_play']['percent']:g}%"  # as JavaScript prints a number


def _headline(view: dict[str, Any]) -> str:
    """``71%``: the overlay's chance meter headline, the engine's own whole percent at the end
    of its best advice (the exact figures stay on the table display, issue 42 item 2)."""
    [group] = view["odds"]["groups"]
    said = re.search(r"→\s*(\S+%)\s*$", group["advice"][0]["text"])
    assert said, group["advice"][0]["text"]
    return said.group(1)


def test_pending_odds_show_the_mark_never_the_last_states_then_the_real_odds(
    browser, broker, publisher
):
    """Bren alone (odds ready), then Aria Intersecting with him: the odds pending (the turn's
    view), then the same state's real odds. The overlay and the table display show the
    pending words the moment Aria's declaration shows, and no figure of Bren's alone."""
    state = engine.load_table(EXAMPLE_TABLE)
    for cmd in (BEGIN, BREN):
        state, _ = engine.apply(state, cmd)
    alone = _cold(state, work=TURN_WORK)
    assert alone["odds"]["status"] == "ready", "Bren alone is within a turn's allowance"
    state, _ = engine.apply(state, ARIA_WITH_BREN)
    pending = _cold(state, work=TURN_WORK)
    assert pending["odds"] == {"groups": [], "status": "pending"}
    assert pending["answers"] == {"odds": "pending"}
    ready = _json(table_view(state))
    old, new = _best(alone), _best(ready)
    assert old != new
    # the overlay's meter: the engine's whole percent; the table display: the exact figure
    figures = {"overlay": (_headline(alone), _headline(ready)), "table": (old, new)}
    headline = {"overlay": ".meter-headline", "table": ".odds-best-play"}
    for was, now in figures.values():  # a paint's text holds one only if it shows that one
        assert was not in now and now not in was, (was, now)

    publisher.view(alone)
    pages = []
    for name, size in (("overlay", {"width": 1280, "height": 720}), ("table", None)):
        url = broker.url(f"{name}.html", motion="off")
        pages.append((name, *_open(browser, url, size or {"width": 1920, "height": 1080})))
    try:
        for name, _, page, _ in pages:
            perf = page.locator("#performance")
            expect(perf.locator(headline[name])).to_have_text(figures[name][0], timeout=MS)
            expect(perf.locator(".odds-note")).to_be_hidden()

        publisher.view(pending)
        for name, _, page, _ in pages:
            perf = page.locator("#performance")
            note = perf.locator(".odds-note")
            expect(note).to_have_text(PENDING, timeout=MS)
            expect(note).to_be_visible()
            expect(note).to_have_attribute("data-status", "pending")
            expect(perf.locator(".odds")).to_have_attribute("aria-busy", "true")
            expect(perf.locator(".odds-group")).to_have_count(0)
            expect(perf.locator(".advice")).to_have_count(0)
            expect(perf.locator(".meter")).to_have_count(0)
            expect(perf.locator(".contributions")).to_contain_text("Aria")
            if name == "overlay":
                shot = screenshot(page, "overlay-odds-pending-1280x720")
                assert shot.exists()

        publisher.view(ready)
        for name, _, page, _ in pages:
            perf = page.locator("#performance")
            expect(perf.locator(headline[name])).to_have_text(figures[name][1], timeout=MS)
            expect(perf.locator(".odds-note")).to_be_hidden()
            expect(perf.locator(".odds")).to_have_attribute("aria-busy", "false")
            if name == "table":  # the overlay's advice is one plain sentence, no figure
                advice = ready["odds"]["groups"][0]["advice"][0]["text"]
                expect(perf.locator(".advice").first).to_have_text(advice)

        for name, _, page, errors in pages:
            seen: list[str] = page.evaluate("window.performanceSeen")
            with_aria = [s for s in seen if "Aria" in s]
            assert with_aria, f"{name}: never painted Aria's declaration"
            # every paint of the new state: the pending words, or its own odds; never Bren's
            # alone, and no percentage beside the pending words
            was, now = figures[name]
            for text in with_aria:
                assert was not in text, f"{name} showed the last state's odds: {text!r}"
                if PENDING in text:
                    assert "%" not in text, f"{name}: a figure beside the pending mark: {text!r}"
                else:
                    assert now in text, f"{name} showed odds of no state: {text!r}"
            assert any(PENDING in s for s in with_aria) and any(now in s for s in with_aria)
            assert not errors, f"{name} threw: {errors}"
    finally:
        for _, context, _, _ in pages:
            context.close()


def test_too_big_odds_and_a_pending_forecast_say_so_in_words(browser, broker, publisher):
    """``too_big``: the words, and no figure at all; a fight's attack forecast pending: its
    words in the combat panel, then the service's forecast replaces them."""
    state = engine.load_table(EXAMPLE_TABLE)
    for cmd in (BEGIN, BREN, ARIA_WITH_BREN):
        state, _ = engine.apply(state, cmd)
    too_big = _cold(state, work=TURN_WORK, final=True)
    assert too_big["odds"] == {"groups": [], "status": "too_big"}

    publisher.view(too_big)
    context, page, errors = _open(
        browser, broker.url("overlay.html", motion="off"), {"width": 1280, "height": 720}
    )
    try:
        perf = page.locator("#performance")
        note = perf.locator(".odds-note")
        expect(note).to_have_text(TOO_BIG, timeout=MS)
        expect(note).to_have_attribute("data-status", "too_big")
        expect(perf.locator(".odds")).to_have_attribute("aria-busy", "false")
        expect(perf.locator(".odds-group")).to_have_count(0)
        assert "%" not in (perf.text_content() or "")

        fight = engine.load_table(ROOT / "examples" / "fight.toml")
        for _, cmd in read_session(ROOT / "examples" / "fight.jsonl"):
            fight, _ = engine.apply(fight, cmd)
            if table_view(fight, work=0)["combat"] is not None:
                break
        waiting = _cold(fight, work=0)
        assert waiting["combat"]["forecast_status"] == "pending"
        whole = _json(table_view(fight))
        assert whole["combat"]["forecast"]
        publisher.view(waiting)
        combat = page.locator("#combat")
        expect(combat.locator(".forecast-note")).to_have_text(FORECAST_PENDING, timeout=MS)
        expect(combat.locator(".forecast")).to_have_count(0)
        assert not re.search(r"death [0-9.]+%", combat.text_content() or "")
        publisher.view(whole)
        expect(combat.locator(".forecast li")).to_have_count(
            len(whole["combat"]["forecast"]), timeout=MS
        )
        expect(combat.locator(".forecast-note")).to_have_count(0)
        expect(combat.locator(".forecast li").first).to_contain_text(
            whole["combat"]["forecast"][0]["target_name"]
        )
        screenshot(page, "overlay-forecast-ready-1280x720")
        assert not errors, errors
    finally:
        context.close()
