"""No answer holds the turn: the view a turn builds spends at most ``[answers] turn`` steps.

The odds of an Intersect group (P10, I-P10/P23: a game tree over both heroes' draws,
Redraws and Favor calls) and the attack forecast of a big fight (C6–C9) grow steeply with
the state. Inside a turn they are left out and marked ``pending`` once past the allowance;
with the larger allowance they are exact, and past that ``too_big`` — never approximate.
Work is counted in steps enumerated (engine.work), never in seconds.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import work
from engine.view import table_view
from tests.harness import ARIA, EXAMPLE_TABLE
from tests.harness.answers import cold, intersect_declare, largest_fight

TURN = int(engine.load_table(EXAMPLE_TABLE).rules["answers"]["turn"])


def _spent(state: engine.TableState, **kw: Any) -> tuple[Any, int]:
    cold()
    with work.limit(10**12) as used:
        view = table_view(state, **kw)
    return view, used.spent


@pytest.mark.parametrize(
    ("make", "name"),
    [(intersect_declare, "odds"), (lambda: largest_fight(12), "forecast")],
    ids=["intersect", "fight"],
)
def test_a_turn_s_view_spends_its_allowance_and_marks_the_answer_pending(make, name) -> None:
    """P10 / C6: past the turn's allowance the answer is left out, marked pending."""
    state = make()
    whole, all_of_it = _spent(state)
    assert all_of_it > 10 * TURN  # these answers are far bigger than a turn
    view, spent = _spent(state, work=TURN)
    # the allowance, and at most the one chunk that went past it (counted, never enumerated)
    assert spent <= 2 * TURN
    assert view["answers"] == {name: "pending"}
    if name == "odds":
        assert view["odds"] == {"groups": [], "status": "pending"}
        assert whole["odds"]["status"] == "ready" and whole["odds"]["groups"]
    else:
        assert view["combat"]["forecast"] == [] and view["combat"]["forecast_status"] == "pending"
        assert whole["combat"]["forecast_status"] == "ready" and whole["combat"]["forecast"]
    # everything else in the view is the whole view's
    assert {k: v for k, v in view.items() if k not in ("odds", "combat", "answers")} == {
        k: v for k, v in whole.items() if k not in ("odds", "combat", "answers")
    }


def test_the_larger_allowance_gives_the_exact_answer() -> None:
    """I-P10/P23: off the turn the Intersect odds are the exact ones, not an estimate."""
    state = intersect_declare()
    most = int(state.rules["answers"]["most"])
    view, spent = _spent(state, work=most, final=True)
    exact, _ = _spent(state)
    assert spent <= most
    assert view["answers"] == {} and view["odds"] == exact["odds"]


def test_an_answer_past_the_larger_allowance_is_too_big_never_approximate() -> None:
    state = intersect_declare()
    view, _ = _spent(state, work=TURN, final=True)
    assert view["answers"] == {"odds": "too_big"}
    assert view["odds"] == {"groups": [], "status": "too_big"}


def test_an_ordinary_performance_is_answered_in_the_turn() -> None:
    """One hero drawing (P6): a few hundred steps, well inside the allowance."""
    state = engine.load_table(EXAMPLE_TABLE)
    for command in ({"cmd": "begin_performance", "difficulty": 5}, ARIA):
        state, _ = engine.apply(state, command)
    view, spent = _spent(state, work=TURN)
    assert view["answers"] == {} and view["odds"]["status"] == "ready"
    assert 0 < spent < TURN


def test_a_table_may_set_the_allowances() -> None:
    text = EXAMPLE_TABLE.read_text("utf-8") + "\n[rules.answers]\nturn = 0\n"
    state = engine.load_table_text(text, source="t.toml")
    for command in ({"cmd": "begin_performance", "difficulty": 5}, ARIA):
        state, _ = engine.apply(state, command)
    cold()
    view = table_view(state, work=int(state.rules["answers"]["turn"]))
    assert view["answers"] == {"odds": "pending"}


def test_limits_nest_and_an_inner_one_uses_the_outer_allowance() -> None:
    with work.limit(100) as outer:
        with work.limit(1000) as inner:
            work.spend(60)
        assert inner.allowed == 100 and inner.spent == 60
        with pytest.raises(work.TooMuchWork), work.limit(1000):
            work.spend(41)
    assert outer.spent == 101
    assert work.unlimited()
