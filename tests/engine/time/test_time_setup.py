"""Loading the Time, Weather and temporary sections; the view; JSON (T1, T3, T6, I-T6, T12)."""

from __future__ import annotations

import json
import tomllib

import pytest

from engine import ConfigError, apply, json_schema, load_table_text
from engine.rules import default_rules
from engine.state import TableState
from engine.table import build_table
from engine.time.board import Band, split_face
from engine.view import table_view
from tests.harness import EXAMPLE_TABLE, run
from tests.harness.timeboard import ready, resolve


def table_with(**sections) -> TableState:
    data = tomllib.loads(EXAMPLE_TABLE.read_text())
    for key in ("time", "weather", "temporary"):
        data.pop(key, None)
    data.update(sections)
    return build_table(data, "test.toml")


def share(state: TableState, band: str, faces: set[str]) -> float:
    tokens = [state.tokens[t] for t in state.bags[f"time.{band}"].contents]
    return sum(split_face(t.face)[1] in faces for t in tokens) / len(tokens)


def test_i_t6_default_bags_are_weighted_as_t6_says():
    state = table_with()
    calm = {"safe", "opportunity"}
    busy = {"fatigue", "event"}
    danger = {"escalation_1", "escalation_2", "escalation_3"}
    bands = ("morning", "day", "night")
    assert max(bands, key=lambda b: share(state, b, calm)) == "morning"
    assert max(bands, key=lambda b: share(state, b, busy)) == "day"
    assert max(bands, key=lambda b: share(state, b, danger)) == "night"


def test_i_t6_every_band_has_its_own_bag_from_the_rules():
    state = table_with()
    rules = default_rules()["time"]["bags"]
    for band in Band:
        bag = state.bags[f"time.{band.value}"]
        expected = sum(rules[band.value]["minor"].values()) + sum(
            rules[band.value]["major"].values()
        )
        assert len(bag.contents) == expected
        assert all(state.tokens[t].bag == bag.id for t in bag.contents)


def test_i_t6_a_table_lists_its_own_band_bag():
    state = table_with(time={"bags": {"night": {"minor": {"fatigue": 3}, "major": {"event": 1}}}})
    faces = sorted(state.tokens[t].face for t in state.bags["time.night"].contents)
    assert faces == ["major.event", "minor.fatigue", "minor.fatigue", "minor.fatigue"]
    assert len(state.bags["time.day"].contents) == len(table_with().bags["time.day"].contents)


def test_i_t6_rules_overrides_change_the_default_counts():
    state = table_with(rules={"time": {"bags": {"morning": {"minor": {"safe": 9}}}}})
    assert share(state, "morning", {"safe"}) > share(table_with(), "morning", {"safe"})


def test_t3_a_band_bag_too_small_for_its_draws_is_refused():
    with pytest.raises(ConfigError, match=r"time\.bags\.day\.minor.*at least 3"):
        table_with(time={"bags": {"day": {"minor": {"safe": 2}}}})


def test_t4_t5_unknown_faces_are_refused():
    with pytest.raises(ConfigError, match="unknown face 'escalation_2'"):
        table_with(time={"bags": {"day": {"minor": {"escalation_2": 3}}}})
    with pytest.raises(ConfigError, match="unknown face 'fatigue'"):
        table_with(time={"bags": {"day": {"major": {"fatigue": 1}}}})


@pytest.mark.parametrize(
    ("section", "pattern"),
    [
        ({"time": {"band": "dusk"}}, "morning, day or night"),
        ({"time": {"day": 0}}, "time.day"),
        ({"time": {"minor_done": 4}}, "0 to 3"),
        ({"time": {"hour": 3}}, r"time\.hour: unknown key — \[time\] takes: day,"),
        ({"weather": {"current": "rain"}}, "weather.bag"),
        ({"weather": {"bag": "overworld", "current": "lava"}}, "not a face"),
        ({"weather": {"bags": {"overworld": {}}}}, "at least one token"),
        ({"weather": {"bags": {"overworld": {"Rain!": 1}}}}, "lower-case name"),
        ({"weather": {"bags": {"skyworld": {"rain": 1}}}}, "weather.bags.skyworld: unknown key"),
        ({"temporary": {"supply": {"courage": 1}}}, "unknown face 'courage'"),
        ({"temporary": {"supply": {"purity": -1}}}, "whole number"),
    ],
)
def test_bad_time_sections_are_refused_with_the_key(section, pattern):
    with pytest.raises(ConfigError, match=pattern):
        table_with(**section)


def test_t1_a_table_may_say_the_current_weather():
    state = table_with(weather={"bag": "underworld", "current": "damp"})
    assert state.time.weather.bag == "underworld" and state.time.weather.name == "Damp"
    assert state.time.weather.token not in state.bags["weather.underworld"].contents
    state, _ = apply(state, {"cmd": "draw_time", "seed": 1})  # T1 satisfied


def test_t3_a_table_may_start_mid_day():
    state = table_with(time={"day": 4, "band": "night", "minor_done": 2})
    view = table_view(state)["time"]
    assert (view["day"], view["band"], view["minor_done"], view["due"]) == (4, "night", 2, "minor")


def test_the_example_table_has_its_own_weather_faces(example_state):
    faces = {example_state.tokens[t].face for t in example_state.bags["weather.overworld"].contents}
    assert "snow" in faces and "heat" not in faces
    assert len(example_state.bags["temporary"].contents) == 6


def test_view_keys_the_display_and_mqtt_read(example_state):
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "grant_temporary", "hero": "aria", "face": "restore"},
        {"cmd": "begin_rest", "kind": "unsafe", "watch": ["bren"]},
    )
    state, _ = resolve(state, "event")
    view = json.loads(json.dumps(table_view(state)))["time"]
    assert set(view) == {
        "day",
        "band",
        "minor_done",
        "due",
        "weather",
        "rest",
        "temporary",
        "last",
        "prompts",
    }
    assert set(view["weather"]) == {"bag", "token", "name"}
    assert view["rest"] == {
        "kind": "unsafe",
        "minor_draws": 0,
        "full_rest_at": 5,
        "heroes": {"aria": "resting", "bren": "watch", "cass": "resting"},
    }
    assert view["temporary"] == []  # RESTORE expired at that Minor draw
    assert view["last"]["face"] == "event" and view["last"]["resolved"] is True
    assert [p["kind"] for p in view["prompts"]] == ["event", "interrupt"]
    assert view["prompts"][1]["blocking"] is True


def test_state_with_a_busy_board_survives_a_json_round_trip(example_state):
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "grant_temporary", "hero": "bren", "face": "purity"},
        {"cmd": "begin_rest", "kind": "unsafe", "full_rest": {"aria": "strain"}},
    )
    state, _ = resolve(state, "event")  # a blocking question, a held recovery
    state = state.without_history()
    assert state.time.rest.held and state.time.timers and state.time.prompts
    again = TableState.from_json(json.loads(json.dumps(state.to_json())))
    assert again == state
    state, _ = run(
        state,
        {"cmd": "answer_interruption", "interrupts": False},
        {"cmd": "draw_time", "seed": 1},  # left pending
    )
    state = state.without_history()
    assert state.time.pending is not None
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_every_time_command_is_in_the_json_schema():
    titles = {v["title"] for v in json_schema()["oneOf"]}
    for name in (
        "start_session",
        "draw_weather",
        "set_weather",
        "draw_time",
        "resolve_time",
        "cancel_time_draw",
        "set_time",
        "acknowledge_prompt",
        "begin_rest",
        "choose_full_rest",
        "end_rest",
        "answer_interruption",
        "grant_temporary",
    ):
        assert name in titles


def test_loading_from_text_registers_all_sections():
    state = load_table_text(EXAMPLE_TABLE.read_text(), "example")
    assert state.time is not None and "temporary" in state.bags
