"""The serial side: real ptys with the project's emulators (hub, PN532, line readers), a real
MicroPython for the hub firmware (``tests.harness.readers.run_micropython``), and the
firmware's stand-ins in ``firmware_standins/``.

Fixtures: ``events``, a TagEvent sink whose waits fail loudly instead of hanging.
"""

from __future__ import annotations

import pytest

from tests.harness.readers import Events


@pytest.fixture
def events() -> Events:
    return Events()
