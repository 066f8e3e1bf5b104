"""gm.html says only the truth (issue 41): a negative token is `-1`, never `+-1`; an outcome line
names its heroes; the Time tab names a prompt in words and shows a Full Rest's choices once.

The same rig as test_web_gm: Mosquitto with the accounts' ACL, the real service, Chromium on a
phone-size screen.
"""

from __future__ import annotations

from typing import Any

from tests.harness.broker import WAIT
from tests.harness.web import screenshot
from tests.web import test_web_gm as gm

# test_web_gm's own rig (and its module's Chromium): the accounts' broker, the service, a phone
browser, rig = gm.browser, gm.rig
replied, state, tab = gm.replied, gm.state, gm.tab

MS = 2 * WAIT * 1000


def test_a_negative_token_reads_minus_and_the_outcome_names_the_hero(rig: Any) -> None:
    page, table, _ = rig
    # P16: under Weight LIGHT a printed 2 is worth -1
    table.command({"cmd": "begin_performance", "difficulty": 3, "weight": "light"})
    table.command(
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        }
    )
    table.command({"cmd": "draw", "hero": "aria", "token": "aria.weight.2"})
    [drawn] = state(table).performance.contributions[0].drawn
    assert drawn == "aria.weight.2"
    item = page.locator(".card:has-text('Aria:') ul.drawn li").first
    page.wait_for_function(
        "() => /weight/i.test(document.querySelector('ul.drawn li')?.textContent ?? '')",
        timeout=MS,
    )
    text = item.inner_text()
    assert "+-" not in text, text
    assert text.endswith(" -1"), text
    # P19: the outcome line says whose it is
    seed = 1
    while state(table).performance.contributions[0].draws_left > 0:
        table.command({"cmd": "draw", "hero": "aria", "seed": seed})
        seed += 1
    table.command({"cmd": "resolve"})
    outcome = page.locator("#performance-panel .outcome").first
    outcome.wait_for(timeout=MS)
    line = outcome.inner_text()
    assert line.startswith("Aria · "), line
    assert line.split(" · ")[1] in ("SUCCESS", "FAILURE"), line
    screenshot(page, "gm-truth-outcome")
