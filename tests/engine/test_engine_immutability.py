"""States are values the Undo history shares: mypy refuses a write to one, and no rule number
hides in a dataclass default (issue 18 item 7)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from engine.state import Hero
from engine.time.board import TimeBoard
from tests.harness import ROOT

WRITES = """
from engine.state import TableState


def write(state: TableState) -> None:
    state.heroes["aria"] = state.heroes["bren"]
    state.rules["draws"] = {}
    state.tokens.pop("aria.ember.skill")
    dict.clear(state.bags)
"""


@pytest.mark.slow
def test_mypy_refuses_writes_to_a_state(tmp_path: Path) -> None:
    snippet = tmp_path / "writes.py"
    snippet.write_text(WRITES, "utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(snippet)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in run.stdout.splitlines() if "writes.py" in line]
    assert run.returncode == 1
    assert [line.split(":")[1] for line in lines] == ["6", "7", "8", "9"], run.stdout


@pytest.mark.parametrize(("cls", "name"), [(Hero, "fatigue_capacity"), (Hero, "strain_capacity")])
def test_i_p13_capacities_come_from_the_sheet_or_the_rules_data(cls: type, name: str) -> None:
    (f,) = [f for f in dataclasses.fields(cls) if f.name == name]
    assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def test_t3_a_fresh_board_starts_on_the_rules_data_s_first_day(example_state) -> None:
    (f,) = [f for f in dataclasses.fields(TimeBoard) if f.name == "day"]
    assert f.default is dataclasses.MISSING
    import engine

    text = (ROOT / "examples" / "table.toml").read_text()
    assert "[time]\nday = 1\n" in text
    text = text.replace("[time]\nday = 1\n", "[time]\n")  # the day is not given: the rules say
    assert engine.load_table_text(text + "\n[rules.time]\nfirst_day = 7\n").time.day == 7
