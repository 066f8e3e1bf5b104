r"""One pin plan for the Pi's 40-pin header: what the panel, the UART, SPI and I²C hold, and the rest.

The panel's pins are the vendors' own (a HAT sits on all 40 pins, so they are
taken whether the table uses them or not):

* Pimoroni Inky pHAT / wHAT, ``pimoroni/inky`` ``inky/inky.py``: ``RESET_PIN = 27``
  (pin 13), ``BUSY_PIN = 17`` (pin 11), ``DC_PIN = 22`` (pin 15), ``MOSI_PIN = 10``,
  ``SCLK_PIN = 11``, ``CS0_PIN = 8``; its EEPROM on I²C (GPIO2/3, ``inky/eeprom.py``).
* Waveshare e-Paper HAT, ``waveshareteam/e-Paper``
  ``RaspberryPi_JetsonNano/python/lib/waveshare_epd/epdconfig.py``: ``RST_PIN = 17``,
  ``DC_PIN = 25``, ``CS_PIN = 8``, ``BUSY_PIN = 24``, ``PWR_PIN = 18``, ``MOSI_PIN = 10``,
  ``SCLK_PIN = 11``.

With ``dtparam=spi=on`` the kernel's SPI0 takes GPIO 9–11 and its chip selects
GPIO 7 and 8 (``dtoverlay=spi0-0cs``, which an Inky needs, gives both back; inky
then drives GPIO8 itself). The header UART is GPIO14 (TX, pin 8) and GPIO15 (RX,
pin 10) on every model (Raspberry Pi documentation, "Configure UARTs").

:func:`conflicts` is what ``check-config`` and ``doctor`` both ask:

>>> from hardware.config import GpioConfig
>>> gpio = GpioConfig.from_toml_text("[gpio.buttons]\nresolve = 17\nundo = false")
>>> print(*conflicts(gpio, "inky", uart=False))
gpio.buttons.resolve: GPIO17 (pin 11) is the Inky HAT's BUSY line — move it to a free GPIO, e.g. GPIO12 (pin 32), ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: the 40-pin header: physical pin → BCM GPIO (None: power, ground or the HAT EEPROM's ID pins)
HEADER: dict[int, int | None] = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24,
    19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19,
    36: 16, 37: 26, 38: 20, 40: 21,
}  # fmt: skip
#: BCM GPIO → physical pin
PHYSICAL: dict[int, int] = {gpio: pin for pin, gpio in HEADER.items() if gpio is not None}

#: what each supported panel holds: GPIO → its use, as the vendor's driver names it
PANELS: dict[str, dict[int, str]] = {
    "inky": {
        2: "I²C SDA (its EEPROM)",
        3: "I²C SCL (its EEPROM)",
        8: "SPI CS0 (driven by inky)",
        10: "SPI MOSI",
        11: "SPI SCLK",
        17: "BUSY line",
        22: "DC line",
        27: "RESET line",
    },
    "waveshare": {
        8: "SPI CE0",
        10: "SPI MOSI (DIN)",
        11: "SPI SCLK (CLK)",
        17: "RST line",
        18: "PWR line",
        24: "BUSY line",
        25: "DC line",
    },
    "png": {},
    "none": {},
}
PANEL_NAMES = {"inky": "Inky HAT", "waveshare": "Waveshare e-Paper HAT"}

#: the kernel's SPI0 once dtparam=spi=on (7 and 8: its chip selects, unless spi0-0cs)
SPI0 = {9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK", 8: "SPI0 CE0", 7: "SPI0 CE1"}
#: the header UART (a PN532 in HSU mode on /dev/ttyAMA0 or /dev/ttyS0)
UART = {14: "UART TXD", 15: "UART RXD"}


@dataclass(frozen=True, slots=True)
class Clash:
    """One pin wanted by two things: the config key, why, and the fix (the checker's shape)."""

    key: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.key}: {self.problem} — {self.fix}"


def gpio_of(pin: Any) -> int | None:
    """A pin as gpiozero takes it (16, "GPIO16", "BCM16", "BOARD36", "J8:36") as its BCM number.

    >>> gpio_of(16), gpio_of("BOARD36"), gpio_of("J8:36"), gpio_of("board1"), gpio_of("WPI3")
    (16, 16, 16, None, None)
    """
    if isinstance(pin, int) and not isinstance(pin, bool):
        return pin
    if not isinstance(pin, str):
        return None
    m = re.match(r"^(?:GPIO|BCM)(\d+)$", pin.strip(), re.IGNORECASE)
    if m:
        return int(m.group(1))
    m = re.match(r"^(?:BOARD|J8:)(\d+)$", pin.strip(), re.IGNORECASE)
    if m:
        return HEADER.get(int(m.group(1)))
    return None


def label(gpio: int) -> str:
    """``GPIO17 (pin 11)``."""
    where = PHYSICAL.get(gpio)
    return f"GPIO{gpio} (pin {where})" if where else f"GPIO{gpio}"


def wired(gpio: Any) -> list[tuple[str, int]]:
    """The ``[gpio]`` pins of a :class:`hardware.config.GpioConfig`: (config key, BCM GPIO)."""
    if gpio is None:
        return []
    found: list[tuple[str, Any]] = [
        ("gpio.encoder.a", gpio.encoder_a),
        ("gpio.encoder.b", gpio.encoder_b),
        ("gpio.encoder.push", gpio.encoder_push),
        *((f"gpio.buttons.{name}", b.pin) for name, b in gpio.buttons.items()),
    ]
    return [(key, n) for key, pin in found if (n := gpio_of(pin)) is not None]


def taken(driver: str, uart: bool) -> dict[int, str]:
    """GPIO → who holds it (the panel, SPI, the UART), before the wheel and buttons."""
    held: dict[int, str] = {}
    if uart:
        held.update({g: f"the {use} (a PN532 on the header UART)" for g, use in UART.items()})
    if driver in ("inky", "waveshare"):
        spi = dict(SPI0)
        if driver == "inky":  # dtoverlay=spi0-0cs: CE0/CE1 are GPIOs again, inky drives GPIO8
            del spi[7], spi[8]
        held.update({g: f"the kernel's {use} (dtparam=spi=on)" for g, use in spi.items()})
        name = PANEL_NAMES[driver]
        held.update({g: f"the {name}'s {use}" for g, use in PANELS[driver].items()})
    return held


def free_pins(driver: str, uart: bool) -> list[int]:
    """Header GPIOs nothing holds, for the fix text (those of no bus at all first)."""
    held = taken(driver, uart)
    buses = {2, 3, 7, 8, 9, 10, 11, 14, 15}
    return sorted((g for g in PHYSICAL if g not in held), key=lambda g: (g in buses, g))


def conflicts(gpio: Any, driver: str, uart: bool) -> list[Clash]:
    """Every pin the wheel or a button shares with another switch, the panel, SPI or the UART."""
    held = taken(driver, uart)
    out: list[Clash] = []
    mine: dict[int, str] = {}
    pins = wired(gpio)
    spare = [g for g in free_pins(driver, uart) if g not in {n for _, n in pins}]
    for key, n in pins:
        fix = f"move it to a free GPIO, e.g. {', '.join(label(g) for g in spare[:3])}"
        if n in mine:
            out.append(Clash(key, f"{label(n)} is also {mine[n]}", fix))
        elif n in held:
            out.append(Clash(key, f"{label(n)} is {held[n]}", fix))
        mine.setdefault(n, key)
    return out


def header_uart_wanted(readers: Any) -> bool:
    """A PN532 whose port is the Pi's own UART (not a USB adapter)."""
    return any(r.backend == "pn532" and (r.port or "") in HEADER_UART_PORTS for r in readers)


HEADER_UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
