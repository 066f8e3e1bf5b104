"""Independent oracles for the odds tests: brute force over every ordered draw.

Nothing here uses engine.performance.odds or engine.performance.combinatorics.
:func:`best_play` walks the whole game tree token by token (tokens by identity, not
grouped by value): at every point the heroes may draw the next token, Redraw any token
on a board (mid-draw too), Call Favor (or never), or resolve once everything is drawn;
chance nodes average over the tokens in the bag. :func:`engine_best` does the same
through the real engine, applying the real commands to real states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import engine
from engine.state import TableState


def _without(items: tuple[object, ...], x: object) -> tuple[object, ...]:
    out = list(items)
    out.remove(x)
    return tuple(out)


def engine_best(
    state: TableState,
    options: Callable[[TableState], list[list[dict[str, object]]]],
    key: Callable[[TableState], object],
    memo: dict[object, Fraction] | None = None,
) -> Fraction:
    """Best P(success) over every ordered continuation, through the real :func:`engine.apply`.

    ``options(state)`` lists what may be done now; each option is a chance node:
    the commands for every token that could come out of the bag, all equally
    likely (a draw, a Redraw with its replacement, a Favor call); an empty
    node means "resolve now", and so does an empty list of options. Resolving
    is done by the engine, and its verdict (every group succeeded) is the score. ``key`` names
    equivalent states so the walk is memoised (in ``memo``, which may be shared by walks from
    states of one game).
    """
    memo = {} if memo is None else memo

    def resolved(state: TableState) -> Fraction:
        after, _ = engine.apply(state, {"cmd": "resolve"})
        assert after.performance is not None
        return Fraction(int(all(r.success for r in after.performance.results)))

    def walk(state: TableState) -> Fraction:
        k = key(state)
        hit = memo.get(k)
        if hit is not None:
            return hit
        nodes = options(state) or [[]]
        value = max(
            sum((walk(engine.apply(state, cmd)[0]) for cmd in node), Fraction(0)) / len(node)
            if node
            else resolved(state)
            for node in nodes
        )
        memo[k] = value
        return value

    return walk(state)


# --- best play with every choice optional: the headline and each first move ------------


@dataclass(frozen=True)
class Side:
    """One hero for :func:`best_play`: token values by identity (index), and the choices left.

    ``favor`` gives this hero's value for each Favor *kind* (index into the kinds the
    shared Favor Bag holds); ``calls`` how many Favor calls the hero may still make.
    """

    bag: tuple[int, ...]
    board: tuple[int, ...] = ()
    draws: int = 0
    redraws: int = 0
    calls: int = 0
    favor: tuple[int, ...] = ()
    #: False while a Redraw waits for its token: no new Redraw before the next draw
    redraw_now: bool = True


#: a first move: ("draw", i) / ("redraw", i, value replaced) / ("favor", i) / ("resolve",)
Move = tuple[object, ...]


def best_play(
    sides: tuple[Side, ...],
    favor_bag: tuple[int, ...],
    target: int,
    fixed: int = 0,
    set_aside: bool = True,
) -> tuple[Fraction, dict[Move, Fraction]]:
    """The best achievable P(group total ≥ target) and the value of every first move.

    Every decision is optional and may come at any moment: draw the next token (the
    draws must all be made before resolving, P6), Redraw any token on a board mid-draw or
    after (P11), Call Favor before, during or after the draw (P18), resolve once every
    hero has drawn. ``favor_bag`` lists the kind of every Favor token by identity (shared
    by the group: a token one hero calls is gone for the other). Nothing is grouped by
    value: tokens are walked by identity.
    """

    def value(side: int, token: tuple[str, int]) -> int:
        kind, j = token
        s = sides[side]
        return s.board[j] if kind == "b" else s.bag[j]

    Hero = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], int, int, int]

    def moves(
        state: tuple[Hero, ...], fav: tuple[int, ...], got: int, first: bool
    ) -> list[tuple[Move, list[tuple[tuple[Hero, ...], tuple[int, ...], int]]]]:
        """Each move open now with the equally likely states it leads to."""
        out: list[tuple[Move, list[tuple[tuple[Hero, ...], tuple[int, ...], int]]]] = []
        finished = True
        for i, (board, bag, left, r, calls) in enumerate(state):

            def put(h: Hero, i: int = i) -> tuple[Hero, ...]:
                return (*state[:i], h, *state[i + 1 :])

            if left and bag:
                finished = False
                out.append(
                    (
                        ("draw", i),
                        [
                            (
                                put((_sorted((*board, t)), _without(bag, t), left - 1, r, calls)),
                                fav,
                                got,
                            )
                            for t in bag
                        ],
                    )
                )
            if r and board and (sides[i].redraw_now or not first):
                for x in board:
                    pool = bag if set_aside else (*bag, x)
                    if not pool:
                        continue
                    rest = _without(board, x)
                    out.append(
                        (
                            ("redraw", i, value(i, x)),
                            [
                                (
                                    put(
                                        (_sorted((*rest, t)), _without(pool, t), left, r - 1, calls)
                                    ),
                                    fav,
                                    got,
                                )
                                for t in pool
                            ],
                        )
                    )
            if calls and fav:
                out.append(
                    (
                        ("favor", i),
                        [
                            (
                                put((board, bag, left, r, calls - 1)),
                                fav[:j] + fav[j + 1 :],
                                got + sides[i].favor[fav[j]],
                            )
                            for j in range(len(fav))
                        ],
                    )
                )
        if finished:
            out.append((("resolve",), []))
        return out

    def score(state: tuple[Hero, ...], got: int) -> Fraction:
        total = fixed + got + sum(value(i, t) for i, h in enumerate(state) for t in h[0])
        return Fraction(int(total >= target))

    @cache
    def best(state: tuple[Hero, ...], fav: tuple[int, ...], got: int) -> Fraction:
        return max(_worth(m, children, state, got) for m, children in moves(state, fav, got, False))

    def _worth(
        move: Move,
        children: list[tuple[tuple[Hero, ...], tuple[int, ...], int]],
        state: tuple[Hero, ...],
        got: int,
    ) -> Fraction:
        if not children:
            return score(state, got)
        return sum((best(*c) for c in children), Fraction(0)) / len(children)

    start = tuple(
        (
            tuple(("b", j) for j in range(len(s.board))),
            tuple(("t", j) for j in range(len(s.bag))),
            s.draws,
            s.redraws,
            s.calls,
        )
        for s in sides
    )
    root: dict[Move, Fraction] = {}
    for move, children in moves(start, tuple(sorted(favor_bag)), 0, True):
        v = _worth(move, children, start, 0)
        root[move] = max(v, root.get(move, v))  # Redraws of equal values are one move
    return max(root.values()), root


def _sorted(items: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(items))
