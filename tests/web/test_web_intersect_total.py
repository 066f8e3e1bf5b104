"""The panel and the pages set the same figure against the Difficulty for an Intersect group
(issue 28 item 2, I-P10/P19): the engine's ``group_total``, never each hero's own total.

Aria Intersects with Bren (tests/harness/answers.py ``INTERSECT``) and each draws one token,
with seeds that leave the group's total different from either hero's own. The real engine's
view is published retained on the service's topics in the bridge's order to a real Mosquitto;
Debian's Chromium opens the overlay, and its DOM's total for each hero is compared with the
panel's viewmodel figure (display.viewmodel.group_total) and the engine's ``group_total``."""

from __future__ import annotations

import json
from typing import Any

import engine
from companion.mqtt.messages import iter_state_messages
from companion.mqtt.topics import Topics
from display import viewmodel
from engine.view import table_view
from tests.harness.answers import intersect_declare
from tests.harness.broker import WAIT, Watcher
from tests.harness.web import (
    SERVICE_PASSWORD,
    SERVICE_USER,
    playwright_chromium,
)

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    from tests.harness import missing_real_part

    missing_real_part("Playwright (pip package playwright, in the test extras)")

MS = WAIT * 1000
TOPICS = Topics("rhuna", "example")
#: one draw each: Bren's token +1, Aria's -1, the group's 0 (checked below, not assumed)
DRAWS = ({"cmd": "draw", "hero": "bren", "seed": 1}, {"cmd": "draw", "hero": "aria", "seed": 101})


def _view() -> dict[str, Any]:
    state = intersect_declare()
    for cmd in DRAWS:
        state, _ = engine.apply(state, cmd)
    return json.loads(json.dumps(table_view(state)))  # type: ignore[no-any-return]


def test_overlay_and_panel_show_the_engines_intersect_group_total(broker):
    view = _view()
    perf = view["performance"]
    cs = {c["hero"]: c for c in perf["contributions"]}
    assert set(cs) == {"aria", "bren"}
    group = {c["group_total"] for c in cs.values()}
    assert len(group) == 1, f"one group, one total: {cs}"
    [total] = group
    for hero, c in cs.items():
        assert c["total"] != total, f"{hero}'s own total must differ from the group's: {cs}"
        assert viewmodel.group_total(perf, hero) == total  # the panel's figure

    watcher = Watcher(
        broker.port, [f"{TOPICS.root}/#"], username=SERVICE_USER, password=SERVICE_PASSWORD
    )
    try:
        watcher.client.publish(TOPICS.status, "online", qos=1, retain=True).wait_for_publish(WAIT)
        for topic, payload in iter_state_messages(view, TOPICS):
            watcher.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
        with playwright_chromium() as browser:
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(broker.url("overlay.html", motion="off"))
            for hero in cs:
                row = page.locator(f'#performance .contribution[data-hero="{hero}"]')
                expect(row.locator(".total")).to_have_text(str(total), timeout=MS)
                expect(row.locator(".of")).to_have_text(f" / {perf['difficulty']}")
            shown = {}
            for hero in cs:
                cell = page.locator(f'#performance .contribution[data-hero="{hero}"] .total')
                shown[hero] = int((cell.text_content() or "").strip())
            context.close()
        assert shown == {hero: viewmodel.group_total(perf, hero) for hero in cs}
        assert errors == []
    finally:
        watcher.close()
