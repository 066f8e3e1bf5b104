"""Questions the adapters ask the Performance, answered by the rules that decide them.

The wheel, the panel and the pages never re-check a rule: they ask here (or
:func:`engine.check` for a whole command) and show the engine's answer, refusal
text and rule id included.

>>> from engine import apply, load_table
>>> state = load_table("examples/table.toml")
>>> state, _ = apply(state, {"cmd": "begin_performance", "difficulty": 5})
>>> redraws(state).candidates
()
>>> state, _ = apply(state, {"cmd": "declare", "hero": "aria", "shade": "control",
...                          "capability": "skill", "action": "target"})
>>> state, _ = apply(state, {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"})
>>> redraws(state).candidates
(('aria', 'aria.ember.skill'),)
>>> reserve_choices(state, "bren", "steel", "target") is None   # P3: Target names none
True
>>> reserve_choices(state, "bren", "steel", "gain").choices[:3]  # P17: none, or a Potential
(None, 'bren.potential.faith.1', 'bren.potential.faith.2')
>>> reserve_choices(state, "bren", "steel", "spend").refusal.rule   # P8: no Active Reserve
'P8'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.apply import check
from engine.contracts import commands
from engine.errors import CommandRejected, RuleViolation
from engine.performance.commands import _check_intersect, check_reserve, contribution_total
from engine.state import Performance, TableState
from engine.tokens import Action, TokenKind


@dataclass(frozen=True, slots=True)
class Redraws:
    """What a Redraw (P11) may replace now: (hero, drawn token) pairs, in board order, and
    why each hero with tokens on the board may not Redraw."""

    candidates: tuple[tuple[str, str], ...] = ()
    refusals: Mapping[str, RuleViolation] = field(default_factory=dict)


def redraws(state: TableState) -> Redraws:
    """Every drawn token a ``redraw`` would be accepted for, and the refusal for the rest."""
    perf = state.performance
    if perf is None or perf.resolved:
        return Redraws()
    candidates: list[tuple[str, str]] = []
    refusals: dict[str, RuleViolation] = {}
    for c in perf.contributions:
        if not c.checks or not c.drawn:
            continue
        refused = check(state, commands.redraw(hero=c.hero, replace=c.drawn[0]))
        if refused is not None:
            refusals[c.hero] = refused
        else:
            candidates += [(c.hero, t) for t in c.drawn]
    return Redraws(tuple(candidates), refusals)


def intersect_partners(
    state: TableState, hero_id: str, capability: str, action: str
) -> tuple[str, ...]:
    """The heroes ``hero_id`` could Intersect with (P10), declaring ``action`` in
    ``capability``: the declare command's own check, for every other hero."""
    perf = state.performance
    hero = state.heroes.get(hero_id)
    if perf is None or hero is None or action not in set(Action):
        return ()
    training = hero.training_in(capability)
    out = []
    for partner in (c.hero for c in perf.contributions):
        try:
            _check_intersect(state, perf, hero_id, training, partner, Action(action))
        except CommandRejected:
            continue
        out.append(partner)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ReserveChoices:
    """What a declaration's ``reserve`` may name (P8, P17): every value the engine accepts, None
    first when it may be left out; and when it accepts none, why (a Spend with no Active
    Reserve, P8)."""

    choices: tuple[str | None, ...] = ()
    refusal: RuleViolation | None = None


def reserve_choices(
    state: TableState, hero_id: str, capability: str, action: str
) -> ReserveChoices | None:
    """The Reserve ``hero_id`` may name declaring ``action`` in ``capability``: the declare
    command's own check (:func:`~engine.performance.commands.check_reserve`) of leaving it
    out and of each of the hero's tokens. None when the Action names no Reserve (P3)."""
    hero = state.heroes.get(hero_id)
    if hero is None or action not in set(Action) or not Action(action).names_reserve:
        return None
    act = Action(action)
    # a Reserve is a Potential (Gain, P17) or Active Reserve (Spend, P8): only those are asked,
    # and the declare command's own check has the last word on each
    mine = sorted(
        t.id
        for t in state.tokens.values()
        if t.bag == hero.bag and (t.kind is TokenKind.POTENTIAL or t.id in state.active_reserve)
    )
    accepted: list[str | None] = []
    refusal = None
    for reserve in (None, *mine):
        try:
            check_reserve(state, hero_id, capability, act, reserve)
        except CommandRejected as e:
            if reserve is None:
                refusal = e.violation
            continue
        accepted.append(reserve)
    return ReserveChoices(tuple(accepted), None if accepted else refusal)


def reserve_choices_in_view(hero: Mapping[str, Any], action: str) -> ReserveChoices | None:
    """:func:`reserve_choices` as far as a hero's published view (``hero_view``) can answer it:
    it lists the Active Reserve a Spend names (P8), not the Potential tokens a Gain may name
    (P17), so a Gain is offered only to leave it out. The engine judges the declaration when
    it arrives, with the table's own rules."""
    if action not in set(Action) or not Action(action).names_reserve:
        return None
    if Action(action) is Action.SPEND:
        return ReserveChoices(tuple(hero.get("active_reserve", ())))
    return ReserveChoices((None,))


def group_total(state: TableState, perf: Performance, group: tuple[str, ...]) -> int:
    """The one figure a resolving group sets against the Difficulty: its heroes' totals
    summed (I-P10, P19), as ``resolve`` sums them. The view carries it on each contribution
    so the panel and the pages show the same number."""
    return sum(contribution_total(state, c) for c in perf.contributions if c.hero in group)
