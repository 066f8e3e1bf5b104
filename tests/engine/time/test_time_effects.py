"""What Minor and Major Time tokens do (T4, T5, I-T4, P13 via the shared cascade)."""

from __future__ import annotations

import pytest

from engine import apply
from tests.harness import run
from tests.harness.timeboard import ready, rejected, resolve, resolve_many, types


def test_i_t4_a_fatigue_token_gives_each_hero_one_fatigue(table):
    state, events = resolve(table, "fatigue")
    for hero in ("aria", "bren", "cass"):
        assert state.heroes[hero].fatigue == table.heroes[hero].fatigue + 1
    gained = [e for e in events if e.type == "fatigue_gained"]
    assert {e["hero"] for e in gained} == {"aria", "bren", "cass"}
    assert all(e["cause"] == "time" for e in gained)


def test_i_t4_the_fatigue_amount_is_rules_data(example_state):
    from dataclasses import replace

    rules = dict(example_state.rules)
    rules["time"] = {**rules["time"], "fatigue_per_token": 2}
    state = ready(replace(example_state, rules=rules))
    state, _ = resolve(state, "fatigue")
    assert state.heroes["aria"].fatigue == 2


def test_i_t4_time_fatigue_runs_the_p13_cascade(table):
    state, _ = apply(table, {"cmd": "adjust_hero", "hero": "cass", "fatigue": 2})  # 5 of 5
    state, events = resolve(state, "fatigue")
    cass = state.heroes["cass"]
    assert cass.fatigue == 0 and cass.strain == 1
    assert "fatigue_overflow" in types(events)
    assert "cass.strain.1" in state.bags["cass"].contents


@pytest.mark.parametrize("face", ["opportunity", "event", "escalation_1"])
def test_t4_minor_opportunity_event_escalation_are_prompted(table, face):
    state, events = resolve(table, face)
    prompts = [e for e in events if e.type == "time_prompt"]
    assert len(prompts) == 1 and prompts[0]["face"] == face and prompts[0]["size"] == "minor"
    assert state.time.prompts[-1].face == face
    assert all(h.fatigue == table.heroes[h.id].fatigue for h in state.heroes.values())


def test_t4_safe_does_nothing_but_advance(table):
    state, events = resolve(table, "safe")
    assert types(events) == ["time_drawn", "time_resolved"]
    assert state.time.prompts == table.time.prompts and state.time.minor_done == 1


@pytest.mark.parametrize(
    "face", ["opportunity", "event", "escalation_1", "escalation_2", "escalation_3"]
)
def test_t5_major_faces_are_prompted_for_the_wider_world(example_state, face):
    # the Night bag has every Major face but Opportunity; Day has Opportunity
    band = "day" if face == "opportunity" else "night"
    state = ready(example_state)
    state, _ = apply(state, {"cmd": "set_time", "band": band, "minor_done": 3})
    state, events = resolve(state, face)
    prompts = [e for e in events if e.type == "time_prompt"]
    assert len(prompts) == 1 and prompts[0]["size"] == "major" and prompts[0]["face"] == face
    assert "fatigue_gained" not in types(events)


def test_t4_prompts_stay_until_acknowledged(table):
    state, _ = resolve_many(table, "opportunity", "event")
    ids = [p.id for p in state.time.prompts]
    state, events = apply(state, {"cmd": "acknowledge_prompt", "prompt": ids[0]})
    assert events[0]["prompts"] == [ids[0]]
    assert [p.id for p in state.time.prompts] == ids[1:]
    state, _ = apply(state, {"cmd": "acknowledge_prompt"})
    assert state.time.prompts == ()
    err = rejected(state, {"cmd": "acknowledge_prompt"})
    assert "no prompt" in err.violation.message


def test_t4_an_unknown_prompt_number_is_refused(table):
    err = rejected(table, {"cmd": "acknowledge_prompt", "prompt": 99})
    assert err.violation.field == "prompt" and err.violation.code == "unknown"


def test_t4_prompts_are_bounded_by_the_rules_limit(example_state):
    from dataclasses import replace

    rules = dict(example_state.rules)
    rules["time"] = {**rules["time"], "prompt_limit": 2}
    state = ready(replace(example_state, rules=rules))
    state, _ = resolve_many(state, "opportunity", "event", "escalation_1")
    assert [p.face for p in state.time.prompts] == ["event", "escalation_1"]


def test_t4_a_session_of_draws_only_ever_asks_through_prompts(table):
    _, events = run(table, *({"cmd": "draw_time", "seed": s, "resolve": True} for s in range(12)))
    prompted = [e for e in events if e.type == "time_prompt"]
    resolved = [e for e in events if e.type == "time_resolved"]
    asking = [e for e in resolved if e["face"] not in ("safe", "fatigue")]
    assert len(prompted) == len(asking)
