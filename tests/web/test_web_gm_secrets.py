"""The WorldKeeper's words reach gm.html from the topics only its login may read, and the public
pages see the stream whole without them (issue 42 item 4).

Mosquitto with the accounts and ACL `rhuna-table accounts` writes (tests.harness.web
.AccountsBroker), the real service, gm.html logged in as ``example.gm`` and overlay.html as
``example.overlay``, in Debian's Chromium. A worldkeeper note and an improvised foe: the gm
page's store has the note's words (from ``…/gm_events``) and the foe on its roster (from
``…/gm``); the overlay's store has the note's wordless stand-in at the same seq, no gap, and
no foe.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import wait_until
from tests.harness.broker import WAIT
from tests.harness.web import AccountsBroker, built_pages, playwright_chromium, served_table

MS = 2 * WAIT * 1000
NOTE = "the lich heard every word"
FOE = "lichling"

#: a page's store, as JSON: the example table's events, gaps and roster
STORE = """() => {
  const t = window.rhuna.store.snapshot.tables.get('example');
  return t ? JSON.stringify({events: t.events, gaps: t.gaps,
                             roster: t.sections.state?.roster ?? null}) : null;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    built_pages()
    with playwright_chromium() as b:
        yield b


@pytest.fixture
def pages(tmp_path: Path, browser: Any) -> Iterator[tuple[Any, Any, Any]]:
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")) as table:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            gm, overlay = context.new_page(), context.new_page()
            gm.goto(broker.url())
            overlay.goto(broker.url("overlay").replace("/gm.html", "/overlay.html"))
            for page in (gm, overlay):
                page.wait_for_selector("#status[data-state='live']", timeout=MS)
                page.wait_for_function(
                    "() => window.rhuna.store.snapshot.tables.get('example')?.sections.state",
                    timeout=MS,
                )
            yield gm, overlay, table
            context.close()
    finally:
        broker.stop()


def store(page: Any) -> Any:
    text = page.evaluate(STORE)
    return json.loads(text) if text else None


def test_gm_html_has_the_worldkeepers_words_and_the_overlay_a_whole_stream_without_them(
    pages,
):
    gm, overlay, table = pages
    table.command({"cmd": "note", "text": NOTE, "audience": "worldkeeper"})
    sheet = {"reflex": 2, "might": 2, "dodge": 1, "parry": 1, "fortitude": 2, "speed": 3}
    table.command({"cmd": "add_combatant", "combatant": FOE, "side": "foes", **sheet})
    table.command({"cmd": "note", "text": "the bridge holds", "audience": "public"})
    newest = table.bridge.seq
    for page in (gm, overlay):
        page.wait_for_function(
            f"() => (window.rhuna.store.snapshot.tables.get('example')?.lastSeq ?? 0) >= {newest}",
            timeout=MS,
        )
    wait_until(lambda: FOE in [c["id"] for c in store(gm)["roster"]], "the foe on gm's roster")
    mine, theirs = store(gm), store(overlay)
    # the gm's page: the note's words, at their seq, and no gap
    notes = [e for e in mine["events"] if e["type"] == "note"]
    assert [e["audience"] for e in notes] == ["worldkeeper", "public"], notes
    assert NOTE in notes[0]["text"] and mine["gaps"] == []
    assert not [e for e in mine["events"] if e["type"] == "withheld"]
    # the overlay's: the same seqs, the note a wordless stand-in, no gap, no foe
    assert [e["seq"] for e in theirs["events"]] == [e["seq"] for e in mine["events"]]
    withheld = [e for e in theirs["events"] if e["type"] == "withheld"]
    assert [e["seq"] for e in withheld] == [notes[0]["seq"], notes[0]["seq"] + 1], withheld
    assert theirs["gaps"] == []
    assert FOE not in [c["id"] for c in theirs["roster"]]
    words = json.dumps(theirs) + overlay.locator("body").inner_text()
    assert NOTE not in words and FOE not in words
