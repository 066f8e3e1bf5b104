"""`rhuna-table replay`: narrates, reports refusals with file:line, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

from engine import TableState
from tests.harness import EXAMPLE_TABLE, ROOT

SESSION = ROOT / "examples" / "session.jsonl"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_replay_example_session_narrates_every_outcome():
    p = cli("replay", str(EXAMPLE_TABLE), str(SESSION))
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("SUCCESS") + p.stdout.count("FAILURE") == 7
    assert "Awakened on the Star Grid" in p.stdout
    assert "Strain overflows" in p.stdout and "takes a Wound" in p.stdout
    assert "Traceback" not in p.stderr


def test_replay_json_prints_the_final_state():
    p = cli("replay", str(EXAMPLE_TABLE), str(SESSION), "--json")
    assert p.returncode == 0, p.stderr
    state = TableState.from_json(json.loads(p.stdout))
    assert state.performance is None and state.heroes["cass"].wounds == 1
    assert "SUCCESS" in p.stderr  # the narration goes to stderr with --json


def test_replay_stops_at_a_refused_command_with_its_line(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"cmd": "begin_performance", "difficulty": 5}\n'
        '# comment\n{"cmd": "declare", "hero": "aria", "shade": "control",'
        ' "capability": "skill", "action": "target", "exert": true}\n'
    )
    p = cli("replay", str(EXAMPLE_TABLE), str(session))
    assert p.returncode == 1
    assert f"{session}:3: refused" in p.stdout and "[P9]" in p.stdout


def test_replay_broken_files_give_a_clear_error(tmp_path):
    bad_json = tmp_path / "s.jsonl"
    bad_json.write_text("{not json\n")
    p = cli("replay", str(EXAMPLE_TABLE), str(bad_json))
    assert p.returncode == 2 and f"{bad_json}:1" in p.stderr and "Traceback" not in p.stderr
    bad_table = tmp_path / "t.toml"
    bad_table.write_text("[table]\nid = 'x'\n")
    p = cli("replay", str(bad_table), str(SESSION))
    assert p.returncode == 2 and "capabilities" in p.stderr and "Traceback" not in p.stderr


def test_keep_going_reports_every_refusal_and_still_fails(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"cmd": "resolve"}\n{"cmd": "begin_performance", "difficulty": 5}\n{"cmd": "reset"}\n'
    )
    p = cli("replay", str(EXAMPLE_TABLE), str(session), "--keep-going")
    assert p.returncode == 1
    assert f"{session}:1: refused" in p.stdout and f"{session}:3: refused" in p.stdout
    assert "Performance 1 begins" in p.stdout and "2 command(s) refused" in p.stderr


def test_piping_into_head_is_no_traceback():
    p = subprocess.run(
        f"{sys.executable} -m companion.cli replay {EXAMPLE_TABLE} {SESSION} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert p.stdout.count("\n") == 1 and "Traceback" not in p.stderr
