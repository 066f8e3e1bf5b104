"""The journal: a restart replays to the same state, bit for bit, Undo history included.

Real SQLite files in a temporary state directory; the loop's journal hook is
:meth:`Store.append` exactly as in the service.
"""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.table.loop import TableLoop
from companion.table.store import JOURNAL, Store, StoreError, archive, fingerprint, inspect
from engine import apply, load_table_text
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE
from tests.harness.service import as_json, replay, session


class FakeClock:
    """An injectable clock: the journal's times are the test's."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


def play(store: Store, state, commands):
    """Run commands through a TableLoop journaled by ``store``; return the loop and outcomes."""
    loop = TableLoop(state, TagRegistry(), journal=store.append)
    outcomes = []
    for cmd in commands:
        loop.submit(cmd, "test")
        outcomes.append(loop.step(0))
        if store.snapshot_due:
            store.snapshot(loop.state)
    return loop, outcomes


def reopen(path, initial, **kw):
    store = Store.open(path, **kw)
    try:
        return store.restore(initial, EXAMPLE_TABLE)
    finally:
        store.close()


def test_restart_replays_to_the_same_state_bit_for_bit(tmp_path, example_state):
    """I-P11/P22 sessions with Undo: after a restart the state equals, field and dict order."""
    commands = session(example_state, 120, seed=1)
    with Store.open(tmp_path, snapshot_every=0) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop, outcomes = play(store, example_state, commands)
    restored = reopen(tmp_path, example_state)
    assert restored.state == loop.state
    assert as_json(restored.state) == as_json(loop.state)
    assert restored.snapshot_seq == 0 and restored.replayed == restored.seq
    assert restored.seq == sum(o.seq is not None for o in outcomes)
    assert len(restored.state.history) == len(loop.state.history) > 0


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), every=st.integers(0, 12))
def test_any_session_any_snapshot_interval_restores_exactly(
    tmp_path_factory, example_state, seed, n, every
):
    """Snapshots (content-addressed states + history keys) + the journal after them =
    the state before the stop, whatever the interval."""
    path = tmp_path_factory.mktemp("state")
    commands = session(example_state, n, seed=seed)
    with Store.open(path, snapshot_every=every) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop, _ = play(store, example_state, commands)
    restored = reopen(path, example_state)
    assert as_json(restored.state) == as_json(loop.state)
    assert restored.state == replay(example_state, commands)
    if every:
        assert restored.snapshot_seq == restored.seq - restored.seq % every
        assert restored.replayed == restored.seq % every


def test_undo_after_a_restart_takes_back_what_it_would_have(tmp_path, example_state):
    """Undo is a command (DESIGN): its history survives a restart through a snapshot."""
    commands = session(example_state, 40, seed=7, refused=0)
    with Store.open(tmp_path, snapshot_every=10) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop, _ = play(store, example_state, commands)
        store.snapshot(loop.state)
    restored = reopen(tmp_path, example_state)
    assert restored.replayed == 0 and restored.snapshot_seq == 40
    a, b = loop.state, restored.state
    for _ in range(5):
        a, _ = apply(a, {"cmd": "undo"})
        b, _ = apply(b, {"cmd": "undo"})
        assert a == b
    assert as_json(a.without_history()) == as_json(b.without_history())


def test_snapshots_share_undo_steps_and_prune_old_ones(tmp_path, example_state):
    """64 Undo steps are not stored 64 times per snapshot: each state once, by content."""
    commands = session(example_state, 200, seed=2, refused=0)
    with Store.open(tmp_path, snapshot_every=20) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, commands)
        stats = store.stats()
        snaps = store._db.execute("SELECT count(*) FROM snapshots").fetchone()[0]
    assert snaps == 2  # the newest and one to fall back on
    depth = example_state.rulebook.undo_depth
    assert stats["states"] <= 2 * (depth + 1)


def test_a_damaged_snapshot_costs_time_not_data(tmp_path, example_state, caplog):
    commands = session(example_state, 30, seed=4)
    with Store.open(tmp_path, snapshot_every=10) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop, _ = play(store, example_state, commands)
        newest = store._db.execute("SELECT state FROM snapshots ORDER BY seq DESC").fetchone()[0]
        store._db.execute("UPDATE states SET data = x'00ff' WHERE key = ?", (newest,))
    with caplog.at_level(logging.WARNING, "rhuna.store"):
        restored = reopen(tmp_path, example_state)
    assert as_json(restored.state) == as_json(loop.state)
    assert restored.snapshot_seq < 30 and "cannot be read" in caplog.text


def test_the_journal_records_command_source_events_and_the_clock(tmp_path, example_state):
    clock = FakeClock()
    cmd = {"cmd": "begin_performance", "difficulty": 5, "id": "req-1"}
    with Store.open(tmp_path, clock=clock) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        _, (outcome,) = play(store, example_state, [cmd])
        row = store._db.execute("SELECT seq, at, source, command, events FROM journal").fetchone()
    assert outcome.seq == 1 and row[0] == 1
    assert row[1] == clock.now and row[2] == "test"
    assert json.loads(row[3]) == cmd  # as acknowledged, request id included
    assert json.loads(row[4]) == [e.to_json() for e in outcome.events]


def test_the_hero_drawing_comes_back_p18(tmp_path, example_state):
    """A Favor token laid after a restart is still for the hero who was drawing (P18): it is
    part of the state, so the journal brings it back like the rest."""
    cmds = [
        {"cmd": "begin_performance", "difficulty": 5},
        {
            "cmd": "declare",
            "hero": "cass",
            "shade": "impulse",
            "capability": "shadow",
            "action": "target",
        },
        {"cmd": "draw", "hero": "cass", "seed": 3},
        {"cmd": "adjust_hero", "hero": "aria", "fatigue": 1},
    ]
    with Store.open(tmp_path) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        loop, _ = play(store, example_state, cmds)
    restored = reopen(tmp_path, example_state).state.performance
    assert restored.drawing == loop.state.performance.drawing == "cass"
    # the costs of the open Performance come back with it (P13): the panel and MQTT keep them
    assert restored.costs == loop.state.performance.costs
    assert dict(restored.costs)["aria"].fatigue == 1


# --- refusals: what a start must not do silently ---------------------------------------


def test_a_changed_table_file_is_refused_naming_it_and_the_fix(tmp_path, example_state):
    with Store.open(tmp_path) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, [{"cmd": "begin_performance", "difficulty": 5}])
    changed = load_table_text(EXAMPLE_TABLE.read_text().replace("favor = 2", "favor = 3", 1))
    assert fingerprint(changed) != fingerprint(example_state)
    with pytest.raises(StoreError) as e, Store.open(tmp_path) as store:
        store.restore(changed, "/etc/rhuna-table/table.toml")
    msg = str(e.value)
    assert msg.startswith("/etc/rhuna-table/table.toml: this table file is not the one")
    assert "--new-session" in msg and str(tmp_path / JOURNAL) in msg


def test_new_session_archives_the_journal_and_starts_from_the_table(tmp_path, example_state):
    with Store.open(tmp_path) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, session(example_state, 5, seed=1, refused=0))
    archived = archive(tmp_path, clock=lambda: 0.0)
    assert archived == tmp_path / "archive" / "journal-19700101T000000Z.sqlite"
    assert archive(tmp_path) is None  # nothing left to archive
    old = sqlite3.connect(archived)
    assert old.execute("SELECT count(*) FROM journal").fetchone()[0] == 5
    old.close()
    changed = load_table_text(EXAMPLE_TABLE.read_text().replace("favor = 2", "favor = 3", 1))
    with Store.open(tmp_path, new_session=True) as store:  # as `run --new-session` opens it
        restored = store.restore(changed, EXAMPLE_TABLE)
    assert restored.new and restored.seq == 0 and restored.state == changed


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(
            lambda p: p.write_bytes(b"this is not a database, it is a shopping list\n" * 90),
            id="garbage",
        ),
        pytest.param(
            lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), id="truncated"
        ),
        pytest.param(
            lambda p: p.write_bytes(p.read_bytes()[:4096] + b"\xa5" * 4096 + p.read_bytes()[8192:]),
            id="scribbled",
        ),
    ],
)
def test_a_damaged_database_is_a_clear_error(tmp_path, example_state, damage):
    with Store.open(tmp_path) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, session(example_state, 60, seed=5))
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage(tmp_path / JOURNAL)
    with pytest.raises(
        StoreError, match=r"journal\.sqlite: the journal is damaged .*--new-session"
    ):
        reopen(tmp_path, example_state)
    assert archive(tmp_path) is not None  # --new-session moves even a damaged file aside
    assert reopen(tmp_path, example_state, new_session=True).new


def test_a_second_service_on_the_same_state_dir_is_refused(tmp_path):
    with (
        Store.open(tmp_path),
        pytest.raises(StoreError, match=r"another rhuna-table .* is running"),
    ):
        Store.open(tmp_path)
    Store.open(tmp_path).close()  # released on close


def test_a_journal_entry_the_engine_no_longer_accepts_is_named(tmp_path, example_state):
    with Store.open(tmp_path) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        store._db.execute(
            "INSERT INTO journal VALUES (1, 0, 'test', ?, '[]')", ('{"cmd": "teleport"}',)
        )
    with pytest.raises(StoreError, match=r"journal entry #1 .*teleport.* no longer applies"):
        reopen(tmp_path, example_state)


def test_a_journal_from_another_format_is_refused(tmp_path, example_state):
    with Store.open(tmp_path) as store:
        store._db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="journal format 99"):
        Store.open(tmp_path)


def test_an_unwritable_state_dir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match=r"state\.dir .*cannot create it"):
        Store.open(blocker / "state")


def test_inspect_reads_without_writing(tmp_path, example_state):
    assert inspect(tmp_path) is None
    with Store.open(tmp_path, snapshot_every=2) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, session(example_state, 5, seed=9, refused=0))
    seen = inspect(tmp_path)
    assert seen["seq"] == 5 and seen["snapshot_seq"] == 4
    assert seen["meta"]["fingerprint"] == fingerprint(example_state)


def test_a_snapshot_whose_history_is_not_utf8_is_skipped(tmp_path, example_state, caplog):
    """Issue 45 item 2: one damaged snapshot row costs time, not the table (was: exit 2,
    "cannot read the journal", although every journal row read fine)."""
    commands = session(example_state, 30, seed=7, refused=0)
    with Store.open(tmp_path, snapshot_every=10) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, commands)
        newest = store._db.execute("SELECT max(seq) FROM snapshots").fetchone()[0]
        store._db.execute(
            "UPDATE snapshots SET history = CAST(x'fffe5b22' AS TEXT) WHERE seq = ?", (newest,)
        )
    with caplog.at_level(logging.WARNING, "rhuna.store"):
        restored = reopen(tmp_path, example_state)
    assert restored.seq == 30 and restored.snapshot_seq < newest
    assert f"snapshot #{newest} cannot be read" in caplog.text
    assert as_json(restored.state) == as_json(replay(example_state, commands))


def test_a_journal_row_whose_events_are_not_utf8_names_its_number(tmp_path, example_state):
    """Issue 45 item 2: the damaged row is named (was: "malformed JSON", no row number)."""
    with Store.open(tmp_path, snapshot_every=0) as store:
        store.restore(example_state, EXAMPLE_TABLE)
        play(store, example_state, session(example_state, 12, seed=8, refused=0))
        store._db.execute("UPDATE journal SET events = CAST(x'5bff5d' AS TEXT) WHERE seq = 7")
    with pytest.raises(StoreError, match=r"journal entry #7: its events column is damaged on disk"):
        reopen(tmp_path, example_state)
