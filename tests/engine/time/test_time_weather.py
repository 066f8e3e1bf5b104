"""Weather: the session-start draw, the two Weather Bags, changes (T1, T2, T4, T11)."""

from __future__ import annotations

from engine import apply
from engine.view import table_view
from tests.harness import run
from tests.harness.timeboard import ready, rejected, resolve, types


def test_t1_the_session_starts_with_a_prompt_when_the_weather_is_unknown(example_state):
    assert example_state.time.weather is None
    state, events = apply(example_state, {"cmd": "start_session"})
    assert types(events) == ["session_started", "time_prompt"]
    assert events[1]["kind"] == "weather"
    assert table_view(state)["time"]["prompts"][0]["kind"] == "weather"


def test_t1_the_session_start_draw_can_come_with_start_session(example_state):
    state, events = apply(example_state, {"cmd": "start_session", "bag": "underworld", "seed": 5})
    assert types(events) == ["session_started", "weather_drawn"]
    assert events[1]["rule"] == "T1" and events[1]["cause"] == "session start"
    w = table_view(state)["time"]["weather"]
    assert w["bag"] == "underworld" and w["token"].startswith("weather.underworld.")
    assert w["token"] not in state.bags["weather.underworld"].contents  # on the Weather space


def test_t1_no_time_draw_before_the_weather_is_known(example_state):
    err = rejected(example_state, {"cmd": "draw_time", "seed": 1})
    assert err.violation.rule == "T1" and "draw_weather" in err.violation.fix


def test_t1_time_may_go_first_when_the_table_says_so(example_state):
    from dataclasses import replace

    rules = dict(example_state.rules)
    rules["time"] = {**rules["time"], "weather_first": False}
    _, events = apply(replace(example_state, rules=rules), {"cmd": "draw_time", "seed": 1})
    assert types(events) == ["time_drawn"]


def test_t1_the_bag_is_needed_when_the_weather_is_unknown(example_state):
    err = rejected(example_state, {"cmd": "draw_weather", "seed": 3})
    assert err.violation.rule == "T1" and err.violation.field == "bag"


def test_t1_a_named_token_says_its_bag_when_nothing_else_does(example_state):
    state, _ = apply(example_state, {"cmd": "draw_weather", "token": "weather.underworld.damp.1"})
    assert state.time.weather.bag == "underworld"


def test_t1_a_token_from_the_wrong_weather_bag_is_refused(example_state):
    err = rejected(
        example_state,
        {"cmd": "draw_weather", "bag": "overworld", "token": "weather.underworld.damp.1"},
    )
    assert err.violation.rule == "T1" and err.violation.field == "token"
    assert "Overworld Weather Bag" in err.violation.message


def test_t1_the_current_weathers_bag_is_the_default(example_state):
    state = ready(example_state)  # overworld
    err = rejected(state, {"cmd": "draw_weather", "token": "weather.underworld.still.1"})
    assert err.violation.rule == "T1" and '"bag": "underworld"' in err.violation.fix
    state, _ = apply(state, {"cmd": "draw_weather", "bag": "underworld", "seed": 1})
    assert state.time.weather.bag == "underworld"


def test_t1_a_time_token_is_not_a_weather_token(example_state):
    err = rejected(
        example_state,
        {"cmd": "draw_weather", "bag": "overworld", "token": "time.morning.minor.safe.1"},
    )
    assert err.violation.rule == "T1"


def test_t2_the_weather_holds_until_changed(example_state):
    state = ready(example_state)
    before = state.time.weather
    for seed in range(8):
        state, _ = apply(state, {"cmd": "draw_time", "seed": seed, "resolve": True})
    assert state.time.weather == before
    err = rejected(state, {"cmd": "start_session", "seed": 1})
    assert err.violation.rule == "T2"


def test_t2_a_new_weather_token_sends_the_old_one_back(example_state):
    state = ready(example_state)
    old = state.time.weather.token
    state, events = apply(state, {"cmd": "draw_weather", "token": "weather.overworld.rain.1"})
    assert events[0]["replaced"] == old and old in state.bags["weather.overworld"].contents
    assert "weather.overworld.rain.1" not in state.bags["weather.overworld"].contents


def test_t2_the_current_weather_token_cannot_be_drawn_again(example_state):
    state = ready(example_state)
    err = rejected(state, {"cmd": "draw_weather", "token": state.time.weather.token})
    assert err.violation.rule == "T2"


def test_t2_the_worldkeeper_changes_the_weather_in_words(example_state):
    state = ready(example_state)
    old = state.time.weather.token
    state, events = apply(state, {"cmd": "set_weather", "name": "ash falls"})
    assert events[0]["rule"] == "T2"
    assert table_view(state)["time"]["weather"] == {
        "bag": "overworld",
        "token": None,
        "name": "ash falls",
    }
    assert old in state.bags["weather.overworld"].contents


def test_t4_a_weather_time_token_asks_for_a_draw_or_a_change(example_state):
    state = ready(example_state)
    state, events = resolve(state, "weather")
    prompts = [e for e in events if e.type == "time_prompt"]
    assert prompts and prompts[0]["kind"] == "weather"
    state, _ = apply(state, {"cmd": "draw_weather", "seed": 2})
    assert not [p for p in state.time.prompts if p.kind == "weather"]


def test_t11_the_weather_marker_survives_bands_and_days(example_state):
    state = ready(example_state)
    state, _ = run(state, *({"cmd": "draw_time", "seed": i, "resolve": True} for i in range(12)))
    assert state.time.day == 2 and state.time.weather == ready(example_state).time.weather
