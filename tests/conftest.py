"""Shared fixtures: the example table, a fresh state, a helper to apply many commands, and a
guard that fails a test on an ERROR log record nobody expected."""

from __future__ import annotations

import logging
from collections.abc import Iterator
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


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _no_unexpected_error_log(request: pytest.FixtureRequest) -> Iterator[None]:
    """An ERROR (or worse) logged while a test runs fails it: a swallowed exception in a
    subscriber or a thread is a bug even when the assertions pass. A test that provokes one on
    purpose says so with ``@pytest.mark.error_log``, or reads its logs with ``caplog``."""
    handler = _Errors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
    expected = request.node.get_closest_marker("error_log") or "caplog" in request.fixturenames
    if handler.records and not expected:
        shown = "; ".join(f"{r.name}: {r.getMessage()}"[:200] for r in handler.records[:3])
        pytest.fail(f"unexpected ERROR log ({len(handler.records)}): {shown}", pytrace=False)
