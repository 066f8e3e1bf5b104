"""The journal refuses to forget (issue 45 item 1): a damaged write-ahead log, or a journal file
gone beside it, stops the start with a clear error, keeps the evidence, and `rhuna-table
recover` rebuilds the night from the good frames.

Each case starts from a real ``rhuna-table run`` of 300 commands killed with kill -9, so the
night lives in ``journal.sqlite-wal`` (``snapshot_every = 0``: nothing checkpoints it), then
damages the files on disk with Python as a lying SD card would, restarts the real service and
counts what the journal kept. Before this change each case started (exit 0) and lost
155–300 commands in silence, SQLite deleting the log at its first commit.
"""

from __future__ import annotations

import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table.journal import JOURNAL
from companion.table.wal import read_scan
from engine import load_table
from tests.harness import ROOT
from tests.harness.service import ServiceProcess, journal_rows, session, write_config

N = 300
FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}


def _night(folder: Path, *, stop: str) -> list[dict]:
    config = write_config(folder, state="snapshot_every = 0\n")
    commands = session(load_table(folder / "table.toml"), N, seed=45, refused=0)
    service = ServiceProcess(config)
    service.send(commands)
    answers = [service.answer() for _ in commands]
    assert answers == [f"ack {n}" for n in range(1, N + 1)]
    if stop == "kill":
        service.kill()
    else:
        service.proc.send_signal(signal.SIGTERM)
        assert service.proc.wait(30) == 0
        service.rest()
    return commands


@pytest.fixture(scope="module")
def killed(tmp_path_factory) -> tuple[Path, list[dict]]:
    folder = tmp_path_factory.mktemp("night")
    commands = _night(folder, stop="kill")
    wal = folder / "state" / f"{JOURNAL}-wal"
    assert wal.stat().st_size > 500_000, "the night should still be in the WAL"
    return folder, commands


def _copy(killed: tuple[Path, list[dict]], tmp_path: Path) -> tuple[Path, list[dict]]:
    src, commands = killed
    dst = tmp_path / "t"
    shutil.copytree(
        src, dst, ignore=shutil.ignore_patterns("rhuna-serial-*", "service.log", "pymp-*", "run")
    )
    return dst, commands


def _start(folder: Path) -> tuple[int, str]:
    """Start the service on ``folder`` with no commands: its exit status and its log."""
    log = folder / "service.log"
    log.unlink(missing_ok=True)
    service = ServiceProcess(folder / "rhuna.toml")
    assert service.proc.stdin is not None
    service.proc.stdin.close()
    status = service.proc.wait(60)
    service.rest()
    return status, log.read_text()


def _recover(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "recover", "--state", str(folder / "state")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def _frame(wal: Path, where: float) -> int:
    """The byte offset of a frame about ``where`` of the way into the log."""
    found = read_scan(wal.with_name(JOURNAL))
    assert found is not None and found.header_ok and len(found.frames) > 50
    return found.frames[int(len(found.frames) * where)].offset


def _flip(path: Path, at: int, n: int) -> None:
    data = bytearray(path.read_bytes())
    for i in range(at, at + n):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def _refused_then_recovered(folder: Path, commands: list[dict]) -> None:
    state = folder / "state"
    wal = state / f"{JOURNAL}-wal"
    damaged = wal.read_bytes() if wal.exists() else None
    checked = subprocess.run(
        [sys.executable, "-m", "companion.cli", "check-config", str(folder / "rhuna.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )  # refuses what `run` refuses (the same check), and touches nothing
    assert checked.returncode == 2 and "rhuna-table recover --state" in checked.stderr, checked
    assert not (state / "archive").exists()
    status, log = _start(folder)
    assert status == 2, log
    assert "rhuna-table recover --state" in log and "archive/damaged-" in log, log
    assert "Traceback" not in log
    # the evidence is kept: the log beside the journal untouched, and a copy in archive/
    if damaged is not None:
        assert wal.read_bytes() == damaged, "SQLite must not touch the damaged log"
        copies = list((state / "archive").glob(f"damaged-*/{JOURNAL}-wal"))
        assert [c.read_bytes() for c in copies] == [damaged]
    done = _recover(folder)
    assert done.returncode == 0, done.stderr
    assert "nothing lost" in done.stdout, done.stdout
    assert [c for _, c in journal_rows(state)] == commands  # 0 of 300 lost
    again = ServiceProcess(folder / "rhuna.toml")
    again.send([FAVOR])
    assert again.answer() == f"ack {N + 1}"
    again.proc.send_signal(signal.SIGTERM)
    assert again.proc.wait(30) == 0
    again.rest()


def test_a_damaged_wal_header_with_frames_after_it_is_refused_and_recovered(killed, tmp_path):
    folder, commands = _copy(killed, tmp_path)
    _flip(folder / "state" / f"{JOURNAL}-wal", 8, 16)  # page size, checkpoint no., salts
    _refused_then_recovered(folder, commands)


@pytest.mark.parametrize("part", ["page", "salt"])
def test_a_damaged_frame_mid_log_is_refused_and_recovered(killed, tmp_path, part):
    folder, commands = _copy(killed, tmp_path)
    wal = folder / "state" / f"{JOURNAL}-wal"
    at = _frame(wal, 0.5)
    if part == "page":
        _flip(wal, at + 24 + 1000, 8)
    else:
        _flip(wal, at + 8, 2)  # salt-1: taken for an older generation, before
    _refused_then_recovered(folder, commands)


@pytest.mark.parametrize("how", ["empty", "missing"])
def test_a_missing_or_empty_journal_beside_its_wal_is_refused_and_recovered(killed, tmp_path, how):
    folder, commands = _copy(killed, tmp_path)
    main = folder / "state" / JOURNAL
    if how == "empty":
        main.write_bytes(b"")
    else:
        main.unlink()
    _refused_then_recovered(folder, commands)


def test_a_cleanly_stopped_journal_truncated_to_nothing_is_refused(tmp_path):
    _night(tmp_path, stop="term")
    state = tmp_path / "state"
    assert not (state / f"{JOURNAL}-wal").exists()
    (state / JOURNAL).write_bytes(b"")
    status, log = _start(tmp_path)
    assert status == 2, log
    assert "the journal is empty (0 bytes), but this folder had a night" in log, log
    assert "--new-session" in log and "Traceback" not in log
    assert (state / JOURNAL).stat().st_size == 0  # no empty table started over it


def test_a_torn_tail_is_dropped_with_a_word_and_a_copy(killed, tmp_path):
    """A last transaction cut mid-write (its frames after the last commit, never committed,
    the last one torn): the journal opens at its last commit, as before, but it says so and
    keeps the log as it was."""
    folder, commands = _copy(killed, tmp_path)
    wal = folder / "state" / f"{JOURNAL}-wal"
    data = wal.read_bytes()
    found = read_scan(wal.with_name(JOURNAL))
    assert found is not None and found.whole
    last = data[found.frames[-1].offset :]
    frame = bytearray(last)
    frame[4:8] = struct.pack(">I", 0)  # no commit
    frame[24 + 100 : 24 + 108] = b"\xff" * 8  # its page torn
    wal.write_bytes(data + bytes(frame) + bytes(frame[:700]))
    status, log = _start(folder)
    assert status == 0, log
    assert "torn tail" in log and "archive/damaged-" in log, log
    assert [c for _, c in journal_rows(folder / "state")] == commands  # nothing acknowledged lost
