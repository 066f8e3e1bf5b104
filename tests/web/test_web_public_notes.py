"""A public note is shown where gm.html's label promises, "Public (stream, wall)" (issue 41
item 5): on the overlay and on the table's card of the wall, one line, for three minutes
(web/src/notes.ts, docs/web.md); a worldkeeper-only note never is.

Mosquitto with the accounts and ACL ``rhuna-table accounts`` writes
(tests.harness.web.AccountsBroker), the real service, overlay.html logged in as
``example.overlay`` and tables.html as ``wall``, in Debian's Chromium. The notes are taken by
the service as gm.html's are (the ``note`` command); the worldkeeper ones never reach a
public login (issue 42 item 4), and the page shows none of their words either way.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import ARTEFACTS, AccountsBroker, address, axe, painted, served_table

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (the test extras)")

MS = 2 * WAIT * 1000
SECRET = "the lich heard every word"
LATER = "the lich waits under the bridge"
PUBLIC = "the bridge holds"
#: web/src/notes.ts NOTE_SHOWN_MS, in seconds
SHOWN_S = 180


class Rig:
    def __init__(self, broker: AccountsBroker, table: Any, context: Any) -> None:
        self.broker, self.table, self.context = broker, table, context

    def overlay(self) -> Any:
        page = self.context.new_page()
        page.goto(self.broker.url("overlay").replace("/gm.html", "/overlay.html"))
        page.wait_for_selector("#status[data-state='live']", timeout=MS)
        return page

    def wall(self) -> Any:
        ws = self.broker.ws_port
        assert self.broker.accounts.wall is not None
        url = address(
            f"http://127.0.0.1:{ws}/tables.html",
            {"broker": f"ws://127.0.0.1:{ws}/", "username": "wall",
             "password": self.broker.accounts.wall},
        )  # fmt: skip
        page = self.context.new_page()
        page.goto(url)
        expect(page.locator('.table-card[data-table="example"]')).to_have_attribute(
            "data-state", "live", timeout=MS
        )
        return page

    def note(self, text: str, audience: str, *pages: Any) -> None:
        """Take a note, and wait until every page's store has its seq (its stand-in's too)."""
        self.table.command({"cmd": "note", "text": text, "audience": audience})
        seq = self.table.bridge.seq
        for page in pages:
            page.wait_for_function(
                f"() => (window.rhuna.store.snapshot.tables.get('example')?.lastSeq ?? 0) >= {seq}",
                timeout=MS,
            )
            painted(page)


@pytest.fixture
def rig(tmp_path: Path, browser: Any) -> Iterator[Rig]:
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")) as table:
            context = browser.new_context(viewport={"width": 1920, "height": 1080})
            yield Rig(broker, table, context)
            context.close()
    finally:
        broker.stop()


def words(page: Any) -> str:
    return page.locator("body").inner_text()


def test_a_public_note_is_on_the_overlay_and_the_wall_card_a_worldkeeper_note_never(rig):
    overlay, wall = rig.overlay(), rig.wall()
    note = overlay.locator(".public-note")
    card = wall.locator('.table-card[data-table="example"] .card-note')
    rig.note(SECRET, "worldkeeper", overlay, wall)
    expect(note).to_be_hidden()
    expect(card).to_have_count(0)
    assert SECRET not in words(overlay) and SECRET not in words(wall)

    rig.note(PUBLIC, "public", overlay, wall)
    expect(note).to_be_visible(timeout=MS)
    expect(note).to_have_text(f"Note: {PUBLIC}")
    expect(card).to_have_text(f"Note: {PUBLIC}", timeout=MS)
    # one line of the card, whole (the wall's fit: never cut, never wrapped)
    assert card.evaluate("e => e.scrollWidth <= e.clientWidth && e.getClientRects().length === 1")
    overlay.screenshot(path=str(ARTEFACTS / "overlay-public-note.png"))
    wall.screenshot(path=str(ARTEFACTS / "wall-public-note.png"))
    assert not axe(overlay), "the overlay's note line keeps WCAG 2.2 AA"

    # a worldkeeper note after it: the public one stays, the secret never shows
    rig.note(LATER, "worldkeeper", overlay, wall)
    expect(note).to_have_text(f"Note: {PUBLIC}")
    expect(card).to_have_text(f"Note: {PUBLIC}")
    for page in (overlay, wall):
        assert SECRET not in words(page) and LATER not in words(page)

    # three minutes after the table took it, it is gone (the clock moved, the timers run on)
    for page in (overlay, wall):
        page.clock.set_fixed_time(time.time() + SHOWN_S - 20)
        painted(page)
    expect(note).to_have_text(f"Note: {PUBLIC}")
    expect(card).to_have_count(1)
    for page in (overlay, wall):
        page.clock.set_fixed_time(time.time() + SHOWN_S + 5)
    expect(note).to_be_hidden(timeout=MS)
    expect(card).to_have_count(0, timeout=MS)


def test_a_wall_opened_after_the_note_shows_it_from_the_retained_history(rig):
    """The wall follows the retained ``…/history``: a note taken before it opened is on the
    card from the first paint, for what is left of its three minutes; the worldkeeper note
    taken after it (its row on the public ``…/history`` has no words) is not."""
    rig.table.command({"cmd": "note", "text": PUBLIC, "audience": "public"})
    rig.table.command({"cmd": "note", "text": SECRET, "audience": "worldkeeper"})
    rig.table.command({"cmd": "note", "text": "for the table only", "audience": "table"})
    wall = rig.wall()
    card = wall.locator('.table-card[data-table="example"] .card-note')
    expect(card).to_have_text(f"Note: {PUBLIC}", timeout=MS)
    assert (
        wall.evaluate("() => window.rhuna.store.snapshot.tables.get('example').events.length") == 0
    ), "from the retained history, not a live event"
    text = words(wall)
    assert SECRET not in text and "for the table only" not in text
    wall.clock.set_fixed_time(time.time() + SHOWN_S + 5)
    expect(card).to_have_count(0, timeout=MS)
