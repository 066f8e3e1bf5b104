"""A command field renamed in the contracts is a mypy error at every Python producer of that command
(issue 40 item 1): each builds it through the constructors of engine/contracts/commands.py.

A copy of the product's packages, one field of each command below renamed in the copy's
engine/contracts/commands.py, strict mypy (the project's own settings) on the producers there."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from tests.harness import ROOT

PACKAGES = ("settings", "engine", "firmware_bridge", "tags", "hardware", "display", "companion")
#: the producers mypy is run on (it follows their imports)
PRODUCERS = (
    "tags/commands.py",
    "hardware/moves.py",
    "hardware/dial.py",
    "hardware/picks.py",
    "companion/record/carry.py",
    "engine/legal.py",
    "companion/cli/odds.py",
    "companion/cli/note.py",
)
#: (command, field) → every file that builds that command with that field
RENAMES = {
    ("Draw", "token"): {"tags/commands.py"},
    ("DrawTime", "resolve"): {"tags/commands.py", "hardware/moves.py"},
    ("DrawWeather", "bag"): {"tags/commands.py", "companion/record/carry.py", "engine/legal.py"},
    ("CallFavor", "seed"): {"hardware/moves.py", "engine/legal.py"},
    ("Declare", "capability"): {
        "hardware/moves.py",
        "hardware/dial.py",
        "engine/legal.py",
        "companion/cli/odds.py",
    },
    ("BeginPerformance", "weight"): {"hardware/moves.py", "companion/cli/odds.py"},
    ("Redraw", "replace"): {"hardware/picks.py", "engine/legal.py"},
    ("AdjustHero", "wounds"): {"companion/record/carry.py"},
    ("Injure", "cause"): {"companion/record/carry.py"},
    ("StartSession", "number"): {"companion/record/carry.py"},
    ("StartCombat", "combatants"): {"engine/legal.py"},
    ("Act", "combatant"): {"engine/legal.py"},
    ("Note", "audience"): {"companion/cli/note.py"},
}
_ERROR = re.compile(r"^([\w/]+\.py):\d+: error: (.*)$", re.M)


def _renamed(source: str, command: str, field: str) -> str:
    """``source`` with ``field`` of ``<command>Fields`` renamed ``<field>_renamed``."""
    start = source.index(f"class {command}Fields(Transport):")
    end = source.find("\nclass ", start + 1)
    body = source[start:end]
    new = re.sub(rf"^(\s+){field}:", rf"\1{field}_renamed:", body, count=1, flags=re.M)
    assert new != body, (command, field)
    return source[:start] + new + source[end:]


def test_a_field_renamed_in_the_command_contract_is_a_mypy_error_at_each_producer(tmp_path):
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc", "fonts")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    contract = tmp_path / "engine" / "contracts" / "commands.py"
    source = contract.read_text("utf-8")
    for command, field in RENAMES:
        source = _renamed(source, command, field)
    contract.write_text(source, "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / ".mypy"), *PRODUCERS],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode != 0, result.stdout
    errors = _ERROR.findall(result.stdout)
    for (command, field), files in RENAMES.items():
        # "Unexpected keyword argument "token"", "has no key "token"", "Missing named argument"
        named = {f for f, message in errors if f'"{field}"' in message}
        assert named == files, (command, field, sorted(named), result.stdout)
