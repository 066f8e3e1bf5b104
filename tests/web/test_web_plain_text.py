"""table.html shows text as text (issue 45 item 9): a name or a line a journal still holds with
a U+202E (which would turn the text after it around) or an ESC is written as its escape
(``\\u202e``, ``\\x1b``), as ``rhuna-table history`` prints it, and the text around it keeps its
order. The engine refuses such a name now (a command, a table file), so the hand-made table's
retained ``…/state`` and ``…/history`` are published as an older service would have them."""

from __future__ import annotations

import json

from companion.mqtt.messages import state_messages
from companion.mqtt.topics import Topics
from engine import load_table
from engine.view import table_view
from tests.harness import EXAMPLE_TABLE
from tests.harness.broker import WAIT
from tests.harness.web import publish_retained, screenshot

MS = WAIT * 1000
HOSTILE = "Aria \u202etsriF\x1b]0;pwned\x07"
#: what the page shows for it: each unsafe character as its escape, the rest in its order
ESCAPED = "Aria \\u202etsriF\\x1b]0;pwned\\x07"
UNSAFE = ("\u202e", "\x1b", "\x07")


def test_a_name_with_a_bidi_override_shows_escaped_in_its_order(browser, broker):
    view = json.dumps(table_view(load_table(EXAMPLE_TABLE)))
    assert '"Aria"' in view
    view = json.loads(view.replace('"Aria"', json.dumps(HOSTILE)))
    # every retained topic as the service publishes a table_view (…/state, …/heroes/aria …)
    retained = state_messages(view, Topics("rhuna", "hall"))
    entry = {
        "seq": 3, "at": 1_764_000_000.0, "time": "2025-11-24 16:00:00", "source": "stdin",
        "command": "note", "events": [f"Note: {HOSTILE} drew first"], "audiences": ["public"],
        "outcomes": [],
    }  # fmt: skip
    publish_retained(
        broker,
        {
            **retained,
            "rhuna/hall/history": json.dumps({"entries": [entry], "recap": None}),
            "rhuna/hall/status": "online",
        },
    )
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(broker.url("table.html", table="hall", last=5))
    name = page.locator("#heroes .hero[data-hero='aria'] .hero-name")
    name.wait_for(timeout=MS)
    line = page.locator("#history-list .history-item").first
    line.wait_for(timeout=MS)
    shown = name.text_content() or ""
    assert shown == ESCAPED, repr(shown)
    said = line.text_content() or ""
    assert f"Note: {ESCAPED} drew first" in said, repr(said)
    # nothing anywhere on the page carries the characters themselves
    body = page.evaluate("document.body.textContent")
    assert not [c for c in UNSAFE if c in body], repr(body)
    # and the text after the escape is laid out in its order: "tsriF" stays left of "]0;"
    order = page.evaluate(
        """(el) => {
             const text = el.firstChild, at = (s) => {
               const i = text.data.indexOf(s), r = document.createRange();
               r.setStart(text, i); r.setEnd(text, i + s.length);
               return r.getBoundingClientRect().left; };
             return [at("Aria"), at("tsriF"), at("pwned")];
           }""",
        name.element_handle(),
    )
    assert order == sorted(order), order
    screenshot(page, "table-plain-text")
    context.close()
