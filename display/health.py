"""The panel's health checks for ``rhuna-table doctor`` (docs/hardware.md, "doctor").

* SPI is on, with the overlay the chosen panel needs (Inky: ``dtoverlay=spi0-0cs``,
  as inky 2.x drives GPIO8 itself; Waveshare: without it, the kernel drives CE0), and
  I2C for the Inky's EEPROM;
* the panel is detected (an Inky's EEPROM) or its model is set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from display.config import DisplayConfig
from settings.checks import Check, Checks
from settings.machine import Machine


def spi(driver: str, machine: Machine) -> Checks:
    if driver not in ("inky", "waveshare"):
        yield Check("spi", True, f"not needed (display driver {driver})")
        return
    if not machine.board().is_pi:
        yield Check("spi", True, "not checked (not a Raspberry Pi)")
        return
    where, boot = machine.config_txt()
    if not boot.on("spi"):
        yield Check(
            "spi",
            False,
            f"SPI is off ({where} has no dtparam=spi=on)",
            f"add dtparam=spi=on to {where} (or raspi-config: Interface Options > SPI), reboot",
        )
        return
    if driver == "inky" and "spi0-0cs" not in boot.overlays:
        yield Check(
            "spi",
            False,
            "SPI is on, but the kernel holds GPIO8 as its chip select; inky 2.x needs it",
            f"add dtoverlay=spi0-0cs to {where} and reboot",
        )
    elif driver == "waveshare" and "spi0-0cs" in boot.overlays:
        yield Check(
            "spi",
            False,
            "dtoverlay=spi0-0cs removes the chip select the Waveshare HAT uses (CE0)",
            f"remove dtoverlay=spi0-0cs from {where} and reboot",
        )
    elif not machine.path("/dev/spidev0.0").exists():
        yield Check(
            "spi",
            False,
            f"{where} turns SPI on but /dev/spidev0.0 is missing",
            "reboot after changing config.txt",
        )
    else:
        overlay = " + dtoverlay=spi0-0cs" if driver == "inky" else ""
        yield Check("spi", True, f"dtparam=spi=on{overlay}, /dev/spidev0.0 present")
    if driver == "inky":
        if not boot.on("i2c_arm") or not machine.path("/dev/i2c-1").exists():
            yield Check(
                "i2c",
                False,
                "I2C is off: the Inky's EEPROM (its size and colour) cannot be read",
                f"add dtparam=i2c_arm=on to {where} and reboot",
            )
        else:
            yield Check("i2c", True, "dtparam=i2c_arm=on, /dev/i2c-1 present")


def panel(display: DisplayConfig, inky_eeprom: Callable[[], Any] | None = None) -> Checks:
    """``inky_eeprom`` reads the Inky's EEPROM (its variant, or None); default: the real one."""
    if display.driver == "png":
        yield Check("panel", True, "png: frames are written as files, nothing to detect")
    elif display.driver == "waveshare":
        model = display.options.get("model")
        yield Check("panel", True, f"Waveshare {model} (set in config: these cannot be detected)")
    else:
        read = inky_eeprom or _read_inky_eeprom
        try:
            found = read()
        except Exception as e:  # smbus2 missing, the bus absent: said, not raised
            found, why = None, f"{type(e).__name__}: {e}"
        else:
            why = "no answer at I2C address 0x50"
        if found is None:
            yield Check(
                "panel",
                False,
                f"no Inky EEPROM found ({why})",
                "seat the HAT on all 40 pins, turn I2C on (dtparam=i2c_arm=on), and check"
                " `i2cdetect -y 1` shows 50",
            )
        else:
            yield Check("panel", True, f"Inky detected: {found}")


def _read_inky_eeprom() -> Any:
    from inky.eeprom import read_eeprom  # type: ignore[import-not-found,import-untyped,unused-ignore]

    found = read_eeprom()
    return None if found is None else found.get_variant()
