"""A command field renamed in the contracts is a mypy error at every Python producer of that command
and in its handler (issue 40 item 1): producers build it through the constructors of
engine/contracts/commands.py, the handler reads its ``<Name>Args``.

A copy of the product's packages, one field of each command below renamed in the copy's
engine/contracts/commands.py (in its ``<Name>Fields`` and ``<Name>Args``), strict mypy (the
project's own settings) on the producers there; the handlers are checked as they import.

Not named: the weather's ``bag`` in its handlers (read through ``_which_bag``'s ``Mapping``, which
set_weather also calls with a dict of its own); the engine's tests name it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from tests.harness import ROOT
from tests.harness.contract_copies import mypy_cache

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
    "engine/performance/questions.py",
    "engine/performance/odds.py",
)
#: (command, field) → every file that builds that command with that field
RENAMES = {
    # the redraw handler draws through the draw handler
    ("Draw", "token"): {"tags/commands.py", "engine/performance/commands.py"},
    ("DrawTime", "resolve"): {"tags/commands.py", "hardware/moves.py", "engine/time/draws.py"},
    ("DrawWeather", "bag"): {"tags/commands.py", "companion/record/carry.py", "engine/legal.py"},
    ("CallFavor", "seed"): {
        "hardware/moves.py",
        "engine/legal.py",
        "engine/performance/commands.py",
    },
    ("Declare", "capability"): {
        "hardware/moves.py",
        "hardware/dial.py",
        "engine/legal.py",
        "companion/cli/odds.py",
        "engine/performance/commands.py",
    },
    ("BeginPerformance", "weight"): {
        "hardware/moves.py",
        "companion/cli/odds.py",
        "engine/performance/commands.py",
    },
    # the odds' advice (Advice.command) makes each move through its constructor
    ("Redraw", "replace"): {
        "hardware/picks.py",
        "engine/legal.py",
        "engine/performance/commands.py",
        "engine/performance/questions.py",
        "engine/performance/odds.py",
    },
    ("AdjustHero", "wounds"): {"companion/record/carry.py", "engine/performance/sheet.py"},
    ("Injure", "cause"): {"companion/record/carry.py", "engine/combat/afflictions.py"},
    ("StartSession", "number"): {"companion/record/carry.py", "engine/time/weather.py"},
    ("StartCombat", "combatants"): {"engine/legal.py", "engine/combat/commands.py"},
    ("Act", "combatant"): {"engine/legal.py", "engine/combat/commands.py"},
    ("Note", "audience"): {"companion/cli/note.py", "engine/note.py"},
}
_ERROR = re.compile(r"^([\w/]+\.py):(\d+): error: (.*)$", re.M)


def _renamed(source: str, command: str, field: str) -> str:
    """``source`` with ``field`` renamed ``<field>_renamed`` in ``<command>Fields`` (what its
    producers give) and ``<command>Args`` (what its handler reads)."""
    for cls in (f"class {command}Fields(Transport):", f"class {command}Args(TypedDict):"):
        start = source.index(cls)
        end = source.find("\nclass ", start + 1)
        body = source[start:end]
        new = re.sub(rf"^(\s+){field}:", rf"\1{field}_renamed:", body, count=1, flags=re.M)
        assert new != body, (command, field)
        source = source[:start] + new + source[end:]
    return source


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
        [sys.executable, "-m", "mypy", "--cache-dir", str(mypy_cache(tmp_path)), *PRODUCERS],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode != 0, result.stdout
    errors = _ERROR.findall(result.stdout)
    lines = {f: (tmp_path / f).read_text("utf-8").splitlines() for f, _, _ in errors}
    for (command, field), files in RENAMES.items():
        # the message names the key ("Unexpected keyword argument", "has no key") or the line
        # reads it (``args.get("cause")`` is then an object, which the next call refuses)
        named = {
            f
            for f, n, message in errors
            if f'"{field}"' in message or f'"{field}"' in lines[f][int(n) - 1]
        }
        assert named == files, (command, field, sorted(named), result.stdout)
