"""The engine's tests: pure ``apply(state, command)`` on the example table, no real parts.

Fixtures: ``example_state`` (every folder, tests/conftest.py) and ``table``, the example
table with its Time board ready to draw (T1–T3). Helpers: ``tests.harness`` (``run``, BEGIN,
ARIA…), ``tests.harness.timeboard``, ``tests.harness.combat``, ``tests.harness.odds_oracle``.
"""

from __future__ import annotations

import pytest

from engine.state import TableState
from tests.harness.timeboard import ready


@pytest.fixture
def table(example_state: TableState) -> TableState:
    """The example table, its Time board set up and ready to draw (T1–T3)."""
    return ready(example_state)
