"""The combat view carries the exact odds of the acting combatant's attack on each foe (C6–C9),
so the panel shows them while the attacker declares (issue 4)."""

from __future__ import annotations

from pathlib import Path

import engine
from companion.cli.replay import read_session
from engine.combat.forecast import attack_forecast
from engine.view import table_view
from tests.harness import ROOT

FIGHT = ROOT / "examples" / "fight.toml"


def states():
    state = engine.load_table(FIGHT)
    for _, cmd in read_session(Path(ROOT / "examples" / "fight.jsonl")):
        state, _ = engine.apply(state, cmd)
        yield state


def test_forecast_is_the_exact_attack_odds_on_every_living_foe_c6_c8_c9():
    checked = 0
    for state in states():
        view = table_view(state)["combat"]
        if view is None or not view["acting"]:
            continue
        attacker = view["acting"][0]
        roster = state.combat.roster
        me = roster[attacker]
        foes = {
            c.id
            for c in roster.values()
            if c.id != attacker and not c.dead and (me.side is None or c.side != me.side)
        }
        assert {f["target"] for f in view["forecast"]} == foes
        for f in view["forecast"]:
            exact = attack_forecast(state, attacker, f["target"])
            assert f["attacker"] == attacker
            assert f["damage"] == round(1 - exact["no_damage"], 4)
            assert f["expected_injuries"] == round(exact["expected_injuries"], 3)
            assert f["death"] == round(exact["death"], 4)
            checked += 1
        token = state.combat.fight.token(attacker)
        if token.aim_target in foes:
            assert view["forecast"][0]["target"] == token.aim_target  # C5: the Aim target first
    assert checked > 5


def test_no_fight_no_forecast(example_state):
    assert table_view(example_state)["combat"] is None
