"""Bounded answers: how many steps a derived answer (odds, an attack forecast) may take.

The table's turn must stay short whatever the state, but some answers grow steeply with
it: the best-play odds of an Intersect group (a game tree over two heroes' draws,
Redraws and Favor calls) or the attack forecast of a big fight. The searches that make
those answers (:mod:`engine.performance.combinatorics`, :mod:`engine.combat.odds`) count
the steps they enumerate with :func:`spend`; inside :func:`limit` a search that would go
past its allowance stops with :class:`TooMuchWork`, so the view can say the answer is
pending and the service can ask for it off the turn (``companion.views.answers``).

Steps, never seconds: the same question costs the same steps on a Pi Zero and here, so
the allowance is rules data (``[answers]`` in ``engine/data/rules.toml``) and the tests
count steps. Outside any limit (the CLI, the recap, a test asking for the exact answer)
:func:`spend` costs a lookup and nothing else.

>>> with limit(10) as used:
...     spend(4)
>>> used.spent
4
>>> try:
...     with limit(3):
...         spend(4)
... except TooMuchWork as e:
...     print(e)
more than 3 steps
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass


class TooMuchWork(Exception):
    """A search went past the steps it was allowed (:func:`limit`)."""

    def __init__(self, allowed: int) -> None:
        super().__init__(f"more than {allowed} steps")
        self.allowed = allowed


@dataclass(slots=True)
class Used:
    """The steps spent inside one :func:`limit` (read it after the block)."""

    allowed: int
    spent: int = 0


class _Here(threading.local):
    """Each thread's own allowance: the panel, MQTT and the pondering thread ask views at once."""

    left: int | None = None
    frames: tuple[Used, ...] = ()


_here = _Here()


def spend(steps: int = 1) -> None:
    """Count ``steps`` of work against the allowance of the innermost :func:`limit`, if any;
    raise :class:`TooMuchWork` once it is overdrawn."""
    left = _here.left
    if left is None:
        return
    left -= steps
    _here.left = left
    if left < 0:
        raise TooMuchWork(_allowed())


def _allowed() -> int:
    frames = _here.frames
    return frames[-1].allowed if frames else 0


@contextlib.contextmanager
def limit(steps: int) -> Iterator[Used]:
    """Allow the block at most ``steps`` steps of :func:`spend` (fewer when an enclosing limit
    has fewer left, whose allowance the block's steps also use)."""
    outer = _here.left
    allowed = steps if outer is None else min(steps, max(outer, 0))
    used = Used(allowed)
    frames = _here.frames
    _here.frames = (*frames, used)
    _here.left = allowed
    try:
        yield used
    finally:
        left = _here.left
        used.spent = allowed - left if left is not None else 0
        _here.left = None if outer is None else outer - used.spent
        _here.frames = frames


def unlimited() -> bool:
    """True when no :func:`limit` is in force on this thread."""
    return _here.left is None
