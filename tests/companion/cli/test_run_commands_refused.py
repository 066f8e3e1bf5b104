"""``run --commands FILE`` never exits 0 having done none of it (issue 41 item 9): an export's
events.jsonl (or ``history --json``) is refused once, naming ``replay``, with a non-zero exit;
a file whose every command was refused exits non-zero too. The real ``rhuna-table run`` in a
subprocess, on the harness's config (an emulated hub, no MQTT)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.harness import ROOT
from tests.harness.service import write_config
from tests.harness.terminal import RHUNA_TABLE


def run_with(tmp_path: Path, lines: list[dict]) -> subprocess.CompletedProcess[str]:
    config = write_config(tmp_path / "svc")
    commands = tmp_path / "commands.jsonl"
    commands.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return subprocess.run(
        [RHUNA_TABLE, "run", "--config", str(config), "--commands", str(commands)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )


def test_an_exports_events_jsonl_is_refused_once_naming_replay_and_exits_non_zero(tmp_path):
    row = {
        "seq": 1,
        "time": "2026-12-04T20:00:00Z",
        "at": 1.0,
        "source": "stdin",
        "command": {"cmd": "begin_performance", "difficulty": 5},
        "events": [{"type": "performance_begun", "data": {}}],
    }
    done = run_with(tmp_path, [row, {**row, "seq": 2}, {**row, "seq": 3}])
    assert done.returncode == 1, (done.stdout, done.stderr)
    refused = [x for x in done.stdout.splitlines() if x.startswith("refused")]
    assert len(refused) == 1, done.stdout  # said once, not once a line
    assert "journal row" in refused[0] and "rhuna-table replay" in refused[0], refused[0]
    assert "rhuna-table replay" in done.stderr and "Traceback" not in done.stderr


def test_a_run_whose_every_command_was_refused_never_exits_0(tmp_path):
    done = run_with(
        tmp_path,
        [{"cmd": "begin_performance", "difficulty": 99}, {"cmd": "draw", "hero": "nobody"}],
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout.count("refused") == 2
    assert "every one of its 2 commands was refused" in done.stderr
