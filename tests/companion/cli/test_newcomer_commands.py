"""``rhuna-table run --commands FILE`` ends with its file; ``--commands -`` with its input.

Real processes on the emulated-hub config (tests/harness/service.py): the
service answers ``ack <seq>`` for each command once the journal has it, and
exits 0 at the end of the commands — with every one of them in the journal —
unless ``--keep-running`` is given.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from companion.table.store import inspect
from tests.harness import ROOT, WAIT, wait_until
from tests.harness.sdnotify import Systemd
from tests.harness.service import write_config

COMMANDS = [
    {"cmd": "begin_performance", "difficulty": 5},
    {
        "cmd": "declare",
        "hero": "aria",
        "shade": "control",
        "capability": "skill",
        "action": "target",
    },
    {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"},
]


KEEP = ("--commands", "-", "--keep-running")


def _run(
    config: Path, *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(config), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(config.parent)},
    )


def _journal_seq(config: Path) -> int:
    seen = inspect(config.parent / "state")
    assert seen is not None and "error" not in seen, seen
    return int(seen["seq"])


def test_run_commands_file_exits_once_every_command_is_committed(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    script = tmp_path / "session.jsonl"
    script.write_text("".join(json.dumps(c) + "\n" for c in COMMANDS))
    done = _run(config, "--commands", str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["ack 1", "ack 2", "ack 3"]
    assert _journal_seq(config) == 3


def test_run_commands_stdin_exits_at_end_of_input(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    text = "".join(json.dumps(c) + "\n" for c in COMMANDS) + '{"cmd": "fly"}\n'
    done = _run(config, "--commands", "-", stdin=text)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["ack 1", "ack 2", "ack 3"] and lines[3].startswith("refused ")
    assert _journal_seq(config) == 3


def test_keep_running_keeps_serving_after_the_end_of_input(tmp_path: Path) -> None:
    """After its input ends, the service goes on turning its loop (ten more watchdog pings
    from the loop's thread, no STOPPING=1) until SIGTERM; without --keep-running it stops
    right after it logs the end of the stream, and systemd hears STOPPING=1 then."""
    config = write_config(tmp_path)
    systemd = Systemd(str(tmp_path / "notify"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(config), *KEEP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={
            **os.environ,
            "TMPDIR": str(tmp_path),
            "NOTIFY_SOCKET": systemd.address,
            "WATCHDOG_USEC": "100000",  # a ping every 0.05 s of the loop's
        },
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(json.dumps(COMMANDS[0]) + "\n")
        proc.stdin.close()
        assert proc.stdout.readline().strip() == "ack 1"
        said: list[str] = []
        reading = threading.Thread(target=lambda: said.extend(proc.stderr), daemon=True)
        reading.start()
        wait_until(lambda: "end of the command stream" in "".join(said), lambda: "".join(said))
        # what was sent before that line was written is in the socket now: dropped, so every
        # ping counted below came from the loop after the end of the input
        systemd.sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while True:
                assert "STOPPING" not in systemd.receive()
        systemd.sock.settimeout(10)
        pings = 0
        while pings < 10:
            message = systemd.receive()
            assert "STOPPING" not in message, "the service stopped at the end of its input"
            pings += "WATCHDOG" in message
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert systemd.until("STOPPING")["STATUS"] == "stopping at #1"
        assert proc.wait(30) == 0
        reading.join(WAIT)
        assert "SIGTERM: stopping" in "".join(said)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        systemd.close()


def test_a_utf16_commands_file_is_one_line_before_the_service_starts(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    script = tmp_path / "session.jsonl"
    script.write_bytes(json.dumps(COMMANDS[0]).encode("utf-16"))
    done = _run(config, "--commands", str(script))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{script}: saved as UTF-16, not UTF-8 — save the file as UTF-8" in done.stderr
