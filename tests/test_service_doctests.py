"""The runnable examples in the service's docstrings stay true (run from the project root)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.conftest import ROOT

MODULES = [
    "companion.store",
    "companion.config",
    "companion.command_source",
    "companion.sdnotify",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name examples/table.toml
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
