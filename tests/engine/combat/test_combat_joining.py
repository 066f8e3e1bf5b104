"""A combatant added during the session, and joining a fight already running (C2, C3, C4, I-C3b)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from engine import CommandRejected, apply
from engine.narrate import describe
from engine.table import load_table_text
from engine.view import table_view
from settings.errors import ConfigError
from tests.harness import EXAMPLE_TABLE
from tests.harness.combat import acting, combatant, fight, sheet, token

GOB = {
    "cmd": "add_combatant",
    "combatant": "gob",
    "side": "foes",
    "reflex": 1,
    "might": 2,
    "dodge": 1,
    "parry": 1,
    "fortitude": 2,
    "speed": 4,
    "weapon": "knife",
    "damage": 1,
    "injury": "bleeding",
}


@pytest.fixture
def running(example_state):
    """a on tick 1 (initiative 11), b on tick 2 (initiative 3); a acts now."""
    return fight(
        example_state, sheet("a", reflex=2), sheet("b"), initiative={"a": [6, 5], "b": [3]}
    )


def placement(state):
    return [(t.combatant, t.time, t.initiative) for t in state.combat.fight.tokens]


def refused(state, cmd):
    with pytest.raises(CommandRejected) as e:
        apply(state, cmd)
    return e.value.violation


def test_c2_an_improvised_foe_joins_the_roster_with_the_sheet_of_a_table_file_combatant(
    example_state,
):
    s, events = apply(example_state, {**GOB, "armour": "hide", "reduction": 1, "durability": 2})
    gob = combatant(s, "gob")
    assert (gob.name, gob.side, gob.reflex, gob.speed) == ("Gob", "foes", 1, 4)
    assert (gob.weapon.name, gob.weapon.damage, gob.weapon.injury) == ("knife", 1, "bleeding")
    assert (gob.armour.name, gob.armour.reduction, gob.armour.durability) == ("hide", 1, 2)
    assert [e.type for e in events] == ["combatant_added"] and events[0]["rule"] == "C2"
    assert describe(s, events[0]) == "Gob joins the roster (foes)"
    roster = {c["id"]: c for c in table_view(s)["roster"]}
    assert roster["gob"]["name"] == "Gob" and roster["gob"]["in_fight"] is False
    # the next fight takes it like any combatant of the roster
    s, _ = apply(
        s,
        {
            "cmd": "add_combatant",
            **{k: v for k, v in GOB.items() if k != "cmd"},
            "combatant": "gob2",
        },
    )
    s, _ = apply(s, {"cmd": "start_combat", "initiative": {"gob": [2], "gob2": [5]}})
    assert [t.combatant for t in s.combat.fight.tokens] == ["gob2", "gob"]


def test_i_c3b_a_newcomer_waits_on_the_tick_after_the_one_now_acting(running):
    assert acting(running) == ["a"]
    s, events = apply(running, {**GOB, "join": True, "initiative": [4]})
    # initiative 4: after a (11), before b (3); on tick 2, so a's turn is not cut
    assert placement(s) == [("a", 1, 11), ("gob", 2, 4), ("b", 2, 3)]
    assert acting(s) == ["a"]
    view = table_view(s)
    assert view["combat"]["wheel"]["2"] == ["gob", "b"]
    assert {c["id"]: c["in_fight"] for c in view["roster"]}["gob"] is True
    assert [e.type for e in events] == ["combatant_added", "initiative_rolled", "combatant_joined"]
    joined = events[-1]
    assert (joined["tick"], joined["round"], joined["initiative"], joined["rule"]) == (
        2,
        1,
        4,
        "I-C3b",
    )
    assert describe(s, joined) == "Gob joins fight 1 with initiative 4: waits on round 1, tick 2"
    # C4: once a has acted, the newcomer acts in its turn, before b (I-C3: higher initiative)
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert acting(s) == ["gob", "b"]
    s, _ = apply(
        s, {"cmd": "act", "combatant": "gob", "action": "attack", "target": "b", "seed": 3}
    )
    assert token(s, "gob").time == 5 and acting(s) == ["b"]


def test_i_c3b_on_a_shared_tick_equal_initiative_goes_after_the_token_already_there(running):
    s, events = apply(running, {**GOB, "join": True, "initiative": [3]})
    assert placement(s) == [("a", 1, 11), ("b", 2, 3), ("gob", 2, 3)]
    assert "rolled_off" not in [e.type for e in events]  # no roll-off with a placed fight


def test_i_c3b_the_delay_is_rules_data(example_state):
    table = EXAMPLE_TABLE.read_text() + "\n[rules.combat.joining]\ndelay_ticks = 0\n"
    state = load_table_text(table, "t.toml", EXAMPLE_TABLE.parent)
    s = fight(state, sheet("a", reflex=2), sheet("b"), initiative={"a": [6, 5], "b": [3]})
    s, _ = apply(s, {**GOB, "join": True, "initiative": [2]})
    assert placement(s)[-1] == ("gob", 1, 2)  # on the tick now acting, after a (I-C3)
    assert acting(s) == ["a", "gob"]


def test_i_c3b_a_delay_past_the_wheel_is_refused_when_the_table_loads():
    table = EXAMPLE_TABLE.read_text() + "\n[rules.combat.joining]\ndelay_ticks = 7\n"
    from settings.errors import ConfigError

    with pytest.raises(ConfigError, match=r"rules.combat.joining.delay_ticks = 7 \[I-C3b\]"):
        load_table_text(table, "t.toml", EXAMPLE_TABLE.parent)


def test_c3_join_combat_brings_in_a_roster_combatant_with_seeded_dice_the_same_each_time(running):
    s, _ = apply(running, GOB)
    one, e1 = apply(s, {"cmd": "join_combat", "combatant": "gob", "seed": 11})
    two, e2 = apply(s, {"cmd": "join_combat", "combatant": "gob", "seed": 11})
    assert one == two and [e.data for e in e1] == [e.data for e in e2]
    rolled = e1[0]
    assert rolled.type == "initiative_rolled" and rolled["rolled"] and len(rolled["dice"]) == 1
    assert token(one, "gob").time == 2


@pytest.mark.parametrize(
    ("setup", "cmd", "rule", "field"),
    [
        # C3: dice are entered or rolled from a seed; neither → refused, naming the count
        ("roster", {"cmd": "join_combat", "combatant": "gob"}, "C3", "initiative"),
        (
            "roster",
            {"cmd": "join_combat", "combatant": "gob", "initiative": [7]},
            "C3",
            "initiative",
        ),
        (
            "roster",
            {"cmd": "join_combat", "combatant": "gob", "initiative": [2, 2]},
            "C3",
            "initiative",
        ),
        # C2: a token already on the wheel cannot join again
        ("roster", {"cmd": "join_combat", "combatant": "a", "seed": 1}, "C2", "combatant"),
        ("roster", {**GOB, "combatant": "a"}, "C2", "combatant"),
        ("none", {**GOB, "join": True, "seed": 1}, "C2", "join"),
        ("none", {"cmd": "join_combat", "combatant": "a", "seed": 1}, "C2", None),
        # C9: the sheet's injury type must be one the rules know
        ("roster", {**GOB, "combatant": "gob2", "injury": "bruise"}, "C9", "injury"),
    ],
)
def test_a_refused_join_names_its_rule_and_field_and_changes_nothing(
    running, example_state, setup, cmd, rule, field
):
    state = running if setup == "roster" else example_state
    if setup == "roster":
        state, _ = apply(state, GOB)
    before = copy.deepcopy(state)
    v = refused(state, cmd)
    assert (v.rule, v.field) == (rule, field)
    assert state == before


def test_c9_the_dead_do_not_join(running):
    s, _ = apply(running, GOB)
    dead = replace(s.combat.roster["gob"], dead=True)
    s = replace(s, combat=s.combat.with_combatant(dead))
    v = refused(s, {"cmd": "join_combat", "combatant": "gob", "seed": 1})
    assert v.rule == "C9"


def test_a_sheet_field_out_of_range_is_refused_by_name(example_state):
    v = refused(example_state, {**GOB, "might": -1})
    assert v.field == "might"
    v = refused(example_state, {**GOB, "combatant": "g.1"})
    assert v.field == "combatant"


def test_initiative_without_join_is_a_mistake_not_ignored(running):
    v = refused(running, {**GOB, "initiative": [3]})
    assert v.field == "initiative" and "join" in (v.fix or "")


def test_undo_takes_back_the_newcomer_and_its_token(running):
    s, _ = apply(running, {**GOB, "join": True, "initiative": [4]})
    back, events = apply(s, {"cmd": "undo"})
    assert back.combat == running.combat and events[0].type == "undone"


def test_c9_c10_the_view_names_the_injury_types_and_conditions_a_remote_offers(example_state):
    terms = table_view(example_state)["combat_terms"]
    assert "bleeding" in terms["injuries"] and "prone" in terms["conditions"]
    s, _ = apply(example_state, {**GOB, "injury": terms["injuries"][-1]})  # each one is accepted
    assert combatant(s, "gob").weapon.injury == terms["injuries"][-1]


def _full(state):
    """``state`` with its roster filled to ``limits.roster`` by add_combatant."""
    most = state.rules["limits"]["roster"]
    for n in range(most - len(state.combat.roster if state.combat else ())):
        state, _ = apply(state, {**GOB, "combatant": f"gob{n}"})
    assert len(state.combat.roster) == most
    return state


def test_i_c2b_the_roster_holds_at_most_limits_roster_and_one_more_changes_nothing(
    example_state,
):
    """Was: no bound (2,020 combatants made a 354 KB …/state and a 5–12 s restart)."""
    full = _full(example_state)
    assert full.rules["limits"]["roster"] == 64
    before = copy.deepcopy(full)
    v = refused(full, {**GOB, "combatant": "one-more"})
    assert (v.rule, v.field, v.code) == ("I-C2b", "combatant", "illegal")
    assert "65 combatants, more than 64 (limits.roster, I-C2b)" in v.message
    assert "join_combat" in v.fix and "--new-session" in v.fix
    assert full == before and "one-more" not in full.combat.roster
    v = refused(full, {"cmd": "start_combat", "add": [{**_SHEET, "id": "x1"}]})
    assert (v.rule, v.field) == ("I-C2b", "add") and "limits.roster" in v.message
    assert full == before


_SHEET = {"reflex": 1, "might": 1, "dodge": 1, "parry": 1, "fortitude": 1, "speed": 4}


def test_i_c2b_a_table_file_with_more_combatants_than_the_limit_is_refused():
    text = EXAMPLE_TABLE.read_text()
    extra = "".join(
        f'\n[[combatants]]\nid = "mook{n}"\nreflex = 1\nmight = 1\ndodge = 1\nparry = 1\n'
        "fortitude = 1\nspeed = 4\n"
        for n in range(65)
    )
    with pytest.raises(ConfigError) as e:
        load_table_text(text + extra, "big.toml")
    assert "limits.roster, I-C2b" in str(e.value) and "Fix: keep at most 64" in str(e.value)
