"""States are values the Undo history shares: mypy refuses a write to one, and no rule number
hides in a dataclass default (issue 18 item 7)."""

from __future__ import annotations

import ast
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
    state.rules["draws"]["maximum"] = 9
    state.heroes["aria"].training["skill"] = state.heroes["aria"].training["lore"]
    state.active_reserve.add("aria.potential.skill.1")
    state.history.append(state)
    assert state.performance is not None
    state.performance.costs["aria"] = state.performance.costs["bren"]
    state.performance.contributions.append(state.performance.contributions[0])
"""
#: the lines of WRITES that write (mypy must refuse each): the top-level Mappings, a table of the
#: rules data (P11's maximum), a hero's Training, the Active Reserve, the Undo history, the costs
#: and the Draw Board of the open Performance
REFUSED = ["6", "7", "8", "9", "10", "11", "12", "13", "15", "16"]


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
    assert [line.split(":")[1] for line in lines] == REFUSED, run.stdout


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


#: numeric dataclass defaults other than 0 (an empty count) in engine/, each not a rule number:
#: a token's ordinal among tokens printed alike, and the one level a condition is added with
#: (the add_combat_condition command's own default, C10)
NOT_RULE_NUMBERS = {
    "engine/tokens.py:Token.ordinal = 1",
    "engine/combat/state.py:Condition.level = 1",
}


def _numeric_defaults() -> list[str]:
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(cls, ast.ClassDef):
                continue
            if not any("dataclass" in ast.unparse(d) for d in cls.decorator_list):
                continue
            for stmt in cls.body:
                if not (isinstance(stmt, ast.AnnAssign) and stmt.value is not None):
                    continue
                value = stmt.value
                if isinstance(value, ast.Call) and ast.unparse(value.func) == "field":
                    value = next((k.value for k in value.keywords if k.arg == "default"), None)
                if isinstance(value, ast.UnaryOp):
                    value = value.operand
                if not isinstance(value, ast.Constant) or isinstance(value.value, bool | str):
                    continue
                if isinstance(value.value, int | float) and value.value != 0:
                    name = ast.unparse(stmt.target)
                    where = f"{path.relative_to(ROOT)}:{cls.name}.{name}"
                    found.append(f"{where} = {ast.unparse(stmt.value)}")
    return found


def test_no_rule_number_is_a_dataclass_default() -> None:
    """A number a rule sets (a capacity, a draw count, a first day) lives in the rules data:
    every numeric default in engine/'s dataclasses is an empty count, or one of the two above."""
    found = _numeric_defaults()
    assert set(found) == NOT_RULE_NUMBERS, (
        f"numeric dataclass defaults: {sorted(set(found) - NOT_RULE_NUMBERS)} — a rule's number"
        " goes in engine/data/rules.toml (docs/rules-data.md), read from state.rules"
    )
