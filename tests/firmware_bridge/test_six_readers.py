"""Six readers by default (issue 30, item 2): the firmware, the emulators and the example agree."""

from __future__ import annotations

import re
import tomllib

from firmware_bridge.config import BACKEND_KEYS
from firmware_bridge.emulator import HubEmulator
from tests.harness import ROOT


def firmware_channels() -> int:
    text = (ROOT / "firmware_bridge" / "firmware" / "hubmain.py").read_text()
    found = re.search(r'"channels":\s*(\d+)', text)
    assert found, "hubmain.py CONFIG has no channels"
    return int(found.group(1))


def test_the_emulators_default_to_the_firmwares_channels():
    channels = firmware_channels()
    assert channels == 6
    assert len(HubEmulator().readers) == channels
    assert BACKEND_KEYS["emulated-hub"]["channels"].default == channels
    emulated = tomllib.loads((ROOT / "examples" / "rhuna-emulated.toml").read_text())
    assert [r.get("channels") for r in emulated["readers"]] == [channels]


def test_the_example_config_gives_roles_only_to_channels_the_hub_has():
    example = tomllib.loads((ROOT / "examples" / "rhuna.toml").read_text())
    (hub,) = [r for r in example["readers"] if r["backend"] == "hub"]
    assert max(int(ch) for ch in hub["roles"]) < firmware_channels()
    # MicroPython writes the by-id serial in lowercase hex (shared/tinyusb/mp_usbd.c)
    serial = hub["port"].split("_FS_mode_")[1].removesuffix("-if00")
    assert serial == serial.lower()
