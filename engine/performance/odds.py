"""Exact odds for the open Performance, and what each choice is worth after every draw.

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
(Favor), P19 (total ≥ Difficulty), I-P10 (Intersect groups sum their totals).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from engine.errors import CommandRejected
from engine.immutable import replace
from engine.performance.combinatorics import (
    Counts,
    Dist,
    Redrawer,
    counts_of,
    draw_sum,
    game_success,
    plan_success,
    redraw_final,
    redraw_reach,
    short_bag,
    size,
)
from engine.performance.commands import groups, value_of
from engine.performance.health import add_fatigue
from engine.state import Contribution, Performance, TableState
from engine.table import FAVOR_BAG
from engine.tokens import Training
from engine.view import view_section

# --- a hero's part, reduced to numbers ----------------------------------------------


@dataclass(frozen=True, slots=True)
class HeroDraw:
    """One contribution as the odds see it: values only, so equal bags share a cache entry.

    ``board`` holds the values of the tokens drawn so far (a Redraw may replace
    them); ``fixed`` what else is already in the total (a Favor token called);
    ``draws`` the tokens still to draw from ``bag`` (a Redraw waiting for its
    token counts as one); ``redraws`` the Redraws the hero may still use (0
    below the Training P11 asks for); ``favor`` the Favor Bag's values for this
    hero's Shade when the hero may still Call Favor.
    """

    hero: str
    board: tuple[int, ...]
    fixed: int
    bag: Counts
    draws: int
    redraws: int
    favor: Counts
    #: a Redraw can be started right now (none is waiting for its token)
    redraw_now: bool = True


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


def can_call_favor(state: TableState, c: Contribution) -> bool:
    """P18: a check, Favor to spend, a call left this Performance, a token in the Favor Bag."""
    limit = int(state.rules["favor"]["calls_per_performance"])
    return (
        c.checks
        and state.heroes[c.hero].favor > 0
        and len(c.favor) < limit
        and bool(state.bags[FAVOR_BAG].contents)
    )


def hero_draw(state: TableState, c: Contribution) -> HeroDraw:
    """Reduce one contribution to a :class:`HeroDraw` (drawing without replacement, P6)."""
    hero = state.heroes[c.hero]
    contents = state.bags[hero.bag].contents
    favor: Counts = ()
    if can_call_favor(state, c):
        favor = counts_of(bag_values(state, c, state.bags[FAVOR_BAG].contents))
    return HeroDraw(
        hero=c.hero,
        board=tuple(value_of(state, c, t) for t in c.drawn),
        fixed=sum(value_of(state, c, t) for t in c.favor),
        bag=counts_of(bag_values(state, c, contents)),
        draws=min(c.draws_left, len(contents)) if c.checks else 0,
        redraws=hero.redraws if can_redraw(state, c) else 0,
        favor=favor,
        redraw_now=c.pending_redraw is None,
    )


# --- the numbers for one resolving group --------------------------------------------


def total_dist(draws: tuple[HeroDraw, ...], favor_calls: frozenset[str] = frozenset()) -> Dist:
    """The group total with no further choices (I-P10: Intersecting heroes sum their totals),
    plus a Favor call (an independent token from the Favor Bag, P18) for ``favor_calls``."""
    dist = Dist.point(0)
    for h in draws:
        dist = dist.convolve(draw_sum(h.bag, h.draws).shift(sum(h.board) + h.fixed))
        if h.hero in favor_calls and h.favor:
            dist = dist.convolve(Dist.of(h.favor))
    return dist


def plan_curve(
    draws: tuple[HeroDraw, ...],
    redrawing: frozenset[str],
    favor_calls: frozenset[str],
    difficulties: tuple[int, ...],
    set_aside: bool,
) -> dict[int, Fraction]:
    """P(success) for each Difficulty when the heroes in ``redrawing`` use their Redraws with
    the best replace-or-keep decisions and those in ``favor_calls`` Call Favor.

    Favor, being called anyway, is called first so the Redraw decisions know it.
    """
    active = [h for h in draws if h.hero in redrawing and h.redraws and (h.board or h.draws)]
    rest = tuple(h for h in draws if h not in active)
    fixed = total_dist(rest, favor_calls)
    for h in active:
        fixed = fixed.shift(h.fixed)
        if h.hero in favor_calls and h.favor:
            fixed = fixed.convolve(Dist.of(h.favor))
    if not active:
        return {d: fixed.at_least(d) for d in difficulties}
    redrawers = tuple(active_redrawer(h) for h in active)
    if any(short_bag(r) for r in redrawers):
        return {d: game_success(redrawers, fixed, d, set_aside) for d in difficulties}
    if len(active) == 1 and set_aside:
        h = active[0]
        cap = max(difficulties) - fixed.ways[0][0]
        reach = redraw_reach(h.bag, h.board, h.draws, h.redraws, cap).convolve(fixed)
        return {d: reach.at_least(d) for d in difficulties}
    return {d: plan_success(redrawers, fixed, d, set_aside) for d in difficulties}


def active_redrawer(h: HeroDraw) -> Redrawer:
    return Redrawer(h.bag, h.board, h.draws, h.redraws)


def plan_dist(
    draws: tuple[HeroDraw, ...],
    redrawing: frozenset[str],
    favor_calls: frozenset[str],
    difficulty: int,
    set_aside: bool,
) -> Dist | None:
    """The final group total under the plan of :func:`plan_curve` aimed at ``difficulty``.

    None where the plan is an expectimax over several heroes (or Redraw returns
    the token): its odds are exact, its distribution is not computed.
    """
    active = [h for h in draws if h.hero in redrawing and h.redraws and (h.board or h.draws)]
    if not active:
        return total_dist(draws, favor_calls)
    if len(active) > 1 or not set_aside or short_bag(active_redrawer(active[0])):
        return None
    h = active[0]
    fixed = total_dist(tuple(x for x in draws if x is not h), favor_calls).shift(h.fixed)
    if h.hero in favor_calls and h.favor:
        fixed = fixed.convolve(Dist.of(h.favor))
    out: dict[int, int] = {}
    den = 0
    for f, wf in fixed.ways:
        final = redraw_final(h.bag, h.board, h.draws, h.redraws, difficulty - f)
        den = final.den
        for t, w in final.ways:
            out[t + f] = out.get(t + f, 0) + wf * w
    return Dist(tuple(sorted(out.items())), den * fixed.den)


@dataclass(frozen=True, slots=True)
class GroupNumbers:
    """Everything the view shows for one group, as exact numbers (no names yet)."""

    distribution: Dist
    success: Fraction
    with_redraws: Fraction | None
    #: (hero, value replaced, P(success) after that Redraw alone)
    redraw: tuple[tuple[str, int, Fraction], ...]
    #: (hero, P(success) after that Favor call alone)
    favor: tuple[tuple[str, Fraction], ...]


@lru_cache(maxsize=512)
def group_numbers(draws: tuple[HeroDraw, ...], difficulty: int, set_aside: bool) -> GroupNumbers:
    """As is, with every Redraw used well, and each single choice open right now."""
    dist = total_dist(draws)
    redrawing = frozenset(h.hero for h in draws if h.redraws)
    with_redraws = None
    if redrawing:
        with_redraws = plan_curve(draws, redrawing, frozenset(), (difficulty,), set_aside)[
            difficulty
        ]
    redraw = []
    for h in draws:
        if not h.redraws or not h.redraw_now or (set_aside and size(h.bag) == 0):
            continue
        for x in sorted(set(h.board)):
            board = list(h.board)
            board.remove(x)
            bag = h.bag if set_aside else counts_of([*_values(h.bag), x])
            after = replace(h, board=tuple(board), bag=bag, draws=min(h.draws + 1, size(bag)))
            swapped = tuple(after if o is h else o for o in draws)
            redraw.append((h.hero, x, total_dist(swapped).at_least(difficulty)))
    favor = [
        (h.hero, total_dist(draws, frozenset({h.hero})).at_least(difficulty))
        for h in draws
        if h.favor
    ]
    return GroupNumbers(dist, dist.at_least(difficulty), with_redraws, tuple(redraw), tuple(favor))


def _values(bag: Counts) -> list[int]:
    return [v for v, n in bag for _ in range(n)]


def clear_caches() -> None:
    """Forget every memoised result (benchmarks measure cold queries this way)."""
    from engine.performance import combinatorics

    group_numbers.cache_clear()
    for fn in (
        combinatorics.draw_sum,
        combinatorics.hands,
        combinatorics.redraw_reach,
        combinatorics.redraw_final,
    ):
        fn.cache_clear()


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
        strain += sum(1 for e in events if e.type == "fatigue_overflow")
        wounds += sum(1 for e in events if e.type == "wound_gained")
    return Cost(fatigue, strain, wounds)


# --- the view ---------------------------------------------------------------------


def fraction_json(p: Fraction) -> dict[str, Any]:
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


def _percent(p: Fraction) -> float:
    return round(float(p) * 100, 2)


def _group_view(state: TableState, perf: Performance, heroes: tuple[str, ...]) -> dict[str, Any]:
    contributions = [perf.contribution(h) for h in heroes]
    cs = [c for c in contributions if c is not None]
    draws = tuple(hero_draw(state, c) for c in cs)
    set_aside = bool(state.rules["redraw"]["set_aside"])
    nums = group_numbers(draws, perf.difficulty, set_aside)
    now = nums.success
    advice: list[dict[str, Any]] = []
    by_hero = {c.hero: c for c in cs}
    # only choices that raise the odds: "Redraw X: 0% → 0%" is noise on a 250-pixel panel
    for hero_id, x, p in nums.redraw:
        if p <= now:
            continue
        c = by_hero[hero_id]
        token = next(t for t in c.drawn if value_of(state, c, t) == x)
        name = state.tokens[token].name
        advice.append(
            {
                "text": f"Redraw {name}: {percent_text(now)} → {percent_text(p)}",
                "action": "redraw",
                "hero": hero_id,
                "token": token,
                "from": _percent(now),
                "to": _percent(p),
                "command": {"cmd": "redraw", "hero": hero_id, "replace": token},
            }
        )
    for hero_id, p in nums.favor:
        if p <= now:
            continue
        who = state.heroes[hero_id].name
        advice.append(
            {
                "text": f"Call Favor for {who}: {percent_text(now)} → {percent_text(p)}",
                "action": "call_favor",
                "hero": hero_id,
                "token": None,
                "from": _percent(now),
                "to": _percent(p),
                # the token comes from the Favor Bag's reader (or add a "seed")
                "command": {"cmd": "call_favor", "hero": hero_id},
            }
        )
    advice.sort(key=lambda a: -a["to"])
    cost = exertion_cost(state, heroes)
    return {
        "heroes": list(heroes),
        "difficulty": perf.difficulty,
        "success": fraction_json(now),
        "with_redraws": None if nums.with_redraws is None else fraction_json(nums.with_redraws),
        "advice": advice,
        "distribution": [[t, float(p)] for t, p in nums.distribution.probabilities()],
        "expected_fatigue": float(cost.fatigue),
        "expected_strain": float(cost.strain),
        "expected_wounds": float(cost.wounds),
    }


@view_section("odds")
def odds_view(state: TableState) -> dict[str, Any] | None:
    """The ``odds`` key of the table view: None unless a Performance is open (unresolved)."""
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    mode = state.rules["intersect"]["mode"]
    return {"groups": [_group_view(state, perf, g) for g in groups(perf, mode)]}


# --- a declared hero's plan (the CLI) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlanOdds:
    """The odds of one declared hero for a range of Difficulties, as drawn and with a plan."""

    hero: str
    draws: int
    bag: int
    redraws: int
    favor: bool
    as_drawn: dict[int, Fraction]
    with_plan: dict[int, Fraction]
    distribution: Dist
    plan_distribution: Dist | None
    cost: Cost


def plan_odds(
    state: TableState,
    hero_id: str,
    difficulties: tuple[int, ...],
    *,
    redraw: bool = False,
    favor: bool = False,
) -> PlanOdds:
    """Odds for ``hero_id``'s declared contribution: as drawn, and using Redraw / Favor.

    Raises :class:`CommandRejected` naming the rule when the plan is not open to
    the hero (P7 Gain draws nothing, P11 Redraw, P18 Favor).
    """
    perf = state.performance
    c = perf.contribution(hero_id) if perf is not None else None
    if c is None:
        raise CommandRejected(f"{hero_id} has not declared", rule="P23", field="hero")
    name = state.heroes[hero_id].name
    if not c.checks:
        raise CommandRejected(
            f"{name} declared Gain: no draw, no check, no odds", rule="P7", field="action"
        )
    h = hero_draw(state, c)
    if redraw and not h.redraws:
        minimum = state.rules["training"]["redraw_minimum"]
        raise CommandRejected(
            f"{name} cannot Redraw: it needs {minimum} Training in {c.capability} and a Redraw"
            f" left ({c.training.value}, {state.heroes[hero_id].redraws} left)",
            rule="P11",
            field="redraw",
            fix="leave out --redraw",
        )
    if favor and not h.favor:
        raise CommandRejected(
            f"{name} has no Favor to spend", rule="P18", field="favor", fix="leave out --favor"
        )
    draws = (h,)
    set_aside = bool(state.rules["redraw"]["set_aside"])
    redrawing = frozenset({hero_id}) if redraw else frozenset()
    calls = frozenset({hero_id}) if favor else frozenset()
    plan_distribution = None
    if len(difficulties) == 1:
        plan_distribution = plan_dist(draws, redrawing, calls, difficulties[0], set_aside)
    elif not redraw:
        plan_distribution = total_dist(draws, calls)
    as_drawn = total_dist(draws)
    return PlanOdds(
        hero=hero_id,
        draws=h.draws,
        bag=size(h.bag),
        redraws=h.redraws if redraw else 0,
        favor=favor,
        as_drawn={d: as_drawn.at_least(d) for d in difficulties},
        with_plan=plan_curve(draws, redrawing, calls, difficulties, set_aside),
        distribution=as_drawn,
        plan_distribution=plan_distribution,
        cost=exertion_cost(state, [hero_id]),
    )
