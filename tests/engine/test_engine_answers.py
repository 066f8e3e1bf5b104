"""The questions the adapters ask the engine: check, Redraw candidates, Intersect partners, the
hero drawing now (P18) and the costs of the open Performance (P9, P13–P15) — issue 18 item 1.

Each answer is checked against the engine itself (``apply``) or against an independent count
from the events, over every state of the example sessions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace as dc_replace

import pytest

import engine
from companion.cli.replay import read_session
from engine import CommandRejected, apply, check
from engine.performance.costs import describe
from engine.performance.questions import intersect_partners, redraws
from engine.state import HeroCost, TableState
from engine.view import table_view
from tests.harness import ROOT, run

SESSIONS = ("session.jsonl",)


def _states(
    example_state: TableState, name: str
) -> Iterator[tuple[TableState, list[engine.Event]]]:
    state = example_state
    for _, cmd in read_session(ROOT / "examples" / name):
        try:
            state, events = apply(state, cmd)
        except CommandRejected:
            continue
        yield state, events


# --- check(): the refusal apply would give, nothing applied -------------------------------


def test_check_gives_apply_s_refusal_and_changes_nothing(example_state):
    before = example_state.to_json()
    refused = check(example_state, {"cmd": "draw", "hero": "aria", "seed": 1})
    with pytest.raises(CommandRejected) as e:
        apply(example_state, {"cmd": "draw", "hero": "aria", "seed": 1})
    assert refused == e.value.violation and refused.rule == "P19"
    assert check(example_state, {"cmd": "begin_performance", "difficulty": 9}).rule == "P19"
    assert check(example_state, {"cmd": "nope"}).code == "malformed"
    assert check(example_state, {"cmd": "begin_performance", "difficulty": 5}) is None
    assert example_state.to_json() == before


@pytest.mark.parametrize("name", SESSIONS)
def test_check_agrees_with_apply_on_every_command_of_the_sessions(example_state, name):
    state = example_state
    for _, cmd in read_session(ROOT / "examples" / name):
        answer = check(state, cmd)
        try:
            state, _ = apply(state, cmd)
        except CommandRejected as e:
            assert answer == e.violation
        else:
            assert answer is None


# --- Redraw candidates (P11) ---------------------------------------------------------------


@pytest.mark.parametrize("name", SESSIONS)
def test_p11_redraw_candidates_are_exactly_the_redraws_apply_accepts(example_state, name):
    seen = 0
    for state, _ in _states(example_state, name):
        answer = redraws(state)
        perf = state.performance
        on_board = [
            (c.hero, t) for c in (perf.contributions if perf else ()) if c.checks for t in c.drawn
        ]
        accepted = [
            (h, t)
            for h, t in on_board
            if check(state, {"cmd": "redraw", "hero": h, "replace": t}) is None
        ]
        if perf is not None and perf.resolved:
            accepted = []
        assert list(answer.candidates) == accepted
        for hero, why in answer.refusals.items():
            assert why.rule == "P11" and all(h != hero for h, _ in answer.candidates)
        seen += len(answer.candidates) + len(answer.refusals)
    assert seen > 0  # the sessions reach both answers


def test_p11_a_trained_hero_is_refused_with_the_engine_s_words(example_state):
    state, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 5},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "faith",
            "action": "target",
        },
        {"cmd": "draw", "hero": "bren", "seed": 1},
    )
    answer = redraws(state)
    assert answer.candidates == ()
    assert (
        answer.refusals["bren"].rule == "P11" and "Redraw needs" in answer.refusals["bren"].message
    )
    view = table_view(state)["performance"]["redraw"]
    assert view["candidates"] == [] and view["refusals"]["bren"]["rule"] == "P11"


# --- Intersect partners (P10) ----------------------------------------------------------------


@pytest.mark.parametrize("name", SESSIONS)
def test_p10_partners_are_the_heroes_a_declaration_may_intersect(example_state, name):
    checked = 0
    for state, _ in _states(example_state, name):
        perf = state.performance
        if perf is None or perf.resolved:
            continue
        for hero in state.heroes:
            for cap in state.capabilities:
                partners = intersect_partners(state, hero, cap, "target")
                for other in state.heroes:
                    cmd = {
                        "cmd": "declare",
                        "hero": hero,
                        "shade": "control",
                        "capability": cap,
                        "action": "target",
                        "intersect": other,
                    }
                    refused = check(state, cmd)
                    intersect_refused = refused is not None and refused.field == "intersect"
                    # a declaration refused for another reason (already declared) says nothing
                    if refused is None or intersect_refused:
                        assert (other in partners) == (refused is None), (hero, cap, other)
                        checked += 1
    assert checked > 0


# --- the hero drawing now (P18), part of the state ------------------------------------------


def test_p18_the_hero_drawing_now_is_in_the_state_undone_and_restored(example_state):
    state, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 5},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
        },
    )
    assert state.performance.drawing == "bren"
    state, _ = apply(state, {"cmd": "draw", "hero": "aria", "seed": 2})
    assert state.performance.drawing == "aria"
    assert TableState.from_json(state.to_json()).performance.drawing == "aria"
    assert table_view(state)["performance"]["drawing"] == "aria"
    state, _ = apply(state, {"cmd": "undo"})
    assert state.performance.drawing == "bren"  # Undo takes it back with the draw
    with pytest.raises(CommandRejected):
        apply(state, {"cmd": "draw", "hero": "cass", "seed": 1})  # refused: nothing changes
    assert state.performance.drawing == "bren"


# --- the costs of the open Performance (P9, P13–P15) -----------------------------------------


def costs_from_events(events: Iterable[engine.Event]) -> dict[str, HeroCost]:
    """An independent count: the health events since the Performance began, per hero."""
    out: dict[str, HeroCost] = {}
    overflowing: set[str] = set()
    for e in events:
        hero = e.data.get("hero")
        if not isinstance(hero, str):
            continue
        c = out.get(hero, HeroCost())
        chained = hero in overflowing
        overflowing.discard(hero)
        if e.type == "fatigue_gained":
            c = dc_replace(c, fatigue=c.fatigue + e["amount"])
        elif e.type == "fatigue_overflow":
            c = dc_replace(
                c, fatigue=c.fatigue + e["added"], fatigue_overflows=c.fatigue_overflows + 1
            )
            overflowing.add(hero)
        elif e.type == "strain_gained" and not chained:
            c = dc_replace(c, strain=c.strain + 1)
        elif e.type == "strain_overflow":
            if chained:
                c = dc_replace(c, chained_wounds=c.chained_wounds + 1)
            else:
                c = dc_replace(c, strain=c.strain + 1, strain_overflows=c.strain_overflows + 1)
        elif e.type == "wound_gained" and e["cause"] != "strain overflow":
            c = dc_replace(c, wounds=c.wounds + 1)
        else:
            continue
        out[hero] = c
    return out


@pytest.mark.parametrize("name", SESSIONS)
def test_p13_the_costs_section_matches_the_events_of_the_performance(example_state, name):
    since: list[engine.Event] = []
    shown = 0
    for state, events in _states(example_state, name):
        for e in events:
            if e.type in ("performance_started", "performance_reset", "performance_cancelled"):
                since = []
            else:
                since.append(e)
        if (
            state.history
            and state.history[-1].performance is not None
            and state.performance is None
        ):
            since = []
        costs = table_view(state)["costs"]
        if state.performance is None:
            assert costs is None
            continue
        expected = {h: c for h, c in costs_from_events(since).items() if not c.empty}
        assert {
            h: HeroCost(**{k: v for k, v in c.items() if k != "text"}) for h, c in costs.items()
        } == expected
        assert all(c["text"] == describe(expected[h]) for h, c in costs.items())
        shown += len(costs)
    assert shown > 0


def test_p9_p13_costs_survive_json_and_go_with_undo(example_state):
    state, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 3},
        {
            "cmd": "declare",
            "hero": "cass",
            "shade": "impulse",
            "capability": "charm",
            "action": "defend",
            "exert": True,
        },
        *({"cmd": "draw", "hero": "cass", "seed": i} for i in range(3)),
        {"cmd": "resolve"},
    )
    costs = table_view(state)["costs"]
    assert costs["cass"]["fatigue"] == 2 and costs["cass"]["text"][0].startswith("+2 Fatigue")
    assert table_view(TableState.from_json(state.to_json()))["costs"] == costs
    undone, _ = apply(state, {"cmd": "undo"})
    assert table_view(undone)["costs"] == {}
    reset, _ = apply(state, {"cmd": "reset"})
    assert table_view(reset)["costs"] is None
