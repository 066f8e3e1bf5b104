"""The answers' worker never hands a state to a child it has killed.

A child killed just after its answer came (the table moved on while the answer was on its
way) is still ``is_alive()`` for a moment, until the kernel reaps it. The worker used to
hand the next state to that child's pipe, read ``ECONNRESET``, log an ERROR ("the answers'
process ended") and drop the state's answer: a fresh clone's make test failed on that log
under load (test_scripted, at f52f24c).
"""

from __future__ import annotations

import threading

import engine
from companion.views.answers import AnswerWorker
from engine.contracts.view import TableView
from tests.harness import WAIT
from tests.harness.answers import cold, intersect_declare, largest_fight


def test_a_state_after_a_killed_child_goes_to_a_fresh_child_and_is_answered() -> None:
    answered: dict[int, threading.Event] = {}
    views: dict[int, TableView] = {}

    def done(state: engine.TableState, view: TableView) -> None:
        views[id(state)] = view
        answered.setdefault(id(state), threading.Event()).set()

    first, second = intersect_declare(), largest_fight()
    for s in (first, second):
        answered[id(s)] = threading.Event()
    worker = AnswerWorker(done)
    worker.start()
    try:
        cold()
        worker.ask(first)
        assert answered[id(first)].wait(WAIT), "the first state's answer"
        killed = worker._process
        assert killed is not None
        worker._kill(killed)  # the table moved on just as the answer came
        # the moment before the kernel reaps it, when is_alive() still says True
        killed.is_alive = lambda: True  # type: ignore[method-assign]
        worker.ask(second)
        assert answered[id(second)].wait(WAIT), "the next state answered by a fresh child"
        assert views[id(second)]["combat"] is not None
        assert worker.stats.failed == 0
        assert worker._process is not killed
    finally:
        worker.stop()
