"""gm.html says only the truth (issue 41): a negative token is `-1`, never `+-1`; an outcome line
names its heroes; the Time tab names a prompt in words and shows a Full Rest's choices once.

The same rig as test_web_gm: Mosquitto with the accounts' ACL, the real service, Chromium on a
phone-size screen.
"""

from __future__ import annotations

from typing import Any

from tests.harness.broker import WAIT
from tests.harness.gm import replied, state, tab
from tests.harness.web import axe, screenshot, scroll_to

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


def test_a_full_rest_prompt_is_named_in_words_and_its_choices_shown_once(rig: Any) -> None:
    page, table, _ = rig
    # T1, T7, T8: a Safe Rest; four Minor draws (the Major between) ask the Full Rest choice
    table.command({"cmd": "start_session", "bag": "overworld", "seed": 1})
    table.command({"cmd": "begin_rest", "kind": "safe"})
    seed = 1
    while not any(p.kind == "full_rest" for p in state(table).time.prompts):
        assert seed < 40, "no Full Rest prompt after 40 draws"
        table.command({"cmd": "draw_time", "seed": seed, "resolve": True})
        seed += 1
    [prompt] = [p for p in state(table).time.prompts if p.kind == "full_rest"]
    tab(page, "time")
    card = page.locator(f".card[data-prompt='{prompt.id}']")
    card.wait_for(timeout=MS)
    title = card.locator("h3").first.inner_text()
    assert title == f"Full Rest (prompt {prompt.id})", title
    assert "· full_rest" not in page.locator("#time-panel").inner_text()
    # each resting hero's two choices, once on the whole tab: on the prompt's card
    resting = state(table).time.rest.resting()
    assert resting
    panel = page.locator("#time-panel")
    assert panel.locator("button:has-text('all Fatigue')").count() == len(resting)
    assert card.locator("button:has-text('all Fatigue')").count() == len(resting)
    scroll_to(card)
    screenshot(page, "gm-truth-full-rest")
    card.locator("button:has-text('all Fatigue')").first.click()
    replied(page, f"prompt-{prompt.id}")


def test_every_capability_is_offered_with_its_level_and_exert_only_where_allowed(rig: Any) -> None:
    """Issue 41 item 3: the declare card offered only the sheet's Training keys, so Exert and an
    untrained Presence or Sense could not be declared from the remote (P2, P4, P9)."""
    page, table, _ = rig
    table.command({"cmd": "begin_performance", "difficulty": 4})
    card = page.locator("#performance-panel .dock[data-hero='aria']")  # the declare's dock
    card.wait_for(timeout=MS)
    capability = card.locator("select[name='capability']")
    offered = capability.locator("option").all_inner_texts()
    hero = state(table).heroes["aria"]
    caps = list(state(table).capabilities)
    # the sheet's Training first, then every other capability, Untrained (table order in each)
    trained = [c for c in caps if c in hero.training]
    untrained = [c for c in caps if c not in hero.training]
    assert offered == [f"{c} ({hero.training_in(c).value})" for c in trained + untrained]
    assert "charm (untrained)" in offered and "skill (adept)" in offered
    exert = card.locator("input[name='exert']")
    capability.select_option("skill")
    assert exert.is_disabled()
    assert "[P9]" in (card.locator("label.check").get_attribute("title") or "")
    screenshot(page, "gm-truth-declare-trained")
    assert axe(page) == []  # the greyed Exert is an inactive control (WCAG 1.4.3's exception)
    # an untrained Presence, Exerted: the engine takes it
    capability.select_option("charm")
    assert exert.is_enabled()
    exert.check()
    card.locator("button[data-action='target']").click()
    screenshot(page, "gm-truth-declare-exert")
    card.locator("button:has-text('Declare Aria')").click()
    replied(page, "declare-aria")
    [c] = state(table).performance.contributions
    assert (c.capability, c.training.value, c.exert) == ("charm", "untrained", True)
