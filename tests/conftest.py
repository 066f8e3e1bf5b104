"""Shared fixtures: the example table, a fresh state, and a helper to apply many commands."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine import apply
from engine.state import TableState

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_TABLE = ROOT / "examples" / "table.toml"


@pytest.fixture(scope="session")
def example_state() -> TableState:
    return engine.load_table(EXAMPLE_TABLE)


def run(state: TableState, *commands: dict) -> tuple[TableState, list[engine.Event]]:
    """Apply commands in order; return the final state and all events."""
    events: list[engine.Event] = []
    for c in commands:
        state, more = apply(state, c)
        events += more
    return state, events
