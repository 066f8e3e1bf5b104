"""The engine's rooms: a core and one package per rule family (P, T and C in docs), and who may import whom.

The core imports no family (at run time: ``engine/state.py`` names the families'
state types for the type checker only). A family imports the core; Time imports
the Performance's health cascade (P13), and no import goes back the other way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"
FAMILIES = ("performance", "time", "combat")

#: which other families a family may import (the rules tie Time's Fatigue to P13)
ALLOWED = {"performance": set(), "time": {"performance"}, "combat": set()}


def _runtime_imports(path: Path) -> set[str]:
    """Modules a file imports when it runs (imports under ``if TYPE_CHECKING:`` left out)."""
    tree = ast.parse(path.read_text("utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _family_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "engine" and parts[1] in FAMILIES:
        return parts[1]
    return None


def _core_files() -> list[Path]:
    return sorted(p for p in ENGINE.glob("*.py"))


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: p.name)
def test_the_core_imports_no_family(path: Path) -> None:
    if path.name == "__init__.py":  # the package root registers the families: that is its job
        return
    families = {_family_of(m) for m in _runtime_imports(path)} - {None}
    assert not families, f"engine/{path.name} imports the {families} family"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_imports_another_only_where_the_rules_tie_them(family: str) -> None:
    for path in sorted((ENGINE / family).glob("*.py")):
        others = {_family_of(m) for m in _runtime_imports(path)} - {None, family}
        assert others <= ALLOWED[family], (
            f"engine/{family}/{path.name} imports {others - ALLOWED[family]}"
        )


def test_the_core_holds_no_family_file() -> None:
    """Family files live in their room and drop the family prefix (engine/time/draws.py)."""
    names = {p.stem for p in _core_files()}
    prefixed = {n for n in names if n.startswith(("time_", "odds", "combat_", "performance"))}
    assert not prefixed, prefixed


def test_the_documented_public_api_is_importable_from_engine() -> None:
    import engine

    for name in ("apply", "replay", "load_table", "load_table_text", "parse_command"):
        assert callable(getattr(engine, name)), name
    for name in ("CommandRejected", "ConfigError", "RuleViolation", "Event", "TableState"):
        assert isinstance(getattr(engine, name), type), name


def test_every_family_registers_its_commands() -> None:
    """Importing engine registers all three rule families' commands (P, T and C)."""
    from engine.vocabulary import REGISTRY

    groups = {spec.group for spec, _ in REGISTRY.values()}
    assert {"performance", "time", "combat"} <= groups


def test_the_cli_is_a_package_with_one_module_a_subcommand() -> None:
    from companion import cli

    assert Path(cli.__file__).name == "__init__.py"
    for name in cli.SUBCOMMANDS:
        assert name.startswith("companion.cli."), name
