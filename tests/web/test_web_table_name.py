"""The pages show the table's name, not its id (issue 41 item 13): the table file's ``[table]
name``, which the service publishes on ``…/info``; the id where the file gives none. In Debian's
Chromium against a real Mosquitto and the real service."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.harness import ROOT
from tests.harness.broker import WAIT
from tests.harness.web import served_table

MS = WAIT * 1000
#: markup in the name: the pages show it as text, never as HTML
NAME = "The kitchen table <b>&amp;</b>"


def test_table_gm_and_wall_pages_show_the_table_files_name(tmp_path, browser, broker):
    example = (ROOT / "examples" / "table.toml").read_text(encoding="utf-8")
    assert 'name = "The example table"' in example
    named = tmp_path / "named.toml"
    named.write_text(
        example.replace('name = "The example table"', f'name = "{NAME}"', 1), encoding="utf-8"
    )
    with served_table(tmp_path / "table", broker, table_file=named):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            page.goto(broker.url("table.html"))
            expect(page.locator("#table-name")).to_have_text(NAME, timeout=MS)
            assert page.locator("#table-name b").count() == 0
            gm = context.new_page()
            gm.goto(broker.url("gm.html"))
            expect(gm.locator("#table-name")).to_have_text(f"{NAME} · WorldKeeper", timeout=MS)
            assert gm.locator("#table-name b").count() == 0
            # the wall too, without a venue roster: the name, not the id ("example")
            wall = context.new_page()
            wall.goto(broker.url("tables.html"))
            heading = wall.locator(".table-card[data-table='example'] .card-name")
            expect(heading).to_have_text(NAME, timeout=MS)
            assert heading.locator("b").count() == 0
        finally:
            context.close()
