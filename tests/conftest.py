"""Fixtures for every folder: the example table's state, and a guard that fails a test on an
ERROR log record nobody expected. Each folder's own fixtures are in its conftest.py; the
helpers tests and benchmarks share (commands, ``run``, ``wait_until``, the real parts) are
the :mod:`tests.harness` package, never imported from a conftest."""

from __future__ import annotations

import logging
import os
import signal
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


#: variables pytest itself changes around each test
_ENV_OWN = {"PYTEST_CURRENT_TEST"}
_SIGNALS = tuple(
    getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGCHLD", "SIGPIPE", "SIGALRM")
)


@pytest.fixture(autouse=True)
def _no_state_leaks_to_the_next_test() -> Iterator[None]:
    """What a test changes of the process it must put back (``monkeypatch`` does): the
    environment, the working directory and the signal dispositions. A leak fails the test
    that made it, names what leaked, and is undone, so that the next test on this worker
    meets the process as it was, not a state that fails it far from its cause."""
    env, cwd = dict(os.environ), os.getcwd()
    handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    yield
    leaks = []
    now = {k: v for k, v in os.environ.items() if k not in _ENV_OWN}
    was = {k: v for k, v in env.items() if k not in _ENV_OWN}
    if now != was:
        changed = sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k))
        leaks.append(f"environment variables {changed}")
        os.environ.clear()
        os.environ.update(env)
    if os.getcwd() != cwd:
        leaks.append(f"working directory {os.getcwd()} (was {cwd})")
        os.chdir(cwd)
    for s, handler in handlers.items():
        if signal.getsignal(s) != handler:
            leaks.append(f"{signal.Signals(s).name} handler {signal.getsignal(s)!r}")
            signal.signal(s, handler)
    if leaks:
        pytest.fail("the test left " + "; ".join(leaks) + " (use monkeypatch)", pytrace=False)


#: the files that run longest (a Chromium, a rig of brokers, a real install, a benchmark's quick
#: run, kill -9 at twenty moments), handed to pytest-xdist's workers first (the Makefile's
#: `--dist loadfile --no-loadscope-reorder` gives out files in this order; xdist's own puts the
#: files with the most tests first, so Chromium's few long ones ran last, alone)
LONGEST_FIRST = (
    "tests/web/",
    "tests/companion/table/test_store_crash.py",
    "tests/companion/ops/",
    "tests/benchmarks/",
    "tests/systemd/",
    "tests/engine/test_engine_properties.py",
    "tests/companion/mqtt/test_mqtt_claim.py",
    "tests/scripts/",
    "tests/engine/performance/",
    "tests/hardware/test_gpio_properties.py",
)


@pytest.fixture(autouse=True)
def _browser_contexts_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every page a test opened is closed at its end. The ``browser`` fixtures are one
    Chromium per module; a context a test left open goes on painting every second and
    reconnecting, once a second, to the broker its test stopped, for the rest of the module
    (a dozen such pages beside an overlay that could not connect in time failed CI once)."""
    browser = request.getfixturevalue("browser") if "browser" in request.fixturenames else None
    yield
    for context in list(getattr(browser, "contexts", ())):
        try:
            context.close()
        except Exception as e:  # a browser already gone: its contexts are gone with it
            logging.getLogger(__name__).debug("closing a browser context: %s", e)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest first (:data:`LONGEST_FIRST`), otherwise as collected (a stable sort: the same
    order on every worker, which xdist requires)."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next(
            (i for i, p in enumerate(LONGEST_FIRST) if path.startswith(p)), len(LONGEST_FIRST)
        )

    items.sort(key=rank)
