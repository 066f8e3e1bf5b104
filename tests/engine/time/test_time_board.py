"""The Time Board's cadence and its refusals (T3, T6, T11)."""

from __future__ import annotations

from engine import apply
from engine.time.board import Band, Size
from engine.view import table_view
from tests.harness import run
from tests.harness.timeboard import ready, rejected, resolve, resolve_many, token_of, types


def test_t3_three_minor_then_one_major_per_band(table):
    state = table
    sizes = []
    for _ in range(4):
        due = state.time.due(3)
        sizes.append(due)
        state, _ = apply(state, {"cmd": "draw_time", "seed": len(sizes), "resolve": True})
    assert sizes == [Size.MINOR, Size.MINOR, Size.MINOR, Size.MAJOR]
    assert state.time.band is Band.DAY and state.time.minor_done == 0


def test_t3_bands_run_morning_day_night_then_a_new_day(table):
    state = table
    seen = []
    for i in range(12):
        seen.append((state.time.day, state.time.band.value))
        state, events = apply(state, {"cmd": "draw_time", "seed": i, "resolve": True})
    assert seen[0] == (1, "morning") and seen[4] == (1, "day") and seen[8] == (1, "night")
    assert (state.time.day, state.time.band) == (2, Band.MORNING)
    started = [e for e in events if e.type == "band_started"]
    assert started and started[-1]["new_day"] is True and started[-1]["day"] == 2


def test_t3_the_view_always_says_band_step_and_what_is_due(table):
    state, _ = resolve_many(table, "safe", "safe")
    view = table_view(state)["time"]
    assert view["band"] == "morning" and view["minor_done"] == 2 and view["due"] == "minor"
    state, _ = resolve(state, "opportunity")
    assert table_view(state)["time"]["due"] == "major"


def test_t3_a_major_token_is_refused_when_a_minor_is_due(table):
    major = token_of(table, "safe", Size.MAJOR)
    err = rejected(table, {"cmd": "draw_time", "token": major})
    assert err.violation.rule == "T3" and err.violation.field == "token"
    assert "Minor" in err.violation.message and "0 of 3" in err.violation.message


def test_t3_a_minor_token_is_refused_when_the_major_is_due(table):
    state, _ = resolve_many(table, "safe", "safe", "safe")
    err = rejected(state, {"cmd": "draw_time", "token": token_of(state, "event", Size.MINOR)})
    assert err.violation.rule == "T3"


def test_t3_a_seeded_draw_takes_only_tokens_of_the_due_size(table):
    state, _ = resolve_many(table, "safe", "safe", "safe")
    for seed in range(20):
        _, events = apply(state, {"cmd": "draw_time", "seed": seed})
        assert events[0]["size"] == "major"


def test_t6_a_token_from_another_bands_bag_is_refused(table):
    day_token = token_of(table, "safe", Size.MINOR, band="day")
    err = rejected(table, {"cmd": "draw_time", "token": day_token})
    assert err.violation.rule == "T6" and err.violation.field == "token"
    assert "Morning Time Bag" in err.violation.message


def test_t6_each_band_draws_from_its_own_bag(table):
    state, _ = resolve_many(table, "safe", "safe", "safe")
    state, _ = apply(state, {"cmd": "draw_time", "seed": 1, "resolve": True})  # the Major
    _, events = apply(state, {"cmd": "draw_time", "seed": 3})
    assert events[0]["token"].startswith("time.day.")


def test_t4_a_weather_token_on_the_time_reader_is_refused(table):
    err = rejected(table, {"cmd": "draw_time", "token": "weather.overworld.rain.1"})
    assert err.violation.rule == "T4"


def test_t3_a_token_already_on_the_board_is_refused(table):
    token = token_of(table, "safe")
    state, _ = apply(table, {"cmd": "draw_time", "token": token, "resolve": True})
    err = rejected(state, {"cmd": "draw_time", "token": token})
    assert err.violation.rule == "T3" and "already lies on the Time Board" in str(err)


def test_t3_band_tokens_go_back_to_their_bag_when_the_band_ends(table):
    full = len(table.bags["time.morning"].contents)
    state, _ = resolve_many(table, "safe", "safe", "fatigue")
    assert len(state.bags["time.morning"].contents) == full - 3
    assert len(state.time.spaces) == 3
    state, _ = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})
    assert len(state.bags["time.morning"].contents) == full and state.time.spaces == ()


def test_t3_tokens_return_at_once_when_the_table_says_resolved(example_state):
    import tomllib

    from engine.table import build_table
    from tests.harness import EXAMPLE_TABLE

    data = tomllib.loads(EXAMPLE_TABLE.read_text())
    data["rules"] = {"time": {"tokens_return": "resolved"}}
    state = ready(build_table(data, "t"))
    full = len(state.bags["time.morning"].contents)
    state, _ = resolve(state, "safe")
    assert len(state.bags["time.morning"].contents) == full and state.time.spaces == ()


def test_t3_one_draw_at_a_time(table):
    state, _ = apply(table, {"cmd": "draw_time", "seed": 1})
    err = rejected(state, {"cmd": "draw_time", "seed": 2})
    assert err.violation.rule == "T3"


def test_t3_resolving_with_nothing_drawn_is_refused(table):
    err = rejected(table, {"cmd": "resolve_time"})
    assert err.violation.rule == "T3" and "draw_time" in err.violation.fix


def test_t3_draw_and_resolve_are_two_steps(table):
    state, events = apply(table, {"cmd": "draw_time", "seed": 4})
    assert types(events) == ["time_drawn"] and state.time.minor_done == 0
    assert table_view(state)["time"]["last"]["resolved"] is False
    state, events = apply(state, {"cmd": "resolve_time"})
    assert events[0].type == "time_resolved" and state.time.minor_done == 1
    assert table_view(state)["time"]["last"]["resolved"] is True


def test_t3_set_time_moves_the_board_and_returns_the_spaces(table):
    state, _ = resolve_many(table, "safe", "safe")
    state, _ = apply(state, {"cmd": "set_time", "day": 3, "band": "night", "minor_done": 1})
    assert (state.time.day, state.time.band, state.time.minor_done) == (3, Band.NIGHT, 1)
    assert state.time.spaces == ()
    assert state.bags["time.morning"].contents == table.bags["time.morning"].contents


def test_t3_set_time_refuses_more_minor_draws_than_a_band_has(table):
    err = rejected(table, {"cmd": "set_time", "minor_done": 4})
    assert err.violation.rule == "T3" and err.violation.field == "minor_done"


def test_t11_a_performance_does_not_reset_the_board(table):
    state, _ = resolve_many(table, "safe", "fatigue")
    before = state.time
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": 3},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
        *({"cmd": "draw", "hero": "aria", "seed": i} for i in range(4)),
        {"cmd": "resolve"},
        {"cmd": "reset"},
    )
    assert state.time == before


def test_t11_a_new_session_keeps_the_weather_and_the_board(table):
    state, _ = resolve_many(table, "safe", "fatigue")
    state, events = apply(state, {"cmd": "start_session"})
    assert state.time.weather == table.time.weather
    assert state.time.minor_done == 2 and state.time.session == 2
    assert types(events) == ["session_started"]


def test_t3_undo_takes_back_a_resolved_draw(table):
    state, _ = resolve(table, "fatigue")
    state, _ = apply(state, {"cmd": "undo"})
    assert state.without_history() == table.without_history()
