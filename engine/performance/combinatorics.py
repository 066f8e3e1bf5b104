"""Exact odds of a draw from a bag, and of best play, as whole numbers over whole numbers.

This module knows nothing about heroes or tokens: only multisets of *values*.
Tokens of equal value are interchangeable for the total, so a bag is reduced to
``((value, count), …)`` and a draw of k tokens to the hands (multisets of values)
it can make, each weighted by Π C(nᵢ, cᵢ) out of C(N, k) (docs/odds.md, "How the numbers
are made").
Everything is integer arithmetic; a :class:`fractions.Fraction` appears only
where a probability is handed out.

**Best play** (P11 Redraw, P18 Favor) is the value of the game: every Redraw and
Favor decision made as well as it can be, at any moment. Three facts make it cheap
for one hero deciding with the replaced token set aside (I-P11); docs/odds.md
gives the reasons and the tests check them against brute force over the whole
game tree:

* while the bag cannot run out, waiting until every token is drawn before a
  Redraw or a Favor call loses nothing (the draws are exchangeable; waiting knows more);
* replacing the lowest token is always at least as good as replacing any other;
* after the draw the hero walks the path of lowest-token replacements and, at the
  best moment while still short, may Call Favor (:func:`_fast` finds that moment
  exactly, for every Difficulty asked at once).

Elsewhere (several heroes of one Intersect group deciding together, more than one
Favor call, a table that returns the replaced token to the bag, a bag too short
for every draw and Redraw) :func:`_game` runs a memoised expectimax over the
whole game tree instead. It is exact, only slower.

All public functions are pure and memoised on their (immutable) arguments.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb

from engine.contracts.terms import AdviceActionName
from engine.work import spend

#: a bag (or a hand) reduced to values: ``((value, count), …)``, sorted by value, counts > 0
Counts = tuple[tuple[int, int], ...]


def counts_of(values: list[int] | tuple[int, ...]) -> Counts:
    """The :data:`Counts` of a list of token values."""
    out: dict[int, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return tuple(sorted(out.items()))


def size(bag: Counts) -> int:
    return sum(n for _, n in bag)


@dataclass(frozen=True, slots=True)
class Dist:
    """A distribution of totals: ``ways`` out of ``den`` for each total (exact)."""

    ways: tuple[tuple[int, int], ...]
    den: int

    @staticmethod
    def point(total: int) -> Dist:
        return Dist(((total, 1),), 1)

    @staticmethod
    def of(counts: Counts) -> Dist:
        """One token drawn from ``counts`` (the Favor Bag: P18)."""
        return Dist(counts, size(counts))

    def shift(self, by: int) -> Dist:
        if by == 0:
            return self
        return Dist(tuple((t + by, w) for t, w in self.ways), self.den)

    def convolve(self, other: Dist) -> Dist:
        """The distribution of the sum of two independent totals."""
        if len(other.ways) == 1 and other.den == 1:
            return self.shift(other.ways[0][0])
        if len(self.ways) == 1 and self.den == 1:
            return other.shift(self.ways[0][0])
        out: dict[int, int] = {}
        spend(len(self.ways) * len(other.ways))
        for a, wa in self.ways:
            for b, wb in other.ways:
                out[a + b] = out.get(a + b, 0) + wa * wb
        return Dist(tuple(sorted(out.items())), self.den * other.den)

    def at_least(self, target: int) -> Fraction:
        """P(total ≥ target) (P19)."""
        return Fraction(sum(w for t, w in self.ways if t >= target), self.den)

    def probabilities(self) -> list[tuple[int, Fraction]]:
        return [(t, Fraction(w, self.den)) for t, w in self.ways]


@lru_cache(maxsize=4096)
def draw_sum(bag: Counts, k: int) -> Dist:
    """The total of k tokens drawn without replacement from ``bag``.

    The coefficient of yᵏ in Π (1 + y·x^v)^n, built one kind of token at a time:
    layer c maps a partial total to the number of ways to have drawn c tokens.
    """
    n_all = size(bag)
    if not 0 <= k <= n_all:
        raise ValueError(f"cannot draw {k} tokens from a bag of {n_all}")
    layers: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(k)]
    for v, n in bag:
        binom = [comb(n, j) for j in range(min(n, k) + 1)]
        for c in range(k, -1, -1):  # high layers first, so each kind is used once
            src = layers[c]
            if not src:
                continue
            spend(len(src) * min(n, k - c))
            for j in range(1, min(n, k - c) + 1):
                dst = layers[c + j]
                b, dv = binom[j], j * v
                for s, w in src.items():
                    dst[s + dv] = dst.get(s + dv, 0) + w * b
    return Dist(tuple(sorted(layers[k].items())), comb(n_all, k))


@lru_cache(maxsize=4096)
def hands(bag: Counts, k: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every multiset of k values drawable from ``bag``, as per-kind counts, with its ways."""
    kinds = [n for _, n in bag]
    out: list[tuple[tuple[int, ...], int]] = []

    def walk(i: int, left: int, picked: list[int], ways: int) -> None:
        spend()
        if i == len(kinds) - 1:
            if left <= kinds[i]:
                out.append(((*picked, left), ways * comb(kinds[i], left)))
            return
        for c in range(min(left, kinds[i]) + 1):
            walk(i + 1, left - c, [*picked, c], ways * comb(kinds[i], c))  # noqa: F821 (del'd below)

    if not kinds:
        return (((), 1),) if k == 0 else ()
    try:
        walk(0, k, [], 1)
    finally:
        del walk  # a recursive closure is a reference cycle: freed now, not at a full gc
    return tuple(out)


def _minus(bag: Counts, v: int) -> Counts:
    return tuple((u, n - (u == v)) for u, n in bag if n - (u == v))


def _plus(bag: Counts, v: int) -> Counts:
    if any(u == v for u, _ in bag):
        return tuple((u, n + (u == v)) for u, n in bag)
    return tuple(sorted((*bag, (v, 1))))


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


# --- a resolving group, as values ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """One hero's part of a group as the odds see it (values only, so equal bags share memos).

    ``board`` holds the sorted values drawn so far (a Redraw may replace them);
    ``draws`` the tokens still to draw from ``bag`` (a Redraw waiting for its token
    counts as one); ``redraws`` the Redraws the hero may use (0 when P11 does not
    allow them); ``calls`` the Favor calls still open (P18, I-P18a) and ``favor``
    this hero's value of each Favor *kind* (an index into :attr:`Group.favor_bag`);
    ``redraw_now`` is False while a Redraw waits for its token.
    """

    board: tuple[int, ...]
    bag: Counts
    draws: int
    redraws: int
    calls: int = 0
    favor: tuple[int, ...] = ()
    redraw_now: bool = True

    def short(self, set_aside: bool = True) -> bool:
        """True when the bag could run out before every draw and Redraw is made.

        Then drawing stops early (P6: the hero draws what the bag holds), and a Redraw
        made *before* the last draw can be worth more than one made after: setting a bad
        token aside early leaves fewer tokens to come out. Only the full tree is exact.
        """
        return size(self.bag) < self.draws + (self.redraws if set_aside else 0)


@dataclass(frozen=True, slots=True)
class Group:
    """Heroes resolving together against one Difficulty (I-P10), and the shared Favor Bag.

    ``favor_bag`` counts the tokens of each Favor kind left in the bag (a token one
    hero calls is gone for the next); ``fixed`` is what is already in the total besides
    the boards (the Favor tokens called); ``set_aside`` is I-P11.
    """

    sides: tuple[Side, ...]
    favor_bag: tuple[int, ...] = ()
    fixed: int = 0
    set_aside: bool = True


@dataclass(frozen=True, slots=True)
class MoveValue:
    """A move open now, worth P(success) when it is made now and best play follows.

    ``action`` is ``draw``, ``redraw``, ``call_favor`` or ``resolve``; ``side`` the index
    of the hero making it (None for ``resolve``); ``replace`` the value a Redraw replaces.
    """

    action: AdviceActionName
    side: int | None
    replace: int | None
    value: Fraction


#: ties between moves go to the one that keeps the most options open
_PREFER: dict[AdviceActionName, int] = {"draw": 0, "resolve": 1, "redraw": 2, "call_favor": 3}


def _open(s: Side, g: Group) -> bool:
    """Does this hero still have a choice to make (a Redraw or a Favor call)?"""
    can_redraw = s.redraws > 0 and bool(s.board or s.draws)
    return can_redraw or (s.calls > 0 and any(g.favor_bag))


def _passive(sides: tuple[Side, ...]) -> Dist:
    """The total of heroes with no choice left: their boards and the rest of their draws."""
    dist = Dist.point(0)
    for s in sides:
        dist = dist.convolve(draw_sum(s.bag, s.draws).shift(sum(s.board)))
    return dist


def as_drawn(g: Group) -> Dist:
    """The group total with no more choices: the boards, the draws left, nothing else."""
    return _passive(g.sides).shift(g.fixed)


def _favor_counts(s: Side, favor_bag: tuple[int, ...]) -> Counts:
    return _favor_values(s.favor, favor_bag)


@lru_cache(maxsize=4096)
def _favor_values(favor: tuple[int, ...], favor_bag: tuple[int, ...]) -> Counts:
    """The Favor Bag as values for one hero (``favor``: the hero's value of each kind)."""
    out: dict[int, int] = {}
    for kind, n in enumerate(favor_bag):
        if n:
            out[favor[kind]] = out.get(favor[kind], 0) + n
    return tuple(sorted(out.items()))


@lru_cache(maxsize=2048)
def best_play(g: Group, target: int) -> Fraction:
    """P(group total ≥ target) under best play: every Redraw and Favor decision made well."""
    active = [s for s in g.sides if _open(s, g)]
    if not active:
        return as_drawn(g).at_least(target)
    rest = _passive(tuple(s for s in g.sides if not _open(s, g))).shift(g.fixed)
    if len(active) == 1 and g.set_aside and active[0].calls <= 1 and not active[0].short():
        s = active[0]
        favor = _favor_counts(s, g.favor_bag) if s.calls else ()
        targets = tuple(target - t for t, _ in rest.ways)
        ways, den = _fast(s.bag, s.board, s.draws, s.redraws, favor, targets)
        num = sum(w * wr for w, (_, wr) in zip(ways, rest.ways, strict=True))
        return Fraction(num, den * rest.den)
    sides = tuple(active)
    early = any(s.short(g.set_aside) for s in sides)
    start = tuple((s.board, s.bag, s.draws, s.redraws, s.calls, s.redraw_now) for s in sides)
    favors = tuple(s.favor for s in sides)
    total = Fraction(0)
    for t, w in rest.ways:
        total += w * _solve(start, g.favor_bag, target - t, favors, g.set_aside, early)
    return total / rest.den


def best_moves(g: Group, target: int) -> tuple[MoveValue, ...]:
    """Every move open now (one Redraw per candidate value), valued with best play after it,
    best first. The first one is worth :func:`best_play`. A Favor call while drawing is still
    to come (and the bag cannot run out) is left out: it is never better than drawing on."""
    out: list[MoveValue] = []
    drawing = [i for i, s in enumerate(g.sides) if s.draws and size(s.bag)]
    # while the bag cannot run out, drawing on is best play (waiting loses nothing), so a
    # Favor call now is never the best move, and Favor is advised only as the best move
    waiting = None if any(o.short(g.set_aside) for o in g.sides) else True
    if drawing:
        i = drawing[0]
        s = g.sides[i]
        if not any(o.short(g.set_aside) for o in g.sides):
            value = best_play(g, target)  # waiting loses nothing: drawing on is best play
        else:
            value = _chance(g, i, s.board, s.bag, s.draws - 1, s.redraws, target)
        out.append(MoveValue("draw", i, None, value))
    else:
        total = sum(sum(s.board) for s in g.sides) + g.fixed
        out.append(MoveValue("resolve", None, None, Fraction(int(total >= target))))
    for i, s in enumerate(g.sides):
        if s.redraws and s.board and s.redraw_now:
            for x in s.board[:1] if g.set_aside else sorted(set(s.board)):
                pool = s.bag if g.set_aside else _plus(s.bag, x)
                if not size(pool):
                    continue  # P11: the bag cannot give a replacement
                rest = list(s.board)
                rest.remove(x)
                value = _chance(g, i, tuple(rest), pool, s.draws, s.redraws - 1, target)
                out.append(MoveValue("redraw", i, x, value))
        if s.calls and any(g.favor_bag) and (waiting is None or not drawing):
            value = Fraction(0)
            for kind, n in enumerate(g.favor_bag):
                if n:
                    bag = tuple(c - (k == kind) for k, c in enumerate(g.favor_bag))
                    after = Group(
                        tuple(replace(o, calls=o.calls - 1) if o is s else o for o in g.sides),
                        bag,
                        g.fixed + s.favor[kind],
                        g.set_aside,
                    )
                    value += n * best_play(after, target)
            out.append(MoveValue("call_favor", i, None, value / sum(g.favor_bag)))
    out.sort(key=lambda m: (-m.value, _PREFER[m.action]))
    return tuple(out)


def _add(board: tuple[int, ...], v: int) -> tuple[int, ...]:
    return tuple(sorted((*board, v)))


def _with(g: Group, i: int, s: Side) -> Group:
    if s.draws > size(s.bag):  # P6: a hero whose bag runs out stops drawing
        s = replace(s, draws=size(s.bag))
    return Group((*g.sides[:i], s, *g.sides[i + 1 :]), g.favor_bag, g.fixed, g.set_aside)


def _chance(
    g: Group, i: int, board: tuple[int, ...], pool: Counts, draws: int, redraws: int, target: int
) -> Fraction:
    """Best play averaged over the token that comes out of ``pool`` onto hero i's ``board``."""
    s = g.sides[i]
    total = Fraction(0)
    for v, n in pool:
        after = replace(s, board=_add(board, v), bag=_minus(pool, v), draws=draws, redraws=redraws)
        if draws < s.draws:
            after = replace(after, redraw_now=True)  # a waiting Redraw is filled by this draw
        total += n * best_play(_with(g, i, after), target)
    return total / size(pool)


# --- one hero deciding, tokens set aside: the path of lowest replacements ---------------


@lru_cache(maxsize=8192)
def _fast(
    bag: Counts,
    board: tuple[int, ...],
    k: int,
    r: int,
    favor: Counts,
    targets: tuple[int, ...],
) -> tuple[tuple[int, ...], int]:
    """Best-play ways for each target, over one denominator, for one hero whose bag cannot
    run out: draw the k tokens, then at every point while short either replace the lowest
    token (set aside) or Call Favor once (``favor``: the Favor Bag's values for this hero,
    empty when no call is open).

    A node of the walk is a hand after some replacements. It knows two things for the
    targets asked: ``V[t]``, the best-play ways from there, and ``G[u]``, the ways the
    path of replacements from there *ever* reaches u (what a Favor token worth t − u needs).
    Calling Favor at a node is worth Σ over Favor values f of count(f) · G[t − f]; going
    on is worth the children's V; the hero takes the better (I-P18a: only while short).
    """
    values = sorted({v for v, _ in bag} | set(board))
    index = {v: i for i, v in enumerate(values)}
    m = len(values)
    n_bag = size(bag)
    n_after = n_bag - k
    steps = min(r, n_after) if board or k else 0
    fav_n = sum(c for _, c in favor) or 1
    ts = list(targets)
    us = sorted({t - f for t in ts for f, _ in favor})
    u_at = {u: i for i, u in enumerate(us)}
    # Favor at a node: Σ count · G[t − f]; and the same for a leaf's children in closed form
    calls = [[(c, u_at[t - f]) for f, c in favor] for t in ts]
    ups = [[(c, f) for f, c in favor if f > 0] for t in ts]
    top = max(ts + us)
    n_t, n_u = len(ts), len(us)

    def node(
        hand: list[int], left: list[int], s: int, steps: int, n: int, scale: int
    ) -> tuple[list[int], list[int]]:
        spend(n_t + n_u)
        if s >= top:
            return [scale * fav_n] * n_t, [scale] * n_u
        if steps == 0:
            g = [int(s >= u) for u in us]
            return [
                fav_n if s >= t else sum(c * g[j] for c, j in calls[i]) for i, t in enumerate(ts)
            ], g
        low = 0
        while not hand[low]:
            low += 1
        base = s - values[low]
        hand[low] -= 1
        if steps == 1:
            # the children are leaves: count the tokens left whose value takes the sum to u
            suffix = [0] * (m + 1)
            for j in range(m - 1, -1, -1):
                suffix[j] = suffix[j + 1] + left[j]

            def q(u: int) -> int:
                return suffix[bisect_left(values, u - base)]

            g_sum = [q(u) for u in us]
            v_sum = []
            for i, t in enumerate(ts):
                qt = q(t)
                v_sum.append(fav_n * qt + sum(c * (q(t - f) - qt) for c, f in ups[i]))
        else:
            g_sum = [0] * n_u
            v_sum = [0] * n_t
            child = scale // n
            for j in range(m):
                c = left[j]
                if not c:
                    continue
                hand[j] += 1
                left[j] -= 1
                vc, gc = node(hand, left, base + values[j], steps - 1, n - 1, child)  # noqa: F821
                hand[j] -= 1
                left[j] += 1
                for i in range(n_t):
                    v_sum[i] += c * vc[i]
                for i in range(n_u):
                    g_sum[i] += c * gc[i]
        hand[low] += 1
        g = [scale if s >= u else g_sum[i] for i, u in enumerate(us)]
        v = []
        for i, t in enumerate(ts):
            if s >= t:
                v.append(scale * fav_n)
            else:
                v.append(max(v_sum[i], sum(c * g[j] for c, j in calls[i])))
        return v, g

    base_bag = [0] * m
    for v, n in bag:
        base_bag[index[v]] = n
    base_hand = [0] * m
    for v in board:
        base_hand[index[v]] += 1
    scale = _falling(n_after, steps)
    acc = [0] * n_t
    board_sum = sum(board)
    try:
        for picked, ways in hands(bag, k):
            hand = base_hand[:]
            left = base_bag[:]
            s = board_sum
            for (v, _), c in zip(bag, picked, strict=True):
                if c:
                    hand[index[v]] += c
                    left[index[v]] -= c
                    s += v * c
            got = node(hand, left, s, steps, n_after, scale)[0]
            for i in range(n_t):
                acc[i] += ways * got[i]
    finally:
        # node refers to itself through its closure: a reference cycle holding this call's
        # lists until a full collection; breaking it frees them now (docs/performance.md)
        del node
    return tuple(acc), comb(n_bag, k) * scale * fav_n


# --- the general case: expectimax over the whole game tree ------------------------------

#: one hero in the tree: (board, bag, draws left, Redraws left, Favor calls left, may Redraw now)
_Hero = tuple[tuple[int, ...], Counts, int, int, int, bool]


#: the expectimax's memo, shared by every query (a state's value never changes); bounded
_MEMO: dict[object, int | Fraction] = {}
_MEMO_LIMIT = 100_000


def _full(state: tuple[_Hero, ...], favor_bag: tuple[int, ...]) -> int:
    """The ways of every chance event still possible from ``state`` with tokens set aside: a
    value in units of this is an integer (a draw or Redraw from a bag of n divides it by n)."""
    out = 1
    for _, bag, left, r, _, _ in state:
        n = size(bag)
        out *= _falling(n, min(left + r, n))
    f = sum(favor_bag)
    return out * _falling(f, min(sum(h[4] for h in state), f))


def _solve(
    state: tuple[_Hero, ...],
    favor_bag: tuple[int, ...],
    target: int,
    favors: tuple[tuple[int, ...], ...],
    set_aside: bool,
    early: bool,
) -> Fraction:
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    full: int | Fraction = _full(state, favor_bag) if set_aside else Fraction(1)
    value = _game(state, favor_bag, target, favors, set_aside, early, full)
    return Fraction(value) / full


def _game(
    state: tuple[_Hero, ...],
    favor_bag: tuple[int, ...],
    target: int,
    favors: tuple[tuple[int, ...], ...],
    set_aside: bool,
    early: bool,
    full: int | Fraction,
) -> int | Fraction:
    """Best play from ``state``, in units of ``full``: at every point a hero may draw its next
    token, Redraw (the lowest token when set aside, any value otherwise), Call Favor, or, once
    everyone has drawn, resolve (P6: the draws must be made while the bag holds tokens).
    Unless ``early`` (a bag that can run out), the draws are made first: waiting loses
    nothing. ``target`` already has the Favor tokens called subtracted.

    With tokens set aside ``full`` is :func:`_full` and every value an integer (no Fraction
    in the walk); a returned token changes the pools' sizes with the order of moves, so
    there the values are probabilities (``full`` is 1)."""
    key = (state, favor_bag, target, favors, set_aside, early)
    spend(10)  # a visit costs about ten of the other searches' steps (its key, its bounds)
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    drawing = [i for i, h in enumerate(state) if h[2] and size(h[1])]
    low = high = 0
    for h in state:
        lo, hi = _bounds(h)
        low, high = low + lo, high + hi
    if low >= target:  # the draws left cannot fail: keep everything
        _MEMO[key] = full
        return full
    if high + _favor_bound(state, favor_bag, favors) < target:  # nothing left can reach it
        _MEMO[key] = 0
        return 0
    if set_aside and not drawing:
        choosing = [i for i, h in enumerate(state) if _may_choose(h, favor_bag)]
        if len(choosing) == 1 and state[choosing[0]][4] <= 1:
            # one hero left with choices: the path of lowest replacements (_fast), over a
            # denominator that divides this state's unit
            i = choosing[0]
            board, bag, _, r, calls, _ = state[i]
            others = sum(sum(h[0]) for j, h in enumerate(state) if j != i)
            favor = _favor_values(favors[i], favor_bag) if calls else ()
            ways, den = _fast(bag, board, 0, r, favor, (target - others,))
            scaled = ways[0] * (int(full) // den)  # den divides the unit: see _full
            _MEMO[key] = scaled
            return scaled
    best: int | Fraction = 0
    for i, op, x in _options(state, favor_bag, drawing, set_aside, early):
        if best == full:
            break
        board, bag, left, r, calls, now = state[i]
        total: int | Fraction = 0
        if op == "favor":
            den = sum(favor_bag)
            sub = full // den if set_aside else full
            after = (*state[:i], (board, bag, left, r, calls - 1, now), *state[i + 1 :])
            for kind, n in enumerate(favor_bag):
                if n:
                    fav = tuple(c - (k == kind) for k, c in enumerate(favor_bag))
                    t = target - favors[i][kind]
                    total += n * _game(after, fav, t, favors, set_aside, early, sub)
        else:
            pool, rest = bag, list(board)
            if op == "redraw":
                rest.remove(x)
                pool = bag if set_aside else _plus(bag, x)
            den = size(pool)
            sub = full // den if set_aside else full
            for v, n in pool:
                h = (
                    _add(tuple(rest), v),
                    _minus(pool, v),
                    left - (op == "draw"),
                    r - (op == "redraw"),
                    calls,
                    True,
                )
                after = (*state[:i], h, *state[i + 1 :])
                total += n * _game(after, favor_bag, target, favors, set_aside, early, sub)
        value: int | Fraction = total if set_aside else Fraction(total) / den
        if value > best:
            best = value
    _MEMO[key] = best
    return best


@lru_cache(maxsize=65536)
def _bounds(h: _Hero) -> tuple[int, int]:
    """The lowest total one hero can be held to (no choices: the draws left at their lowest)
    and a bound on the highest it can reach without Favor: the draws left at their highest
    (never below 0: in a bag that can run out, a Redraw can take the last tokens so a bad one
    is never drawn, P6), each Redraw swapping the lowest value in play for the bag's highest."""
    board, bag, left, r, _, _ = h
    low = sum(board) + _smallest(bag, left)
    top = tuple((-v, n) for v, n in reversed(bag) if v > 0)
    high = sum(board) - _smallest(top, left)
    if r and bag:
        lowest = min(board[0] if board else bag[0][0], bag[0][0])
        high += r * max(0, bag[-1][0] - lowest)
    return low, high


def _favor_bound(
    state: tuple[_Hero, ...], favor_bag: tuple[int, ...], favors: tuple[tuple[int, ...], ...]
) -> int:
    """The most the Favor calls still open can add."""
    out = 0
    if any(favor_bag):
        for i, h in enumerate(state):
            if h[4]:
                best = max(favors[i][k] for k, n in enumerate(favor_bag) if n)
                out += min(h[4], sum(favor_bag)) * max(0, best)
    return out


def _may_choose(h: _Hero, favor_bag: tuple[int, ...]) -> bool:
    board, bag, _, r, calls, _ = h
    return bool(r and board and bag) or bool(calls and any(favor_bag))


def _smallest(bag: Counts, k: int) -> int:
    """The sum of the k lowest values in ``bag`` (the worst the draws left can do)."""
    out = 0
    for v, n in bag:
        if k <= 0:
            break
        take = min(n, k)
        out += v * take
        k -= take
    return out


def _options(
    state: tuple[_Hero, ...],
    favor_bag: tuple[int, ...],
    drawing: list[int],
    set_aside: bool,
    early: bool,
) -> list[tuple[int, str, int]]:
    """The moves open in ``state``: (hero index, ``draw``/``redraw``/``favor``, value replaced)."""
    if drawing and not early:
        return [(drawing[0], "draw", 0)]  # draw on first: the order of the draws is free
    out: list[tuple[int, str, int]] = [(i, "draw", 0) for i in drawing]
    for i, (board, bag, _, r, calls, now) in enumerate(state):
        if r and board and now:
            for x in board[:1] if set_aside else sorted(set(board)):
                if size(bag if set_aside else _plus(bag, x)):
                    out.append((i, "redraw", x))
        if calls and any(favor_bag):
            out.append((i, "favor", 0))
    return out
