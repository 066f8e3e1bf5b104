"""The pins' health checks for ``rhuna-table doctor`` (docs/hardware.md, "doctor").

* the pin plan (:mod:`hardware.pins`): no switch on a pin the panel, SPI or the UART holds;
* the gpiozero pin factory starts (lgpio on a Pi 5).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from hardware.config import GpioConfig
from settings.checks import Check, Checks
from settings.errors import ConfigError


class SerialPort(Protocol):
    """What the pin plan reads of a ``[[readers]]`` entry: a PN532 on the header holds the UART."""

    @property
    def backend(self) -> str: ...
    @property
    def port(self) -> str | None: ...


def layout(gpio: GpioConfig | None, driver: str, readers: Iterable[SerialPort]) -> Checks:
    from hardware.pins import conflicts, header_uart_wanted, label, wired

    uart = header_uart_wanted(readers)
    clashes = conflicts(gpio, driver, uart)
    if clashes:  # check-config refuses these too; kept for a config loaded another way
        for c in clashes:
            yield Check("pins", False, f"{c.key}: {c.problem}", c.fix)
        return
    mine = wired(gpio)
    if not mine:
        yield Check("pins", True, "no wheel or buttons ([gpio] enabled = false)")
        return
    held = f"the {driver} panel" + (" and the UART" if uart else "")
    pins = ", ".join(label(n) for _, n in mine)
    yield Check("pins", True, f"{len(mine)} switches, each its own pin, clear of {held}: {pins}")


def pin_factory(gpio: GpioConfig | None, is_pi5: bool) -> Checks:
    if gpio is None:
        yield Check("pin factory", True, "not needed ([gpio] enabled = false)")
        return
    from hardware.controls import make_pin_factory

    name = gpio.pin_factory
    if is_pi5 and name not in (None, "lgpio", "mock"):
        yield Check(
            "pin factory",
            False,
            f"{name} does not work on a Pi 5 (its edge detection fails there)",
            'pin_factory = "lgpio" in [gpio] (apt install python3-lgpio)',
        )
        return
    try:
        factory = make_pin_factory(name)
        if factory is None:
            from gpiozero import Device  # type: ignore[import-untyped]

            factory = Device._default_pin_factory()
    except ConfigError as e:
        yield Check(
            "pin factory",
            False,
            str(e).split(" — ")[0],
            'apt install python3-lgpio; pin_factory = "lgpio" in [gpio]',
        )
        return
    except Exception as e:  # gpiozero's own "no pin factory could be loaded"
        yield Check(
            "pin factory",
            False,
            f"gpiozero found no working pin factory ({type(e).__name__}: {e})",
            'apt install python3-lgpio; pin_factory = "lgpio" in [gpio]',
        )
        return
    kind = type(factory).__name__
    factory.close()
    yield Check("pin factory", True, f"{kind} starts")
