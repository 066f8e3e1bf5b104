"""The table as the outside world sees it: a history-free JSON view with derived values.

The display, MQTT and the overlay read this, never the raw state: it adds what
people want to see (token values, running totals, draws left, outcomes) and
leaves out what they do not (the Undo history, the rules data). The core gives
the table, its heroes and its bags; each rule family adds its own sections (the
Performance, odds, the Time Board, combat) through :func:`view_section`, so the
core imports no family.

Some answers grow steeply with the state (the odds of an Intersect group, the forecast of
a big fight). A section asks them through :func:`answer`, so a view built with ``work``
(the steps the whole view may spend: :mod:`engine.work`) never takes more than that: an
answer that would go past it is left out and marked ``pending``, for the service to ask
off the turn with a larger allowance (``final``: past that it is ``too_big``). Without
``work`` every answer is computed whatever it costs (the CLI, the recap, tests).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from engine import work as _work
from engine.contracts.view import AnswerStatus, HeroView, TableView
from engine.registry import Registry
from engine.state import TableState
from engine.tokens import Training

T = TypeVar("T")

ViewSection = Callable[[TableState], Any]
VIEW_SECTIONS: Registry[ViewSection] = Registry("view section")


def view_section(name: str) -> Callable[[ViewSection], ViewSection]:
    """Register an extra top-level key of the view (for example ``odds``)."""
    return VIEW_SECTIONS.decorator(name)


class _Building(threading.local):
    """The view being built on this thread: what :func:`answer` may spend, and its verdicts."""

    work: int | None = None
    final: bool = False
    answers: dict[str, AnswerStatus] | None = None


_building = _Building()


def answer(name: str, compute: Callable[[], T], placeholder: T) -> tuple[T, AnswerStatus]:
    """``compute()`` within what the view being built may still spend, with its status:
    ``ready``; ``pending`` (left out, ``placeholder`` in its place, the service asks it off
    the turn); ``too_big`` (not even the larger allowance finishes it: nothing approximate
    is shown instead). The view's ``answers`` lists the ones not ready, by ``name``."""
    b = _building
    if b.work is None or b.answers is None:
        return compute(), "ready"
    try:
        with _work.limit(b.work) as used:
            value = compute()
    except _work.TooMuchWork:
        b.work = 0
        status: AnswerStatus = "too_big" if b.final else "pending"
        b.answers[name] = status
        return placeholder, status
    b.work -= used.spent
    return value, "ready"


def table_view(state: TableState, *, work: int | None = None, final: bool = False) -> TableView:
    """Everything a panel or an overlay shows, as JSON data (typed: :class:`TableView`).

    ``work``: the steps its answers may spend together (:func:`answer`), None for no limit;
    ``final``: an answer past it is ``too_big``, not ``pending``."""
    b = _building
    outer = (b.work, b.final, b.answers)
    answers: dict[str, AnswerStatus] = {}
    b.work, b.final, b.answers = work, final, answers
    try:
        return _build(state, answers)
    finally:
        b.work, b.final, b.answers = outer


def _build(state: TableState, answers: dict[str, AnswerStatus]) -> TableView:
    out: dict[str, Any] = {
        "table": state.table_id,
        "heroes": {h.id: hero_view(state, h.id) for h in state.heroes.values()},
        "bags": {
            b.id: {
                "name": b.name,
                "owner": b.owner,
                "count": len(b.contents),
                # what is in the bag now: a remote can draw by picking one (a missed tag)
                "tokens": [{"id": t, "name": state.tokens[t].name} for t in b.contents],
            }
            for b in state.bags.values()
        },
        "awakened": list(state.awakened),
        "escalation": state.escalation,
        "can_undo": len(state.history),
        # what an Undo would take back now (the one answer: a remote's Undo names it)
        "undo": (
            {"cmd": state.change.cmd, "text": state.change.text}
            if state.history and state.change is not None
            else None
        ),
    }
    for name, fn in VIEW_SECTIONS.items():
        out[name] = fn(state)
    out["answers"] = answers
    return cast(TableView, out)  # the sections' own types: test_contracts ties them


def hero_view(state: TableState, hero_id: str) -> HeroView:
    h = state.heroes[hero_id]
    exert_only = Training(state.rules["training"]["exert_only"])
    return {
        "id": h.id,
        "name": h.name,
        "fatigue": h.fatigue,
        "fatigue_capacity": h.fatigue_capacity,
        "strain": h.strain,
        "strain_capacity": h.strain_capacity,
        "wounds": h.wounds,
        "favor": h.favor,
        "redraws": h.redraws,
        "training": {k: v.value for k, v in sorted(h.training.items())},
        "capabilities": {c: h.training_in(c).value for c in state.capabilities},
        "exert": [c for c in state.capabilities if h.training_in(c) is exert_only],
        "pathways": list(h.pathways),
        "active_reserve": sorted(t for t in state.active_reserve if state.tokens[t].bag == h.bag),
        "bag_count": len(state.bags[h.bag].contents),
    }
