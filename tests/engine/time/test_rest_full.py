"""Full Rest after five Minor draws: all Fatigue or 1 Strain, the I-T8 default (T8, I-T8)."""

from __future__ import annotations

import pytest

from engine import apply
from tests.harness import run
from tests.harness.timeboard import ready, rejected, resolve, resolve_many, types

FIVE = ("safe", "opportunity", "event", "safe", "opportunity")  # a Major falls in between


@pytest.fixture
def worn(example_state):
    """Aria: Fatigue 4. Bren: 1 Strain, no Fatigue. Cass: Fatigue 3 and 1 Strain."""
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "adjust_hero", "hero": "aria", "fatigue": 4},
        {"cmd": "adjust_hero", "hero": "bren", "strain": 1},
        {"cmd": "adjust_hero", "hero": "cass", "strain": 1},
    )
    return state


def five_minor_draws(state, **last):
    """Five Minor draws with the cadence's Major after the third; extra args on the fifth."""
    state, _ = resolve_many(state, *FIVE[:3])
    state, _ = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})  # the Major
    state, _ = resolve(state, FIVE[3])
    return resolve(state, FIVE[4], **last)


def test_t8_five_minor_draws_complete_a_full_rest(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, events = five_minor_draws(state)
    assert "full_rest_completed" in types(events)
    assert state.time.rest is None
    ended = [e for e in events if e.type == "rest_ended"]
    assert ended[0]["reason"] == "full_rest" and ended[0]["minor_draws"] == 5


def test_i_t8_the_default_picks_strain_only_with_strain_and_no_fatigue(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, events = five_minor_draws(state)
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    # Aria: 4 Fatigue → 5 recovered one by one, 0 left by the fifth: no Strain → fatigue
    assert done["aria"] == {"choice": "fatigue", "default": True}
    assert done["bren"] == {"choice": "strain", "default": True}  # Strain, no Fatigue
    # Cass: 3 Fatigue gone by the fifth draw, 1 Strain → strain
    assert done["cass"] == {"choice": "strain", "default": True}
    assert state.heroes["bren"].strain == 0 and state.heroes["cass"].strain == 0


def test_i_t8_with_fatigue_left_the_default_is_fatigue(example_state):
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "adjust_hero", "hero": "aria", "strain": 1},
        {"cmd": "begin_rest", "kind": "safe"},
    )
    state, _ = resolve_many(state, *FIVE[:3])
    state, _ = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})
    state, _ = resolve(state, FIVE[3])
    # a Performance during the Rest tired her: 3 Fatigue, 2 left after the fifth draw's recovery
    state, _ = apply(state, {"cmd": "adjust_hero", "hero": "aria", "fatigue": 3})
    state, events = resolve(state, FIVE[4])
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    assert done["aria"] == {"choice": "fatigue", "default": True}
    assert state.heroes["aria"].fatigue == 0 and state.heroes["aria"].strain == 1


def test_t8_an_explicit_choice_wins_over_the_default(example_state):
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "adjust_hero", "hero": "aria", "fatigue": 5, "strain": 1},
        {"cmd": "begin_rest", "kind": "safe", "full_rest": {"aria": "strain"}},
    )
    state, events = five_minor_draws(state)
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    assert done["aria"] == {"choice": "strain", "default": False}
    assert state.heroes["aria"].strain == 0 and state.heroes["aria"].fatigue == 0
    # 5 − 5 per-draw recoveries = 0 anyway; the Strain token left the bag
    assert "aria.strain.1" not in state.bags["aria"].contents


def test_t8_the_choice_can_come_with_the_fifth_draw(example_state):
    state = ready(example_state)
    state, _ = run(
        state,
        {"cmd": "adjust_hero", "hero": "cass", "strain": 1},
        {"cmd": "begin_rest", "kind": "safe"},
    )
    state, events = five_minor_draws(state, full_rest={"cass": "fatigue"})
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    assert done["cass"] == {"choice": "fatigue", "default": False}
    assert state.heroes["cass"].strain == 1


def test_t8_choose_full_rest_during_the_rest(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, events = apply(state, {"cmd": "choose_full_rest", "hero": "bren", "choice": "fatigue"})
    assert events[0].type == "full_rest_chosen"
    state, events = five_minor_draws(state)
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    assert done["bren"]["choice"] == "fatigue" and state.heroes["bren"].strain == 1


def test_t8_the_fourth_draw_asks_for_the_choice(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = resolve_many(state, *FIVE[:3])
    state, _ = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})
    state, events = resolve(state, FIVE[3])
    asked = [e for e in events if e.type == "time_prompt" and e["kind"] == "full_rest"]
    assert asked and "Bren strain" in asked[0]["text"]


def test_t8_a_full_rest_adds_no_major_draw(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = five_minor_draws(state)
    # 5 Minor + 1 Major resolved: Day, 2 Minor done, a Minor still due
    assert state.time.band.value == "day" and state.time.minor_done == 2
    assert state.time.draws == 6


def test_t9_watchers_get_no_full_rest(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe", "watch": ["bren"]})
    state, events = five_minor_draws(state)
    done = next(e for e in events if e.type == "full_rest_completed")["heroes"]
    assert "bren" not in done and state.heroes["bren"].strain == 1


def test_t9_a_watcher_cannot_choose_a_full_rest(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe", "watch": ["bren"]})
    err = rejected(state, {"cmd": "choose_full_rest", "hero": "bren", "choice": "strain"})
    assert err.violation.rule == "T9"


def test_t8_a_bad_choice_is_refused(worn):
    err = rejected(worn, {"cmd": "begin_rest", "kind": "safe", "full_rest": {"aria": "wounds"}})
    assert err.violation.rule == "T8" and err.violation.field == "full_rest"


def test_t8_choices_without_a_rest_are_refused(worn):
    err = rejected(worn, {"cmd": "choose_full_rest", "hero": "aria", "choice": "fatigue"})
    assert err.violation.rule == "T7"
    err = rejected(
        worn, {"cmd": "draw_time", "seed": 1, "resolve": True, "full_rest": {"aria": "fatigue"}}
    )
    assert err.violation.rule == "T8"


def test_t8_an_ended_rest_gives_no_full_rest(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = resolve_many(state, *FIVE[:3])
    state, _ = apply(state, {"cmd": "end_rest"})
    state, _ = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})
    state, events = resolve_many(state, *FIVE[3:])
    assert "full_rest_completed" not in types(events)
    assert state.heroes["bren"].strain == 1


def test_t8_a_choice_given_with_a_major_is_kept(worn):
    state, _ = apply(worn, {"cmd": "begin_rest", "kind": "safe"})
    state, _ = resolve_many(state, *FIVE[:3])
    state, _ = apply(
        state,
        {"cmd": "draw_time", "seed": 0, "resolve": True, "full_rest": {"bren": "fatigue"}},
    )
    assert state.time.rest.choices == {"bren": "fatigue"}


def test_t8_a_rest_that_goes_on_completes_a_full_rest_every_five_minor_draws(example_state):
    """With rules.rest.end_at_full_rest = false the Rest goes on after the Full Rest: the
    next Minor draws are ordinary Rest again, and the tenth completes a second Full Rest."""
    from dataclasses import replace

    rules = {**example_state.rules, "rest": {**example_state.rules["rest"]}}
    rules["rest"]["end_at_full_rest"] = False
    state = ready(replace(example_state, rules=rules))
    state, _ = run(
        state,
        {"cmd": "adjust_hero", "hero": "aria", "strain": 2},
        {"cmd": "begin_rest", "kind": "safe", "full_rest": {"aria": "strain"}},
    )
    completed, asked = [], []
    for seed in range(13):  # 10 Minor draws and the cadence's 3 Majors
        state, events = apply(state, {"cmd": "draw_time", "seed": seed, "resolve": True})
        steps = [e["minor_draws"] for e in events if e.type == "rest_step"]
        if "full_rest_completed" in types(events):
            completed += steps
        if any(e.type == "time_prompt" and e["kind"] == "full_rest" for e in events):
            asked += steps
    assert completed == [5, 10] and asked == [4, 9]
    assert state.time.rest is not None and state.time.rest.minor_draws == 10
    assert state.heroes["aria"].strain == 0
