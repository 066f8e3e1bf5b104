"""The states whose answers are too big for a turn (issue 27): an Intersect declare and the
largest legal fight, shared by the engine's, the service's and the benchmarks' tests."""

from __future__ import annotations

import json
from typing import Any

import engine
from engine.combat.odds import success_counts
from engine.performance.odds import clear_caches
from tests.harness import ARIA, EXAMPLE_TABLE, ROOT

#: Aria Intersecting with Bren at Difficulty 8, WEIGHT mass (P10, P16, P19)
INTERSECT: list[dict[str, Any]] = [
    {"cmd": "begin_performance", "difficulty": 8, "weight": "mass"},
    {"cmd": "declare", "hero": "bren", "shade": "control", "capability": "steel"}
    | {"action": "target"},
    {**ARIA, "intersect": "bren"},
]

#: the pools of the largest fight's combatants
POOLS = ("might", "dodge", "parry", "fortitude", "damage")


def cold() -> None:
    """Every memo forgotten: the steps are those of a first ask."""
    clear_caches()
    success_counts.cache_clear()


def intersect_declare() -> engine.TableState:
    """The example table after :data:`INTERSECT`."""
    state = engine.load_table(EXAMPLE_TABLE)
    for command in INTERSECT:
        state, _ = engine.apply(state, command)
    return state


def most(command: str, field: str) -> int:
    """The largest value the shipped schema lets ``command``'s ``field`` take."""
    schema = json.loads((ROOT / "docs" / "commands.schema.json").read_text("utf-8"))
    for spec in schema["oneOf"]:
        if spec["properties"]["cmd"].get("const") == command:
            return int(spec["properties"][field]["maximum"])
    raise AssertionError(f"{command} is not in the schema")


def fight_commands(pool: int | None = None) -> list[dict[str, Any]]:
    """Two combatants with every pool at ``pool`` (default: the largest legal, I-C2a), then
    the fight's start (C3)."""
    out: list[dict[str, Any]] = []
    for name in ("g1", "g2"):
        sizes = {p: pool or most("add_combatant", p) for p in POOLS}
        out.append({"cmd": "add_combatant", "combatant": name, "reflex": 1, "speed": 1, **sizes})
    return [*out, {"cmd": "start_combat", "seed": 1}]


def largest_fight(pool: int | None = None) -> engine.TableState:
    """The example table after :func:`fight_commands`."""
    state = engine.load_table(EXAMPLE_TABLE)
    for command in fight_commands(pool):
        state, _ = engine.apply(state, command)
    return state
