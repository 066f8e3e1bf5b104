"""The panel reads the view through the contracts' TypedDicts (issue 28 item 3): a key renamed
in engine/contracts/view.py is a mypy error where display/ reads it, not a blank on the panel.

A copy of the packages display/ imports, one field renamed, strict mypy (the project's own
settings) on display/ there."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from tests.harness import ROOT
from tests.harness.contract_copies import mypy_cache

#: (TypedDict, field) → the display module that reads it
RENAMES = {
    ("ContributionView", "draws_left"): "display/viewmodel.py",
    ("ResultView", "consequence"): "display/viewmodel.py",
    ("CombatView", "tick"): "display/screens/combat.py",
    ("HeroView", "strain_capacity"): "display/screens/between.py",
}


def _renamed(source: str, typed: str, field: str) -> str:
    """``source`` with ``field`` of class ``typed`` renamed ``<field>_renamed``."""
    start = source.index(f"class {typed}(TypedDict):")
    end = source.find("\nclass ", start + 1)
    body = source[start:end]
    new = re.sub(rf"^(\s+){field}:", rf"\1{field}_renamed:", body, count=1, flags=re.M)
    assert new != body, (typed, field)
    return source[:start] + new + source[end:]


def test_a_field_renamed_in_the_view_contract_is_a_mypy_error_in_display(tmp_path):
    for package in ("display", "engine", "settings"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    contract = tmp_path / "engine" / "contracts" / "view.py"
    source = contract.read_text("utf-8")
    for typed, field in RENAMES:
        source = _renamed(source, typed, field)
    contract.write_text(source, "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(mypy_cache(tmp_path)), "display"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode != 0, result.stdout
    errors = re.findall(r"^(display/[\w/]+\.py):(\d+): error", result.stdout, re.M)
    for (typed, field), module in RENAMES.items():
        lines = (tmp_path / module).read_text("utf-8").splitlines()
        # the error is on the line that reads the field ("no key", or its value now an object)
        said = [n for m, n in errors if m == module and f'"{field}"' in lines[int(n) - 1]]
        assert said, (typed, field, result.stdout)
