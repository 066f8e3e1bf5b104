"""Initiative, placement and the tick loop (C1–C4, I-C3, I-C10a)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CommandRejected, apply
from engine.combat import wheel
from tests.harness.combat import acting, combatant, fight, sheet, token


def test_c2_time_maps_onto_six_ticks_and_rounds():
    assert [wheel.tick_of(t, 6) for t in (1, 6, 7, 12, 13)] == [1, 6, 1, 6, 1]
    assert [wheel.round_of(t, 6) for t in (1, 6, 7, 12, 13)] == [1, 1, 2, 2, 3]


def test_c3_highest_initiative_goes_on_tick_1_then_descending(example_state):
    s = fight(
        example_state,
        sheet("a", reflex=2),
        sheet("b", reflex=2),
        sheet("c", reflex=2),
        initiative={"a": [1, 2], "b": [6, 6], "c": [4, 1]},
    )
    assert [(t.combatant, t.time, t.initiative) for t in s.combat.fight.tokens] == [
        ("b", 1, 12),
        ("c", 2, 5),
        ("a", 3, 3),
    ]
    assert acting(s) == ["b"]


def test_i_c3_distinct_values_wrap_after_tick_6_and_higher_acts_first():
    ranked = [(f"x{i}", 20 - i) for i in range(8)]
    tokens = wheel.place(ranked, 6)
    assert [t.time for t in tokens] == [1, 2, 3, 4, 5, 6, 1, 2]
    assert [t.order for t in tokens] == list(range(8))


def test_c3_equal_initiative_shares_a_tick_and_rolls_off_with_reflex(example_state):
    s, events = apply(
        example_state,
        {
            "cmd": "start_combat",
            "add": [sheet("a", reflex=2), sheet("b", reflex=2)],
            "initiative": {"a": [3, 3], "b": [5, 1]},
            "rolloff": {"a": [[2, 2], [1, 1]], "b": [[3, 1], [6, 6]]},
        },
    )
    # 6 = 6: roll-off 4 vs 4 ties again, then 2 vs 12: b first
    assert [t.combatant for t in s.combat.fight.tokens] == ["b", "a"]
    assert {t.time for t in s.combat.fight.tokens} == {1}
    rolloffs = [e for e in events if e.type == "rolled_off"]
    assert [e["roll"] for e in rolloffs] == [1, 2]
    assert acting(s) == ["b", "a"]


def test_c3_a_tie_without_rolloff_dice_or_seed_is_refused(example_state):
    with pytest.raises(CommandRejected) as e:
        fight(example_state, sheet("a"), sheet("b"), initiative={"a": [4], "b": [4]})
    assert e.value.violation.rule == "C3" and e.value.violation.field == "rolloff"


def test_c3_rolloff_dice_for_untied_tokens_are_refused(example_state):
    with pytest.raises(CommandRejected) as e:
        fight(
            example_state,
            sheet("a"),
            sheet("b"),
            initiative={"a": [4], "b": [3]},
            rolloff={"a": [[6]]},
        )
    assert e.value.violation.rule == "C3"


def test_c3_seeded_initiative_is_replayable(example_state):
    cmd = {"cmd": "start_combat", "add": [sheet("a", reflex=3), sheet("b", reflex=3)], "seed": 42}
    s1, e1 = apply(example_state, cmd)
    s2, e2 = apply(example_state, cmd)
    assert s1.combat == s2.combat and e1 == e2
    assert all(e["rolled"] for e in e1 if e.type == "initiative_rolled")


@pytest.mark.parametrize(("values", "why"), [([7], "not a d6 face"), ([1, 2], "1 die, 2 given")])
def test_c3_entered_initiative_dice_are_checked(example_state, values, why):
    with pytest.raises(CommandRejected) as e:
        fight(example_state, sheet("a"), sheet("b"), initiative={"a": values, "b": [1]})
    assert why in str(e.value) and e.value.violation.rule == "C3"


def test_c9_frostbite_lowers_the_initiative_score(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [5], "b": [4]})
    s, _ = apply(s, {"cmd": "injure", "combatant": "a", "type": "frostbite", "hits": 2})
    s, _ = apply(s, {"cmd": "end_combat"})
    s, events = apply(s, {"cmd": "start_combat", "initiative": {"a": [5], "b": [4]}})
    assert [e["score"] for e in events if e.type == "initiative_rolled"] == [3, 4]
    assert acting(s) == ["b"]


def test_c1_c4_the_token_moves_by_the_actions_cost(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    costs = {"aim": 1, "attack": 3, "dash": 3, "guard": 3, "move": 2}
    for action, cost in costs.items():
        s2, events = apply(
            s,
            {"cmd": "act", "combatant": "a", "action": action}
            | ({"target": "b"} if action in ("aim", "attack") else {})
            | ({"seed": 1} if action == "attack" else {}),
        )
        assert token(s2, "a").time == 1 + cost
        moved = next(e for e in events if e.type == "token_moved")
        assert (moved["from_tick"], moved["to_tick"], moved["cost"]) == (1, 1 + cost, cost)


def test_c4_play_moves_to_the_next_tick_holding_a_waiting_token(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    assert token(s, "b").time == 2
    s, events = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})  # a → tick 4
    turn = events[-1]
    assert turn.type == "combat_turn" and (turn["tick"], turn["acting"]) == (2, ["b"])
    s, events = apply(s, {"cmd": "act", "combatant": "b", "action": "move"})  # b → tick 4
    assert events[-1]["tick"] == 4 and events[-1]["acting"] == ["a", "b"]  # a first (I-C3)


def test_c4_aim_for_one_tick_can_give_the_same_combatant_the_next_turn(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "guard"})
    s, _ = apply(s, {"cmd": "act", "combatant": "b", "action": "aim", "target": "a"})
    assert acting(s) == ["b"]  # b moved from tick 2 to 3, a waits on 4


def test_c4_acting_out_of_turn_is_refused_with_the_rule(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "act", "combatant": "b", "action": "move"})
    v = e.value.violation
    assert v.rule == "C4" and v.field == "combatant" and "a's turn" in v.message.lower()


def test_c4_a_second_token_on_the_tick_waits_for_the_first(example_state):
    s = fight(
        example_state,
        sheet("a"),
        sheet("b"),
        initiative={"a": [4], "b": [4]},
        rolloff={"a": [[6]], "b": [[2]]},
    )
    with pytest.raises(CommandRejected) as e:
        apply(s, {"cmd": "act", "combatant": "b", "action": "move"})
    assert e.value.violation.rule == "C4" and "after A" in (e.value.violation.fix or "")


def test_c2_round_passes_after_tick_6(example_state):
    s = fight(example_state, sheet("a"), sheet("b"), initiative={"a": [6], "b": [1]})
    events = []
    for who in ("a", "b", "a", "b"):
        s, more = apply(s, {"cmd": "act", "combatant": who, "action": "guard"})
        events += more
    rounds = [e for e in events if e.type == "combat_round"]
    assert [e["round"] for e in rounds] == [2]
    assert token(s, "a").time == 7 and acting(s) == ["a"]


def test_i_c10a_a_token_that_cannot_act_is_passed_by_and_rejoins_on_the_tick_now(example_state):
    s = fight(
        example_state, sheet("a"), sheet("b"), sheet("c"), initiative={"a": [6], "b": [5], "c": [1]}
    )
    s, _ = apply(s, {"cmd": "add_combat_condition", "combatant": "b", "condition": "stunned"})
    s, _ = apply(s, {"cmd": "act", "combatant": "a", "action": "dash"})  # a → 4
    assert acting(s) == ["c"]  # b (tick 2) is passed by
    s, _ = apply(s, {"cmd": "act", "combatant": "c", "action": "move"})  # c: 3 → 5
    assert acting(s) == ["a"]
    s, events = apply(
        s, {"cmd": "remove_combat_condition", "combatant": "b", "condition": "stunned"}
    )
    assert token(s, "b").time == 4 and acting(s) == ["a", "b"]
    assert events[-1].type == "combat_turn"
    with pytest.raises(CommandRejected) as e:
        apply(
            apply(s, {"cmd": "add_combat_condition", "combatant": "a", "condition": "paralyzed"})[
                0
            ],
            {"cmd": "act", "combatant": "a", "action": "move"},
        )
    assert e.value.violation.rule == "C10"


# --- property: the tick order always agrees with the costs paid (C1, C4) -------------------

ACTIONS = ["aim", "attack", "dash", "guard", "move"]


@settings(max_examples=100, deadline=None)
@given(
    reflexes=st.lists(st.integers(0, 3), min_size=2, max_size=5),
    seed=st.integers(0, 10_000),
    plan=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 9), st.integers(0, 99)),
        min_size=10,
        max_size=60,
    ),
)
def test_c4_property_tick_order_is_consistent_with_the_costs_paid(
    example_state, reflexes, seed, plan
):
    sheets = [sheet(f"c{i}", reflex=r, fortitude=2) for i, r in enumerate(reflexes)]
    s, _ = apply(example_state, {"cmd": "start_combat", "add": sheets, "seed": seed})
    costs = {"aim": 1, "attack": 3, "dash": 3, "guard": 3, "move": 2}
    start = {t.combatant: t.time for t in s.combat.fight.tokens}
    paid = dict.fromkeys(start, 0)
    last = (0, -1)
    for choice, pick, dice_seed in plan:
        now = acting(s)
        if not now:
            break
        who = now[0]
        t = token(s, who)
        # the actor stands on the tick now acting, and nobody waiting is behind it
        assert t.time == s.combat.fight.now
        for other in s.combat.fight.tokens:
            if not combatant(s, other.combatant).dead:
                assert other.time >= t.time
        assert (t.time, t.order) > last  # acts strictly after the previous actor
        last = (t.time, t.order)
        targets = [
            o.combatant
            for o in s.combat.fight.tokens
            if o.combatant != who and not combatant(s, o.combatant).dead
        ]
        action = ACTIONS[choice]
        cmd = {"cmd": "act", "combatant": who, "action": action}
        if action in ("aim", "attack"):
            if not targets:
                action, cmd["action"] = "move", "move"
            else:
                cmd["target"] = targets[pick % len(targets)]
        if action == "aim" and t.aim_target == cmd["target"] and t.aim >= 3:
            action, cmd = "move", {"cmd": "act", "combatant": who, "action": "move"}
        if action == "attack":
            cmd["seed"] = dice_seed
        s, events = apply(s, cmd)
        paid[who] += costs[action]
        assert token(s, who).time == start[who] + paid[who]
        turn = events[-1]
        assert turn.type == "combat_turn"
        assert turn["tick"] == wheel.tick_of(s.combat.fight.now, 6)
        assert turn["round"] == wheel.round_of(s.combat.fight.now, 6)
