"""Safe and Unsafe Rest; an Event asks whether it interrupts (T10, I-T10)."""

from __future__ import annotations

import pytest

from engine import apply
from tests.harness.timeboard import ready, rejected, resolve, resolve_many, types


@pytest.fixture
def camp(example_state):
    state = ready(example_state)
    state, _ = apply(state, {"cmd": "begin_rest", "kind": "unsafe"})
    return state


def test_t10_a_safe_rest_is_not_threatened_by_events(example_state):
    state = ready(example_state)
    state, _ = apply(state, {"cmd": "begin_rest", "kind": "safe"})
    state, events = resolve(state, "event")
    assert not [e for e in events if e.type == "time_prompt" and e["kind"] == "interrupt"]
    assert state.time.rest.minor_draws == 1 and state.heroes["cass"].fatigue == 2


def test_i_t10_an_event_in_unsafe_rest_asks_the_worldkeeper(camp):
    state, events = resolve(camp, "event")
    asked = [e for e in events if e.type == "time_prompt" and e["kind"] == "interrupt"]
    assert asked and asked[0]["blocking"] is True
    # that draw's recovery waits for the answer; the cadence has moved on
    assert state.heroes["cass"].fatigue == 3 and state.time.rest.minor_draws == 0
    assert state.time.minor_done == 1


def test_i_t10_the_next_draw_waits_for_the_answer(camp):
    state, _ = resolve(camp, "event")
    err = rejected(state, {"cmd": "draw_time", "seed": 1})
    assert err.violation.rule == "I-T10"
    err = rejected(state, {"cmd": "end_rest"})
    assert err.violation.rule == "I-T10"
    prompt = state.time.blocking_prompt()
    err = rejected(state, {"cmd": "acknowledge_prompt", "prompt": prompt.id})
    assert err.violation.rule == "I-T10"


def test_i_t10_not_interrupted_the_recovery_happens(camp):
    state, _ = resolve(camp, "event")
    state, events = apply(state, {"cmd": "answer_interruption", "interrupts": False})
    assert types(events)[:2] == ["rest_not_interrupted", "rest_step"]
    assert state.heroes["cass"].fatigue == 2 and state.time.rest.minor_draws == 1
    assert state.time.blocking_prompt() is None


def test_i_t10_interrupted_the_rest_ends_without_that_recovery(camp):
    state, _ = resolve(camp, "event")
    state, events = apply(state, {"cmd": "answer_interruption", "interrupts": True})
    assert types(events) == ["rest_interrupted", "rest_ended"]
    assert events[1]["reason"] == "interrupted"
    assert state.time.rest is None and state.heroes["cass"].fatigue == 3


def test_i_t10_a_major_event_asks_too(camp):
    state, _ = resolve_many(camp, "safe", "safe", "safe")
    state, _ = apply(state, {"cmd": "set_time", "band": "night", "minor_done": 3})
    state, events = resolve(state, "event")
    assert [e for e in events if e.type == "time_prompt" and e["kind"] == "interrupt"]
    state, events = apply(state, {"cmd": "answer_interruption", "interrupts": False})
    assert "rest_step" not in types(events)  # a Major gives no recovery
    assert state.time.rest.minor_draws == 3


def test_i_t10_the_fifth_draw_as_an_event_completes_the_full_rest_only_if_not_interrupted(
    camp,
):
    state, _ = resolve_many(camp, "safe", "safe", "opportunity")
    state, _ = resolve(state, "safe")  # the Major: no recovery, no question
    state, _ = resolve(state, "safe")
    state, events = resolve(state, "event")
    assert "full_rest_completed" not in types(events)
    interrupted, _ = apply(state, {"cmd": "answer_interruption", "interrupts": True})
    assert interrupted.time.rest is None and interrupted.heroes["cass"].fatigue == 0
    kept, events = apply(state, {"cmd": "answer_interruption", "interrupts": False})
    assert "full_rest_completed" in types(events) and kept.time.rest is None


def test_i_t10_answering_with_no_question_is_refused(camp):
    err = rejected(camp, {"cmd": "answer_interruption", "interrupts": False})
    assert err.violation.rule == "I-T10"


def test_i_t10_which_faces_interrupt_is_rules_data(example_state):
    from dataclasses import replace

    rules = dict(example_state.rules)
    rules["rest"] = {**rules["rest"], "interrupt_faces": ["event", "escalation_1"]}
    state = ready(replace(example_state, rules=rules))
    state, _ = apply(state, {"cmd": "begin_rest", "kind": "unsafe"})
    state, _ = resolve(state, "escalation_1")
    assert state.time.blocking_prompt() is not None


def test_i_t10_a_major_event_question_blocks_ending_the_rest(camp):
    state, _ = apply(camp, {"cmd": "set_time", "band": "night", "minor_done": 3})
    state, _ = resolve(state, "event")
    err = rejected(state, {"cmd": "end_rest"})
    assert err.violation.rule == "I-T10"
