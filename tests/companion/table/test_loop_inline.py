"""The loop's turn: an input that finds the loop idle is processed on its own thread.

While the service runs, ``TableLoop.inline`` is on: a command or tag submitted when
nothing is queued and nothing is being processed is applied, journaled and told to
the subscribers on the submitting thread (paho's, a reader's), with no hand-off to
the loop's thread. These tests hold the promises that make that safe: one item at a
time, in the order submitted, every item answered once, ``submit`` never waiting for
another thread, and the journal and the state agreeing whenever the loop's turn is
held (issue 17 item 3: the latency of that hand-off).
"""

from __future__ import annotations

import threading

import pytest

from companion.table.loop import Outcome, TableLoop
from tags.registry import TagRegistry
from tests.harness import WAIT, wait_until

FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18: always accepted


def loop_of(example_state, **kw) -> TableLoop:
    return TableLoop(example_state, TagRegistry.synthetic(example_state.tokens), **kw)


def test_idle_loop_processes_on_the_submitting_thread_and_queues_when_off(example_state):
    loop = loop_of(example_state)
    where: list[str] = []
    loop.subscribe("t", lambda o: where.append(threading.current_thread().name))
    loop.submit(FAVOR)  # inline off (scripts, tests): queued for step
    assert where == [] and loop.pending == 1
    assert loop.step(1) is not None and where == ["MainThread"]

    loop.inline = True
    t = threading.Thread(target=loop.submit, args=(FAVOR,), name="paho")
    t.start()
    t.join(WAIT)
    assert where == ["MainThread", "paho"]  # told before submit returned, on paho's thread
    assert loop.pending == 0 and loop.processed_inline == 1
    assert loop.state.heroes["aria"].favor == example_state.heroes["aria"].favor + 2


def test_an_item_submitted_while_one_is_processed_waits_its_turn_in_order(example_state):
    """A subscriber blocks the first item's turn; items submitted meanwhile are queued (the
    submitters do not wait) and the loop's thread takes them after it, in order; one
    submitted after the first is done but before those are taken goes behind them."""
    loop = loop_of(example_state)
    loop.inline = True
    release = threading.Event()
    order: list[int] = []

    def slow(outcome: Outcome) -> None:
        order.append(int(outcome.command["favor"]) if outcome.command else -1)
        if len(order) == 1:
            release.wait(WAIT)

    loop.subscribe("t", slow)
    first = threading.Thread(target=loop.submit, args=({**FAVOR, "favor": 1},))
    first.start()
    wait_until(lambda: order == [1], "the first item in its turn")
    for n in (2, 3, 4):
        loop.submit({**FAVOR, "favor": n})  # returns at once: queued behind the first
    assert loop.pending == 3 and order == [1]
    release.set()
    first.join(WAIT)
    loop.submit({**FAVOR, "favor": 5})  # the loop is idle, but three wait: behind them
    assert order == [1] and loop.pending == 4
    stepped = [loop.step(WAIT) for _ in range(4)]
    assert order == [1, 2, 3, 4, 5]
    assert [o.command["favor"] for o in stepped if o and o.command] == [2, 3, 4, 5]
    assert loop.processed_inline == 1


def test_many_submitters_each_item_once_in_each_submitters_order(example_state):
    """Four threads submit 200 commands each, with the loop's thread stepping: every command
    is applied exactly once, one at a time, and each thread's commands in its order."""
    loop = loop_of(example_state)
    loop.inline = True
    seen: list[tuple[str, int]] = []
    inside = threading.Lock()
    overlaps = 0

    def told(outcome: Outcome) -> None:
        nonlocal overlaps
        if not inside.acquire(blocking=False):
            overlaps += 1
            return
        try:
            assert outcome.error is None, outcome.error
            seen.append((outcome.source, int(outcome.command["favor"])))
        finally:
            inside.release()

    loop.subscribe("t", told)
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop, 0.01))
    runner.start()
    threads = [
        threading.Thread(
            target=lambda s=s: [loop.submit({**FAVOR, "favor": n % 2 + 1}, s) for n in range(200)]
        )
        for s in ("a", "b", "c", "d")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    wait_until(lambda: len(seen) == 800 and loop.pending == 0, "every command told")
    stop.set()
    runner.join(WAIT)
    assert overlaps == 0
    for s in ("a", "b", "c", "d"):
        assert [f for src, f in seen if src == s] == [n % 2 + 1 for n in range(200)]
    assert loop.processed == 800


@pytest.mark.error_log  # the loop logs the failure where it happened
def test_a_failure_on_the_submitting_thread_is_raised_by_the_loops_next_step(example_state):
    """A bug in processing (not a refusal: those are outcomes) must not vanish into paho's
    thread: the loop's thread raises it, as it would have raised it itself."""
    loop = loop_of(example_state)
    loop.inline = True

    def broken(outcome: Outcome) -> None:
        raise SystemExit("a vendor library's exit")

    loop.subscribe("broken", broken)  # not an Exception: tell() lets it through
    loop.submit(FAVOR)
    with pytest.raises(SystemExit):
        loop.step(0)
    assert loop.step(0) is None  # raised once
    loop.submit(FAVOR)  # and the loop's turn was given back


def test_holding_the_turn_keeps_the_state_and_the_journal_in_step(example_state):
    """``turn()`` (the service's snapshot request) waits for an item being processed on
    another thread, and no item is processed while it is held: what it reads of the state
    is the state after exactly the commands the journal has."""
    committed: list[int] = []
    loop = loop_of(example_state, journal=lambda o: committed.append(1) or len(committed))
    loop.inline = True
    inside = threading.Event()
    release = threading.Event()

    def slow(outcome: Outcome) -> None:
        inside.set()
        release.wait(WAIT)

    loop.subscribe("t", slow)
    t = threading.Thread(target=loop.submit, args=(FAVOR,))
    t.start()
    assert inside.wait(WAIT)
    held = threading.Event()
    done = threading.Event()

    def hold() -> None:
        with loop.turn():
            held.set()
            done.wait(WAIT)

    holder = threading.Thread(target=hold)
    holder.start()
    assert not held.wait(0.2)  # waits for the item in its turn
    release.set()
    t.join(WAIT)
    assert held.wait(WAIT)
    submitter = threading.Thread(target=loop.submit, args=(FAVOR,))
    submitter.start()
    submitter.join(WAIT)
    assert not submitter.is_alive()  # submit never waits for the turn
    assert loop.pending == 1 and len(committed) == 1  # queued: the turn is held
    done.set()
    holder.join(WAIT)
    assert loop.step(WAIT) is not None and len(committed) == 2
