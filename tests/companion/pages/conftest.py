"""companion/pages/: the page server against real sockets and the pages as built (web/dist),
and through the real service with Debian's Chromium (``browser``: one a module)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.web import playwright_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_chromium() as b:
        yield b
