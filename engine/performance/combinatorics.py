"""Exact odds of a draw from a bag, as whole-number ways over a whole-number denominator.

This module knows nothing about heroes or tokens: only multisets of *values*.
Tokens of equal value are interchangeable for the total, so a bag is reduced to
``((value, count), …)`` and a draw of k tokens to the hands (multisets of values)
it can make, each weighted by Π C(nᵢ, cᵢ) out of C(N, k) (docs/odds.md, "How the numbers
are made").
Everything is integer arithmetic; a :class:`fractions.Fraction` appears only
where a probability is handed out.

Redraw (P11, set aside per I-P11) is a decision, not a draw, so its odds are
those of the best policy. Two facts make that cheap (proofs in docs/odds.md):

* waiting until every token is drawn before using a Redraw loses nothing, so a
  plan is "draw the rest, then Redraw while failing";
* for "total ≥ Difficulty" with the replaced token set aside, replacing the
  lowest token is always at least as good as replacing any other.

With one hero deciding, success then means "the highest sum the path of
lowest-token replacements ever reaches, plus what is fixed, meets the
Difficulty" — a distribution that does not depend on the Difficulty. Where those
facts do not hold (several heroes choosing who redraws in one Intersect group,
or a table that returns the replaced token to the bag), :func:`plan_success`
runs a full expectimax instead.

All public functions are pure and memoised on their (immutable) arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import comb

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
        if i == len(kinds) - 1:
            if left <= kinds[i]:
                out.append(((*picked, left), ways * comb(kinds[i], left)))
            return
        for c in range(min(left, kinds[i]) + 1):
            walk(i + 1, left - c, [*picked, c], ways * comb(kinds[i], c))

    if not kinds:
        return (((), 1),) if k == 0 else ()
    walk(0, k, [], 1)
    return tuple(out)


# --- one hero deciding: the reach of the lowest-replacement path ---------------------


def _start(
    bag: Counts, board: tuple[int, ...], k: int, r: int
) -> tuple[list[int], int, int, int, list[tuple[list[int], list[int], int, int]]]:
    """Per-kind arrays for the Redraw walks: the values, how many replacements can happen
    (``steps``), the denominator they add, the bag size after the draws, and for every
    hand of the k draws (board included) its counts, the bag left, its total and ways."""
    values = sorted({v for v, _ in bag} | set(board))
    index = {v: i for i, v in enumerate(values)}
    base_bag = [0] * len(values)
    for v, n in bag:
        base_bag[index[v]] = n
    base_hand = [0] * len(values)
    for v in board:
        base_hand[index[v]] += 1
    n_after = size(bag) - k
    steps = min(r, n_after) if board or k else 0
    den_steps = 1
    for i in range(steps):
        den_steps *= n_after - i
    starts = []
    for picked, ways in hands(bag, k):
        hand = base_hand[:]
        left = base_bag[:]
        total = sum(board)
        for (v, _), c in zip(bag, picked, strict=True):
            if c:
                hand[index[v]] += c
                left[index[v]] -= c
                total += v * c
        starts.append((hand, left, total, ways))
    return values, steps, den_steps, n_after, starts


@lru_cache(maxsize=1024)
def redraw_reach(bag: Counts, board: tuple[int, ...], k: int, r: int, cap: int) -> Dist:
    """Highest sum reached when the k remaining tokens are drawn and then the lowest token
    is replaced r times (each replaced token set aside, I-P11), capped at ``cap``.

    The hero stops as soon as the total meets the target, so success for a target
    t ≤ cap is exactly "reach ≥ t" (the path up to that point does not depend on
    t). Sums at or above ``cap`` are lumped into ``cap``, which prunes the walk.
    """
    values, steps, den_steps, n_after, starts = _start(bag, board, k, r)
    out: dict[int, int] = {}
    for hand, left, total, ways in starts:
        _walk(values, hand, left, total, total, steps, ways, cap, den_steps, n_after, out)
    return Dist(tuple(sorted(out.items())), comb(size(bag), k) * den_steps)


def _walk(
    values: list[int],
    hand: list[int],
    left: list[int],
    total: int,
    best: int,
    steps: int,
    ways: int,
    cap: int,
    den_steps: int,
    n_left: int,
    out: dict[int, int],
) -> None:
    """Depth-first over the replacement draws; ``den_steps`` is what the rest of the path
    multiplies the denominator by (so a pruned path still counts its full share)."""
    if best >= cap:
        out[cap] = out.get(cap, 0) + ways * den_steps
        return
    if steps == 0:
        out[best] = out.get(best, 0) + ways
        return
    low = 0
    while not hand[low]:
        low += 1
    base = total - values[low]
    hand[low] -= 1
    rest = den_steps // n_left
    for j, n in enumerate(left):
        if not n:
            continue
        new_total = base + values[j]
        new_best = new_total if new_total > best else best
        if steps == 1 or new_best >= cap:
            key = cap if new_best >= cap else new_best
            out[key] = out.get(key, 0) + ways * n * rest
            continue
        hand[j] += 1
        left[j] -= 1
        _walk(
            values, hand, left, new_total, new_best, steps - 1, ways * n, cap, rest, n_left - 1, out
        )
        hand[j] -= 1
        left[j] += 1
    hand[low] += 1


@lru_cache(maxsize=1024)
def redraw_final(bag: Counts, board: tuple[int, ...], k: int, r: int, target: int) -> Dist:
    """The final total of the same plan aimed at ``target`` (it stops once the total meets it).

    For the distribution shown beside a plan; the success odds come from
    :func:`redraw_reach`, which serves every target at once.
    """
    values, steps, den_steps, n_after, starts = _start(bag, board, k, r)
    out: dict[int, int] = {}
    for hand, left, total, ways in starts:
        _walk_final(values, hand, left, total, steps, ways, target, den_steps, n_after, out)
    return Dist(tuple(sorted(out.items())), comb(size(bag), k) * den_steps)


def _walk_final(
    values: list[int],
    hand: list[int],
    left: list[int],
    total: int,
    steps: int,
    ways: int,
    target: int,
    den_steps: int,
    n_left: int,
    out: dict[int, int],
) -> None:
    if total >= target or steps == 0:
        out[total] = out.get(total, 0) + ways * den_steps
        return
    low = 0
    while not hand[low]:
        low += 1
    base = total - values[low]
    hand[low] -= 1
    rest = den_steps // n_left
    for j, n in enumerate(left):
        if not n:
            continue
        if steps == 1:
            t = base + values[j]
            out[t] = out.get(t, 0) + ways * n * rest
            continue
        hand[j] += 1
        left[j] -= 1
        _walk_final(
            values, hand, left, base + values[j], steps - 1, ways * n, target, rest, n_left - 1, out
        )
        hand[j] -= 1
        left[j] += 1
    hand[low] += 1


def _minus(bag: Counts, v: int) -> Counts:
    return tuple((u, n - (u == v)) for u, n in bag if n - (u == v))


def _plus(bag: Counts, v: int) -> Counts:
    if any(u == v for u, _ in bag):
        return tuple((u, n + (u == v)) for u, n in bag)
    return tuple(sorted((*bag, (v, 1))))


# --- the general case: expectimax over who redraws which token -----------------------


@dataclass(frozen=True, slots=True)
class Redrawer:
    """A hero whose Redraws are part of the plan: what is on the board, left in the bag,
    still to draw, and how many Redraws may be used."""

    bag: Counts
    board: tuple[int, ...]
    draws: int
    redraws: int


def plan_success(
    redrawers: tuple[Redrawer, ...], fixed: Dist, target: int, set_aside: bool
) -> Fraction:
    """P(success) under the best Redraw decisions of every hero in ``redrawers``.

    ``fixed`` is the independent rest of the group total (other heroes' draws,
    Favor). Every hero draws first; then, knowing all hands and the fixed part,
    the group picks Redraws one at a time (expectimax). With ``set_aside`` each
    hero only ever needs to consider its lowest token; otherwise every distinct
    value on its board is a candidate.
    """
    memo: dict[tuple[object, ...], Fraction] = {}
    per_hero = [hands(h.bag, h.draws) for h in redrawers]
    total = Fraction(0)
    den = 1
    for h in redrawers:
        den *= comb(size(h.bag), h.draws)
    for combo in product(*per_hero):
        weight = 1
        state = []
        for h, (picked, ways) in zip(redrawers, combo, strict=True):
            weight *= ways
            drawn = tuple(v for (v, _), c in zip(h.bag, picked, strict=True) for _ in range(c))
            hand = tuple(sorted((*h.board, *drawn)))
            left = tuple((v, n - c) for (v, n), c in zip(h.bag, picked, strict=True) if n - c)
            state.append((hand, left, h.redraws if hand else 0))
        key = tuple(state)
        inner = Fraction(0)
        for f, wf in fixed.ways:
            inner += wf * _best(key, target - f, set_aside, memo)
        total += weight * inner
    return total / (den * fixed.den)


def _best(
    state: tuple[tuple[tuple[int, ...], Counts, int], ...],
    target: int,
    set_aside: bool,
    memo: dict[tuple[object, ...], Fraction],
) -> Fraction:
    if sum(sum(hand) for hand, _, _ in state) >= target:
        return Fraction(1)
    key = (state, target)
    hit = memo.get(key)
    if hit is not None:
        return hit
    best = Fraction(0)
    for i, (hand, left, r) in enumerate(state):
        if r == 0:
            continue
        candidates = hand[:1] if set_aside else tuple(sorted(set(hand)))
        for x in candidates:
            pool = left if set_aside else _plus(left, x)
            n_pool = size(pool)
            if n_pool == 0:
                continue
            rest = list(hand)
            rest.remove(x)
            value = Fraction(0)
            for v, n in pool:
                new = (tuple(sorted((*rest, v))), _minus(pool, v), r - 1)
                child = (*state[:i], new, *state[i + 1 :])
                value += n * _best(child, target, set_aside, memo)
            value /= n_pool
            if value > best:
                best = value
    memo[key] = best
    return best


def short_bag(r: Redrawer) -> bool:
    """True when the bag could run out before every draw and Redraw is made.

    Then drawing stops early (P6: the hero draws what the bag holds), and a Redraw
    made *before* the last draw can be worth more than one made after: setting a
    bad token aside early means fewer tokens are left to come out. Only the full
    game tree (:func:`game_success`) is exact there.
    """
    return size(r.bag) < r.draws + r.redraws


def game_success(
    redrawers: tuple[Redrawer, ...], fixed: Dist, target: int, set_aside: bool
) -> Fraction:
    """P(success) under the best play over the whole game tree: at every point any hero may
    draw its next token or Redraw (the lowest token when set aside, any value otherwise);
    drawing must go on while there are draws left and tokens in the bag (P6)."""
    memo: dict[tuple[object, ...], Fraction] = {}
    start = tuple((tuple(sorted(h.board)), h.bag, h.draws, h.redraws) for h in redrawers)
    total = Fraction(0)
    for f, wf in fixed.ways:
        total += wf * _game(start, target - f, set_aside, memo)
    return total / fixed.den


def _game(
    state: tuple[tuple[tuple[int, ...], Counts, int, int], ...],
    target: int,
    set_aside: bool,
    memo: dict[tuple[object, ...], Fraction],
) -> Fraction:
    key = (state, target)
    hit = memo.get(key)
    if hit is not None:
        return hit
    best: Fraction | None = None
    finished = True
    for i, (board, bag, left, r) in enumerate(state):
        n_bag = size(bag)
        moves: list[tuple[Counts, tuple[int, ...], int, int]] = []
        if left and n_bag:
            finished = False
            moves.append((bag, board, left - 1, r))
        if r and board:
            for x in board[:1] if set_aside else sorted(set(board)):
                pool = bag if set_aside else _plus(bag, x)
                if size(pool):
                    rest = list(board)
                    rest.remove(x)
                    moves.append((pool, tuple(rest), left, r - 1))
        for pool, rest_board, new_left, new_r in moves:
            value = Fraction(0)
            for v, n in pool:
                new = (tuple(sorted((*rest_board, v))), _minus(pool, v), new_left, new_r)
                value += n * _game((*state[:i], new, *state[i + 1 :]), target, set_aside, memo)
            value /= size(pool)
            if best is None or value > best:
                best = value
    if finished:
        done = Fraction(int(sum(sum(b) for b, _, _, _ in state) >= target))
        best = done if best is None or done > best else best
    assert best is not None
    memo[key] = best
    return best
