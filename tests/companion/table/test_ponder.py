"""Pondering: the likely next draws applied while the table waits (companion.table.ponder).

What a turn recalls must be exactly what ``apply`` gives (the engine is pure), only for the
state it was pondered from, and a turn must stop the pondering; nothing pondered is told
to anyone before the journal has it.
"""

from __future__ import annotations

import threading
import time

import pytest

from companion.table.loop import TableLoop
from companion.table.ponder import Ponder, command_key, likely_commands
from engine import apply
from firmware_bridge.events import Presence, TagEvent
from tags.registry import TagRegistry
from tests.harness import ARIA, BEGIN, WAIT, run, wait_until

FAVOR_CALL = "call_favor"


@pytest.fixture
def declared(example_state):
    """Aria has declared in a Performance: her Hero Bag's tokens may be laid next (P6)."""
    return run(example_state, BEGIN, ARIA)[0]


@pytest.fixture
def ponder():
    p = Ponder(settle=0.0)
    p.start()
    yield p
    p.stop()


def all_pondered(ponder: Ponder, state) -> None:
    wanted = len(list(likely_commands(state)))
    wait_until(lambda: ponder.pondered >= wanted, f"{wanted} commands pondered")


def test_a_command_is_keyed_by_its_values_and_their_types():
    """``5`` and ``5.0`` (or ``true`` and ``1``) are different commands to the engine's checks,
    so never the same pondered answer; a nested command is never pondered."""
    draw = {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"}
    assert command_key(draw) == command_key(dict(reversed(list(draw.items()))))
    assert command_key({"cmd": "x", "n": 5}) != command_key({"cmd": "x", "n": 5.0})
    assert command_key({"cmd": "x", "n": True}) != command_key({"cmd": "x", "n": 1})
    assert command_key({"cmd": "x", "n": [1]}) is None
    assert command_key(["draw"]) is None


def test_the_likely_commands_are_the_tokens_that_may_be_laid_next_p6_p18(example_state, declared):
    """Nothing is pondered without a Performance; once Aria declares, the draws of her Hero
    Bag's tokens (P6) come first, then a Favor call for each Favor Bag token (P18): the very
    commands the Draw Board's tags become (tags.commands.command_for_token)."""
    assert list(likely_commands(example_state)) == []
    assert list(likely_commands(run(example_state, BEGIN)[0])) == []
    likely = list(likely_commands(declared))
    aria = declared.bags[declared.heroes["aria"].bag].contents
    favor = declared.bags["favor"].contents
    assert likely[: len(aria)] == [{"cmd": "draw", "hero": "aria", "token": t} for t in aria]
    assert likely[len(aria) :] == [{"cmd": FAVOR_CALL, "hero": "aria", "token": t} for t in favor]


def test_what_is_recalled_is_exactly_what_apply_gives_p6(ponder, declared):
    """Every pondered draw's state and events equal ``apply``'s for the same command: pondering
    changes when the work is done, never its answer."""
    ponder.think(declared)
    all_pondered(ponder, declared)
    for command in likely_commands(declared):
        recalled = ponder.recall(declared, command)
        assert recalled is not None, command
        state, events = apply(declared, command)
        assert recalled == (state, tuple(events))
    assert ponder.recalled == len(list(likely_commands(declared)))


def test_only_the_state_pondered_is_answered(ponder, example_state, declared):
    """An answer is for the very state it was pondered from (identity), and only for an equal
    command: another state, an equal but different object, or a different type gets None."""
    ponder.think(declared)
    all_pondered(ponder, declared)
    token = declared.bags[declared.heroes["aria"].bag].contents[0]
    draw = {"cmd": "draw", "hero": "aria", "token": token}
    assert ponder.recall(run(example_state, BEGIN, ARIA)[0], draw) is None  # equal, not it
    assert ponder.recall(declared, {**draw, "hero": "bren"}) is None
    assert ponder.recall(declared, dict(draw)) is not None
    moved_on = run(declared, draw)[0]
    ponder.think(moved_on)
    assert ponder.recall(declared, draw) is None  # the table moved on: the old answers go


def test_each_pondered_state_is_told_to_the_warmers(ponder, declared):
    told: list = []
    ponder.warm("test", told.append)
    ponder.think(declared)
    all_pondered(ponder, declared)
    assert [id(s) for s in told] == [
        id(ponder.recall(declared, c)[0]) for c in likely_commands(declared)
    ]
    ponder.unwarm("test")
    before = ponder.pondered
    ponder.think(run(declared, next(likely_commands(declared)))[0])
    wait_until(lambda: ponder.pondered > before, "the next state pondered")
    assert len(told) == len(list(likely_commands(declared)))  # and told to no warmer


def test_a_turn_stops_the_pondering_at_its_next_check(declared):
    """A turn that begins (``recall``) stops the thread before its next candidate: the table's
    turn never shares the CPU with more than one step of pondering."""
    gate = threading.Event()
    yielded: list[dict] = []
    dropped = threading.Event()

    def slow(state):
        try:
            for command in likely_commands(state):
                yielded.append(command)
                gate.wait(1.0)
                gate.clear()
                yield command
        finally:  # closed when the pondering lets go of it (or has taken every candidate)
            dropped.set()

    ponder = Ponder(slow, settle=0.0)
    ponder.start()
    try:
        ponder.think(declared)
        wait_until(lambda: len(yielded) == 1, "the first candidate")
        ponder.recall(declared, {"cmd": "undo"})  # a turn begins
        gate.set()
        assert dropped.wait(WAIT), "the pondering let go of the candidates"
        assert len(yielded) == 1 and ponder.pondered == 0
    finally:
        gate.set()
        ponder.stop()


def test_a_token_laid_after_pondering_is_the_pondered_state_committed_p6(declared):
    """The loop's turn for a tag recalls the pondered state (the same object), commits it to the
    journal, and only then tells the subscribers; the state kept is ``apply``'s answer."""
    registry = TagRegistry.synthetic(declared.tokens)
    committed: list = []
    told: list = []
    loop = TableLoop(declared, registry, journal=lambda o: committed.append(o) or len(committed))
    loop.ponder = ponder = Ponder(settle=0.0)
    ponder.start()
    try:
        loop.subscribe("test", lambda o: told.append((o, len(committed))))
        loop.ponder.think(declared)
        all_pondered(ponder, declared)
        token = declared.bags[declared.heroes["aria"].bag].contents[3]
        pondered = ponder._answers[command_key({"cmd": "draw", "hero": "aria", "token": token})]
        uid = registry.uid(token)
        assert uid is not None
        loop.submit(TagEvent("board", 0, uid, Presence.PRESENT, 0.0))
        outcome = loop.step(timeout=1.0)
        assert outcome is not None and outcome.error is None
        assert outcome.state is pondered[0] and outcome.events == pondered[1]
        assert loop.state is pondered[0] and ponder.recalled == 1
        state, events = apply(declared, {"cmd": "draw", "hero": "aria", "token": token})
        assert outcome.state == state and outcome.events == tuple(events)
        assert outcome.seq == 1 and [o.state for o in committed] == [outcome.state]
        assert told == [(outcome, 1)]  # committed, then told
        wait_until(lambda: ponder._answers_for is loop.state, "pondering the next draw")
    finally:
        ponder.stop()


def test_a_refused_draw_is_still_refused_by_the_engine_p6(declared):
    """A token that was never a candidate (another hero's, not in the Performance) is not
    recalled: the engine refuses it in the turn, with its rule, and nothing is committed."""
    registry = TagRegistry.synthetic(declared.tokens)
    committed: list = []
    loop = TableLoop(declared, registry, journal=lambda o: committed.append(o) or 1)
    loop.ponder = ponder = Ponder(settle=0.0)
    ponder.start()
    try:
        ponder.think(declared)
        all_pondered(ponder, declared)
        token = declared.bags[declared.heroes["bren"].bag].contents[0]
        uid = registry.uid(token)
        assert uid is not None
        loop.submit(TagEvent("board", 0, uid, Presence.PRESENT, 0.0))
        outcome = loop.step(timeout=1.0)
        assert outcome is not None and outcome.error is not None
        assert committed == [] and loop.state is declared and ponder.recalled == 0
    finally:
        ponder.stop()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_after_slow_turns_the_table_must_be_still_longer_before_pondering(declared):
    """On a slow board a turn takes tens of ms, and so does a burst's next command on its way
    in: the settle grows with the turns (SETTLE_TURNS × the recent turns' time, at most
    SETTLE_MAX), jumps with a slow turn and decays with fast ones (benchmarks/pi_budget.py)."""
    from companion.table.ponder import SETTLE, SETTLE_MAX, SETTLE_TURNS

    clock = Clock()
    p = Ponder(clock=clock)  # not started: only the bookkeeping of think/recall
    assert p.settle() == SETTLE
    p.recall(declared, BEGIN)
    clock.now += 0.05  # a 50 ms turn
    p.think(declared)
    assert p.turn == pytest.approx(0.05)
    assert p.settle() == pytest.approx(SETTLE_TURNS * 0.05)
    for _ in range(40):  # fast turns: it decays back to SETTLE
        p.recall(declared, BEGIN)
        clock.now += 0.0001
        p.think(declared)
    assert p.settle() == SETTLE
    p.recall(declared, BEGIN)
    clock.now += 10.0  # a turn that waited on a dying disk: the settle is bounded
    p.think(declared)
    assert p.settle() == SETTLE_MAX


def test_a_burst_after_slow_turns_is_not_pondered(declared):
    """A command that comes within the settle of a slow turn finds nothing pondered and the
    pondering thread idle: its work never competes with the burst's turns; once the table is
    still that long, it ponders."""
    clock = Clock()
    began: list[float] = []

    def timed(state):
        began.append(time.monotonic())
        yield from likely_commands(state)

    p = Ponder(timed, clock=clock)
    p.start()
    try:
        p.recall(declared, BEGIN)
        clock.now += 0.1  # a 100 ms turn: settle 0.4 s
        thought = time.monotonic()
        p.think(declared)
        assert p.settle() == pytest.approx(0.4)
        all_pondered(p, declared)  # once still for the settle, the table ponders...
        # ...and not before: its first candidate came no sooner than the settle after the
        # think (a lower bound, which a slow machine only makes longer; less a microsecond
        # for the float sums), so a command of the burst within it finds nothing pondered
        assert began and began[0] - thought >= 0.4 - 1e-6
    finally:
        p.stop()
