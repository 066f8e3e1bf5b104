"""An Intersect group's total is shown once, named as the group's, with each hero's share
(issue 28 item 2, issue 41 item 6; I-P10, P19), on the overlay, the table display and gm.html,
as the e-ink panel does (``BREN + DARA … 8/8``, each share on a line).

Aria Intersects with Bren (tests/harness/answers.py ``INTERSECT``) and each draws one token,
with seeds that leave the group's total different from either hero's own. The figure set against
the Difficulty is the engine's ``group_total`` (the panel's, display.viewmodel.group_total): no
page adds it up. For the overlay and the table display the real engine's view is published
retained on the service's topics in the bridge's order to a real Mosquitto; gm.html runs on
test_web_gm's rig (the accounts' broker, the real service, a phone-size Chromium)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from companion.mqtt.messages import iter_state_messages
from companion.mqtt.topics import Topics
from display import viewmodel
from engine.view import table_view
from tests.harness.answers import INTERSECT, intersect_declare
from tests.harness.broker import WAIT, Watcher
from tests.harness.gm import state
from tests.harness.web import SERVICE_PASSWORD, SERVICE_USER, screenshot

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    from tests.harness import missing_real_part

    missing_real_part("Playwright (pip package playwright, in the test extras)")


MS = 2 * WAIT * 1000
TOPICS = Topics("rhuna", "example")
#: one draw each: Bren's token +1, Aria's -1, the group's 0 (checked below, not assumed)
DRAWS = ({"cmd": "draw", "hero": "bren", "seed": 1}, {"cmd": "draw", "hero": "aria", "seed": 101})
NAMES = {"aria": "Aria", "bren": "Bren"}
#: the engine's order of the contributions (Bren declared first), the pages' order
ORDER = ("bren", "aria")
PAIR = "Bren + Aria"


def _view() -> dict[str, Any]:
    state = intersect_declare()
    for cmd in DRAWS:
        state, _ = engine.apply(state, cmd)
    return json.loads(json.dumps(table_view(state)))  # type: ignore[no-any-return]


def _figures(perf: dict[str, Any]) -> tuple[int, dict[str, int]]:
    """The engine's group total and each hero's own total, checked to tell them apart."""
    cs = {c["hero"]: c for c in perf["contributions"]}
    assert tuple(cs) == ORDER
    assert [sorted(g) for g in perf["groups"]] == [sorted(NAMES)]
    [total] = {c["group_total"] for c in cs.values()}
    for hero, c in cs.items():
        assert c["total"] != total, f"{hero}'s own total must differ from the group's: {cs}"
        assert viewmodel.group_total(perf, hero) == total  # the panel's figure
    return total, {hero: c["total"] for hero, c in cs.items()}


@pytest.mark.parametrize(
    ("page_name", "viewport"), [("overlay", (1280, 720)), ("table", (1280, 800))]
)
def test_the_intersect_total_shows_once_named_as_the_pairs(
    broker: Any, browser: Any, page_name: str, viewport: tuple[int, int]
) -> None:
    view = _view()
    perf = view["performance"]
    total, shares = _figures(perf)
    watcher = Watcher(
        broker.port, [f"{TOPICS.root}/#"], username=SERVICE_USER, password=SERVICE_PASSWORD
    )
    try:
        watcher.client.publish(TOPICS.status, "online", qos=1, retain=True).wait_for_publish(WAIT)
        for topic, payload in iter_state_messages(view, TOPICS):
            watcher.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(broker.url(f"{page_name}.html", motion="off"))
        perf_el = page.locator("#performance")
        # the group's total, once, named with both heroes
        group = perf_el.locator(".group-total")
        expect(group).to_have_count(1, timeout=MS)
        expect(group.locator(".group-names")).to_have_text(f"{PAIR} together")
        expect(group.locator(".total")).to_have_text(str(total))
        expect(group.locator(".of")).to_have_text(f" / {perf['difficulty']}")
        expect(group.locator(".shares li")).to_have_text([f"{NAMES[h]} {shares[h]}" for h in ORDER])
        # under each hero, their own share, never the group's figure against the Difficulty
        for hero, own in shares.items():
            row = perf_el.locator(f'.contribution[data-hero="{hero}"]')
            expect(row.locator(".total")).to_have_text(str(own))
            expect(row.locator(".of")).to_have_text(" share")
        text = perf_el.inner_text()
        assert text.count(f"/ {perf['difficulty']}") == 1, text
        screenshot(page, f"intersect-total-{page_name}")
        context.close()
        assert errors == []
    finally:
        watcher.close()


def test_gm_shows_the_intersect_total_once_with_each_share(rig: Any) -> None:
    page, table, _ = rig
    for cmd in [*INTERSECT, *DRAWS]:
        table.command(cmd)
    perf = json.loads(json.dumps(table_view(state(table))))["performance"]
    total, shares = _figures(perf)
    panel = page.locator("#performance-panel")
    group = panel.locator(".group-total")
    expect(group).to_have_count(1, timeout=MS)
    expect(group.locator(".summary")).to_have_text(
        f"{PAIR} together {total} / {perf['difficulty']}", timeout=MS
    )
    expect(group.locator(".shares li")).to_have_text([f"{NAMES[h]} {shares[h]}" for h in ORDER])
    # each hero's card names their share, and the Difficulty only on the group's line
    left = {c["hero"]: c["draws_left"] for c in perf["contributions"]}
    for hero, own in shares.items():
        draws = f"{left[hero]} draw{'' if left[hero] == 1 else 's'} left"
        title = panel.locator(f".card > h3:text-is('{NAMES[hero]}: share {own} · {draws}')")
        expect(title).to_have_count(1, timeout=MS)
    assert panel.inner_text().count(f"/ {perf['difficulty']}") == 1, panel.inner_text()
    screenshot(page, "intersect-total-gm")
