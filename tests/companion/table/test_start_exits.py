"""Exits that match systemd (issue 45 item 3): a full or read-only disk at start is a status
``Restart=on-failure`` retries (75), never the 2 that ``RestartPreventExitStatus=2`` keeps
down, and says so; the unit bounds its memory.

Real parts: a ``rhuna-table run`` process on a tmpfs of the test's own (root mounts one;
without it the test fails rather than skips), remounted read-only or filled.
"""

from __future__ import annotations

import configparser
import contextlib
import signal
import subprocess
from pathlib import Path

import pytest

from tests.harness import ROOT, missing_real_part
from tests.harness.service import ServiceProcess, write_config

FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}


@pytest.fixture
def small_disk(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(state)], capture_output=True
    )
    if mounted.returncode != 0:
        missing_real_part(f"a tmpfs of the test's own (mount: {mounted.stderr.decode().strip()})")
    try:
        config = write_config(tmp_path)
        service = ServiceProcess(config)  # a night first: the journal exists
        service.send([FAVOR] * 3)
        assert [service.answer() for _ in range(3)] == ["ack 1", "ack 2", "ack 3"]
        service.proc.send_signal(signal.SIGTERM)
        assert service.proc.wait(30) == 0
        service.rest()
        yield config, state
    finally:
        subprocess.run(["umount", "-l", str(state)], capture_output=True)


def _start(config: Path) -> tuple[int, str]:
    log = config.parent / "service.log"
    log.unlink(missing_ok=True)
    service = ServiceProcess(config)
    assert service.proc.stdin is not None
    service.proc.stdin.close()
    status = service.proc.wait(60)
    service.rest()
    return status, log.read_text()


def test_a_read_only_disk_at_start_exits_for_a_retry(small_disk):
    config, state = small_disk
    subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
    status, log = _start(config)
    assert status == 75, log  # was 2: systemd never restarted it
    assert "Read-only file system" in log and "Restart=on-failure" in log, log
    assert "Traceback" not in log


def test_a_full_disk_at_start_exits_for_a_retry(small_disk):
    config, state = small_disk
    for leftover in state.glob("journal.sqlite-*"):
        leftover.unlink()
    with (state / "filler").open("wb") as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    status, log = _start(config)
    assert status == 75, log  # was 2
    assert "Restart=on-failure" in log and "Traceback" not in log, log
    (state / "filler").unlink()  # space again: the retry starts where the night was
    again = ServiceProcess(config)
    again.send([FAVOR])
    assert again.answer() == "ack 4"
    again.proc.send_signal(signal.SIGTERM)
    assert again.proc.wait(30) == 0
    again.rest()


def test_the_unit_retries_75_and_bounds_its_memory():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "systemd" / "rhuna-table.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure"
    assert "75" not in service["RestartPreventExitStatus"].split()
    assert service.get("MemoryMax", "").endswith("M")
    assert int(service["MemoryMax"][:-1]) <= 300  # a 512 MB Pi keeps its broker
