"""The demo's script: a hero, ring or token the table lacks is a script error naming the line.

Checked against the table before the emulated hub starts (nothing is played, no
Performance begins on the wheel's defaults); messages quote no Python reprs; a
bad ``--panel`` fails before the header.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

BEGIN = {"cmd": "begin_performance", "difficulty": 5}


def _script(tmp_path: Path, *steps: dict) -> Path:
    path = tmp_path / "script.jsonl"
    path.write_text("# a comment line\n" + "".join(json.dumps(s) + "\n" for s in steps))
    return path


@pytest.mark.parametrize(
    ("step", "says"),
    [
        (
            {"dial": {"hero": "arya", "shade": "control"}},
            "no hero arya at this table (heroes: aria,",
        ),
        ({"dial": {"heroo": "aria"}}, "the wheel has no ring heroo (rings: difficulty, hero,"),
        ({"dial": {"hero": "aria", "capability": "skil"}}, "no capability skil at this table"),
        ({"lay": "aria.ember.skil", "slot": 0}, "no token aria.ember.skil at this table"),
    ],
)
def test_an_unknown_hero_ring_or_token_is_a_script_error_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], step: dict, says: str
) -> None:
    script = _script(tmp_path, BEGIN, step)
    code = main(["demo", "--script", str(script), "--out", str(tmp_path / "out"), "--no-mqtt"])
    assert code == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if f"{script}:3:" in ln)
    assert says in line
    assert "Rhuna table companion —" not in out  # nothing was played
    assert not (tmp_path / "out").exists()
    assert "'" not in line.split(": ", 2)[2].replace(json.dumps(step), "")


def test_a_choice_the_ring_does_not_offer_reads_without_repr_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script(tmp_path, BEGIN, {"dial": {"hero": "aria", "shade": "purple"}})
    code = main(["demo", "--script", str(script), "--out", str(tmp_path / "out"), "--no-mqtt"])
    assert code == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if f"{script}:3:" in ln)
    assert "the shade ring has no purple (it offers: " in line
    assert "'" not in line


def test_a_bad_panel_fails_before_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--panel", "5.5", "--out", str(tmp_path / "out"), "--no-mqtt"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "rhuna-table: demo --panel: 5.5 is not a panel — use one of 2.13, 2.9, 4.2, 7.5 or a"
        " size like 250x122\n"
    )
    assert captured.err.count(" — ") == 1  # one fix, printed once
