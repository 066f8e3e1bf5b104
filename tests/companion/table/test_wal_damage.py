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
    shm = state / f"{JOURNAL}-shm"
    index = shm.read_bytes() if shm.exists() else None
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
    if damaged is not None and index is not None:  # the log's index too: it tells a cut log
        kept = list((state / "archive").glob(f"damaged-*/{JOURNAL}-shm"))
        assert [c.read_bytes() for c in kept] == [index]
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


def _lower(path: Path, at: int, how: str) -> None:
    """The 32-bit salt at ``at`` made a little smaller, as a bit or two lost on the card do:
    ``minus-1`` one less, ``bit`` its lowest set bit of the low 16 cleared."""
    data = bytearray(path.read_bytes())
    (salt,) = struct.unpack(">I", data[at : at + 4])
    if how == "minus-1":
        lowered = (salt - 1) & 0xFFFFFFFF
    else:
        low = salt & 0xFFFF
        assert low, "no set bit in the salt's low 16 bits to clear"
        lowered = salt & ~(low & -low)
    data[at : at + 4] = struct.pack(">I", lowered)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "part",
    ["page", "salt", "salt-1-minus-1", "salt-1-bit", "salt-2-minus-1", "salt-2-bit"],
)
def test_a_damaged_frame_mid_log_is_refused_and_recovered(killed, tmp_path, part):
    """``salt-1-…``: salt-1 a little lower looked like an older generation's leftover: the
    guard said nothing and SQLite kept the 146 commands before it (exit 0, 154 of 300 lost)."""
    folder, commands = _copy(killed, tmp_path)
    wal = folder / "state" / f"{JOURNAL}-wal"
    at = _frame(wal, 0.5)
    if part == "page":
        _flip(wal, at + 24 + 1000, 8)
    elif part == "salt":
        _flip(wal, at + 8, 2)  # salt-1 far off: taken for an older generation, before
    else:
        salt, how = part[:6], part[7:]
        _lower(wal, at + (8 if salt == "salt-1" else 12), how)
    _refused_then_recovered(folder, commands)


def test_a_last_commit_whose_salt_is_lowered_is_refused_and_recovered(killed, tmp_path):
    """The damaged frame is the log's last, a commit: nothing follows it, yet it is this
    generation's (it continues the checksum chain), so the last command would be lost."""
    folder, commands = _copy(killed, tmp_path)
    wal = folder / "state" / f"{JOURNAL}-wal"
    found = read_scan(wal.with_name(JOURNAL))
    assert found is not None and found.frames[-1].commit
    _lower(wal, found.frames[-1].offset + 8, "minus-1")
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
