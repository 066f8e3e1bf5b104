"""Device emulators: first-class backends that speak the real protocols over real ptys.

Like gpiozero's mock pins, these are not test hacks: the demo runs on them,
the tests and benchmarks drive them, and a developer without hardware uses
them to try the service. Each one appears at a stable path (``.link``) the
way ``/dev/serial/by-id/…`` does, and can be unplugged and plugged back.
"""

from firmware_bridge.emulator.device import EmulatedDevice
from firmware_bridge.emulator.hub import HubEmulator, VirtualReader
from firmware_bridge.emulator.line import LineReaderEmulator
from firmware_bridge.emulator.pn532 import PN532Emulator
from firmware_bridge.emulator.port import VirtualPort

__all__ = [
    "EmulatedDevice",
    "HubEmulator",
    "LineReaderEmulator",
    "PN532Emulator",
    "VirtualPort",
    "VirtualReader",
]
