"""The record: a night played on the real Service (``tests.harness.record``), then exported,
narrated, carried and served.

Fixtures: ``night``, one night per test module (it takes seconds to play), read-only.
"""

from __future__ import annotations

import pytest

from tests.harness.record import Night, play_night


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    return play_night(tmp_path_factory.mktemp("night"))
