"""The refusals the issue lists, each naming the field and the rule, with the state unchanged."""

from __future__ import annotations

import json

import pytest

from engine import CommandRejected, apply
from tests.harness import BEGIN, run


def aria(capability="skill", **kw):
    return {
        "cmd": "declare",
        "hero": "aria",
        "shade": "control",
        "capability": capability,
        "action": "target",
        **kw,
    }


CASES = [
    # (setup commands, the refused command, expected rule, expected field, code)
    (
        [BEGIN],
        {
            "cmd": "declare",
            "hero": "zed",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
        None,
        "hero",
        "unknown",
    ),
    (
        [BEGIN, aria()],
        {"cmd": "draw", "hero": "aria", "token": "aria.ember.nope"},
        None,
        "token",
        "unknown",
    ),
    (
        [
            BEGIN,
            {
                "cmd": "declare",
                "hero": "cass",
                "shade": "control",
                "capability": "charm",
                "action": "target",
            },
            {"cmd": "draw", "hero": "cass", "token": "cass.weight.0"},
        ],
        {"cmd": "draw", "hero": "cass", "token": "cass.weight.1"},
        "P6",
        "token",
        "illegal",
    ),
    ([BEGIN], aria(exert=True), "P9", "exert", "illegal"),
    ([], {"cmd": "begin_performance", "difficulty": 2}, "P19", "difficulty", "illegal"),
    (
        [BEGIN, aria(), {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}],
        {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"},
        "P6",
        "token",
        "illegal",
    ),
    (
        [BEGIN, aria()],
        {"cmd": "draw", "hero": "aria", "token": "bren.weight.0"},
        "P6",
        "token",
        "illegal",
    ),
    (
        [BEGIN, aria("lore"), {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}],
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"},
        "P11",
        "hero",
        "illegal",
    ),
    (
        [
            {"cmd": "adjust_hero", "hero": "aria", "redraws": -2},
            BEGIN,
            aria(),
            {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"},
        ],
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"},
        "P11",
        "hero",
        "illegal",
    ),
    (
        [{"cmd": "adjust_hero", "hero": "aria", "favor": -2}, BEGIN, aria()],
        {"cmd": "call_favor", "hero": "aria", "seed": 1},
        "P18",
        "hero",
        "illegal",
    ),
    (
        [
            BEGIN,
            {
                "cmd": "declare",
                "hero": "bren",
                "shade": "control",
                "capability": "faith",
                "action": "gain",
            },
        ],
        {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"},
        "P7",
        "hero",
        "illegal",
    ),
    (
        [BEGIN, aria(), {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}],
        {"cmd": "resolve"},
        "P6",
        "hero",
        "illegal",
    ),
]


@pytest.mark.parametrize(("setup", "cmd", "rule", "field", "code"), CASES)
def test_refusals_name_field_and_rule_and_change_nothing(
    example_state, setup, cmd, rule, field, code
):
    state, _ = run(example_state, *setup)
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(CommandRejected) as info:
        apply(state, cmd)
    v = info.value.violation
    assert (v.rule, v.field, v.code) == (rule, field, code)
    assert v.message and (v.fix or v.rule)
    assert json.dumps(state.to_json(), sort_keys=True) == before


def test_another_heros_token_says_whose_it_is(example_state):
    state, _ = run(example_state, BEGIN, aria())
    with pytest.raises(CommandRejected) as info:
        apply(state, {"cmd": "draw", "hero": "aria", "token": "bren.weight.0"})
    assert "Bren's Hero Bag" in info.value.violation.message


def test_an_already_drawn_token_says_so(example_state):
    state, _ = run(
        example_state, BEGIN, aria(), {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}
    )
    with pytest.raises(CommandRejected) as info:
        apply(state, {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"})
    assert "already on the Draw Board" in info.value.violation.message


def test_undo_is_repeatable_and_stops_at_the_start(example_state):
    state, _ = run(
        example_state, BEGIN, aria(), {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}
    )
    state, _ = run(state, {"cmd": "undo"}, {"cmd": "undo"}, {"cmd": "undo"})
    assert state == example_state
    with pytest.raises(CommandRejected):
        apply(state, {"cmd": "undo"})


def test_undo_depth_comes_from_the_rules(example_state):
    from dataclasses import replace

    rules = {**example_state.rules, "undo": {"depth": 2}}
    state, _ = run(
        replace(example_state, rules=rules),
        BEGIN,
        aria(),
        {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"},
    )
    assert len(state.history) == 2
    state, _ = run(state, {"cmd": "undo"}, {"cmd": "undo"})
    assert state.performance is not None and not state.performance.contributions


def test_seeded_draws_are_deterministic(example_state):
    a, _ = run(example_state, BEGIN, aria(), {"cmd": "draw", "hero": "aria", "seed": 42})
    b, _ = run(example_state, BEGIN, aria(), {"cmd": "draw", "hero": "aria", "seed": 42})
    assert a == b


def test_token_and_seed_together_is_malformed(example_state):
    state, _ = run(example_state, BEGIN, aria())
    with pytest.raises(CommandRejected) as info:
        apply(state, {"cmd": "draw", "hero": "aria", "seed": 1, "token": "aria.weight.0"})
    assert info.value.violation.field == "token"
