"""The companion's tests (mqtt, record, store, loop, service, cli): the real Service, Store and
TableLoop, and a Mosquitto of the test's own where MQTT is in play.

Fixtures: ``broker``, a real Mosquitto on a free port of 127.0.0.1, in ``tmp_path/broker``,
stopped after the test; ``pi_broker``, the Pi's own Mosquitto config
(systemd/mosquitto-rhuna.conf) with one table's generated accounts, http_dir = ``tmp_path/web``
(as $PREFIX/web on the Pi): (accounts, plain port, websockets port) (``tests.harness.broker``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.ops import accounts as A
from tests.harness.broker import Broker, running_broker, running_pi_broker
from tests.harness.service import close_service_processes


@pytest.fixture(autouse=True)
def _no_service_process_left() -> Iterator[None]:
    """A ``rhuna-table run`` a test started (``tests.harness.service.ServiceProcess``) does not
    outlive it: whatever a failing test left running is killed and reaped here, and a
    passing test that left one fails, named."""
    yield
    if left := close_service_processes():
        pytest.fail(f"{left} rhuna-table run process(es) left running by the test: killed")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    with running_broker(tmp_path / "broker") as b:
        yield b


@pytest.fixture
def pi_broker(tmp_path: Path) -> Iterator[tuple[A.Accounts, int, int]]:
    with running_pi_broker(tmp_path) as b:
        yield b
