"""Acknowledged = committed: no subscriber hears of a command before its journal row is durable,
and a command the journal cannot write is not kept.

The failures are SQLite's own: ``max_page_count`` makes the database full exactly
as a full disk does (SQLITE_FULL), ``query_only`` makes it refuse writes as a
read-only file does (SQLITE_READONLY), and a closed connection is a store that
went away. Nothing is mocked.
"""

from __future__ import annotations

import sqlite3

import pytest

from companion.table.loop import TableLoop
from companion.table.store import Store
from tags.registry import TagRegistry
from tests.harness import ARIA, BEGIN, EXAMPLE_TABLE


@pytest.fixture
def journaled(tmp_path, example_state):
    store = Store.open(tmp_path)
    store.restore(example_state, EXAMPLE_TABLE)
    loop = TableLoop(example_state, TagRegistry(), journal=store.append)
    yield store, loop
    store.close()


def rows(store: Store) -> int:
    return store._db.execute("SELECT count(*) FROM journal").fetchone()[0]


def test_subscribers_hear_only_after_the_row_is_committed(journaled, tmp_path):
    """Each subscriber, when called, can read the command's row from another connection."""
    store, loop = journaled
    seen = []

    def acknowledge(outcome):
        other = sqlite3.connect(tmp_path / "journal.sqlite")
        try:
            seen.append(other.execute("SELECT max(seq) FROM journal").fetchone()[0])
        finally:
            other.close()

    loop.subscribe("test", acknowledge)
    for cmd in (BEGIN, ARIA):
        loop.submit(cmd)
        assert loop.step(0).seq == store.seq
    assert seen == [1, 2]


def fill_the_disk(store: Store) -> None:
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")


def free_the_disk(store: Store) -> None:
    store._db.execute("PRAGMA max_page_count = 1073741823")


@pytest.mark.parametrize(
    ("fail", "heal", "says"),
    [
        (fill_the_disk, free_the_disk, "full"),
        (
            lambda s: s._db.execute("PRAGMA query_only = ON"),
            lambda s: s._db.execute("PRAGMA query_only = OFF"),
            "readonly",
        ),
    ],
    ids=["disk-full", "read-only"],
)
@pytest.mark.error_log  # it provokes the ERROR it is about
def test_a_command_the_journal_cannot_write_is_not_kept(journaled, example_state, fail, heal, says):
    store, loop = journaled
    told = []
    loop.subscribe("test", told.append)
    loop.submit(BEGIN)
    loop.step(0)
    before = loop.state
    fail(store)
    for i in range(400):  # enough rows to need a new page on a full disk
        cmd = ARIA if i % 2 == 0 else {"cmd": "undo"}
        loop.submit(cmd)
        outcome = loop.step(0)
        if outcome.error is not None:
            break
        before = loop.state
    assert outcome.error is not None, "the journal never failed"
    assert outcome.error.code == "store" and says in outcome.error.message
    assert outcome.seq is None and outcome.state is before and loop.state is before
    assert told[-1] is outcome  # the panel and MQTT hear of the failure, not of a success
    committed = store.seq
    assert rows(store) == committed
    heal(store)
    loop.submit(cmd)  # the WorldKeeper does it again
    again = loop.step(0)
    assert again.error is None and again.seq == committed + 1  # no gap, nothing half-written
    assert again.state is loop.state is not before


@pytest.mark.error_log  # it provokes the ERROR it is about
def test_a_closed_store_refuses_and_the_state_stays(journaled):
    store, loop = journaled
    store._db.close()
    loop.submit(BEGIN)
    outcome = loop.step(0)
    assert outcome.error.code == "store" and loop.state.performance is None


def test_a_refused_command_is_not_journaled(journaled):
    store, loop = journaled
    loop.submit({"cmd": "draw", "hero": "aria", "seed": 1})  # no Performance: refused
    outcome = loop.step(0)
    assert outcome.error is not None and outcome.seq is None and rows(store) == 0


def test_a_snapshot_the_disk_cannot_take_costs_nothing(journaled, example_state, caplog):
    """A full disk at snapshot time: logged; the journal (the truth) still restores the state."""
    store, loop = journaled
    store.snapshot_every = 1
    for cmd in (BEGIN, ARIA):
        loop.submit(cmd)
        loop.step(0)
    assert store.snapshot_due
    fill_the_disk(store)
    assert store.snapshot(loop.state) is False and "snapshot at #2 failed" in caplog.text
    assert not store.snapshot_due  # not retried after every command
    free_the_disk(store)
    path = store.state_dir
    store.close()
    with Store.open(path) as again:
        restored = again.restore(example_state, EXAMPLE_TABLE)
    assert (restored.seq, restored.snapshot_seq) == (2, 0) and restored.state == loop.state
