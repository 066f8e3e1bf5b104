"""Snapshots off the turn (issue 45 item 7): the snapshot's CPU work is a child's, not the loop's.

A snapshot's JSON, SHA-256 and zlib (≈0.4 s for a full Undo history here, seconds on a loaded
Pi) ran on the snapshot thread, in the service's process: under its GIL, so every reply waited
behind it (150–550 ms every 1,000 commands; benchmarks/snapshots.py). The snapshot thread now
has a child of multiprocessing's fork server compute the rows and send them back (never a fork
of the service, full of threads); the thread only inserts them, in one transaction (a snapshot
is all there or not at all). These tests watch where the work runs and what the child holds,
and that a child that dies or fails costs one snapshot, never the table. The child is a fresh
interpreter: a test names its work (``snapshots.CHILD_WORK``, tests/harness/snapshot_work.py)
rather than patching the child's modules.
"""

from __future__ import annotations

import functools
import os

from companion.table import snapshots
from companion.table.loop import TableLoop
from companion.table.store import Store
from engine import apply
from engine.state import TableState
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE, WAIT, snapshot_work
from tests.harness.service import as_json, replay, session


def _play(store: Store, example_state: TableState, n: int, seed: int) -> TableLoop:
    store.restore(example_state, EXAMPLE_TABLE)
    loop = TableLoop(example_state, TagRegistry(), journal=store.append)
    for cmd in session(example_state, n, seed=seed, refused=0):
        loop.submit(cmd)
        loop.step(0)
    return loop


def test_the_snapshot_threads_json_is_computed_in_a_child_process(
    tmp_path, example_state, monkeypatch
):
    """Every state of a requested snapshot is serialised in another process than the service's
    (the old snapshot thread did it in this one, under the loop's GIL); the snapshot restores
    exactly, Undo history included."""
    notes = tmp_path / "pids.txt"
    with Store.open(tmp_path / "state", snapshot_every=0) as store:
        loop = _play(store, example_state, 150, seed=45)
        monkeypatch.setattr(
            snapshots, "CHILD_WORK", functools.partial(snapshot_work.noted, notes, "pid")
        )
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT)
        assert (store.snapshot_stats["taken"], store.snapshot_stats["failed"]) == (1, 0)
        after = loop.state
    pids = notes.read_text().split()
    assert len(pids) == len(after.history) + 1  # each Undo step and the current state, once
    assert str(os.getpid()) not in pids, "the snapshot's JSON was computed in the service"
    with Store.open(tmp_path / "state") as store:
        restored = store.restore(example_state, EXAMPLE_TABLE)
    assert (restored.seq, restored.snapshot_seq, restored.replayed) == (150, 150, 0)
    assert as_json(restored.state) == as_json(after)
    assert len(restored.state.history) == len(after.history)
    undone, _ = apply(restored.state, {"cmd": "undo"})
    assert as_json(undone.without_history()) == as_json(after.history[-1].without_history())


def test_the_snapshots_child_holds_nothing_of_the_services(tmp_path, example_state, monkeypatch):
    """The child holds none of the service's descriptors (it comes from the fork server, not
    from the service): a kill -9 of the service leaves no child holding the state directory's
    lock or the journal, so the restart that follows finds them free."""
    notes = tmp_path / "fds.txt"
    state_dir = tmp_path / "state"
    with Store.open(state_dir, snapshot_every=0) as store:
        loop = _play(store, example_state, 20, seed=3)
        monkeypatch.setattr(
            snapshots, "CHILD_WORK", functools.partial(snapshot_work.noted, notes, "fds")
        )
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT) and store.snapshot_stats["failed"] == 0
    held = {path for line in notes.read_text().splitlines() for path in line.split("\t")}
    assert held, "the child noted nothing"
    assert not [p for p in held if str(state_dir) in p], held


def test_a_snapshots_child_killed_costs_that_snapshot_only(
    tmp_path, example_state, monkeypatch, caplog
):
    """A child killed mid-work (the OOM killer, a stray kill -9): the snapshot is logged as
    failed, nothing half-written is left, the service's process lives on, and the next snapshot
    is written; the restart restores the journal exactly."""
    commands = session(example_state, 60, seed=8, refused=0)
    with Store.open(tmp_path / "state", snapshot_every=0) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop = TableLoop(example_state, TagRegistry(), journal=store.append)
        for cmd in commands[:30]:
            loop.submit(cmd)
            loop.step(0)
        monkeypatch.setattr(snapshots, "CHILD_WORK", snapshot_work.killed)
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT)
        assert store.snapshot_stats["failed"] == 1 and store.stats()["snapshot_seq"] == 30
        assert "snapshot at #30 failed" in caplog.text and "status -9" in caplog.text
        monkeypatch.setattr(snapshots, "CHILD_WORK", snapshots.rows_here)
        with store._db_lock:
            assert store._db.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 0
        for cmd in commands[30:]:
            loop.submit(cmd)
            loop.step(0)
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT) and store.snapshot_stats["taken"] == 1
    with Store.open(tmp_path / "state") as store:
        restored = store.restore(example_state, EXAMPLE_TABLE)
    assert (restored.seq, restored.snapshot_seq) == (60, 60)
    assert as_json(restored.state) == as_json(replay(example_state, commands))


def test_a_state_the_child_cannot_write_is_said_as_the_thread_said_it(
    tmp_path, example_state, monkeypatch, caplog
):
    """What the JSON encoder refuses in the child comes back as the snapshot's failure, named
    (the error's type and text), as it was on the thread: the journal is intact."""

    with Store.open(tmp_path / "state", snapshot_every=0) as store:
        loop = _play(store, example_state, 10, seed=5)
        monkeypatch.setattr(snapshots, "CHILD_WORK", snapshot_work.refuses)
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT) and store.snapshot_stats["failed"] == 1
    assert "snapshot at #10 failed" in caplog.text
    assert "ValueError: Out of range float values are not JSON compliant" in caplog.text
    assert "the journal is intact" in caplog.text


def test_a_snapshots_child_that_never_answers_is_killed_and_the_table_goes_on(
    tmp_path, example_state, monkeypatch, caplog
):
    """A child stuck for good (a lock it was born holding): killed after CHILD_BOUND (here made
    short), the snapshot logged as failed; the snapshot thread is free for the next one."""
    bound = snapshots.CHILD_BOUND
    monkeypatch.setattr(snapshots, "CHILD_BOUND", 0.5)
    with Store.open(tmp_path / "state", snapshot_every=0) as store:
        loop = _play(store, example_state, 12, seed=6)
        monkeypatch.setattr(snapshots, "CHILD_WORK", snapshot_work.stuck)
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT) and store.snapshot_stats["failed"] == 1
        assert "snapshot at #12 failed" in caplog.text and "status -9" in caplog.text
        monkeypatch.setattr(snapshots, "CHILD_WORK", snapshots.rows_here)
        monkeypatch.setattr(snapshots, "CHILD_BOUND", bound)  # a loaded machine's child
        loop.submit({"cmd": "undo"})
        loop.step(0)
        store.request_snapshot(loop.state)
        assert store.wait_snapshots(WAIT) and store.snapshot_stats["taken"] == 1
