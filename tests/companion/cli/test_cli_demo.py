"""`rhuna-table demo --table … --script …`: a bad script line is a clear error, not a traceback."""

from __future__ import annotations

import re

import pytest

from companion.cli import main
from companion.cli.stopping import INTERRUPTED
from tests.harness import EXAMPLE_TABLE, ROOT


def demo(tmp_path, *lines: str) -> int:
    script = tmp_path / "script.jsonl"
    script.write_text("".join(line + "\n" for line in lines))
    return main(
        [
            "demo",
            "--table",
            str(EXAMPLE_TABLE),
            "--script",
            str(script),
            "--out",
            str(tmp_path),
            "--no-mqtt",
        ]
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("[1, 2]", "must be a JSON object"),
        ('{"lay": "aria.ember.skill"}', 'need "slot"'),
        ('{"lay": "aria.ember.skill", "slot": "x"}', "reader channel 0 to 5"),
        ('{"lay": "aria.ember.skill", "slot": 9}', "reader channel 0 to 5"),
        ('{"lay_uid": "04C0FFEE000001", "slot": -1}', "reader channel 0 to 5"),
        ('{"lift": true}', "reader channel 0 to 5"),
    ],
)
def test_a_script_line_the_demo_cannot_play_names_its_line(tmp_path, capsys, line, says):
    assert demo(tmp_path, '{"say": "first"}', line) == 1
    out = capsys.readouterr().out
    assert f"script.jsonl:2: {line}" in out and says in out


def test_a_refused_command_without_a_name_is_shown_not_a_traceback(tmp_path, capsys):
    """The engine refuses it as malformed (no "cmd"); the demo prints the refusal and goes on."""
    assert demo(tmp_path, '{"hero": "aria"}', '{"cmd": "begin_performance", "difficulty": 4}') == 0
    out = capsys.readouterr().out
    assert "missing command name" in out and "Performance 1 begins: Difficulty 4" in out


def test_a_script_without_table_plays_on_the_example_table(tmp_path, capsys):
    script = tmp_path / "mine.jsonl"
    script.write_text('{"cmd": "begin_performance", "difficulty": 4}\n')
    assert main(["demo", "--script", str(script), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "mine.jsonl on" in out and "Performance 1 begins: Difficulty 4" in out
    assert "fight" not in out  # only the script asked for, not the default plays


def test_the_closing_table_shows_a_fights_injuries_beside_the_tracks(tmp_path, capsys):
    """Issue 41 item 8: after examples/fight.jsonl the closing table said `Wounds 0` for a hero
    one injury from death; it shows the fight's injuries and why they are not Wounds."""
    fight = EXAMPLE_TABLE.parent / "fight.toml"
    script = EXAMPLE_TABLE.parent / "fight.jsonl"
    args = ["demo", "--table", str(fight), "--script", str(script), "--out", str(tmp_path)]
    assert main([*args, "--no-mqtt"]) == 0
    out = capsys.readouterr().out
    start, end = out.index("At the end:"), out.index("journal:")
    closing = out[start:end]
    [aria] = [line for line in closing.splitlines() if line.strip().startswith("Aria")]
    assert "Wounds 0" in aria and "· fight: 6 injuries (dies above 6)" in aria, aria
    assert "injuries (C8–C9) are not Wounds" in closing
    # before the fight, no injuries: the opening table has no such line
    assert "fight:" not in out[: out.index("token hub emulated")]


def test_the_readmes_ctrl_c_line_quotes_what_make_prints():
    """Issue 41 item 13: the README quoted `make: *** [Makefile:…: demo] Interrupt`; a Ctrl-C of
    `make demo` (seen in tmux, GNU Make 4.3) prints `make: *** [Makefile:38: demo] Error 130`:
    the demo stops cleanly and exits 130, and make names its recipe's line and that status."""
    readme = (ROOT / "README.md").read_text()
    [quoted] = re.findall(
        r"`(make: \*\*\* \[Makefile:[^`]*demo\][^`]*)`", readme.replace("\n", " ")
    )
    makefile = (ROOT / "Makefile").read_text().splitlines()
    recipe = makefile.index("demo: $(STAMP) $(WEB_BUILT)") + 2  # the recipe's line, 1-based
    assert makefile[recipe - 1].strip() == "$(BIN)/rhuna-table demo"
    assert quoted == f"make: *** [Makefile:{recipe}: demo] Error {INTERRUPTED}"
