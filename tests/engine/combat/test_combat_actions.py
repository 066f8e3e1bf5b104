"""Aim, Attack, Dash, Guard, Move; damage, injuries, death, conditions, renown (C5–C11)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import CommandRejected, apply
from engine.narrate import describe
from tests.harness import run
from tests.harness.combat import acting, combatant, fight, sheet, token


@pytest.fixture
def duel(example_state):
    """a (tick 1) against b (tick 2): a attacks with 3 MIGHT dice, b dodges with 2."""
    return fight(
        example_state,
        sheet("a", might=3, weapon={"name": "sword", "damage": 2, "injury": "bleeding"}),
        sheet("b", dodge=2, parry=1, fortitude=2),
        initiative={"a": [6], "b": [1]},
    )


def attack(state, who="a", target="b", **dice):
    return apply(
        state, {"cmd": "act", "combatant": who, "action": "attack", "target": target, **dice}
    )


# --- C5 Aim ------------------------------------------------------------------------------


def test_c5_each_aim_tick_adds_2_to_the_next_attack(duel):
    aim = {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"}
    s, _ = run(duel, aim, aim, {"cmd": "act", "combatant": "b", "action": "move"})
    assert token(s, "a").aim == 2 and acting(s) == ["a"]
    # 4 + 4 = 8 beats 5; the 1 meets the other 5; the last 1 is unopposed (I-C6a)
    s, events = attack(
        s, attack_dice=[4, 1, 1], defense_dice=[5, 5], damage_dice=[1] * 4, fortitude_dice=[6, 6]
    )
    resolved = next(e for e in events if e.type == "attack_resolved")
    assert resolved["aim_bonus"] == 4 and resolved["sorted_attack"] == [8, 1, 1]
    assert resolved["attacker_successes"] == 2
    assert token(s, "a").aim == 0


def test_c5_a_fourth_aim_tick_is_refused(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})  # a → tick 4
    aim = {"cmd": "act", "combatant": "b", "action": "aim", "target": "a"}
    s, _ = run(s, aim, aim)  # b: 2 → 3 → 4 … a acts first on 4
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})  # a → 7
    s, _ = apply(s, aim)
    assert token(s, "b").aim == 3
    with pytest.raises(CommandRejected) as e:
        apply(s, aim)
    assert e.value.violation.rule == "C5" and "up to 3" in e.value.violation.message


def test_c5_aim_is_lost_when_the_target_leaves_sight(duel):
    s, _ = apply(duel, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    s, events = apply(s, {"cmd": "target_leaves_sight", "target": "b"})
    assert events[0].type == "aim_lost" and events[0]["reason"] == "target left sight"
    assert token(s, "a").aim == 0
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "target_leaves_sight", "target": "b"})
    assert e.value.violation.rule == "C5"


def test_i_c5a_aim_is_lost_by_another_action_or_a_new_target(duel):
    s, _ = apply(duel, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})  # a → 2
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})  # a → 3
    s, _ = apply(s, {"cmd": "act", "combatant": "b", "action": "aim", "target": "a"})  # b → 3
    assert token(s, "a").aim == 2 and token(s, "b").aim == 1
    s, events = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})
    assert token(s, "a").aim == 0
    assert [e["reason"] for e in events if e.type == "aim_lost"] == ["guard"]
    s, events = apply(s, {"cmd": "act", "combatant": "b", "action": "aim", "target": "a"})
    assert token(s, "b").aim == 2  # same target: the count goes on


def test_i_c5a_the_table_can_keep_aim_through_other_actions(duel):
    s = duel
    rules = dict(s.rules)
    rules["combat"] = {
        **rules["combat"],
        "aim": {**rules["combat"]["aim"], "kept_through_other_actions": True},
    }
    s = replace(s, rules=rules)
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    s, _ = apply(s, {"cmd": "act", "combatant": "b", "action": "guard"})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert token(s, "a").aim == 2


def test_c10_blinded_cannot_aim(duel):
    s, _ = apply(duel, {"cmd": "add_combat_condition", "combatant": "a", "condition": "blinded"})
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "act", "combatant": "a", "action": "aim", "target": "b"})
    assert e.value.violation.rule == "C10"


# --- C6 Attack ---------------------------------------------------------------------------


def test_c6_each_attacker_success_adds_a_damage_die_and_defender_successes_negate(duel):
    # ATTACK 6 5 1 vs DODGE 4 3: 6>4, 5>3, 1 unopposed → 3 successes, 0 defender
    with pytest.raises(CommandRejected) as e:
        attack(
            duel,
            attack_dice=[6, 5, 1],
            defense_dice=[4, 3],
            damage_dice=[6, 6],
            fortitude_dice=[1, 1],
        )
    assert e.value.violation.rule == "C8" and "5 dice" in e.value.violation.message
    s, events = attack(
        duel,
        attack_dice=[6, 5, 1],
        defense_dice=[4, 3],
        damage_dice=[6, 5, 4, 1, 1],
        fortitude_dice=[5, 2],
    )
    dmg = next(e for e in events if e.type == "damage_resolved")
    # 6>5, 5>2, 4 1 1 unopposed → 5 hits, nothing negated
    assert (dmg["hits"], dmg["negated"], dmg["injuries"]) == (5, 0, 5)
    assert combatant(s, "b").injury_count == 5
    # nothing negated is not said ("5 hits, 0 negated" read as a step that did not happen)
    line = describe(duel, dmg)
    assert line.endswith("→ 5 hits: 5 injuries") and "negated" not in line, line


def test_c6_defender_successes_negate_injuries(duel):
    # ATTACK 6 2 1 vs DODGE 5 4: 6>5 and the unopposed 1 (I-C6a) for the attacker, 2<4 defends
    _, events = attack(
        duel,
        attack_dice=[6, 2, 1],
        defense_dice=[5, 4],
        damage_dice=[6, 6, 2, 1],
        fortitude_dice=[5, 4],
    )
    res = next(e for e in events if e.type == "attack_resolved")
    assert (res["attacker_successes"], res["defender_successes"]) == (2, 1)
    dmg = next(e for e in events if e.type == "damage_resolved")
    # DAMAGE 6 6 2 1 vs 5 4: 6>5, 6>4, 2 and 1 unopposed → 4 hits, 1 negated
    assert (dmg["hits"], dmg["negated"], dmg["injuries"]) == (4, 1, 3)
    # said as the DODGE's, not FORTITUDE's (the night walk read "vs FORTITUDE — → 2 hits, 2
    # negated" for a target with no FORTITUDE dice)
    line = describe(duel, dmg)
    assert line.endswith("→ 4 hits, 1 negated by the defence's successes: 3 injuries"), line


def test_c6_no_attacker_success_means_no_damage_roll(duel):
    # one attacker success (an unopposed 1, I-C6a) already needs the DAMAGE dice
    with pytest.raises(CommandRejected) as e:
        attack(duel, attack_dice=[3, 2, 1], defense_dice=[6, 6])
    assert e.value.violation.field == "damage_dice"
    scared, _ = apply(
        duel, {"cmd": "add_combat_condition", "combatant": "a", "condition": "frightened"}
    )
    s, events = attack(scared, attack_dice=[3, 2], defense_dice=[6, 6])
    assert events[0]["attacker_successes"] == 0
    assert not any(e.type == "damage_resolved" for e in events)
    assert combatant(s, "b") == combatant(duel, "b")
    with pytest.raises(CommandRejected) as e:
        attack(scared, attack_dice=[3, 2], defense_dice=[6, 6], damage_dice=[1, 1])
    assert e.value.violation.rule == "C6" and e.value.violation.field == "damage_dice"


@pytest.mark.parametrize(
    ("dice", "field", "rule"),
    [
        ({"attack_dice": [6, 5], "defense_dice": [1, 1]}, "attack_dice", "C6"),
        ({"attack_dice": [6, 5, 0], "defense_dice": [1, 1]}, "attack_dice", "C6"),
        ({"attack_dice": [6, 5, 4], "defense_dice": [1, 9]}, "defense_dice", "C6"),
        (
            {"attack_dice": [6, 5, 4], "defense_dice": [1, 1], "damage_dice": [1] * 5},
            "fortitude_dice",
            "C8",
        ),
        (
            {
                "attack_dice": [6, 5, 4],
                "defense_dice": [1, 1],
                "damage_dice": [7] * 5,
                "fortitude_dice": [1, 1],
            },
            "damage_dice",
            "C8",
        ),
    ],
)
def test_c6_c8_wrong_dice_are_refused_and_change_nothing(duel, dice, field, rule):
    with pytest.raises(CommandRejected) as e:
        attack(duel, **dice)
    assert (e.value.violation.field, e.value.violation.rule) == (field, rule)


def test_c6_seeded_attacks_are_replayable_and_record_every_die(duel):
    s1, e1 = attack(duel, seed=99)
    s2, e2 = attack(duel, seed=99)
    assert e1 == e2 and s1.combat == s2.combat
    assert "attack" in e1[0]["rolled"] and len(e1[0]["attack_dice"]) == 3
    # replaying the recorded dice by hand gives the same fight
    dice = {"attack_dice": e1[0]["attack_dice"], "defense_dice": e1[0]["defense_dice"]}
    dmg = next(e for e in e1 if e.type == "damage_resolved")  # seed 99 hits: all four rolls
    assert dmg["rolled"] == ["damage", "fortitude"]
    dice |= {"damage_dice": dmg["damage_dice"], "fortitude_dice": dmg["fortitude_dice"]}
    s3, _ = attack(duel, **dice)
    assert s3.combat == s1.combat


def test_c6_an_attack_pool_past_the_rules_limit_is_refused_not_rolled(duel):
    """bonus_dice: 1e9 with a seed would roll a billion dice and stall the table loop."""
    with pytest.raises(CommandRejected) as info:
        attack(duel, seed=1, bonus_dice=10**9)
    assert (info.value.violation.rule, info.value.violation.field) == ("C6", "bonus_dice")
    limit = duel.rules["combat"]["attack"]["max_pool"]
    ok, _ = attack(duel, seed=1, bonus_dice=limit - 3)  # exactly at the limit: 3 MIGHT + bonus
    assert ok.combat != duel.combat


def test_c6_the_target_must_be_another_living_combatant_in_the_fight(duel):
    with pytest.raises(CommandRejected):
        attack(duel, target="a", seed=1)
    with pytest.raises(CommandRejected) as e:
        attack(duel, target="nobody", seed=1)
    assert e.value.violation.code == "unknown"
    with pytest.raises(CommandRejected) as e:
        apply(duel, {"cmd": "act", "combatant": "a", "action": "attack"})
    assert e.value.violation.field == "target"
    with pytest.raises(CommandRejected) as e:
        apply(duel, {"cmd": "act", "combatant": "a", "action": "move", "seed": 3})
    assert e.value.violation.field == "seed"


# --- C7 Guard, Dash, Move ----------------------------------------------------------------


def test_i_c7_guard_adds_an_always_winning_defense_die_until_the_guard_acts_again(example_state):
    s = fight(example_state, sheet("a"), sheet("b", might=2), initiative={"a": [6], "b": [1]})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})  # a guards, → tick 4
    s, events = attack(
        s,
        who="b",
        target="a",
        attack_dice=[6, 6],
        defense_dice=[1, 1],
        damage_dice=[1, 1],
        fortitude_dice=[6, 6],
    )
    res = events[0]
    assert res["guard"] == 1 and res["sorted_defense"][0] == "guard"
    # 6 vs Guard: defender; 6 vs 1: attacker; the second 1 is unopposed (defender)
    assert (res["attacker_successes"], res["defender_successes"]) == (1, 2)
    assert token(s, "a").guarding
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert not token(s, "a").guarding


def test_c7_move_covers_speed_and_dash_twice_speed(duel):
    s, events = apply(duel, {"cmd": "act", "combatant": "a", "action": "dash"})
    assert next(e for e in events if e.type == "moved")["distance"] == 10
    s, events = apply(s, {"cmd": "act", "combatant": "b", "action": "move"})
    assert next(e for e in events if e.type == "moved")["distance"] == 5


def test_c7_speed_multiples_are_rules_data(duel):
    """C7's "double speed" is a named rules number a table may change, not a literal."""
    rules = dict(duel.rules)
    rules["combat"] = {**rules["combat"], "movement": {"rule": "C7", "move": 1, "dash": 3}}
    s = replace(duel, rules=rules)
    s, events = apply(s, {"cmd": "act", "combatant": "a", "action": "dash"})
    assert next(e for e in events if e.type == "moved")["distance"] == 15


def test_c7_dash_while_prone_is_refused(duel):
    s, _ = apply(duel, {"cmd": "add_combat_condition", "combatant": "a", "condition": "prone"})
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "act", "combatant": "a", "action": "dash"})
    assert e.value.violation.rule == "C7" and e.value.violation.field == "action"
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})  # crawling is fine


def test_c9_a_sprained_leg_halves_speed(duel):
    s, _ = apply(duel, {"cmd": "injure", "combatant": "a", "type": "sprained", "detail": "leg"})
    s, events = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert next(e for e in events if e.type == "moved")["distance"] == 2
    s, _ = apply(duel, {"cmd": "injure", "combatant": "a", "type": "sprained", "detail": "arm"})
    s, events = apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert next(e for e in events if e.type == "moved")["distance"] == 5


# --- C8 armour, FORTITUDE ----------------------------------------------------------------


def test_i_c8_armour_removes_the_highest_damage_dice_and_wears_down(example_state):
    s = fight(
        example_state,
        sheet("a", might=2, weapon={"damage": 2}),
        sheet("b", dodge=1, fortitude=1, armour={"name": "mail", "reduction": 2, "durability": 3}),
        initiative={"a": [6], "b": [1]},
    )
    s, events = attack(
        s, attack_dice=[6, 1], defense_dice=[5], damage_dice=[6, 6, 5, 4], fortitude_dice=[3]
    )
    dmg = next(e for e in events if e.type == "damage_resolved")
    assert dmg["armour_removed"] == [6, 6] and dmg["armour_durability"] == 1
    assert dmg["sorted_damage"] == [5, 4] and dmg["hits"] == 2  # 5>3, 4 unopposed
    assert combatant(s, "b").armour.durability == 1


def test_i_c8a_worn_armour_stops_no_more_than_its_durability(example_state):
    s = fight(
        example_state,
        sheet("a", might=2, weapon={"damage": 2}),
        sheet("b", dodge=1, fortitude=1, armour={"reduction": 3, "durability": 1}),
        initiative={"a": [6], "b": [1]},
    )
    s, events = attack(
        s, attack_dice=[6, 1], defense_dice=[5], damage_dice=[6, 5, 4, 3], fortitude_dice=[6]
    )
    dmg = next(e for e in events if e.type == "damage_resolved")
    assert dmg["armour_removed"] == [6] and dmg["armour_durability"] == 0


def test_c8_each_injury_costs_a_fortitude_die(duel):
    s, _ = apply(duel, {"cmd": "injure", "combatant": "b", "type": "burned"})
    with pytest.raises(CommandRejected) as e:
        attack(
            s,
            attack_dice=[6, 6, 6],
            defense_dice=[1, 1],
            damage_dice=[1] * 5,
            fortitude_dice=[6, 6],
        )
    assert "1 die, 2 given" in e.value.violation.message


def test_c10_fatigued_levels_count_as_injuries_for_fortitude_only(duel):
    s, _ = apply(duel, {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued"})
    with pytest.raises(CommandRejected) as e:  # FORTITUDE 2 − 1 level = 1 die
        attack(
            s,
            attack_dice=[6, 6, 6],
            defense_dice=[1, 1],
            damage_dice=[1] * 5,
            fortitude_dice=[6, 6],
        )
    assert "1 die, 2 given" in e.value.violation.message
    # I-C9a: levels do not count toward death: 4 injuries + 6 levels, still alive
    s, _ = run(
        duel,
        {"cmd": "injure", "combatant": "b", "type": "bleeding", "hits": 4},
        {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued", "level": 6},
    )
    assert not combatant(s, "b").dead


# --- C9 death, C10 conditions, C11 renown ------------------------------------------------


def test_c9_more_than_twice_fortitude_injuries_kills(duel):
    s, events = apply(duel, {"cmd": "injure", "combatant": "b", "type": "poisoned", "hits": 4})
    assert not combatant(s, "b").dead  # 4 is not more than 2 × 2
    s, events = apply(s, {"cmd": "injure", "combatant": "b", "type": "poisoned"})
    assert combatant(s, "b").dead and "combatant_died" in [e.type for e in events]
    with pytest.raises(CommandRejected) as e:
        attack(s, seed=1)
    assert e.value.violation.rule == "C9"
    assert acting(s) == ["a"]  # the dead do not wait on the wheel


def test_c9_bleeding_prompts_a_fortitude_save_each_round(duel):
    s, _ = apply(duel, {"cmd": "injure", "combatant": "b", "type": "bleeding", "hits": 2})
    events = []
    for who in ("a", "b", "a", "b"):
        s, more = apply(s, {"cmd": "act", "combatant": who, "action": "guard"})
        events += more
    prompts = [e for e in events if e.type == "injury_save_prompt"]
    assert [(p["combatant"], p["injury"], p["hits"]) for p in prompts] == [("b", "bleeding", 2)]


def test_c10_blinded_deafened_frightened_lose_a_die(duel):
    s, _ = run(
        duel,
        {"cmd": "add_combat_condition", "combatant": "a", "condition": "blinded"},
        {"cmd": "add_combat_condition", "combatant": "a", "condition": "deafened"},
    )
    s, events = attack(s, attack_dice=[6], defense_dice=[6, 6])
    assert events[0]["attack_dice"] == [6]


def test_c10_cursed_takes_dice_from_the_named_attribute(duel):
    s, _ = apply(
        duel,
        {
            "cmd": "add_combat_condition",
            "combatant": "b",
            "condition": "cursed",
            "attribute": "dodge",
        },
    )
    s, events = attack(s, attack_dice=[1, 1, 1], defense_dice=[6], seed=3)
    assert events[0]["defense_dice"] == [6] and events[0]["rolled"] == []
    with pytest.raises(CommandRejected) as e:
        apply(duel, {"cmd": "add_combat_condition", "combatant": "b", "condition": "cursed"})
    assert e.value.violation.field == "attribute"


def test_c10_fatigued_stacks_to_six_levels(duel):
    s, _ = apply(
        duel, {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued", "level": 4}
    )
    s, _ = apply(
        s, {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued", "level": 2}
    )
    assert combatant(s, "b").condition("fatigued").level == 6
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "add_combat_condition", "combatant": "b", "condition": "fatigued"})
    assert e.value.violation.rule == "C10"
    s, _ = apply(
        s, {"cmd": "remove_combat_condition", "combatant": "b", "condition": "fatigued", "level": 5}
    )
    assert combatant(s, "b").condition("fatigued").level == 1


def test_c10_panicked_can_only_move(duel):
    s, _ = apply(duel, {"cmd": "add_combat_condition", "combatant": "a", "condition": "panicked"})
    for action in ("attack", "guard"):
        with pytest.raises(CommandRejected) as e:
            apply(
                s,
                {"cmd": "act", "combatant": "a", "action": action}
                | ({"target": "b", "seed": 1} if action == "attack" else {}),
            )
        assert e.value.violation.rule == "C10"
    apply(s, {"cmd": "act", "combatant": "a", "action": "dash"})


def test_c10_unknown_conditions_and_injuries_are_refused(duel):
    with pytest.raises(CommandRejected) as e:
        apply(duel, {"cmd": "add_combat_condition", "combatant": "a", "condition": "sleepy"})
    assert e.value.violation.code == "unknown" and "blinded" in (e.value.violation.fix or "")
    with pytest.raises(CommandRejected) as e:
        apply(duel, {"cmd": "injure", "combatant": "a", "type": "bruised"})
    assert e.value.violation.rule == "C9"


def test_c9_heal_injuries_takes_the_newest_first(duel):
    s, _ = run(
        duel,
        {"cmd": "injure", "combatant": "b", "type": "bleeding", "hits": 2},
        {"cmd": "injure", "combatant": "b", "type": "burned", "hits": 1},
        {"cmd": "heal_injuries", "combatant": "b", "hits": 2},
    )
    assert [(i.type, i.hits) for i in combatant(s, "b").injuries] == [("bleeding", 1)]
    with pytest.raises(CommandRejected):
        apply(s, {"cmd": "heal_injuries", "combatant": "b", "hits": 1, "type": "burned"})


def test_c11_renown_rises_and_falls_at_the_gms_call(duel):
    s, events = run(
        duel,
        {"cmd": "adjust_renown", "combatant": "a", "change": 3, "reason": "saved the ford"},
        {"cmd": "adjust_renown", "combatant": "a", "change": -1, "reason": "fled"},
    )
    assert combatant(s, "a").renown == 2 and events[-1]["renown"] == 2
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "adjust_renown", "combatant": "a", "change": 0})
    assert e.value.violation.rule == "C11"


# --- undo, end ---------------------------------------------------------------------------


def test_undo_takes_back_an_attack_exactly(duel):
    s, _ = attack(duel, seed=5)
    back, events = apply(s, {"cmd": "undo"})
    assert back.combat == duel.combat and events[0].type == "undone"


def test_c2_end_combat_keeps_injuries_armour_and_renown_on_the_roster(duel):
    s, _ = apply(duel, {"cmd": "injure", "combatant": "b", "type": "bleeding"})
    s, events = apply(s, {"cmd": "end_combat"})
    assert s.combat.fight is None and combatant(s, "b").injury_count == 1
    assert events[0]["injuries"] == {"a": 0, "b": 1}
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "act", "combatant": "a", "action": "move"})
    assert e.value.violation.rule == "C2"
    s, _ = apply(s, {"cmd": "start_combat", "initiative": {"a": [2], "b": [3]}})
    assert s.combat.fight.number == 2 and combatant(s, "b").injury_count == 1


# --- what each action takes: one table, read by the command and by the view ----------------


def test_c1_the_view_says_what_each_action_takes_and_act_holds_to_it(duel):
    """issue 28 item 2: the remote offers the view's ``actions`` (gm/combat.ts) instead of its
    own list; the ``act`` command refuses exactly what the view says an action does not take."""
    from engine.view import table_view

    offered = table_view(duel)["combat"]["actions"]
    assert [a["action"] for a in offered] == ["attack", "aim", "move", "dash", "guard"]
    costs = {"aim": 1, "attack": 3, "dash": 3, "guard": 3, "move": 2}  # C1, the seed's costs
    assert {a["action"]: a["ticks"] for a in offered} == costs
    for a in offered:
        base = {"cmd": "act", "combatant": "a", "action": a["action"]}
        if a["target"]:
            with pytest.raises(CommandRejected, match="needs a target") as info:
                apply(duel, base)
            assert info.value.violation.rule == a["rule"]
        else:
            with pytest.raises(CommandRejected, match="takes no target"):
                apply(duel, {**base, "target": "b"})
        rolls = {**base, "seed": 1, **({"target": "b"} if a["target"] else {})}
        if a["rolls"]:
            apply(duel, rolls)  # an attack takes its dice (here: the seed rolls them)
        else:
            with pytest.raises(CommandRejected, match="takes no seed"):
                apply(duel, rolls)
