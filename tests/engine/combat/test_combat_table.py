"""Combat on the table: the table section, rules overrides, JSON, the view, narration,
docs and the replayable example fight (C1–C11)."""

from __future__ import annotations

import json

import pytest

import engine
from companion.cli import main as cli_main
from companion.cli.replay import read_session
from engine import CommandRejected, ConfigError, apply, load_table_text
from engine.combat.forecast import attack_forecast
from engine.combat.odds import attack_odds
from engine.narrate import NARRATORS
from engine.state import TableState
from engine.view import table_view
from engine.vocabulary import REGISTRY
from tests.harness import ROOT
from tests.harness.combat import combatant, fight, sheet

FIGHT_TABLE = ROOT / "examples" / "fight.toml"
FIGHT_SESSION = ROOT / "examples" / "fight.jsonl"
DOC = ROOT / "docs" / "combat.md"

BASE = """
[capabilities]
pathways = ["skill", "lore", "wild"]
[[heroes]]
id = "aria"
pathways = { skill = "control", lore = "versatility", wild = "impulse" }
"""

GOBLIN = """
[[combatants]]
id = "gob"
reflex = 1
might = 2
dodge = 2
parry = 1
fortitude = 1
speed = 4
"""


def replay_example() -> tuple[TableState, list[engine.Event]]:
    state = engine.load_table(FIGHT_TABLE)
    events: list[engine.Event] = []
    for _, cmd in read_session(FIGHT_SESSION):
        state, more = apply(state, cmd)
        events += more
    return state, events


# --- the table section ---------------------------------------------------------------


def test_combatants_section_loads_sheets_weapons_and_armour():
    state = engine.load_table(FIGHT_TABLE)
    aria = combatant(state, "aria")
    assert aria.name == "Aria" and aria.hero == "aria"  # name from the hero
    assert (aria.weapon.name, aria.weapon.damage, aria.weapon.attribute) == ("longbow", 2, "reflex")
    assert (aria.armour.reduction, aria.armour.durability) == (1, 3)
    assert combatant(state, "raider").weapon.injury == "bleeding"
    assert state.combat.fight is None


def test_a_table_without_combatants_has_no_combat(example_state):
    assert example_state.combat is None
    assert table_view(example_state)["combat"] is None


def test_defaults_fill_a_combatant_without_weapon_armour_or_name():
    gob = combatant(load_table_text(BASE + GOBLIN), "gob")
    assert gob.name == "Gob" and gob.weapon.damage == 1 and gob.weapon.name == "unarmed"
    assert gob.armour.reduction == 0


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ('[[combatants]]\nid = "x"\nreflex = 1', "add might"),
        (GOBLIN + "colour = 'green'", "combatants[0].colour: unknown key — [[combatants]] takes:"),
        (GOBLIN.replace("might = 2", "might = -1"), "might must be a whole number"),
        (GOBLIN + "weapon = { damage = 1, injury = 'bruise' }", "weapon.injury = 'bruise'"),
        (GOBLIN + "hero = 'zed'", "not a hero of this table"),
        (GOBLIN + GOBLIN, "'gob' is used twice"),
        ("combatants = 3", "must be a list"),
        ("[rules.combat.attack]\nties_to = 'nobody'", "rules.combat.attack.ties_to"),
        ("[rules.combat.costs]\naim = 0", "at least 1 tick"),
        # a physical wheel cannot move a token more than one turn: time would run ahead of it
        ("[rules.combat.costs]\ndash = 7", "rules.combat.costs.dash = 7"),
        ("[rules.combat]\nwheel_ticks = 2", "rules.combat.costs.attack = 3"),
        ("[rules.combat.conditions.prone]\nblocks = ['fly']", "'fly' is not an action"),
        # numbers the engine cannot play: refused at load, not a traceback mid-fight
        ("[rules.combat.attack]\nguard_dice = -1", "rules.combat.attack.guard_dice = -1"),
        ("[rules.combat.aim]\nbonus_per_tick = -2", "rules.combat.aim.bonus_per_tick = -2"),
        ("[rules.combat.aim]\nmax_ticks = -1", "rules.combat.aim.max_ticks = -1"),
        (
            "[rules.combat.attack]\ndamage_dice_per_success = -1",
            "rules.combat.attack.damage_dice_per_success = -1",
        ),
        (
            "[rules.combat.conditions.fatigued]\nmax_level = 0",
            "rules.combat.conditions.fatigued.max_level = 0",
        ),
        (
            "[rules.combat.injuries.sprained]\nspeed_divisor = 0",
            "rules.combat.injuries.sprained.speed_divisor = 0",
        ),
    ],
)
def test_a_broken_combatants_section_names_the_key_and_the_fix(extra, needle):
    text = extra + BASE if extra.startswith("combatants =") else BASE + extra
    with pytest.raises(ConfigError) as e:
        load_table_text(text, "t.toml")
    assert needle in str(e.value) and str(e.value).startswith("t.toml")


def test_c11_a_table_may_start_renown_below_zero():
    state = load_table_text(BASE + GOBLIN + "[rules.combat.renown]\nstart = -2\n")
    assert combatant(state, "gob").renown == -2


def test_c1_a_table_may_override_action_costs():
    state = load_table_text(
        BASE + GOBLIN + GOBLIN.replace('"gob"', '"orc"') + "[rules.combat.costs]\nattack = 4\n"
    )
    state, _ = apply(state, {"cmd": "start_combat", "initiative": {"gob": [6], "orc": [1]}})
    state, events = apply(
        state, {"cmd": "act", "combatant": "gob", "action": "attack", "target": "orc", "seed": 1}
    )
    assert next(e for e in events if e.type == "token_moved")["cost"] == 4


# --- start_combat refusals -----------------------------------------------------------


def test_start_combat_refusals(example_state):
    with pytest.raises(CommandRejected) as e:
        apply(example_state, {"cmd": "start_combat", "add": [sheet("a")], "seed": 1})
    assert "at least two" in e.value.violation.message
    with pytest.raises(CommandRejected) as e:
        apply(example_state, {"cmd": "start_combat", "add": [{"id": "a"}], "seed": 1})
    assert e.value.violation.code == "malformed" and e.value.violation.field == "add"
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [2], "b": [1]})
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "start_combat", "seed": 1})
    assert e.value.violation.rule == "C2"
    s, _ = apply(s, {"cmd": "end_combat"})
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "start_combat", "combatants": ["a", "zz"], "seed": 1})
    assert e.value.violation.code == "unknown"
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "start_combat", "initiative": {"q": [1]}, "seed": 1})
    assert e.value.violation.rule == "C3"
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "start_combat", "add": [sheet("a")], "seed": 1})
    assert "already exists" in e.value.violation.message


def test_c9_the_dead_do_not_join_the_next_fight(example_state):
    s = fight(
        example_state, sheet("a"), sheet("b"), sheet("c"), initiative={"a": [3], "b": [2], "c": [1]}
    )
    s, _ = apply(s, {"cmd": "injure", "combatant": "c", "type": "burned", "hits": 5})
    s, _ = apply(s, {"cmd": "end_combat"})
    s, events = apply(s, {"cmd": "start_combat", "seed": 4})
    assert events[0]["combatants"] == ["a", "b"]
    with pytest.raises(CommandRejected) as e:
        apply(
            apply(s, {"cmd": "end_combat"})[0],
            {"cmd": "start_combat", "combatants": ["a", "c"], "seed": 1},
        )
    assert e.value.violation.rule == "C9"


# --- JSON, view, odds ------------------------------------------------------------------


def test_json_round_trip_of_a_state_in_the_middle_of_a_fight_is_identity():
    state, _ = replay_example()
    mid = engine.load_table(FIGHT_TABLE)
    for _, cmd in read_session(FIGHT_SESSION)[:20]:
        mid, _ = apply(mid, cmd)
    for s in (state, mid):
        data = json.loads(json.dumps(s.to_json()))
        assert TableState.from_json(data) == s
    assert mid.combat.fight is not None and mid.history


def test_view_has_the_keys_the_display_builds_on():
    state = engine.load_table(FIGHT_TABLE)
    state, _ = apply(state, {"cmd": "start_combat", "seed": 3})
    state, _ = apply(
        state, {"cmd": "injure", "combatant": "raider", "type": "sprained", "detail": "leg"}
    )
    view = table_view(state)["combat"]
    assert {"round", "tick", "acting", "combatants"} <= set(view)
    assert view["round"] == 1 and 1 <= view["tick"] <= 6 and view["acting"]
    keys = {
        "id",
        "name",
        "tick",
        "initiative",
        "injuries",
        "injury_list",
        "conditions",
        "armour",
        "aim",
        "guarding",
        "dead",
    }
    for c in view["combatants"]:
        assert keys <= set(c)
    raider = next(c for c in view["combatants"] if c["id"] == "raider")
    assert raider["injury_list"] == [
        {"type": "sprained", "hits": 1, "detail": "leg", "source": None}
    ]
    assert raider["speed"] == 3 and raider["armour"]["reduction"] == 1
    assert sum(len(v) for v in view["wheel"].values()) == 4
    json.dumps(view)  # plain JSON


def test_forecast_reads_pools_guard_and_aim_from_the_table(example_state):
    s = fight(
        example_state,
        sheet("a", might=3, weapon={"damage": 2}),
        sheet("b", dodge=2, fortitude=2, armour={"reduction": 1, "durability": 1}),
        initiative={"a": [6], "b": [1]},
    )
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    s, _ = apply(s, {"cmd": "act", "combatant": "b", "action": "guard"})
    f = attack_forecast(s, "a", "b")
    assert (f["attack"], f["defense"], f["guard"], f["aim_bonus"], f["armour"]) == (3, 2, 1, 4, 1)
    want = attack_odds(3, 2, damage=2, fortitude=2, guard=1, aim_bonus=4, armour=1)
    assert f["injuries"] == [float(p) for p in want.injuries]
    assert f["death"] == float(want.at_least(5))


# --- narration, docs, the example fight --------------------------------------------------

COMBAT_EVENTS = {
    "combat_started",
    "initiative_rolled",
    "rolled_off",
    "tokens_placed",
    "combat_turn",
    "combat_round",
    "injury_save_prompt",
    "aimed",
    "aim_lost",
    "attack_resolved",
    "damage_resolved",
    "combatant_injured",
    "combatant_died",
    "guarding",
    "moved",
    "token_moved",
    "injuries_healed",
    "condition_added",
    "condition_removed",
    "renown_changed",
    "combat_ended",
}


def test_every_combat_event_has_a_narrator_and_the_example_uses_most():
    assert set(NARRATORS) >= COMBAT_EVENTS
    _, events = replay_example()
    seen = {e.type for e in events}
    assert seen <= COMBAT_EVENTS
    assert COMBAT_EVENTS - seen == {"injuries_healed"}


def test_the_example_fight_replays_bit_for_bit():
    s1, e1 = replay_example()
    s2, e2 = replay_example()
    assert s1 == s2 and e1 == e2
    assert combatant(s1, "raider").dead and s1.combat.fight is None


def test_rhuna_table_replay_runs_the_example_fight(capsys):
    assert cli_main(["replay", str(FIGHT_TABLE), str(FIGHT_SESSION)]) == 0
    out = capsys.readouterr().out
    assert "Raider dies" in out and "roll-off 1: Aria" in out and "Fight 1 ends" in out


def test_rhuna_table_replay_reports_a_refused_combat_command(tmp_path, capsys):
    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"cmd":"start_combat","seed":1}\n{"cmd":"act","combatant":"raider","action":"dash"}\n'
    )
    assert cli_main(["replay", str(FIGHT_TABLE), str(session)]) == 1
    assert "[C4]" in capsys.readouterr().out


def test_docs_and_rules_name_every_combat_interpretation():
    text = DOC.read_text("utf-8")
    rules = (ROOT / "engine" / "data" / "rules.toml").read_text("utf-8")
    for rid in (
        "I-C3",
        "I-C3a",
        "I-C5",
        "I-C5a",
        "I-C6",
        "I-C6a",
        "I-C7",
        "I-C8",
        "I-C8a",
        "I-C9a",
        "I-C9b",
        "I-C10a",
    ):
        assert rid in text and rid in rules, rid


def test_combat_commands_are_in_the_json_schema():
    names = {v["title"] for v in engine.json_schema()["oneOf"]}
    assert {n for n, (s, _) in REGISTRY.items() if s.group == "combat"} <= names
