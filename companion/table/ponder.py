"""Thinking on the table's time: the draws that may come next, applied while the table waits.

Most of a table's inputs are tokens laid on the Draw Board, and which tokens can come next
is known: those in the Hero Bags of the heroes in the Performance, and the Favor Bag's.
Between two draws a table waits a second or more. :class:`Ponder` spends a few
milliseconds of that wait on one thread: for each token that may be laid next it applies
the command that token would become (:func:`tags.commands.command_for_token`) and lets the
outputs prepare what they will need for the state it gives (the MQTT bridge: the view and
``…/state``'s JSON). When the token comes, the turn :meth:`~Ponder.recall`\\ s that state
instead of computing it, and the outputs find their work done.

This is a chess engine's pondering, on a table. It is exact, never a guess: the engine is
pure (``apply(state, command)`` has no clock, no I/O, no hidden randomness), so what was
computed for the same state and an equal command *is* what the turn would compute. Only
the current state's answers are kept, matched by identity; a command compared by value and
by type (``5`` and ``5.0`` are not the same command). Nothing pondered is told to anyone:
the turn still commits the state to the journal before a subscriber hears of it, and a
pondered state that never comes is dropped with the next turn.

What it costs: about 0.55 ms of CPU per token on the VM of docs/performance.md's fifth
round (apply, view, JSON), 35 tokens after each draw of the example table's Performance
(19 ms); nothing while no Performance is drawing. It waits :data:`SETTLE` after a turn, or
:data:`SETTLE_TURNS` times as long as the recent turns took where that is longer (a slow
board), so that a burst of commands (a script, a replay) is never pondered, and stops at
the next check once a turn begins.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine import CommandRejected, Event, apply
from engine.state import TableState
from engine.tokens import TokenKind
from settings import trace
from settings.latest import LatestWins
from tags.commands import command_for_token

log = logging.getLogger("rhuna.ponder")

#: how long the table must have been still before pondering begins (s): a burst is not
#: pondered, and the turn's own last work (the panel, the publisher) goes first
SETTLE = 0.002

#: ... and for this many times as long as the last turns took (wall time, taken → idle): on a
#: slow board a turn takes tens of milliseconds and so does the next command of a burst on
#: its way in, which a fixed 2 ms would ponder, its work then competing with that command's
#: turn for the one core (benchmarks/pi_budget.py, a tenth of a core: token → state p50
#: 96 ms pondering, 50 ms not). At a table's pace (a second between draws) it still ponders.
SETTLE_TURNS = 4.0

#: the longest wait, whatever the turns took (s)
SETTLE_MAX = 0.5

#: told each pondered state on the pondering thread, to prepare what it will need for it;
#: it must not keep a state it is told beyond a bounded cache (most never come)
Warmer = Callable[[TableState], None]

Key = tuple[tuple[str, str, Any], ...]


def command_key(command: Any) -> Key | None:
    """A command as a dictionary key: its fields, each with its value's type; None for a
    command that is not a flat JSON object (never pondered, so never recalled)."""
    if not isinstance(command, Mapping):
        return None
    out = []
    for k, v in command.items():
        if not isinstance(k, str) or not (v is None or isinstance(v, str | int | float)):
            return None
        out.append((k, type(v).__name__, v))
    return tuple(sorted(out))


def likely_commands(state: TableState) -> Iterator[Mapping[str, Any]]:
    """The commands the tokens that may be laid next on the Draw Board would become, the
    likeliest first: the drawing hero's bag, the other heroes' of the Performance, then the
    Favor Bag's. Nothing while no Performance is open and drawing."""
    perf = state.performance
    if perf is None or perf.resolved:
        return
    heroes = [c.hero for c in perf.contributions]
    if perf.drawing in heroes:
        heroes.remove(perf.drawing)
        heroes.insert(0, perf.drawing)
    bags = [state.heroes[h].bag for h in heroes if h in state.heroes]
    bags += [b.id for b in state.bags.values() if b.owner is None and _favor_bag(state, b.id)]
    for bag_id in bags:
        bag = state.bags.get(bag_id)
        if bag is None:
            continue
        for token_id in bag.contents:
            meant = command_for_token(state, token_id, "board")
            if isinstance(meant, dict):
                yield meant


def _favor_bag(state: TableState, bag_id: str) -> bool:
    contents = state.bags[bag_id].contents
    return bool(contents) and state.tokens[contents[0]].kind is TokenKind.FAVOR


class Ponder:
    """One thread that applies the likely next commands of the current state ahead.

    :meth:`think` (after a turn) and :meth:`recall` (in a turn) are for the loop, from
    whichever thread has its turn; neither waits for the pondering thread. The thread is a
    :class:`settings.latest.LatestWins`: the state the table waits in is its newest item,
    settled for :meth:`settle`, and a turn (``recall``: hold) or a newer state supersedes it."""

    __slots__ = (
        "_answers",
        "_answers_for",
        "_began",
        "_candidates",
        "_clock",
        "_lock",
        "_settle",
        "_warmers",
        "_work",
        "pondered",
        "recalled",
        "turn",
    )

    def __init__(
        self,
        candidates: Callable[[TableState], Iterator[Mapping[str, Any]]] = likely_commands,
        settle: float = SETTLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._candidates = candidates
        self._settle = settle
        self._clock = clock
        self._lock = threading.Lock()
        self._answers: dict[Key, tuple[TableState, tuple[Event, ...]]] = {}
        self._answers_for: TableState | None = None
        self._warmers: tuple[tuple[object, Warmer], ...] = ()
        self._began: float | None = None  # the clock when the turn in progress recalled
        # the state being pondered (its newest item); still for settle() first, on the real
        # clock (``clock`` times the turns only)
        self._work: LatestWins[TableState] = LatestWins(
            self._think_through, name="ponder", settle=self.settle
        )
        #: the recent turns' wall time (s): jumps up with a long one, decays by a fifth a turn
        self.turn = 0.0
        #: commands applied ahead, and recalled by a turn (diagnostics, tests)
        self.pondered = 0
        self.recalled = 0

    # --- outputs --------------------------------------------------------------

    def warm(self, owner: object, fn: Warmer) -> None:
        """Tell ``fn`` each pondered state (on the pondering thread) to prepare its output."""
        with self._lock:
            self._warmers = (*self._warmers, (owner, fn))

    def unwarm(self, owner: object) -> None:
        with self._lock:
            self._warmers = tuple((o, f) for o, f in self._warmers if o != owner)

    # --- the loop ---------------------------------------------------------------

    def start(self) -> None:
        self._work.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._work.stop(timeout=timeout)

    @property
    def thread(self) -> threading.Thread | None:
        """The pondering thread (None before start and once stopped)."""
        return self._work.thread

    def think(self, state: TableState) -> None:
        """The table waits in ``state``: ponder what may come next (never waits)."""
        with self._lock:
            if self._began is not None:  # the turn that recalled has ended
                took, self._began = self._clock() - self._began, None
                self.turn = max(took, 0.8 * self.turn)
            if self._work.stopping or self._work.latest is state:
                return
            if self._answers_for is not state:
                self._answers, self._answers_for = {}, state
            self._work.offer(state)

    def recall(
        self, state: TableState, command: Any
    ) -> tuple[TableState, tuple[Event, ...]] | None:
        """``apply(state, command)`` if it was pondered, else None; either way a turn has
        begun, so pondering stops at its next check (until :meth:`think`)."""
        key = command_key(command)
        self._work.cancel()  # hold
        with self._lock:
            self._began = self._clock()
            if key is None or self._answers_for is not state:
                return None
            answer = self._answers.get(key)
        if answer is not None:
            self.recalled += 1
        return answer

    # --- the pondering thread -----------------------------------------------------------

    def settle(self) -> float:
        """How long the table must be still before pondering: :data:`SETTLE`, or longer after
        slow turns (:data:`SETTLE_TURNS`), never more than :data:`SETTLE_MAX`."""
        return min(SETTLE_MAX, max(self._settle, SETTLE_TURNS * self.turn))

    def _moved(self) -> bool:
        """The table is no longer waiting in the state being pondered (a hint)."""
        return self._work.superseded()

    def _think_through(self, state: TableState) -> None:
        t = trace.clocks() if trace.ON else None
        try:
            self._ponder(state)
        except Exception:  # never the table's problem: the turn computes it itself
            log.debug("ponder: gave up on a state", exc_info=True)
        if t is not None:
            trace.phase("ponder", t, f"pondered={self.pondered}")

    def _ponder(self, state: TableState) -> None:
        for command in self._candidates(state):
            if self._moved():
                return
            key = command_key(command)
            if key is None or key in self._answers:  # pondered before a turn held it
                continue
            try:
                after, events = apply(state, command)
            except CommandRejected:
                continue  # the turn refuses it in its own time
            with self._lock:
                if self._answers_for is not state:
                    return
                self._answers[key] = (after, tuple(events))
                self.pondered += 1
                warmers = self._warmers
            for owner, warm in warmers:
                if self._moved():
                    return
                try:
                    warm(after)
                except Exception:
                    log.debug("ponder: %r could not warm a state", owner, exc_info=True)
