"""The pins' health checks for ``rhuna-table doctor`` (docs/hardware.md, "doctor").

* the pin plan (:mod:`hardware.pins`): no switch on a pin the panel, SPI or the UART holds;
* the Pi's 3.3 V pin (pins 1 and 17): a PN532 on the header UART is fed from it, its draw
  against what the pin gives (issue 44, D12);
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
    """The pin plan's checks, then the header's 3.3 V pin (:func:`pi_3v3`): its power pins are
    in the plan too."""
    readers = list(readers)
    yield from _switches(gpio, driver, readers)
    yield from pi_3v3(readers)


def _switches(gpio: GpioConfig | None, driver: str, readers: list[SerialPort]) -> Checks:
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


#: a PN532 breakout, reading / at most (mA): ITEAD Studio's "PN532 NFC Module" specifications
#: (working current 120 mA reading or writing, 100 mA standby; maximum supply current 150 mA)
PN532_MA = (120, 150)
#: what the Pi's 3.3 V pins give, from a Model B+ on (a switching regulator): 500 mA "to remain
#: on the safe side" (pinout.xyz, pin 1 "3v3 Power")
PI_3V3_MA = 500


def pi_3v3(readers: Iterable[SerialPort]) -> Checks:
    """Each PN532 on the header UART is wired to the Pi's 3.3 V pin (docs/hardware.md, the
    wiring): its draw against what that pin gives. Nothing on it: no check."""
    from hardware.pins import header_uart_wanted

    n = sum(1 for r in readers if header_uart_wanted([r]))
    if not n:
        return
    typ, most = n * PN532_MA[0], n * PN532_MA[1]
    detail = (
        f"{n} PN532 on the Pi's 3.3 V pin (17) draw ≈{typ} mA reading, at most {most} mA"
        f" (ITEAD's PN532 module: {PN532_MA[0]}/{PN532_MA[1]} mA); the pin gives up to"
        f" {PI_3V3_MA} mA (pinout.xyz)"
    )
    if most <= PI_3V3_MA:
        yield Check("pi 3v3 power", True, detail)
    else:
        yield Check(
            "pi 3v3 power",
            False,
            detail,
            "feed the PN532s from their own 3.3 V regulator (≥ 500 mA, fed from the Pi's 5 V"
            " pin; GND common with the Pi), not the Pi's 3.3 V pin",
        )


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
