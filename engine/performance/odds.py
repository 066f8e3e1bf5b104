"""Exact odds for the open Performance: best play first, as drawn second, advice that looks ahead.

Two numbers, under the same names everywhere (the view, MQTT, the panels, the CLI):

- **best play**: P(success) when every hero of the group uses the Redraws left as well
  as they can be used (P11) and calls Favor only when it helps, which is once still
  short after the draw (P18, I-P18a);
- **as drawn**: P(success) with no more choices: the Draw Board as it is, the draws
  left from the bag as it is, no Redraw, no Favor.

The advice is every move open now (draw on, resolve, one Redraw per candidate value,
Call Favor), each valued with best play after it, best first: the first one is worth
the best play. Favor is advised only when calling it now is the best move.

Odds are derived from the state, never stored in it, so :func:`engine.apply`
stays as fast as before: the view (``table_view(state)["odds"]``) and the
``rhuna-table odds`` command ask this module, and it memoises on the bag
contents reduced to values. What a token is worth comes from the engine
(:func:`engine.performance.commands.value_of`, hence :func:`engine.tokens.token_value`,
once per *kind* of token); how many tokens are drawn comes from the
Contribution (:func:`engine.performance.commands.draw_total`: Training, Exertion,
Wounds). The combinatorics live in :mod:`engine.performance.combinatorics`.

Rules: P6 (draw totals), P9 (Exertion and its Fatigue), P11 / I-P11 (Redraw,
set aside), P12–P17 and I-P1 / I-P16 (token values, Weight modes), P18 / I-P18
(Favor), P19 (total ≥ Difficulty), I-P10 / P23 (Intersect groups sum their totals).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from engine.contracts import commands
from engine.contracts import events as ev
from engine.contracts.view import Advice, AdviceCommand, OddsGroup, OddsView, Percent
from engine.errors import CommandRejected
from engine.performance import combinatorics
from engine.performance.combinatorics import (
    Dist,
    Group,
    MoveValue,
    Side,
    as_drawn,
    best_moves,
    best_play,
    counts_of,
    size,
)
from engine.performance.commands import groups, value_of
from engine.performance.health import add_fatigue
from engine.state import Contribution, Performance, TableState
from engine.table import FAVOR_BAG
from engine.tokens import Training
from engine.view import answer, view_section

# --- a hero's part, reduced to numbers ----------------------------------------------


def _kind(state: TableState, token_id: str) -> tuple[object, ...]:
    """What a token's value can depend on besides the declaration (see token_value)."""
    t = state.tokens[token_id]
    return (t.kind, t.shade, t.pathway, t.weight, t.face, token_id in state.active_reserve)


def bag_values(state: TableState, c: Contribution, token_ids: Iterable[str]) -> list[int]:
    """The value of every token in ``token_ids`` for ``c``, valuing each kind once."""
    seen: dict[tuple[object, ...], int] = {}
    out = []
    for t in token_ids:
        key = _kind(state, t)
        v = seen.get(key)
        if v is None:
            v = seen[key] = value_of(state, c, t)
        out.append(v)
    return out


def can_redraw(state: TableState, c: Contribution) -> bool:
    """P11: Adept or higher in the capability used, with a Redraw left."""
    minimum = state.rules["training"]["redraw_minimum"]
    return c.checks and c.training.at_least(Training(minimum)) and state.heroes[c.hero].redraws > 0


def favor_calls(state: TableState, c: Contribution) -> int:
    """P18 / I-P18a: the Favor calls still open to ``c`` (Favor to spend, calls left)."""
    if not c.checks:
        return 0
    limit = int(state.rules["favor"]["calls_per_performance"])
    return max(0, min(state.heroes[c.hero].favor, limit - len(c.favor)))


def can_call_favor(state: TableState, c: Contribution) -> bool:
    """P18: a check, Favor to spend, a call left this Performance, a token in the Favor Bag."""
    return favor_calls(state, c) > 0 and bool(state.bags[FAVOR_BAG].contents)


def favor_kinds(state: TableState) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The Favor Bag by kind (its tokens' Shade relation, P18): one token id of each kind,
    and how many of each kind are in the bag now."""
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for t in state.bags[FAVOR_BAG].contents:
        shade = str(state.tokens[t].shade)
        first.setdefault(shade, t)
        count[shade] = count.get(shade, 0) + 1
    kinds = sorted(first)
    return tuple(first[k] for k in kinds), tuple(count[k] for k in kinds)


def side_of(state: TableState, c: Contribution, favor_tokens: tuple[str, ...]) -> Side:
    """Reduce one contribution to a :class:`Side` (drawing without replacement, P6)."""
    hero = state.heroes[c.hero]
    contents = state.bags[hero.bag].contents
    return Side(
        board=tuple(sorted(value_of(state, c, t) for t in c.drawn)),
        bag=counts_of(bag_values(state, c, contents)),
        draws=min(c.draws_left, len(contents)) if c.checks else 0,
        redraws=hero.redraws if can_redraw(state, c) else 0,
        calls=favor_calls(state, c),
        favor=tuple(value_of(state, c, t) for t in favor_tokens),
        redraw_now=c.pending_redraw is None,
    )


def group_of(state: TableState, heroes: Iterable[str]) -> tuple[Group, tuple[Contribution, ...]]:
    """The resolving group of ``heroes`` as values, and their contributions (in that order)."""
    perf = state.performance
    assert perf is not None
    cs = tuple(c for h in heroes if (c := perf.contribution(h)) is not None)
    tokens, counts = favor_kinds(state)
    sides = tuple(side_of(state, c, tokens) for c in cs)
    fixed = sum(value_of(state, c, t) for c in cs for t in c.favor)
    return Group(sides, counts, fixed, bool(state.rules["redraw"]["set_aside"])), cs


# --- the numbers for one resolving group --------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupNumbers:
    """Everything the view shows for one group, as exact numbers (no names yet)."""

    distribution: Dist
    as_drawn: Fraction
    best_play: Fraction
    moves: tuple[MoveValue, ...]


@lru_cache(maxsize=512)
def group_numbers(group: Group, difficulty: int) -> GroupNumbers:
    """As drawn, best play, and every move open now valued with best play after it."""
    dist = as_drawn(group)
    moves = best_moves(group, difficulty)
    return GroupNumbers(dist, dist.at_least(difficulty), best_play(group, difficulty), moves)


def clear_caches() -> None:
    """Forget every memoised result (benchmarks measure cold queries this way)."""
    group_numbers.cache_clear()
    for fn in (combinatorics.draw_sum, combinatorics.hands, combinatorics.best_play):
        fn.cache_clear()
    combinatorics._MEMO.clear()
    for cached in (combinatorics._bounds, combinatorics._fast, combinatorics._favor_values):
        cached.cache_clear()


@dataclass(frozen=True, slots=True)
class HeroOdds:
    """The two odds of the group a hero resolves in, at a given state."""

    heroes: tuple[str, ...]
    difficulty: int
    best_play: Fraction
    as_drawn: Fraction


def hero_odds(state: TableState, hero_id: str) -> HeroOdds | None:
    """Best play and as drawn for ``hero_id``'s group now; None when no Performance is open
    or the hero makes no check in it (P7 Gain, or not declared)."""
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    for heroes in groups(perf, state.rules["intersect"]["mode"]):
        if hero_id in heroes:
            group, _ = group_of(state, heroes)
            nums = group_numbers(group, perf.difficulty)
            return HeroOdds(heroes, perf.difficulty, nums.best_play, nums.as_drawn)
    return None


# --- cost -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cost:
    """Fatigue, Strain and Wounds the Performance will cost (P9, then P13–P14).

    Exertion's cost does not depend on the draw, so the expectation is exact and
    simply the cost; the cascade is run by :func:`engine.performance.health.add_fatigue` on
    the (immutable) state, exactly as ``resolve`` will.
    """

    fatigue: int = 0
    strain: int = 0
    wounds: int = 0


def exertion_cost(state: TableState, heroes: Iterable[str]) -> Cost:
    perf = state.performance
    assert perf is not None
    ex = state.rules["exertion"]
    fatigue = strain = wounds = 0
    for hero_id in heroes:
        c = perf.contribution(hero_id)
        if c is None or not c.exert:
            continue
        amount = int(ex["wounded_fatigue"] if state.heroes[hero_id].wounds else ex["fatigue"])
        _, events = add_fatigue(state, hero_id, amount, "exertion")
        fatigue += amount
        strain += sum(1 for e in events if ev.fatigue_overflow.of(e) is not None)
        wounds += sum(1 for e in events if ev.wound_gained.of(e) is not None)
    return Cost(fatigue, strain, wounds)


# --- the view ---------------------------------------------------------------------


def fraction_json(p: Fraction) -> Percent:
    return {"num": p.numerator, "den": p.denominator, "percent": round(float(p) * 100, 2)}


def percent_text(p: Fraction) -> str:
    """Whole percent for the panel, never rounding a possibility to 0% or 100%."""
    if p == 0 or p == 1:
        return f"{int(p * 100)}%"
    pct = round(float(p) * 100)
    if pct < 1:
        return "<1%"
    if pct > 99:
        return ">99%"
    return f"{pct}%"


def _then(group: Group, move: MoveValue) -> str:
    """What best play may still do after ``move``: ", then Redraw while short, …"."""
    redraws = favor = False
    for i, s in enumerate(group.sides):
        used = move.side == i
        if s.redraws - (used and move.action == "redraw") > 0:
            redraws = True
        calls = s.calls - (used and move.action == "call_favor")
        left = sum(group.favor_bag) - (move.action == "call_favor")
        if calls > 0 and left > 0:
            favor = True
    parts = (["Redraw while short"] if redraws else []) + (
        ["Favor if still short"] if favor else []
    )
    return "".join(f", then {p}" for p in parts)


def _advice(
    state: TableState, group: Group, cs: tuple[Contribution, ...], move: MoveValue
) -> Advice:
    c = cs[move.side] if move.side is not None else None
    hero = c.hero if c is not None else None
    token = None
    command: AdviceCommand
    if move.action == "resolve":
        head, command = "Resolve", commands.resolve()
    elif move.action == "draw":
        assert c is not None
        head = "Draw" if len(cs) == 1 else f"Draw for {state.heroes[c.hero].name}"
        # the token comes from the Draw Board's reader (or add a "seed")
        command = commands.draw(hero=c.hero)
    elif move.action == "redraw":
        assert c is not None
        token = next(t for t in c.drawn if value_of(state, c, t) == move.replace)
        head = f"Redraw {state.tokens[token].name}"
        command = commands.redraw(hero=c.hero, replace=token)
    else:
        assert c is not None
        head = f"Call Favor for {state.heroes[c.hero].name}"
        command = commands.call_favor(hero=c.hero)
    then = "" if move.action == "resolve" else _then(group, move)
    return {
        "action": move.action,
        "hero": hero,
        "token": token,
        "best_play": fraction_json(move.value),
        "text": f"{head}{then} → {percent_text(move.value)}",
        "command": command,
    }


def advice(state: TableState, heroes: Iterable[str], difficulty: int) -> list[Advice]:
    """Every move open now to the group of ``heroes``, valued with best play after it, best
    first. Favor is advised only once calling it is the best move now (P18, I-P18a)."""
    group, cs = group_of(state, heroes)
    return _advice_list(state, group, cs, group_numbers(group, difficulty).moves)


def _advice_list(
    state: TableState, group: Group, cs: tuple[Contribution, ...], moves: tuple[MoveValue, ...]
) -> list[Advice]:
    return [
        _advice(state, group, cs, m)
        for i, m in enumerate(moves)
        if i == 0 or m.action != "call_favor"
    ]


def _group_view(state: TableState, perf: Performance, heroes: tuple[str, ...]) -> OddsGroup:
    group, cs = group_of(state, heroes)
    nums = group_numbers(group, perf.difficulty)
    cost = exertion_cost(state, heroes)
    return {
        "heroes": list(heroes),
        "difficulty": perf.difficulty,
        "best_play": fraction_json(nums.best_play),
        "as_drawn": fraction_json(nums.as_drawn),
        "advice": _advice_list(state, group, cs, nums.moves),
        "distribution": [[t, float(p)] for t, p in nums.distribution.probabilities()],
        "expected_fatigue": float(cost.fatigue),
        "expected_strain": float(cost.strain),
        "expected_wounds": float(cost.wounds),
    }


@view_section("odds")
def odds_view(state: TableState) -> OddsView | None:
    """The ``odds`` key of the table view: None unless a Performance is open (unresolved)."""
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    mode = state.rules["intersect"]["mode"]
    none: list[OddsGroup] = []
    found, status = answer(
        "odds", lambda: [_group_view(state, perf, g) for g in groups(perf, mode)], none
    )
    return {"groups": found, "status": status}


# --- a declared hero's odds for a range of Difficulties (the CLI) ---------------------


@dataclass(frozen=True, slots=True)
class PlanOdds:
    """The odds of one hero's group for a range of Difficulties: best play and as drawn."""

    hero: str
    heroes: tuple[str, ...]
    draws: int
    bag: int
    redraws: int
    favor_calls: int
    best_play: dict[int, Fraction]
    as_drawn: dict[int, Fraction]
    distribution: Dist
    cost: Cost


def plan_odds(state: TableState, hero_id: str, difficulties: tuple[int, ...]) -> PlanOdds:
    """Best play and as drawn for ``hero_id``'s group at each of ``difficulties``.

    Raises :class:`CommandRejected` naming the rule when the hero makes no check
    (P23 not declared, P7 Gain draws nothing).
    """
    perf = state.performance
    c = perf.contribution(hero_id) if perf is not None else None
    if perf is None or c is None:
        raise CommandRejected(f"{hero_id} has not declared", rule="P23", field="hero")
    if not c.checks:
        name = state.heroes[hero_id].name
        raise CommandRejected(
            f"{name} declared Gain: no draw, no check, no odds", rule="P7", field="action"
        )
    heroes = next(g for g in groups(perf, state.rules["intersect"]["mode"]) if hero_id in g)
    group, cs = group_of(state, heroes)
    side = group.sides[cs.index(c)]
    dist = as_drawn(group)
    return PlanOdds(
        hero=hero_id,
        heroes=heroes,
        draws=side.draws,
        bag=size(side.bag),
        redraws=side.redraws,
        favor_calls=side.calls if any(group.favor_bag) else 0,
        best_play={d: best_play(group, d) for d in difficulties},
        as_drawn={d: dist.at_least(d) for d in difficulties},
        distribution=dist,
        cost=exertion_cost(state, heroes),
    )
