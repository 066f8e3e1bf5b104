"""The runnable examples in the serial side's docstrings stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "firmware_bridge",
    "firmware_bridge.events",
    "firmware_bridge.reader",
    "firmware_bridge.hub",
    "firmware_bridge.pn532",
    "firmware_bridge.line_reader",
    "firmware_bridge.emulator.port",
    "firmware_bridge.emulator.hub",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
