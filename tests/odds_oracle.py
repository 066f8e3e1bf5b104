"""Independent oracles for the odds tests: brute force over every ordered draw.

Nothing here uses engine.performance.odds or engine.performance.combinatorics. :func:`game_value` walks the
whole game tree token by token (tokens by identity, not grouped by value): at
every point the heroes may draw the next token, Redraw any token on a board
(mid-draw too), Call Favor, or stop once everything is drawn; chance nodes
average over the tokens in the bag. :func:`engine_tree` does the same through
the real engine, applying the real commands to real states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import engine
from engine.state import TableState


@dataclass(frozen=True)
class Player:
    """One hero for :func:`game_value`: token values by identity (index)."""

    bag: tuple[int, ...]
    board: tuple[int, ...] = ()
    draws: int = 0
    redraws: int = 0
    #: Favor Bag token values if this hero must Call Favor at some point, else None
    favor: tuple[int, ...] | None = None


def game_value(
    players: tuple[Player, ...], target: int, fixed: int = 0, set_aside: bool = True
) -> Fraction:
    """The best achievable P(sum ≥ target), over every order of draws, Redraws and Favor."""

    # per player state: (board token ids, bag token ids, draws left, redraws left, favor: None =
    # not part of the plan, "due" = must still be called, int = value called)
    def start(i: int, p: Player) -> tuple[object, ...]:
        board = tuple(("b", i, j) for j in range(len(p.board)))
        bag = tuple(("t", i, j) for j in range(len(p.bag)))
        return (board, bag, p.draws, p.redraws, None if p.favor is None else "due")

    def value(token: tuple[str, int, int]) -> int:
        kind, i, j = token
        return players[i].board[j] if kind == "b" else players[i].bag[j]

    @cache
    def best(state: tuple[tuple[object, ...], ...]) -> Fraction:
        options: list[Fraction] = []
        finished = True
        for i, (board, bag, left, r, fav) in enumerate(state):
            assert isinstance(board, tuple) and isinstance(bag, tuple)
            assert isinstance(left, int) and isinstance(r, int)

            def chance(
                pool: tuple[object, ...], make: Callable[[object], tuple[object, ...]], i: int = i
            ) -> Fraction:
                """Average over the token (or Favor value) that comes out of ``pool``."""
                total = Fraction(0)
                for t in pool:
                    total += best((*state[:i], make(t), *state[i + 1 :]))
                return total / len(pool)

            if left and bag:
                finished = False
                options.append(
                    chance(
                        bag,
                        lambda t, b=board, g=bag, n=left, r=r, f=fav: (
                            tuple(sorted((*b, t))),
                            _without(g, t),
                            n - 1,
                            r,
                            f,
                        ),
                    )
                )
            if fav == "due":
                finished = False
                tokens = players[i].favor
                assert tokens is not None
                options.append(
                    chance(tokens, lambda f, b=board, g=bag, n=left, r=r: (b, g, n, r, f))
                )
            if r and board:
                for x in set(board):
                    pool = bag if set_aside else (*bag, x)
                    if pool:
                        rest = _without(board, x)
                        options.append(
                            chance(
                                pool,
                                lambda t, b=rest, g=pool, n=left, r=r, f=fav: (
                                    tuple(sorted((*b, t))),
                                    _without(g, t),
                                    n,
                                    r - 1,
                                    f,
                                ),
                            )
                        )
        if finished:
            total = fixed
            for board, _, _, _, fav in state:
                assert isinstance(board, tuple)
                total += sum(value(t) for t in board) + (fav if isinstance(fav, int) else 0)
            options.append(Fraction(int(total >= target)))
        return max(options)

    return best(tuple(start(i, p) for i, p in enumerate(players)))


def _without(items: tuple[object, ...], x: object) -> tuple[object, ...]:
    out = list(items)
    out.remove(x)
    return tuple(out)


def engine_best(
    state: TableState,
    options: Callable[[TableState], list[list[dict[str, object]]]],
    key: Callable[[TableState], object],
) -> Fraction:
    """Best P(success) over every ordered continuation, through the real :func:`engine.apply`.

    ``options(state)`` lists what may be done now; each option is a chance node:
    the commands for every token that could come out of the bag, all equally
    likely (a draw, a Redraw with its replacement, a Favor call); an empty
    node means "resolve now", and so does an empty list of options. Resolving
    is done by the engine, and its verdict (every group succeeded) is the score. ``key`` names equivalent states so
    the walk is memoised.
    """
    memo: dict[object, Fraction] = {}

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
