"""The import-time registries refuse duplicates and are closed once ``import engine`` is done;
their order is the order engine/__init__.py imports the families (issue 18 item 7)."""

from __future__ import annotations

import pytest

import engine
from engine import narrate, table, view
from engine.registry import RegistryError
from engine.vocabulary import CommandSpec, command
from tests.harness import ROOT

REGISTRIES = {
    "command": engine.REGISTRY,
    "narrator": narrate.NARRATORS,
    "view section": view.VIEW_SECTIONS,
    "table-file section": table.TABLE_SECTIONS,
}


@pytest.mark.parametrize("what", REGISTRIES)
def test_every_registry_is_frozen_after_import_engine(what: str) -> None:
    registry = REGISTRIES[what]
    assert registry.frozen and len(registry) > 0
    before = list(registry)
    with pytest.raises(RegistryError, match="after `import engine` finished"):
        registry.add("late", object())  # type: ignore[arg-type]
    assert list(registry) == before


def test_a_late_command_is_refused_and_the_vocabulary_unchanged() -> None:
    with pytest.raises(RegistryError, match="command 'teleport'"):
        command(CommandSpec("teleport", "not a rule", "table", ()))(lambda state, args: (state, []))
    assert "teleport" not in engine.REGISTRY


def test_the_view_s_sections_come_in_the_families_import_order() -> None:
    """engine/__init__.py imports the Performance, Time, then combat: the view's keys follow."""
    order = list(view.VIEW_SECTIONS)
    assert order.index("performance") < order.index("costs") < order.index("time")
    assert order.index("time") < order.index("combat")
    keys = list(engine.view.table_view(engine.load_table(ROOT / "examples" / "table.toml")))
    assert keys[-len(order) - 1 :] == [*order, "answers"]  # the answers not ready come last


def test_a_duplicate_name_is_refused_naming_both() -> None:
    from engine.registry import Registry

    r: Registry[object] = Registry("narrator")
    r.add("declared", narrate.describe)
    with pytest.raises(RegistryError) as e:
        r.add("declared", narrate.hero_name)
    assert "narrator 'declared' is registered twice" in str(e.value)
    assert "engine.narrate.describe, then engine.narrate.hero_name" in str(e.value)
