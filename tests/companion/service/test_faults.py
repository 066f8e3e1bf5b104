"""Fault tests: the table under the failures a real evening brings, each ending with the
state checked against a replay of the journal.

Real parts only: the service's own process (``rhuna-table run --commands -``) or the
Service in process, the emulated hub on a real pty, a Mosquitto of the test's own, a
real tmpfs for the full disk (root mounts one; without it, CI fails rather than skips),
and the journal's WAL file cut or damaged on disk as a power cut leaves it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import signal
import subprocess
import time

import pytest

from companion.mqtt import MqttBridge
from companion.table.store import JOURNAL
from engine import load_table
from firmware_bridge import protocol as p
from firmware_bridge.uid import parse_uid
from tests.harness import ARIA, BEGIN, missing_real_part, wait_until
from tests.harness.broker import WAIT, Broker, Watcher
from tests.harness.service import (
    InProcess,
    ServiceProcess,
    assert_state_is_the_journal_replayed,
    drawn,
    journal_rows,
    session,
    uid_of,
    write_config,
)

R = "rhuna/example"
FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}


# --- the reader -------------------------------------------------------------------------


def test_serial_unplug_and_replug_in_the_middle_of_a_draw(tmp_path):
    """P6: a token laid before the unplug is drawn once; one laid while the cable is out is
    drawn when the hub is back (its inventory after the hello); none is drawn twice."""
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        table.hub.unplug()
        wait_until(lambda: svc.reader_states.get("draw-board") in ("lost", "offline"), "down")
        table.hub.lay(1, uid_of(svc, "aria.weight.1"))  # laid while unplugged
        table.hub.replug()
        assert table.reader.wait_online(WAIT)
        table.settled(4)
        # a token laid once it is back: the hub's inventory after the hello (where a second
        # draw of weight.0 would come from) is reported before it, the loop takes its inputs
        # in order, so a duplicate would be in by now
        table.hub.lay(2, uid_of(svc, "aria.weight.2"))
        wait_until(lambda: "aria.weight.2" in drawn(svc), "the token laid after the replug")
        assert drawn(svc) == ["aria.weight.0", "aria.weight.1", "aria.weight.2"]
        assert svc.store.seq == 5
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)


def test_a_hub_spraying_garbage_at_full_speed(tmp_path):
    """Random bytes as fast as the pty takes them: counted, never a crash; the table takes
    the next token and the next command."""
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        rng = random.Random(17)
        sent = [0]

        def sprayed() -> bool:
            sent[0] += table.hub.port.write(rng.randbytes(4096), timeout=0.05)
            return sent[0] >= 64 * 1024

        # 64 kB back to back, as fast as the pty takes them: an amount, not a rate (a loaded
        # machine takes them more slowly; how fast it copes is benchmarks/serial_bridge.py's)
        wait_until(sprayed, lambda: f"the pty to take 64 kB ({sent[0]} so far)", 3 * WAIT, poll=0)
        assert table.reader.wait_online(WAIT)  # back in sync (or never lost it)
        table.hub.lay(2, uid_of(svc, "aria.weight.2"))
        table.settled(3)
        assert drawn(svc) == ["aria.weight.2"]
        table.submit(FAVOR)
        table.settled(4)
        stats = table.reader.stats.snapshot()
        # 64 kB of random bytes hold many frame delimiters: every frame between them is bad
        assert stats["bad_frames"] > 0, stats
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)


def test_a_reader_reporting_the_same_uid_every_millisecond(tmp_path):
    """A chattering reader: 1,000 'present' frames for one token in a second make one draw
    (a token lying on a reader counts once), and the table stays responsive."""
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        uid = parse_uid(uid_of(svc, "aria.weight.1"))
        payload = p.tag_payload(0, uid)
        for _ in range(1000):
            table.hub.send_frame(p.PRESENT, payload)
            time.sleep(0.001)
        table.settled(3)
        table.submit(FAVOR)
        # answered, not buried under a thousand refusals (how soon: benchmarks/serial_bridge.py)
        table.settled(4)
        rows = [c for _, c in journal_rows(tmp_path / "state")]
        assert [c["cmd"] for c in rows].count("draw") == 1
        assert drawn(svc) == ["aria.weight.1"]
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)


# --- the broker -------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["sigkill", "clean"])
def test_the_broker_killed_or_stopped_loses_no_event_at_a_persistent_subscriber(tmp_path, how):
    """Mosquitto with persistence (``user root`` when run as root: else it drops to
    'mosquitto' and silently saves nothing in tmp_path). Events before, during and after
    the broker's absence all reach a clean_session=False subscriber, in order."""
    broker = Broker(tmp_path / "broker", extra="autosave_interval 1").start()
    overlay = Watcher(broker.port, [f"{R}/events"], client_id="overlay", persistent=True)
    table = InProcess(tmp_path / "t", f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    try:
        [bridge] = [e for e in table.service.extensions if isinstance(e, MqttBridge)]
        assert bridge.wait_ready(WAIT)
        table.submit(BEGIN, ARIA)
        overlay.wait(lambda ms: len(ms) >= 2, "the first events")
        # autosave (every second): wait until the overlay's session and subscription are in
        # the persistence file (written whole, then renamed into place), not a guessed 2.5 s
        saved = broker.dir / "mosquitto.db"

        def on_disk() -> bool:
            data = saved.read_bytes() if saved.exists() else b""
            return b"overlay" in data and f"{R}/events".encode() in data

        wait_until(on_disk, "the overlay's persistent session saved")
        if how == "sigkill":
            assert broker.proc is not None
            broker.proc.kill()
            broker.proc.wait(WAIT)
            broker.stop()
        else:
            broker.stop()
        assert bridge.wait_ready(WAIT, ready=False)
        table.submit(*[FAVOR] * 5)  # the table goes on while the broker is away
        table.settled(7)
        broker.start()
        assert bridge.wait_ready(WAIT)
        table.submit(FAVOR)
        table.settled(8)
        # the events the journal's commands told (the bridge may still be numbering the last
        # command's: its outcome reaches the bridge after the commit settled() waits for)
        want = table.service.store.last_event_seq
        overlay.wait(
            lambda ms: {m.json()["seq"] for m in ms} >= set(range(1, want + 1)),
            f"every event up to {want}",
            timeout=30,
        )
        seqs = list(dict.fromkeys(m.json()["seq"] for m in overlay.messages))
        assert seqs == list(range(1, want + 1))  # QoS 1 may repeat one, never skip one
        assert bridge.stats.dropped == 0
    finally:
        overlay.close()
        table.close()
        broker.stop()
    assert_state_is_the_journal_replayed(tmp_path / "t")


# --- the process and its disk ---------------------------------------------------------------


def test_a_full_disk_gives_clear_refusals_then_recovers_without_a_restart(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(state)], capture_output=True
    )
    if mounted.returncode != 0:
        missing_real_part(f"a tmpfs of the test's own (mount: {mounted.stderr.decode().strip()})")
    service = None
    try:
        config = write_config(tmp_path)
        service = ServiceProcess(config)
        service.send([FAVOR] * 5)
        assert [service.answer() for _ in range(5)] == [f"ack {n}" for n in range(1, 6)]
        filler = state / "filler"
        with filler.open("wb") as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        refused: list[dict] = []
        acked = 5
        for _ in range(400):  # until the journal cannot grow (its WAL may have room left)
            service.send([FAVOR])
            word, _, rest = (service.answer() or "").partition(" ")
            if word == "refused":
                refused.append(json.loads(rest))
                if len(refused) >= 3:
                    break
            else:
                assert word == "ack", rest
                acked += 1
        assert len(refused) >= 3, "the full disk never refused a command"
        for error in refused:
            assert error["code"] == "store", error
            assert "full" in error["fix"] and "not saved, so not done" in error["message"]
        filler.unlink()  # the WorldKeeper frees space; the service goes on, no restart
        service.send([FAVOR] * 3)
        answers = [service.answer() for _ in range(3)]
        assert answers == [f"ack {n}" for n in range(acked + 1, acked + 4)]
        service.proc.send_signal(signal.SIGTERM)
        assert service.proc.wait(30) == 0
        service.rest()
        seq, commands = assert_state_is_the_journal_replayed(tmp_path)
        assert seq == acked + 3 and commands == [FAVOR] * seq
    finally:
        if service is not None and service.proc.poll() is None:
            service.proc.kill()
            service.proc.wait(10)
        subprocess.run(["umount", "-l", str(state)], capture_output=True)


@pytest.mark.parametrize("damage", ["cut", "flip", "header"])
def test_a_power_cut_recovers_the_journal_to_its_last_good_commit(tmp_path, damage, caplog):
    """kill -9, then the WAL cut at a random point (or a byte of it damaged, or its header):
    the start refuses what would lose commits in silence (issue 45: the log cut short of what
    its index counted, a damaged frame with commits after it, a damaged header), `recover`
    rebuilds the journal from its good frames, and the service goes on from there."""
    from companion.table.guard import JournalRefused
    from companion.table.recover import recover
    from companion.table.store import Store

    config = write_config(tmp_path, state="snapshot_every = 0\n")  # everything in the WAL
    initial = load_table(tmp_path / "table.toml")
    commands = session(initial, 60, seed=31, refused=0)
    service = ServiceProcess(config)
    service.send(commands)
    answers = [service.answer() for _ in commands]
    assert answers == [f"ack {n}" for n in range(1, 61)]
    service.kill()
    wal = tmp_path / "state" / f"{JOURNAL}-wal"
    data = bytearray(wal.read_bytes())
    assert len(data) > 10_000, "the commits should still be in the WAL"
    rng = random.Random(f"{damage}-{len(data)}")
    if damage == "cut":
        del data[rng.randrange(len(data) // 3, len(data) - 100) :]
    elif damage == "flip":
        data[rng.randrange(len(data) // 3, len(data))] ^= 0x5A
    else:
        data[rng.randrange(0, 24)] ^= 0xFF
    wal.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, "rhuna.store"):
        try:
            Store.open(tmp_path / "state").close()
        except JournalRefused as e:
            assert "write-ahead log" in str(e) and "rhuna-table recover --state" in str(e)
            done = recover(tmp_path / "state")
            assert (done.missing_frames > 0) == (damage == "cut")
        else:
            assert damage == "flip" and "torn tail" in caplog.text  # in the last commit
        seq, kept = assert_state_is_the_journal_replayed(tmp_path)
    assert kept == commands[:seq]  # a prefix: the last good commit, nothing half-applied
    assert seq < 60 if damage == "cut" else seq >= 59
    again = ServiceProcess(config)  # and the table goes on from there
    again.send([FAVOR])
    assert again.answer() == f"ack {seq + 1}"
    again.proc.send_signal(signal.SIGTERM)
    assert again.proc.wait(30) == 0
    again.rest()
    assert_state_is_the_journal_replayed(tmp_path)


def test_a_killed_service_leaves_no_serial_folder_behind(tmp_path):
    """The emulated hub's port link lives in the state directory and is cleared at start:
    kill -9 leaves no /tmp/rhuna-serial-* (TMPDIR is tmp_path here)."""
    config = write_config(tmp_path)
    for _ in range(2):
        service = ServiceProcess(config)
        service.send([FAVOR])
        assert (service.answer() or "").startswith("ack")
        service.kill()
        assert not list(tmp_path.glob("rhuna-serial-*"))
        assert os.path.isdir(tmp_path / "state" / "run")
