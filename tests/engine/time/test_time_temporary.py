"""Temporary tokens and their timers: Purity, Link, RESTORE, VIGOR (T12)."""

from __future__ import annotations

import pytest

from engine import apply
from engine.tokens import TokenKind
from engine.view import table_view
from tests.harness import run
from tests.harness.timeboard import rejected, resolve, resolve_many, types


def grant(state, hero, face):
    state, events = apply(state, {"cmd": "grant_temporary", "hero": hero, "face": face})
    return state, events[0]["token"]


def timers(state):
    return {t.token: t.remaining for t in state.time.timers}


def test_t12_a_granted_token_goes_into_the_heros_bag(table):
    state, token = grant(table, "aria", "purity")
    assert token in state.bags["aria"].contents
    assert token not in state.bags["temporary"].contents
    view = table_view(state)["time"]["temporary"]
    assert view == [
        {
            "token": token,
            "hero": "aria",
            "face": "purity",
            "expires": "3 Major draws",
            "on": "major",
            "remaining": 3,
        }
    ]


def test_t12_purity_stays_for_three_resolved_major_draws(table):
    state, token = grant(table, "bren", "purity")
    for major in range(1, 4):
        state, _ = resolve_many(state, "safe", "opportunity", "event")
        assert token in state.bags["bren"].contents  # Minors do not count
        state, events = resolve(state, "event" if major == 3 else "safe")
        if major < 3:
            assert timers(state)[token] == 3 - major
    assert token not in state.bags["bren"].contents
    assert token in state.bags["temporary"].contents
    expired = [e for e in events if e.type == "temporary_expired"]
    assert expired[0]["leaves"] == "now" and expired[0]["rule"] == "T12"


def test_t12_link_ends_at_the_next_resolved_major(table):
    state, token = grant(table, "cass", "link")
    state, _ = resolve_many(state, "safe", "fatigue", "event")
    assert token in state.bags["cass"].contents
    state, events = resolve(state, "safe")
    assert token not in state.bags["cass"].contents and state.time.timers == ()
    assert "temporary_expired" in types(events)


@pytest.mark.parametrize("face", ["restore", "vigor"])
def test_t12_restore_and_vigor_end_at_the_next_resolved_minor(table, face):
    state, token = grant(table, "aria", face)
    state, events = resolve(state, "safe")
    assert token not in state.bags["aria"].contents
    assert "temporary_expired" in types(events)


def test_t12_restore_and_vigor_expire_before_the_steps_effects(table):
    state, token = grant(table, "aria", "vigor")
    state, events = resolve(state, "fatigue")
    assert token not in state.bags["aria"].contents
    order = types(events)
    assert order.index("temporary_expired") < order.index("fatigue_gained")


def test_t12_a_major_draw_does_not_expire_restore(table):
    state, _ = resolve_many(table, "safe", "safe", "safe")
    state, token = grant(state, "aria", "restore")
    state, _ = resolve(state, "safe")  # the Major
    assert token in state.bags["aria"].contents and timers(state) == {token: 1}


def test_t12_a_cancelled_draw_advances_no_timer(table):
    state, vigor = grant(table, "aria", "vigor")
    state, purity = grant(state, "bren", "purity")
    before = state.without_history()
    state, _ = apply(state, {"cmd": "draw_time", "seed": 3})
    state, events = apply(state, {"cmd": "cancel_time_draw"})
    assert types(events) == ["time_draw_cancelled"]
    assert state.without_history() == before
    assert timers(state) == {vigor: 1, purity: 3}


def test_t12_an_unfinished_draw_advances_no_timer(table):
    state, vigor = grant(table, "aria", "vigor")
    state, _ = apply(state, {"cmd": "draw_time", "seed": 3})
    assert timers(state) == {vigor: 1} and vigor in state.bags["aria"].contents


def test_t12_cancelling_with_nothing_drawn_is_refused(table):
    err = rejected(table, {"cmd": "cancel_time_draw"})
    assert err.violation.rule == "T12"


def test_t12_no_grant_while_a_draw_waits(table):
    state, _ = apply(table, {"cmd": "draw_time", "seed": 3})
    err = rejected(state, {"cmd": "grant_temporary", "hero": "aria", "face": "vigor"})
    assert err.violation.rule == "T12"


def _performance_with(state, token):
    return run(
        state,
        {"cmd": "begin_performance", "difficulty": 4},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
        },
        {"cmd": "draw", "hero": "bren", "token": token},
        *({"cmd": "draw", "hero": "bren", "seed": i} for i in range(3)),
    )


def test_t12_purity_in_a_resolved_performance_leaves_at_reset(table):
    state, token = grant(table, "bren", "purity")
    state, _ = run(state, *({"cmd": "draw_time", "seed": i, "resolve": True} for i in range(11)))
    state, _ = _performance_with(state, token)
    state, _ = apply(state, {"cmd": "resolve"})
    result = state.performance.results
    state, events = apply(state, {"cmd": "draw_time", "seed": 0, "resolve": True})
    expired = [e for e in events if e.type == "temporary_expired"]
    assert expired[0]["leaves"] == "at_reset" and token in state.retiring
    assert state.performance.results == result  # the resolved draw is not altered
    assert token in state.performance.contributions[0].drawn
    state, events = apply(state, {"cmd": "reset"})
    assert events[0]["removed"] == [token]
    assert token not in state.bags["bren"].contents and state.location(token) == "supply"


def test_t12_a_token_that_left_at_reset_can_be_granted_again(table):
    state, token = grant(table, "bren", "purity")
    state, _ = run(state, *({"cmd": "draw_time", "seed": i, "resolve": True} for i in range(11)))
    state, _ = _performance_with(state, token)
    state, _ = run(
        state,
        {"cmd": "resolve"},
        {"cmd": "draw_time", "seed": 0, "resolve": True},
        {"cmd": "reset"},
    )
    state, again = grant(state, "aria", "purity")
    assert again == token and token in state.bags["aria"].contents
    assert state.tokens[token].bag == "aria"


def test_t12_purity_counts_in_a_performance_with_its_table_value(table):
    state, token = grant(table, "bren", "purity")
    state, events = _performance_with(state, token)
    drawn = [e for e in events if e.type == "token_drawn" and e["token"] == token]
    assert drawn[0]["value"] == state.rules["temporary"]["values"]["purity"]
    assert state.tokens[token].kind is TokenKind.TEMPORARY


def test_t12_a_token_in_play_cannot_be_granted_twice(table):
    state, token = grant(table, "bren", "purity")
    err = rejected(state, {"cmd": "grant_temporary", "hero": "aria", "token": token})
    assert err.violation.rule == "T12" and err.violation.field == "token"
    err = rejected(state, {"cmd": "grant_temporary", "hero": "aria", "face": "purity"})
    assert err.violation.rule == "T12" and "no purity token is free" in err.violation.message


def test_t12_grant_needs_a_temporary_token(table):
    err = rejected(table, {"cmd": "grant_temporary", "hero": "aria", "token": "aria.weight.1"})
    assert err.violation.rule == "T12"
    err = rejected(table, {"cmd": "grant_temporary", "hero": "aria", "face": "courage"})
    assert err.violation.field == "face"
    err = rejected(table, {"cmd": "grant_temporary", "hero": "aria"})
    assert err.violation.code == "malformed"


def test_t12_undo_of_a_resolved_draw_restores_the_timer(table):
    state, vigor = grant(table, "aria", "vigor")
    after, _ = resolve(state, "safe")
    back, _ = apply(after, {"cmd": "undo"})
    assert vigor not in after.bags["aria"].contents
    assert back.without_history() == state.without_history() and vigor in back.bags["aria"].contents
