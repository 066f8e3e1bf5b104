"""One health check's finding, for ``rhuna-table doctor``: every part's checks yield these.

Each part checks its own devices beside its code (``firmware_bridge/health.py``,
``display/health.py``, ``hardware/health.py``, ``companion/mqtt/health.py``), and
:mod:`companion.ops.doctor` only runs them and prints the lines.

>>> print(Check("spi", False, "SPI is off", "add dtparam=spi=on, reboot").line())
✗ spi: SPI is off — fix: add dtparam=spi=on, reboot
>>> print(Check("spi", True, "dtparam=spi=on").line())
✓ spi: dtparam=spi=on
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: ``ok`` or not, what was found, and (when not ok) what to do."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        text = f"{mark} {self.name}: {self.detail}"
        return text if self.ok or not self.fix else f"{text} — fix: {self.fix}"


#: what a part's check gives: zero or more findings, in the order doctor prints them
Checks = Iterator[Check]
