"""An emulated port whose link cannot be removed, because the disk went read-only, still
stops (issue 45 item 3): one line logged, the pty closed, and the service's SIGTERM ends
with exit 0 and no traceback (was: exit 1, a traceback from ``VirtualPort.unplug``'s
``unlink`` raising EROFS through ``Service.stop``).

Real parts: a pty behind the link, a tmpfs of the test's own remounted read-only (root
mounts one; without it the test fails rather than skips), the real ``rhuna-table run``.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from pathlib import Path

import pytest

from firmware_bridge.emulator import HubEmulator, VirtualPort
from tests.harness import missing_real_part
from tests.harness.service import ServiceProcess, journal_count, write_config

FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}


def _tmpfs(where: Path) -> None:
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        missing_real_part(f"a tmpfs of the test's own (mount: {mounted.stderr.decode().strip()})")


@pytest.fixture
def disk(tmp_path):
    """A tmpfs of its own at ``tmp_path / "disk"``; :func:`read_only` remounts it."""
    where = tmp_path / "disk"
    _tmpfs(where)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def test_a_port_whose_link_is_on_a_read_only_disk_still_closes(disk, caplog):
    port = VirtualPort(disk / "serial" / "by-id" / "usb-Rhuna_TokenHub_EMU-if00")
    port.plug()
    master = port._master
    assert master is not None and port.link.is_symlink()
    read_only(disk)
    with caplog.at_level(logging.WARNING, "firmware_bridge.emulator.port"):
        port.close()  # was: OSError [Errno 30] Read-only file system
    assert not port.plugged
    with pytest.raises(OSError):
        os.fstat(master)  # the pty is closed all the same
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "Read-only file system" in lines[0], lines
    assert str(port.link) in lines[0]


def test_a_hub_emulator_stops_on_a_read_only_disk(disk, caplog):
    hub = HubEmulator(disk / "hub-link").start()
    read_only(disk)
    with caplog.at_level(logging.WARNING, "firmware_bridge.emulator.port"):
        hub.stop()
    assert not hub.port.plugged
    assert "cannot remove the emulated port's link" in caplog.text


def test_sigterm_after_a_read_only_remount_exits_0_without_a_traceback(tmp_path):
    """The service's emulated hub keeps its port link in ``<state>/run/``: that folder is a
    tmpfs here, remounted read-only while the service runs (a disk with the journal's files
    open for writing cannot be remounted so by hand; the card's own ``errors=remount-ro``
    can), then SIGTERM."""
    config = write_config(tmp_path, state="snapshot_every = 0\n")
    run = tmp_path / "state" / "run"
    _tmpfs(run)
    try:
        service = ServiceProcess(config)
        service.send([FAVOR] * 3)
        assert [service.answer() for _ in range(3)] == ["ack 1", "ack 2", "ack 3"]
        assert list(run.glob("serial/by-id/*")), "the emulated hub's link is on the tmpfs"
        read_only(run)
        service.proc.send_signal(signal.SIGTERM)
        status = service.proc.wait(60)
        service.rest()
    finally:
        subprocess.run(["umount", "-l", str(run)], capture_output=True)
    log = (tmp_path / "service.log").read_text()
    assert status == 0, log  # was 1
    assert "Traceback" not in log, log
    assert "cannot remove the emulated port's link" in log, log
    assert journal_count(tmp_path / "state") == 3  # nothing acknowledged lost
