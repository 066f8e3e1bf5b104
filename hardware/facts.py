"""What the wheel needs to know about the table, read from a TableState or its JSON view.

The wheel never touches state: it is handed a callable that returns the latest
:class:`~engine.state.TableState` (``lambda: loop.state``) or the latest
:func:`engine.view.table_view` dict, and reads it through :func:`table_facts`.
Both give the same facts, except what the view leaves out: the table's
capability list (the view has each hero's Pathways and Training instead), the
heroes' Potential tokens (offered for a Gain's Reserve) and the table's rules
overrides (the shipped rules are used). Pass the TableState when you can.

The wheel keeps no rule of its own: what is legal is the engine's answer. From a
state, :attr:`TableFacts.check` is :func:`engine.check` (the refusal a command
would get, with its rule id) and the Redraw candidates, the Reserve choices and the
Intersect partners come from :mod:`engine.performance.questions`. From a view, the
Redraw answer is the one the engine published in it and the Reserve choices are the
engine's answer from the view (:func:`~engine.performance.questions.reserve_choices_in_view`);
the rest is left to the engine, which refuses a wrong declaration when it arrives
(the wheel then puts it back). Which Actions make a check (P7) and name a Reserve
(P3) are the engine's :class:`~engine.tokens.Action`'s to say.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.apply import check as engine_check
from engine.errors import RuleViolation
from engine.performance.questions import (
    ReserveChoices,
    intersect_partners,
    redraws,
    reserve_choices,
    reserve_choices_in_view,
)
from engine.rules import default_rules
from engine.state import UNLISTED_TRAINING, TableState
from engine.tokens import Action


@dataclass(frozen=True, slots=True)
class HeroFacts:
    id: str
    name: str
    pathways: tuple[str, ...]
    training: Mapping[str, str]
    redraws: int
    favor: int

    def training_in(self, capability: str) -> str:
        """The sheet's Training in ``capability`` (the engine's, for one it does not list)."""
        return self.training.get(capability, UNLISTED_TRAINING.value)


@dataclass(frozen=True, slots=True)
class DrawnToken:
    id: str
    name: str
    value: int


@dataclass(frozen=True, slots=True)
class ContributionFacts:
    hero: str
    action: str
    training: str
    drawn: tuple[DrawnToken, ...]
    pending_redraw: str | None
    favor: int  # Favor tokens called so far
    #: the declaration makes a check (the engine's :attr:`~engine.tokens.Action.checks`, P7)
    checks: bool


@dataclass(frozen=True, slots=True)
class TableFacts:
    heroes: tuple[HeroFacts, ...]
    capabilities: tuple[str, ...]
    #: "none" (no Performance), "open" or "resolved"
    phase: str
    contributions: tuple[ContributionFacts, ...]
    difficulty_range: tuple[int, int]
    #: the engine's Redraw answer (P11): (hero, token) a Redraw may replace, and per hero why not
    redraws: tuple[tuple[str, str], ...]
    redraw_refusals: Mapping[str, RuleViolation]
    #: the Time Board: None when the table has none
    time_pending: bool | None
    time_due: str | None
    time_band: str | None

    #: the refusal a command would get now (None: accepted, or not known before it is sent)
    check: Callable[[Mapping[str, Any]], RuleViolation | None] = lambda command: None
    #: (hero, capability, action) → the heroes that declaration may Intersect with (P10)
    partners: Callable[[str, str, str], tuple[str, ...]] = lambda hero, capability, action: ()
    #: (hero, capability, action) → what its Reserve may name; None: the Action names none (P3)
    reserve: Callable[[str, str, str], ReserveChoices | None] = lambda hero, capability, action: (
        None
    )

    def hero(self, hero_id: str | None) -> HeroFacts | None:
        return next((h for h in self.heroes if h.id == hero_id), None)

    def contribution(self, hero_id: str | None) -> ContributionFacts | None:
        return next((c for c in self.contributions if c.hero == hero_id), None)


def table_facts(table: TableState | Mapping[str, Any]) -> TableFacts:
    """The wheel's facts from a TableState or a ``table_view`` dict."""
    if isinstance(table, TableState):
        return _from_state(table)
    return _from_view(table)


def _phase(perf: Any, resolved: bool) -> str:
    if perf is None:
        return "none"
    return "resolved" if resolved else "open"


def _from_state(state: TableState) -> TableFacts:
    from engine.performance.commands import value_of  # the engine's own token values

    heroes = [
        HeroFacts(
            id=h.id,
            name=h.name,
            pathways=tuple(h.pathways),
            training={k: v.value for k, v in h.training.items()},
            redraws=h.redraws,
            favor=h.favor,
        )
        for h in state.heroes.values()
    ]
    perf = state.performance
    contributions = []
    if perf is not None:
        for c in perf.contributions:
            contributions.append(
                ContributionFacts(
                    hero=c.hero,
                    action=c.action.value,
                    training=c.training.value,
                    drawn=tuple(
                        DrawnToken(t, state.tokens[t].name, value_of(state, c, t)) for t in c.drawn
                    ),
                    pending_redraw=c.pending_redraw,
                    favor=len(c.favor),
                    checks=c.checks,
                )
            )
    board = state.time
    redraw_answer = redraws(state)
    return TableFacts(
        heroes=tuple(heroes),
        capabilities=tuple(state.capabilities),
        phase=_phase(perf, perf is not None and perf.resolved),
        contributions=tuple(contributions),
        difficulty_range=state.rulebook.difficulty_range,
        redraws=redraw_answer.candidates,
        redraw_refusals=redraw_answer.refusals,
        time_pending=None if board is None else board.pending is not None,
        time_due=None
        if board is None
        else board.due(int(state.rules["time"]["minor_per_band"])).value,
        time_band=None if board is None else board.band.value,
        check=lambda command: engine_check(state, command),
        partners=lambda hero, capability, action: intersect_partners(
            state, hero, capability, action
        ),
        # asked many times per input (every ring's options): answered once per question
        reserve=functools.cache(
            lambda hero, capability, action: reserve_choices(state, hero, capability, action)
        ),
    )


def _from_view(view: Mapping[str, Any]) -> TableFacts:
    rules = default_rules()
    heroes = []
    capabilities: dict[str, None] = {}
    hero_views = view.get("heroes", {})
    for h in hero_views.values():
        training = dict(h.get("training", {}))
        for cap in (*h.get("pathways", ()), *training):
            capabilities[cap] = None
        heroes.append(
            HeroFacts(
                id=h["id"],
                name=h.get("name", h["id"]),
                pathways=tuple(h.get("pathways", ())),
                training=training,
                redraws=int(h.get("redraws", 0)),
                favor=int(h.get("favor", 0)),
            )
        )
    perf = view.get("performance")
    contributions = []
    if perf is not None:
        for c in perf.get("contributions", ()):
            contributions.append(
                ContributionFacts(
                    hero=c["hero"],
                    action=c["action"],
                    training=c["training"],
                    drawn=tuple(DrawnToken(t["id"], t["name"], t["value"]) for t in c["drawn"]),
                    pending_redraw=c.get("pending_redraw"),
                    favor=len(c.get("favor", ())),
                    checks=_checks(c["action"]),
                )
            )
    time = view.get("time")
    redraw = (perf or {}).get("redraw") or {}
    lo, hi = rules["difficulty"]["minimum"], rules["difficulty"]["maximum"]
    return TableFacts(
        heroes=tuple(heroes),
        capabilities=tuple(view.get("capabilities", capabilities)),
        phase=_phase(perf, bool(perf and perf.get("resolved"))),
        contributions=tuple(contributions),
        difficulty_range=(int(lo), int(hi)),
        redraws=tuple((r["hero"], r["token"]) for r in redraw.get("candidates", ())),
        redraw_refusals={
            h: RuleViolation(str(v.get("message", "")), v.get("rule"), v.get("field"), v.get("fix"))
            for h, v in redraw.get("refusals", {}).items()
        },
        time_pending=None
        if time is None
        else bool(time.get("last") and not time["last"].get("resolved", True)),
        time_due=None if time is None else time.get("due"),
        time_band=None if time is None else time.get("band"),
        # the engine answers when the declaration arrives; a view offers every declared hero
        # who makes a check, to a declaration that makes one (P7)
        partners=lambda hero, capability, action: tuple(
            c.hero for c in contributions if c.hero != hero and c.checks and _checks(action)
        ),
        reserve=lambda hero, capability, action: reserve_choices_in_view(
            hero_views.get(hero, {}), action
        ),
    )


def _checks(action: str) -> bool:
    """The engine's answer: does a declaration of ``action`` make a check (P7)?"""
    return action in set(Action) and Action(action).checks
