"""The bag audit on gm.html (issue 43 item 4): the WorldKeeper picks a bag, starts its audit,
passes tokens over the reader, sees each read and, at "End audit", the answer in words: seen N of
M, what is missing, what is extra, what belongs to another bag. Nothing is drawn.

Real parts: Mosquitto with the accounts and ACL `rhuna-table accounts` writes (gm.html logs in as
the gm, who alone may read ``…/audit``), the real service with its emulated hub on a pty, the
page in Debian's Chromium at a phone's size. Screenshots: test-artefacts/web/audit-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness import wait_until
from tests.harness.broker import WAIT
from tests.harness.gm import replied
from tests.harness.service import uid_of
from tests.harness.web import PHONE, AccountsBroker, axe, screenshot, scroll_to, served_table

MS = 2 * WAIT * 1000
UNKNOWN = "04DEADBEEF0001"


def test_gm_html_audits_the_favor_bag_and_names_what_is_wrong(tmp_path: Path, browser: Any):
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")) as table:
            phone = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
            gm = phone.new_page()
            errors: list[str] = []
            gm.on("pageerror", lambda e: errors.append(str(e)))
            gm.goto(broker.url())
            gm.wait_for_selector("#status[data-state='live']", timeout=MS)
            svc = table.service
            card = gm.locator("#bag-audit")
            card.locator("select[data-audit-bag] option[value='favor']").wait_for(
                state="attached", timeout=MS
            )
            card.locator("select[data-audit-bag]").select_option("favor")
            card.locator("button[data-send='audit_bag']").click()
            replied(gm, "audit-bag", "ok")
            card.locator(".audit-report[data-running='true']").wait_for(timeout=MS)
            tags = [
                uid_of(svc, "favor.01"),
                uid_of(svc, "favor.02"),
                uid_of(svc, "aria.weight.0"),
                UNKNOWN,
            ]
            for well, tag in enumerate(tags):
                table.hub.lay(well, tag)
            gm.wait_for_function(  # the four reads, as the page's store has them
                "() => { const a = window.rhuna.store.snapshot.tables.get('example')?.audit;"
                " return a && a.seen === 2 && a.extra.length === 1 && a.others.length === 1; }",
                timeout=MS,
            )
            assert card.locator(".audit-count").inner_text() == "Auditing the Favor Bag: 2 of 23"
            scroll_to(card)
            screenshot(gm, "audit-running-gm")
            for well in range(len(tags)):  # passed over, lifted: nothing left on the board
                table.hub.lift(well)
            wait_until(lambda: not svc.readers[0].tags, "the lifts seen by the reader")
            card.locator("button[data-audit-end]").click()
            answer = card.locator(".audit-answer")
            answer.wait_for(timeout=MS)
            assert answer.inner_text() == (
                "⚠ audit of the Favor Bag: 2 of 23 seen, 21 missing, 1 extra, 1 from another bag"
            )
            lines = card.locator(".audit-lines li").all_inner_texts()
            assert len(lines) == 23 and lines[0].endswith("(favor.03)")
            assert f"extra: tag {UNKNOWN} (unknown)" in lines
            assert lines[-1] == (
                "from another bag: Aria's Weight 0 (aria.weight.0), it belongs in Aria's Hero Bag"
            )
            gm.wait_for_selector("#board-sync", state="hidden", timeout=MS)  # in sync at the end
            scroll_to(answer)
            screenshot(gm, "audit-answer-gm")
            found = [v for v in axe(gm) if any("audit" in n for n in v["nodes"])]
            assert found == [], found
            assert svc.loop.state.performance is None  # not play: nothing drawn
            phone.close()
            assert errors == [], errors
    finally:
        broker.stop()
