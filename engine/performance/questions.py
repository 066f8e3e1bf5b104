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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.apply import check
from engine.errors import CommandRejected, RuleViolation
from engine.performance.commands import _check_intersect
from engine.state import TableState
from engine.tokens import Action


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
        refused = check(state, {"cmd": "redraw", "hero": c.hero, "replace": c.drawn[0]})
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
