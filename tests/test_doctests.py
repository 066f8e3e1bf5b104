"""Every docstring example in the Python packages runs, and stays true (issue 18 item 4).

One walk over the packages instead of hand-kept module lists: a module added
tomorrow has its examples run without anybody remembering to list it. The
examples run from the project root (they name ``examples/table.toml``).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from tests.harness import ROOT

PACKAGES = ("settings", "engine", "firmware_bridge", "tags", "hardware", "display", "companion")
#: not importable on the host: MicroPython's firmware for the hub; ``__main__`` runs a CLI
SKIPPED = ("firmware_bridge.firmware",)


def _modules() -> list[str]:
    names: list[str] = []
    for package in PACKAGES:
        names.append(package)
        path = importlib.import_module(package).__path__
        for info in pkgutil.walk_packages(path, f"{package}."):
            if info.name.startswith(SKIPPED) or info.name.rpartition(".")[2] == "__main__":
                continue
            names.append(info.name)
    return sorted(names)


MODULES = _modules()


def test_the_walk_finds_the_packages_modules() -> None:
    # a walk that found nothing would pass every example it did not see
    assert len(MODULES) > 100
    assert {"engine.apply", "hardware.wheel", "companion.mqtt.bridge"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.failed == 0, f"{name}: {result.failed} docstring example(s) failed (see above)"
    source = Path(inspect.getfile(module)).read_text(encoding="utf-8")
    if ">>>" in source:
        # examples written but none run (all skipped, or not in a docstring): run one
        assert result.attempted > 0, f"{name} shows examples but none of them runs"
