"""settings.latest: the one latest-wins worker (the newest item computed, older ones skipped).

Every wait is on a condition (an Event the function sets, ``wait_idle``), bounded by the
harness's generous WAIT; no test judges a duration.
"""

from __future__ import annotations

import threading

import pytest

from settings.latest import LatestWins
from tests.harness import WAIT


class Gate:
    """A function that records its items and, for those named, holds until released."""

    def __init__(self, hold: set[int] | None = None) -> None:
        self.seen: list[int] = []
        self.hold = hold or set()
        self.entered = {n: threading.Event() for n in range(10)}
        self.release = threading.Event()

    def __call__(self, n: int) -> None:
        self.seen.append(n)
        self.entered[n].set()
        if n in self.hold:
            assert self.release.wait(WAIT)


def test_the_newest_item_wins_and_those_it_replaced_are_skipped_and_counted() -> None:
    gate = Gate(hold={0})
    worker: LatestWins[int] = LatestWins(gate, name="test-latest")
    worker.start()
    try:
        worker.submit(0)
        assert gate.entered[0].wait(WAIT)  # 0 is being computed: 1, 2, 3 wait behind it
        for n in (1, 2, 3):
            assert worker.submit(n)
        assert worker.current == 0 and worker.latest == 3
        gate.release.set()
        assert worker.wait_idle(WAIT)
    finally:
        assert worker.stop(timeout=WAIT)
    assert gate.seen == [0, 3]
    s = worker.stats
    assert (s.submitted, s.done, s.skipped, s.errors) == (4, 2, 2, 0)


def test_stop_joins_the_thread_and_drops_what_waits() -> None:
    gate = Gate(hold={0})
    worker: LatestWins[int] = LatestWins(gate, name="test-latest")
    worker.start()
    thread = worker.thread
    assert thread is not None and thread.is_alive()
    worker.submit(0)
    assert gate.entered[0].wait(WAIT)
    worker.submit(1)
    gate.release.set()
    assert worker.stop(timeout=WAIT)  # drop: 1 is never computed
    assert not thread.is_alive() and worker.thread is None and not worker.running
    assert gate.seen == [0] and worker.stats.skipped == 1
    assert not worker.submit(2)  # refused once stopped
    assert worker.wait_idle(0)


def test_stop_with_flush_computes_the_last_item_first() -> None:
    gate = Gate(hold={0})
    worker: LatestWins[int] = LatestWins(gate, name="test-latest")
    worker.start()
    worker.submit(0)
    assert gate.entered[0].wait(WAIT)
    worker.submit(1)
    worker.submit(2)
    stopped = threading.Thread(target=worker.stop, kwargs={"flush": True, "timeout": WAIT})
    stopped.start()
    gate.release.set()
    stopped.join(WAIT)
    assert not stopped.is_alive() and worker.thread is None
    assert gate.seen == [0, 2] and worker.stats.skipped == 1


def test_an_exception_is_told_to_on_error_and_the_worker_goes_on() -> None:
    errors: list[tuple[int, BaseException]] = []
    seen: list[int] = []

    def fn(n: int) -> None:
        if n == 1:
            raise KeyError("boom")
        if n == 2:
            raise SystemExit(3)  # a vendor library's exit: the worker goes on all the same
        seen.append(n)

    worker: LatestWins[int] = LatestWins(
        fn, name="test-latest", on_error=lambda n, e: errors.append((n, e))
    )
    worker.start()
    try:
        for n in (1, 2, 3):
            worker.submit(n)
            assert worker.wait_idle(WAIT)
        assert worker.running
    finally:
        assert worker.stop(timeout=WAIT)
    assert seen == [3] and worker.stats.errors == 2
    assert [(n, type(e)) for n, e in errors] == [(1, KeyError), (2, SystemExit)]


def test_an_exception_without_on_error_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def fn(n: int) -> None:
        raise ValueError(f"bad {n}")

    worker: LatestWins[int] = LatestWins(fn, name="test-latest")
    worker.start()
    worker.submit(7)
    assert worker.wait_idle(WAIT)
    assert worker.stop(timeout=WAIT)
    assert "test-latest: failed on an item" in caplog.text and "bad 7" in caplog.text


def test_a_call_in_progress_learns_it_is_superseded_and_may_end_early() -> None:
    """``superseded(timeout)`` wakes as soon as a newer item comes: the function's pacing or
    its cooperative check ends, and the newer item is computed next."""
    outcomes: list[tuple[int, bool]] = []
    waiting = threading.Event()

    def fn(n: int) -> None:
        if n == 0:
            waiting.set()
            outcomes.append((0, worker.superseded(WAIT)))
        else:
            outcomes.append((n, worker.superseded()))

    worker: LatestWins[int] = LatestWins(fn, name="test-latest")
    worker.start()
    try:
        worker.submit(0)
        assert waiting.wait(WAIT)
        worker.submit(1)
        assert worker.wait_idle(WAIT)
    finally:
        assert worker.stop(timeout=WAIT)
    assert outcomes == [(0, True), (1, False)]


def test_cancel_drops_what_waits_and_supersedes_the_call_unless_kept() -> None:
    gate = Gate(hold={0})
    worker: LatestWins[int] = LatestWins(gate, name="test-latest")
    worker.start()
    try:
        worker.submit(0)
        assert gate.entered[0].wait(WAIT)
        assert not worker.cancel(keep=0)  # the call in progress is the one kept
        assert worker.latest == 0
        worker.submit(1)
        assert worker.cancel()  # 1 dropped, 0 superseded
        assert worker.latest is None and worker.current == 0
        gate.release.set()
        assert worker.wait_idle(WAIT)
    finally:
        assert worker.stop(timeout=WAIT)
    assert gate.seen == [0] and worker.stats.skipped == 1


def test_offer_leaves_the_newest_alone_and_wait_past_waits_for_its_item() -> None:
    gate = Gate(hold={0})
    worker: LatestWins[int] = LatestWins(gate, name="test-latest")
    worker.start()
    try:
        assert worker.offer(0)
        assert gate.entered[0].wait(WAIT)
        assert not worker.offer(0)  # being computed already
        assert not worker.wait_past(0, timeout=0)
        gate.release.set()
        assert worker.wait_past(0, timeout=WAIT)
        assert worker.wait_idle(WAIT)
    finally:
        assert worker.stop(timeout=WAIT)
    assert gate.seen == [0] and worker.stats.submitted == 1


def test_autostart_starts_the_thread_with_the_first_item_and_initializer_runs_on_it() -> None:
    ran_on: list[str] = []
    seen: list[int] = []
    worker: LatestWins[int] = LatestWins(
        seen.append,
        name="test-latest-auto",
        autostart=True,
        initializer=lambda: ran_on.append(threading.current_thread().name),
    )
    assert worker.thread is None
    worker.submit(5)
    assert worker.thread is not None
    assert worker.wait_idle(WAIT)
    assert worker.stop(timeout=WAIT)
    assert seen == [5] and ran_on == ["test-latest-auto"]


def test_a_settling_worker_computes_only_the_last_of_a_burst() -> None:
    """With ``settle`` the newest item must stay the newest that long: items submitted within
    it replace one another and the call begins for the last (the settle is long, and the
    burst is submitted before the thread starts, so nothing here depends on timing)."""
    seen: list[int] = []
    worker: LatestWins[int] = LatestWins(seen.append, name="test-latest", settle=lambda: WAIT)
    for n in range(5):
        worker.submit(n)
    worker.start()
    assert worker.stop(flush=True, timeout=WAIT)  # a stop cuts the settle short, then flushes
    assert seen == [4] and worker.stats.skipped == 4


def test_start_again_after_stop() -> None:
    seen: list[int] = []
    worker: LatestWins[int] = LatestWins(seen.append, name="test-latest")
    worker.start()
    assert worker.stop(timeout=WAIT)
    worker.start()
    worker.submit(1)
    assert worker.wait_idle(WAIT)
    assert worker.stop(timeout=WAIT)
    assert seen == [1]
