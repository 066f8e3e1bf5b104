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
would get, with its rule id) and the Redraw candidates and Intersect partners
come from :mod:`engine.performance.questions`. From a view, the Redraw answer is
the one the engine published in it; the rest is left to the engine, which
refuses a wrong declaration when it arrives (the wheel then puts it back).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.apply import check as engine_check
from engine.errors import RuleViolation
from engine.performance.questions import intersect_partners, redraws
from engine.rules import default_rules
from engine.state import TableState
from engine.tokens import TokenKind, Training


@dataclass(frozen=True, slots=True)
class HeroFacts:
    id: str
    name: str
    pathways: tuple[str, ...]
    training: Mapping[str, str]
    redraws: int
    favor: int
    active_reserve: tuple[str, ...]
    potential: tuple[str, ...]  # Potential tokens not yet Active Reserve (Gain's Reserve)

    def training_in(self, capability: str) -> str:
        return self.training.get(capability, Training.UNTRAINED.value)


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

    @property
    def checks(self) -> bool:
        """A Gain makes no check (P7): no draws, no Redraw, no Favor."""
        return self.action != "gain"


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

    heroes = []
    for h in state.heroes.values():
        mine = [t for t in state.tokens.values() if t.bag == h.bag]
        heroes.append(
            HeroFacts(
                id=h.id,
                name=h.name,
                pathways=tuple(h.pathways),
                training={k: v.value for k, v in h.training.items()},
                redraws=h.redraws,
                favor=h.favor,
                active_reserve=tuple(sorted(t.id for t in mine if t.id in state.active_reserve)),
                potential=tuple(
                    sorted(
                        t.id
                        for t in mine
                        if t.kind is TokenKind.POTENTIAL and t.id not in state.active_reserve
                    )
                ),
            )
        )
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
    )


def _from_view(view: Mapping[str, Any]) -> TableFacts:
    rules = default_rules()
    heroes = []
    capabilities: dict[str, None] = {}
    for h in view.get("heroes", {}).values():
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
                active_reserve=tuple(h.get("active_reserve", ())),
                potential=(),
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
        partners=lambda hero, capability, action: tuple(
            c.hero for c in contributions if c.hero != hero and c.checks
        ),
    )
