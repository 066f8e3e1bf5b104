"""Bounded work: snapshots under continuous input, off the loop's thread; restore stays short.

A snapshot is asked for every ``snapshot_every`` commands or ``snapshot_seconds``,
whether or not more commands wait, and written by the store's own thread; so a
restart replays at most about ``snapshot_every`` commands however long the
journal is, and the state it restores equals a replay of the whole journal.
"""

from __future__ import annotations

import threading

from companion.config import load_config
from companion.service import Service
from companion.table.loop import TableLoop
from companion.table.snapshots import CHILD_BOUND
from companion.table.store import Store
from engine import load_table
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE, WAIT, wait_until
from tests.harness.service import as_json, replay, session, write_config

#: how long a test waits for the snapshots it asked for: the product's own bound on a child.
#: The child runs at nice 19 (below the loop, by design); beside a CPU hog at nice 0 it gets
#: about 1.5 % of a core (CFS weights 15 against 1024), and 30 s was once too short in
#: `make test-loaded` (issue 39). A child past the bound is killed and counted as failed,
#: which the tests check
SNAPSHOTS_DONE = CHILD_BOUND


def test_snapshots_are_taken_while_commands_keep_coming(tmp_path, monkeypatch):
    """300 commands queued at once: the queue is never empty until the last, and a snapshot
    is still asked for every 20 (the old service asked for none until the table was idle).

    What is asked for is the loop's doing and counted exactly; how many of those the snapshot
    thread writes before a newer one replaces them depends on the machine's load (by design:
    the newest request wins), so that is bounded, not counted."""
    config = load_config(write_config(tmp_path, state="snapshot_every = 20\n"))
    initial = load_table(tmp_path / "table.toml")
    commands = session(initial, 300, seed=21, refused=0)
    service = Service(config)
    for cmd in commands:
        service.loop.submit(cmd, "script")
    asked: list[tuple[int, int]] = []  # (seq, commands still queued) at each request
    request = Store.request_snapshot

    def recording(store, state=None):
        asked.append((store.seq, service.loop.pending))
        request(store, state)

    # the real one, its calls written down (on the class: a Store is slotted)
    monkeypatch.setattr(Store, "request_snapshot", recording)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    try:
        wait_until(lambda: service.store.seq == 300, "300 commits", timeout=60)
        assert service.store.wait_snapshots(SNAPSHOTS_DONE)
        taken = service.store.snapshot_stats["taken"]
        db = service.store._db
        with service.store._db_lock:
            newest = db.execute("SELECT max(seq) FROM snapshots").fetchone()[0]
        # every 20 commands while 280, 260, … 20 still waited; then whatever the stop asks
        assert [seq for seq, queued in asked if queued] == list(range(20, 300, 20)), asked
        assert 1 <= taken <= len(asked), (service.store.snapshot_stats, asked)
        assert newest >= 280  # the newest asked for is written
    finally:
        stop.set()
        thread.join(30)
    with Store.open(tmp_path / "state") as store:
        restored = store.restore(initial, tmp_path / "table.toml")
    assert restored.seq == 300 and restored.replayed == 0  # the clean stop snapshots at #300
    assert as_json(restored.state) == as_json(replay(initial, commands))


def test_a_snapshot_is_asked_for_after_snapshot_seconds_too(tmp_path, example_state):
    """The timer is the store's own clock (``timer``), stepped by hand: what is due depends on
    the seconds the store was told passed, not on how loaded the machine is."""
    now = [1000.0]
    favor = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}
    with Store.open(
        tmp_path, snapshot_every=1000, snapshot_seconds=60.0, timer=lambda: now[0]
    ) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop = TableLoop(example_state, TagRegistry(), journal=store.append)

        def command() -> None:
            loop.submit(favor)
            loop.step(0)

        command()
        store.request_snapshot()  # #1 asked for at 0 s
        command()
        assert not store.snapshot_due  # 1 command, 0 s
        now[0] += 59.5
        assert not store.snapshot_due  # 1 command, 59.5 s
        now[0] += 0.5
        assert store.snapshot_due  # 1 command, 60 s
        store.request_snapshot()  # #2 asked for at 60 s: the timer starts again
        command()
        now[0] += 30
        assert not store.snapshot_due  # 1 command, 30 s since #2 (90 s since #1)
        now[0] += 30
        assert store.snapshot_due  # 1 command, 60 s since #2
        store.request_snapshot()  # #3 asked for at 120 s
        now[0] += 60
        assert not store.snapshot_due  # 0 commands since #3, however long
        assert store.wait_snapshots(WAIT) and store.stats()["snapshot_seq"] == 3


def test_the_loop_does_not_wait_for_a_snapshot_being_written(tmp_path, example_state):
    """request_snapshot only hands over the (immutable) state: a command right after it is
    committed while the snapshot thread writes; both end up in the store."""
    commands = session(example_state, 400, seed=4, refused=0)
    with Store.open(tmp_path, snapshot_every=0) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop = TableLoop(example_state, TagRegistry(), journal=store.append)
        for n, cmd in enumerate(commands, 1):
            loop.submit(cmd)
            assert loop.step(0).seq == n
            if n % 50 == 0:
                store.request_snapshot(loop.state)
        assert store.wait_snapshots(SNAPSHOTS_DONE)
        assert store.snapshot_stats["failed"] == 0 and store.stats()["snapshot_seq"] >= 350
    with Store.open(tmp_path) as store:
        restored = store.restore(example_state, EXAMPLE_TABLE)
    assert restored.replayed <= 50
    assert as_json(restored.state) == as_json(replay(example_state, commands))


def test_a_snapshot_restores_undo_steps_that_share_their_fields(tmp_path, example_state):
    """Restoring decodes each distinct field once: the 64 Undo steps share one tokens map
    (as the engine's own states do), and undoing after the restart still works (P-Undo)."""
    commands = session(example_state, 120, seed=9, refused=0)
    with Store.open(tmp_path, snapshot_every=0) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop = TableLoop(example_state, TagRegistry(), journal=store.append)
        for cmd in commands:
            loop.submit(cmd)
            loop.step(0)
        assert store.snapshot(loop.state)
        before = loop.state
    with Store.open(tmp_path) as store:
        restored = store.restore(example_state, EXAMPLE_TABLE)
    state = restored.state
    assert restored.replayed == 0 and as_json(state) == as_json(before)
    assert len({id(s.tokens) for s in state.history}) == 1
    from engine import apply

    undone, _ = apply(state, {"cmd": "undo"})
    expected, _ = apply(before, {"cmd": "undo"})
    assert as_json(undone) == as_json(expected)
