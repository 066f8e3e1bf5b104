"""Physical dice on gm.html's Combat tab are never half asked (issue 41 item 2; C6, C8).

With ATTACK and DEFENSE dice typed in and DAMAGE and FORTITUDE left blank, the remote used to
send a seed and the service rolled the rest itself: the group never saw how many damage dice to
roll. Now the remote sends no seed; on a hit the engine's refusal names the DAMAGE roll and its
count, and the remote asks for it and for the FORTITUDE roll (the view's count) before anything
is rolled. "Let the table roll the rest" sends the seed, said in words.

test_web_gm's rig: Mosquitto with the accounts' ACL, the real service, Chromium at 390×844.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine
from companion.record.journal import open_journal
from engine.view import table_view
from tests.harness.broker import WAIT
from tests.harness.gm import replied, state, tab
from tests.harness.web import screenshot

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    from tests.harness import missing_real_part

    missing_real_part("Playwright (pip package playwright, in the test extras)")


MS = 2 * WAIT * 1000
FOE = {"reflex": 1, "might": 2, "dodge": 1, "parry": 1, "fortitude": 3, "speed": 4, "damage": 2}


def _fight(table: Any) -> None:
    """Gob (a foe) and Rat (a hero's side); Gob's initiative first, Gob's turn."""
    table.command({"cmd": "add_combatant", "combatant": "gob", "side": "foes", **FOE})
    table.command({"cmd": "add_combatant", "combatant": "rat", "side": "heroes", **FOE})
    table.command(
        {
            "cmd": "start_combat",
            "combatants": ["gob", "rat"],
            "initiative": {"gob": [6], "rat": [1]},
        }
    )


def _acts(tmp_path: Path) -> list[Any]:
    """The journal's `act` entries (the service's own record)."""
    with open_journal(tmp_path / "svc" / "state" / "journal.sqlite") as journal:
        return [e for e in journal.entries() if e.command.get("cmd") == "act"]


def _type_the_attack(page: Any, before: Any) -> Any:
    tab(page, "combat")
    card = page.locator(".card[data-acting='gob']")
    card.wait_for(timeout=MS)
    card.locator("select[name='action']").select_option("attack")
    card.locator("select[name='target']").select_option("rat")
    card.locator("summary:has-text('Physical dice')").click()
    # a hit whatever the pools: every ATTACK die a 6, every DEFENSE die a 1
    attack = {"cmd": "act", "combatant": "gob", "action": "attack", "target": "rat"}
    pools = _counts(before, attack)
    card.locator("input[name='attack_dice']").fill(" ".join(["6"] * pools["attack_dice"]))
    card.locator("input[name='defense_dice']").fill(" ".join(["1"] * pools["defense_dice"]))
    return card


def _counts(st: Any, cmd: dict[str, Any]) -> dict[str, int]:
    """How many ATTACK and DEFENSE dice the engine asks for (its refusals' counts)."""
    counts: dict[str, int] = {}
    for field in ("attack_dice", "defense_dice"):
        try:
            engine.apply(st, cmd)
        except engine.CommandRejected as e:
            assert e.violation.field == field, e.violation
            n = int(e.violation.message.rsplit("roll ", 1)[1].split()[0])
            counts[field] = n
            cmd = {**cmd, field: [6 if field == "attack_dice" else 1] * n}
    return counts


def test_typed_dice_ask_for_damage_and_fortitude_with_their_counts(
    rig: Any, tmp_path: Path
) -> None:
    page, table, _ = rig
    _fight(table)
    before = state(table)
    card = _type_the_attack(page, before)
    card.locator("button:has-text('Act: Gob')").click()
    replied(page, "act", expect="refused")
    # nothing rolled, nothing taken: the engine's state is the one before
    assert state(table).combat == before.combat
    assert _acts(tmp_path) == []
    # the engine's own words for the DAMAGE roll, with its count; FORTITUDE's count from the view
    typed = {
        "cmd": "act",
        "combatant": "gob",
        "action": "attack",
        "target": "rat",
        "attack_dice": [6] * len(card.locator("input[name='attack_dice']").input_value().split()),
        "defense_dice": [1] * len(card.locator("input[name='defense_dice']").input_value().split()),
    }
    try:
        engine.apply(before, typed)
        raise AssertionError("the engine took an attack with its DAMAGE dice missing")
    except engine.CommandRejected as e:
        damage = e.violation
    assert damage.field == "damage_dice" and "roll " in damage.message, damage
    [rat] = [c for c in table_view(before)["combat"]["combatants"] if c["id"] == "rat"]
    fortitude = rat["fortitude_dice"]
    ask = card.locator(".dice-ask")
    expect(ask).to_be_visible(timeout=MS)
    expect(ask.locator("li")).to_have_text(
        [damage.message, f"the FORTITUDE roll (Rat): roll {fortitude} dice"]
    )
    assert damage.message.startswith("the DAMAGE roll ("), damage.message
    expect(card.locator("input[name='damage_dice']")).to_be_focused()
    screenshot(page, "gm-dice-ask")
    # the group rolls them and types them in: the attack is taken, nothing rolled by the service
    n = int(damage.message.rsplit("roll ", 1)[1].split()[0])
    card.locator("input[name='damage_dice']").fill(" ".join(["6"] * n))
    card.locator("input[name='fortitude_dice']").fill(" ".join(["1"] * fortitude))
    card.locator("button:has-text('Act: Gob')").click()
    replied(page, "act")
    [entry] = _acts(tmp_path)
    assert "seed" not in entry.command, entry.command
    assert entry.command["damage_dice"] == [6] * n
    assert entry.command["fortitude_dice"] == [1] * fortitude
    rolled = [e.data["rolled"] for e in entry.events if "rolled" in e.data]
    assert rolled == [[], []], rolled


def test_let_the_table_roll_the_rest_sends_the_seed_said_in_words(rig: Any, tmp_path: Path) -> None:
    page, table, _ = rig
    _fight(table)
    card = _type_the_attack(page, state(table))
    card.locator("button:has-text('Let the table roll the rest')").click()
    replied(page, "act")
    [entry] = _acts(tmp_path)
    assert isinstance(entry.command.get("seed"), int), entry.command
    rolled = [e.data["rolled"] for e in entry.events if "rolled" in e.data]
    assert rolled == [[], ["damage", "fortitude"]], rolled
