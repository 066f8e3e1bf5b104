"""The web pages in Debian's Chromium via Playwright, on a real service and Mosquitto
(``tests.harness.web``). The fixtures most modules share are here — one Chromium per module,
a broker and a served table per test, gm.html's rig per test (``tests.harness.gm``); a module
that needs another kind defines its own (test_web_login's ``browser``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.gm import gm_rig
from tests.harness.web import (
    AccountsBroker,
    ServedTable,
    WebBroker,
    built_pages,
    playwright_chromium,
    running_web_broker,
    served_table,
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    built_pages()
    with playwright_chromium() as b:
        yield b


@pytest.fixture
def broker(tmp_path) -> Iterator[WebBroker]:
    with running_web_broker(tmp_path / "broker") as b:
        yield b


@pytest.fixture
def table(tmp_path, broker) -> Iterator[ServedTable]:
    with served_table(tmp_path / "table", broker) as t:
        yield t


@pytest.fixture
def rig(tmp_path, browser) -> Iterator[tuple[Any, Any, AccountsBroker]]:
    """gm.html on a phone, logged in as the WorldKeeper, on the accounts' broker and the real
    service: (page, table, broker)."""
    with gm_rig(tmp_path, browser) as r:
        yield r
