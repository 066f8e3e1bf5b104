"""Text is text (issue 45 item 9): a control character (but a newline) or a bidi override is
refused at the command boundary, naming the field; what an older journal holds is escaped on
the terminal (``rhuna-table history``) and in the CSV export.

Real parts: a ``rhuna-table run --commands -`` process, its journal, the history command in
its own process.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys

import pytest

from companion.record.export import text_cell
from companion.table.journal import JOURNAL
from tests.harness import ROOT
from tests.harness.service import ServiceProcess, journal_rows, write_config

PWNED = "a note\x1b]0;pwned\x07"


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"cmd": "note", "text": PWNED}, "text"),
        ({"cmd": "note", "text": "left \u202eevil"}, "text"),
        ({"cmd": "adjust_hero", "hero": "aria", "favor": 1, "cause": "bell\x07"}, "cause"),
        ({"cmd": "note", "text": "nul\x00"}, "text"),
    ],
    ids=["ESC in a note", "U+202E in a note", "BEL in a cause", "NUL in a note"],
)
def test_a_control_character_is_refused_naming_the_field(tmp_path, command, field):
    service = ServiceProcess(write_config(tmp_path))
    service.send([command, {"cmd": "note", "text": "two\nlines"}])
    word, _, rest = (service.answer() or "").partition(" ")
    assert word == "refused", rest  # was: ack, the ESC journaled and printed raw
    error = json.loads(rest)
    assert error["code"] == "malformed" and error.get("field") == field, error
    assert "control character" in error["message"] and "plain text" in error["fix"]
    assert service.answer() == "ack 1"  # a folded newline is text
    service.proc.send_signal(signal.SIGTERM)
    assert service.proc.wait(30) == 0
    service.rest()
    assert [c["text"] for _, c in journal_rows(tmp_path / "state")] == ["two\nlines"]


def test_an_old_journal_s_escape_is_shown_escaped_by_history_and_in_csv(tmp_path):
    service = ServiceProcess(write_config(tmp_path))
    service.send([{"cmd": "note", "text": "fine"}])
    assert service.answer() == "ack 1"
    service.proc.send_signal(signal.SIGTERM)
    assert service.proc.wait(30) == 0
    service.rest()
    db = sqlite3.connect(tmp_path / "state" / JOURNAL)  # as a journal of before the guard
    (events,) = db.execute("SELECT events FROM journal WHERE seq = 1").fetchone()
    db.execute(
        "UPDATE journal SET command = ?, events = ? WHERE seq = 1",
        (
            json.dumps({"cmd": "note", "text": PWNED}, ensure_ascii=False),
            events.replace('"fine"', json.dumps(PWNED, ensure_ascii=False)),
        ),
    )
    db.commit()
    db.close()
    shown = subprocess.run(
        [sys.executable, "-m", "companion.cli", "history", str(tmp_path / "state")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "Note: a note\\x1b]0;pwned\\x07" in shown.stdout, shown.stdout  # the narration
    assert text_cell(PWNED) == "a note\\x1b]0;pwned\\x07"
    assert text_cell("right \u202eleft") == "right \\u202eleft"
