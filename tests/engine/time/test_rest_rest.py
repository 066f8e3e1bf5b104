"""Rest: recovery per Minor draw, watchers, ending, refusals (T7, T9, I-T4)."""

from __future__ import annotations

import pytest

from engine import apply
from engine.view import table_view
from tests.harness.timeboard import ready, rejected, resolve, resolve_many, types


@pytest.fixture
def tired(example_state):
    """Everyone carries some Fatigue (Cass starts with 3)."""
    state = ready(example_state)
    for hero in ("aria", "bren"):
        state, _ = apply(state, {"cmd": "adjust_hero", "hero": hero, "fatigue": 3})
    return state


def test_t7_resting_heroes_recover_one_fatigue_per_minor_draw(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    state, events = resolve(state, "safe")
    for hero in ("aria", "bren", "cass"):
        assert state.heroes[hero].fatigue == tired.heroes[hero].fatigue - 1
    assert [e["cause"] for e in events if e.type == "fatigue_recovered"] == ["rest"] * 3


def test_t7_resting_heroes_ignore_time_fatigue_and_still_recover(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    state, events = resolve(state, "fatigue")
    assert "fatigue_gained" not in types(events)
    assert state.heroes["aria"].fatigue == 2
    order = types(events)
    assert order.index("time_fatigue_ignored") < order.index("rest_step")


def test_t9_a_watcher_takes_time_fatigue_and_does_not_recover(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe", "watch": ["bren"]})
    assert table_view(state)["time"]["rest"]["heroes"] == {
        "aria": "resting",
        "bren": "watch",
        "cass": "resting",
    }
    state, _ = resolve(state, "fatigue")
    assert state.heroes["bren"].fatigue == 4
    assert state.heroes["aria"].fatigue == 2 and state.heroes["cass"].fatigue == 2


def test_t7_recovery_never_goes_below_zero(example_state):
    state = ready(example_state)
    state, _ = apply(state, {"cmd": "begin_rest", "kind": "safe"})
    state, events = resolve(state, "safe")
    assert state.heroes["aria"].fatigue == 0
    assert [e["hero"] for e in events if e.type == "fatigue_recovered"] == ["cass"]


def test_t7_a_major_draw_gives_no_recovery(tired):
    state, _ = resolve_many(tired, "safe", "safe", "safe")
    state, _ = apply(state, {"cmd": "begin_rest", "kind": "safe"})
    state, events = resolve(state, "safe")  # the Major
    assert "fatigue_recovered" not in types(events)
    assert state.time.rest.minor_draws == 0


def test_t7_the_rest_may_end_after_any_minor_draw(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = resolve_many(state, "safe", "opportunity")
    state, events = apply(state, {"cmd": "end_rest"})
    assert events[0]["reason"] == "ended" and events[0]["minor_draws"] == 2
    assert state.time.rest is None and table_view(state)["time"]["rest"] is None
    state, events = resolve(state, "fatigue")
    assert {e["hero"] for e in events if e.type == "fatigue_gained"} == {"aria", "bren", "cass"}


def test_t7_ending_a_rest_that_has_not_started_is_refused(tired):
    err = rejected(tired, {"cmd": "end_rest"})
    assert err.violation.rule == "T7" and "begin_rest" in err.violation.fix


def test_t7_a_rest_cannot_end_mid_draw(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = apply(state, {"cmd": "draw_time", "seed": 1})
    err = rejected(state, {"cmd": "end_rest"})
    assert err.violation.rule == "T7"


def test_t7_one_rest_at_a_time(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    err = rejected(state, {"cmd": "begin_rest", "kind": "unsafe"})
    assert err.violation.rule == "T7"


def test_t9_somebody_must_rest(tired):
    err = rejected(tired, {"cmd": "begin_rest", "kind": "safe", "watch": ["aria", "bren", "cass"]})
    assert err.violation.rule == "T9" and err.violation.field == "watch"


def test_t9_an_unknown_watcher_is_refused(tired):
    err = rejected(tired, {"cmd": "begin_rest", "kind": "safe", "watch": ["zed"]})
    assert err.violation.code == "unknown" and err.violation.field == "watch"


def test_t7_the_kind_of_rest_is_required(tired):
    err = rejected(tired, {"cmd": "begin_rest"})
    assert err.violation.code == "malformed" and err.violation.field == "kind"


def test_t8_the_cadence_goes_on_through_a_rest(tired):
    state, _ = apply(tired, {"cmd": "begin_rest", "kind": "safe"})
    sizes = []
    for seed in range(8):
        state, events = apply(state, {"cmd": "draw_time", "seed": seed, "resolve": True})
        sizes += [e["size"] for e in events if e.type == "time_resolved"]
    assert sizes == ["minor", "minor", "minor", "major"] * 2
