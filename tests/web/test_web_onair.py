"""gm.html's On air switches (issue 42 item 1): the WorldKeeper hides or shows the overlays'
roll card and holds or skips the outcome that is up, from the phone, during the show; every
overlay already open follows without a reload, an overlay whose URL says ``card=``/``alerts=``
keeps its own, and a viewer's login cannot set them.

The switches are the retained ``…/overlay`` (docs/overlay.schema.json), which the generated
ACL lets the gm login alone write. The rig: Mosquitto with the accounts ``rhuna-table
accounts`` generates, the real service, Debian's Chromium: gm.html on a 390×844 phone logged
in as ``example.gm`` and overlay.html at 1280×720 logged in as ``example.overlay``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.harness import ARIA, BEGIN, missing_real_part
from tests.harness.broker import WAIT
from tests.harness.gm import state
from tests.harness.web import AccountsBroker, address, finish_draws, screenshot

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (the test extras)")

MS = 2 * WAIT * 1000


def overlay(browser: Any, broker: AccountsBroker, *, clock: bool = False, **params: Any) -> Any:
    """overlay.html at 1280×720, logged in as the table's overlay viewer, live."""
    user, password = broker.login("overlay")
    url = address(
        f"http://127.0.0.1:{broker.ws_port}/overlay.html",
        {
            "broker": f"ws://127.0.0.1:{broker.ws_port}/",
            "table": "example",
            "username": user,
            "password": password,
            **params,
        },
    )
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    if clock:
        page.clock.install()  # the page's Date and timers, moved on by the test (no sleeping)
    page.goto(url)
    expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
    return page


def switches(gm: Any) -> dict[str, str]:
    """gm.html's switches as it shows them (read back from the broker), once it knows them."""
    box = gm.locator("#onair")
    expect(box).to_have_attribute("aria-busy", "false", timeout=MS)
    return {k: box.get_attribute(f"data-{k}") or "" for k in ("card", "hold", "skip")}


def tap(gm: Any, which: str, then: dict[str, str]) -> None:
    """Tap a switch; wait until the broker's copy says ``then`` (gm.html shows nothing else)."""
    gm.locator(f"#onair-{which}").tap()
    box = gm.locator("#onair")
    for k, v in then.items():
        expect(box).to_have_attribute(f"data-{k}", v, timeout=MS)
    expect(box).to_have_attribute("aria-busy", "false", timeout=MS)


def test_the_card_switch_hides_and_shows_the_card_of_open_overlays_and_the_url_wins(
    tmp_path, browser, rig
):
    gm, table, broker = rig
    plain = overlay(browser, broker)
    shown = overlay(browser, broker, card="on")  # its URL says on: the switch does not hide it
    hidden = overlay(browser, broker, card="off")  # … says off: the switch does not show it
    assert switches(gm) == {"card": "on", "hold": "false", "skip": "0"}  # no retained setting
    table.command(BEGIN)
    table.command(ARIA)
    for page in (plain, shown):
        expect(page.locator("#performance")).to_be_visible(timeout=MS)
    expect(hidden.locator("#performance")).to_be_hidden(timeout=MS)
    screenshot(gm, "onair-gm-card-on")

    tap(gm, "card", {"card": "off"})
    expect(plain.locator("#performance")).to_be_hidden(timeout=MS)  # no reload: the same page
    # presentation, not play: Undo takes back Aria's declare, never the switch
    table.command({"cmd": "undo"})
    gm.wait_for_function(
        "() => window.rhuna.store.snapshot.tables.get('example')"
        "?.sections.performance?.contributions.length === 0",
        timeout=MS,
    )
    assert switches(gm)["card"] == "off"
    table.command(ARIA)
    expect(plain.locator("#performance")).to_have_attribute("data-card", "off", timeout=MS)
    expect(shown.locator("#performance")).to_be_visible(timeout=MS)
    expect(gm.locator("#onair-card")).to_have_attribute("aria-pressed", "false")
    screenshot(plain, "onair-overlay-card-off-1280x720")
    screenshot(gm, "onair-gm-card-off")

    tap(gm, "card", {"card": "on"})
    expect(plain.locator("#performance")).to_be_visible(timeout=MS)
    expect(hidden.locator("#performance")).to_be_hidden()
    screenshot(plain, "onair-overlay-card-on-1280x720")
    assert state(table).performance is not None
    assert switches(gm)["card"] == "on"


def outcome_up(page: Any) -> str:
    """The Performance whose outcome is up on the overlay's card ("Performance 1")."""
    up = page.locator("#performance .alert-card .outcome .outcome-of")
    expect(up).to_have_count(1, timeout=MS)
    return str(up.inner_text())


def resolve(table: Any, seed: int) -> None:
    table.command(BEGIN)
    table.command(ARIA)
    finish_draws(table, seed)
    table.command({"cmd": "resolve"})
    table.command({"cmd": "reset"})


def test_hold_keeps_a_live_alert_up_and_skip_takes_it_down(tmp_path, browser, rig):
    gm, table, broker = rig
    page = overlay(browser, broker, clock=True)
    skipping = overlay(browser, broker, clock=True, alerts="hold")  # its URL wins: no Hold
    tap(gm, "hold", {"hold": "true"})
    expect(gm.locator("#onair-hold")).to_have_attribute("aria-pressed", "true")
    resolve(table, seed=1)
    resolve(table, seed=2)
    for p in (page, skipping):
        expect(p.locator("#performance .alert-card .outcome")).to_have_count(1, timeout=MS)
        assert outcome_up(p) == "Performance 1"
    expect(page.locator("#performance")).to_have_attribute("data-held", "true", timeout=MS)
    screenshot(page, "onair-overlay-held-1280x720")
    screenshot(gm, "onair-gm-held")
    # a minute on the overlays' own clocks: Performance 1's alert is held on the one, gone on
    # the other (its URL's alerts=hold plays each for its time, 4–6 s)
    for p in (page, skipping):
        p.clock.fast_forward(60_000)
    expect(skipping.locator("#performance .outcome-of")).to_have_text("Performance 2", timeout=MS)
    painted = page.evaluate("window.rhuna.paints")
    page.wait_for_function(f"window.rhuna.paints > {painted}", timeout=MS)
    assert outcome_up(page) == "Performance 1"  # held: a minute up, Performance 2 waits

    # Skip: the held alert goes now, the next goes up (and is held in its turn)
    tap(gm, "skip", {"skip": "1"})
    expect(page.locator("#performance .outcome-of")).to_have_text("Performance 2", timeout=MS)
    screenshot(page, "onair-overlay-skipped-1280x720")
    # release: the queue goes on as before
    tap(gm, "hold", {"hold": "false"})
    expect(page.locator("#performance")).to_have_attribute("data-held", "false", timeout=MS)
    events = page.evaluate("window.rhuna.store.snapshot.tables.get('example').onAir")
    assert events["settings"] == {"card": "on", "hold": False, "skip": 1}
    assert events["skips"] == 1


def test_a_bad_setting_is_ignored_with_the_defaults_and_gm_says_why(tmp_path, browser, rig):
    """A payload that is not the schema's (here written by the gm login itself, as a broken
    tool would): the overlay keeps its defaults, gm.html says why and a tap puts it right."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    gm, table, broker = rig
    page = overlay(browser, broker)
    table.command(BEGIN)
    table.command(ARIA)
    expect(page.locator("#performance")).to_be_visible(timeout=MS)
    user, password = broker.login("gm")
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.username_pw_set(user, password)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        bad = {"card": "off", "hold": "yes", "skip": 0}  # hold not a boolean: not the schema's
        client.publish(
            "rhuna/example/overlay", json.dumps(bad), qos=1, retain=True
        ).wait_for_publish(WAIT)
    finally:
        client.disconnect()
        client.loop_stop()
    said = gm.locator("#onair-said")
    expect(said).to_contain_text("not valid (hold is", timeout=MS)
    expect(said).to_contain_text("keep their defaults")
    problem = "window.rhuna.store.snapshot.tables.get('example').onAir.problem"
    page.wait_for_function(f"() => ({problem}) !== null", timeout=MS)
    expect(page.locator("#performance")).to_be_visible()  # card=off not obeyed: the default
    screenshot(gm, "onair-gm-bad-setting")
    tap(gm, "card", {"card": "off"})  # a tap writes a whole good setting from the defaults
    expect(said).to_be_hidden(timeout=MS)
    expect(page.locator("#performance")).to_be_hidden(timeout=MS)


def test_a_viewer_login_cannot_set_the_overlays(tmp_path, browser, rig):
    """The ACL, through a page: gm.html opened with the overlay's login shows the switches but
    its tap is refused by the broker (MQTT 5 PUBACK Not authorized) and said so; nothing is
    set."""
    gm, _, broker = rig
    user, password = broker.login("overlay")
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(broker.url("overlay"))
    expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
    assert switches(page)["card"] == "on"
    page.locator("#onair-card").click()
    expect(page.locator("#onair-said")).to_contain_text("refused", timeout=MS)
    assert switches(page) == {"card": "on", "hold": "false", "skip": "0"}
    assert switches(gm) == {"card": "on", "hold": "false", "skip": "0"}
    assert user == "example.overlay" and password
