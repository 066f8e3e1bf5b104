"""Fixtures for every folder: the example table's state, and a guard that fails a test on an
ERROR log record nobody expected. Each folder's own fixtures are in its conftest.py; the
helpers tests and benchmarks share (commands, ``run``, ``wait_until``, the real parts) are
the :mod:`tests.harness` package, never imported from a conftest."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from hypothesis import settings

import engine
from engine.state import TableState
from tests.harness import EXAMPLE_TABLE

# Hypothesis fails an example that takes over 200 ms (its default deadline): a wall-time
# assertion, which two shared cores at load 8-21 break on slow, not wrong, examples. No
# property here has a time budget; each keeps its own example count. (Loaded before any test
# module, so every @settings(...) inherits it.)
settings.register_profile("rhuna", deadline=None)
settings.load_profile("rhuna")


@pytest.fixture(scope="session")
def example_state() -> TableState:
    return engine.load_table(EXAMPLE_TABLE)


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
