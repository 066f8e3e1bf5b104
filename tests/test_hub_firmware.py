"""The hub firmware with its hardware stood in: MFRC522 driver, main loop, watchdog.

``tests/firmware_standins`` holds a stand-in ``machine`` (pins, an SPI bus that
routes by chip select, a WDT), ``utime``, ``micropython``, and a register-level
MFRC522 + ISO/IEC 14443-3 card model. The same stand-ins run the firmware
under CPython and under a real MicroPython.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.emulator import VirtualPort
from firmware_bridge.firmware.hubcore import COLLISION, NOISE
from firmware_bridge.firmware.mfrc522 import MFRC522, crc_a
from firmware_bridge.hub import HubReader
from tests.serial_support import Events, brief, run_micropython

STANDINS = Path(__file__).parent / "firmware_standins"
UID4 = bytes.fromhex("04A1B2C3")
UID7 = bytes.fromhex("04A1B2C3D4E5F6")
UID10 = bytes.fromhex("0102030405060708090A")


@pytest.fixture
def hw(monkeypatch):
    """The stand-in hardware modules, importable as MicroPython names."""
    monkeypatch.syspath_prepend(str(STANDINS))
    names = ("machine", "utime", "micropython", "mfrc522_model", "firmware_bridge.firmware.main")
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    import machine
    import mfrc522_model

    machine.reset_all()
    import firmware_bridge.firmware.main as main

    yield SimpleNamespace(machine=machine, model=mfrc522_model, main=main)
    for name in names:
        sys.modules.pop(name, None)


def reader_on_bus(hw, cs=17):
    chip = hw.model.MFRC522Model()
    hw.machine.attach(cs, chip)
    spi = hw.machine.SPI(0)
    reader = MFRC522(spi, hw.machine.Pin(cs, hw.machine.Pin.OUT))
    reader.reset()
    return reader, chip


def test_crc_a_matches_iso_14443_3_examples():
    # ISO/IEC 14443-3 Annex B: CRC_A of 00 00 is A0 1E, of 12 34 is 26 CF; HLTA is 50 00 57 CD
    assert bytes(crc_a(b"\x00\x00")) == b"\xa0\x1e"
    assert bytes(crc_a(b"\x12\x34")) == b"\x26\xcf"
    assert bytes(crc_a(b"\x50\x00")) == b"\x57\xcd"


@pytest.mark.parametrize("uid", [UID4, UID7, UID10], ids=["single", "double", "triple"])
def test_driver_reads_uids_of_every_cascade_level(hw, uid):
    reader, chip = reader_on_bus(hw)
    assert reader.poll() is None
    chip.lay(uid)
    assert reader.poll() == uid


def test_a_card_lying_still_answers_every_poll_because_the_driver_halts_it(hw):
    """DESIGN: a card left on an MFRC522 makes naive polls alternate; WUPA + HLTA fixes it."""
    reader, chip = reader_on_bus(hw)
    chip.lay(UID7)
    assert [reader.poll() for _ in range(50)] == [UID7] * 50

    class NoHalt(MFRC522):
        def _halt(self):
            pass

    careless = NoHalt(reader.spi, reader.cs)
    results = [careless.poll() for _ in range(50)]
    assert results.count(None) == 25, "the model should show the alternation the driver avoids"


def test_collision_garble_and_a_dead_chip(hw):
    reader, chip = reader_on_bus(hw)
    chip.lay(UID4)
    chip.lay(bytes.fromhex("08112233"))
    assert reader.poll() == COLLISION
    chip.lift()
    chip.lay(UID4)
    chip.garble = 1
    assert reader.poll() == NOISE
    assert reader.poll() == UID4
    chip.dead = True
    with pytest.raises(OSError, match="never finished a transceive"):
        reader.poll()
    with pytest.raises(OSError, match="VersionReg reads 0x00"):
        reader.reset()


def test_chips_on_one_bus_are_told_apart_by_chip_select(hw):
    r0, _c0 = reader_on_bus(hw, cs=17)
    r1, c1 = reader_on_bus(hw, cs=20)
    c1.lay(UID10)
    assert (r0.poll(), r1.poll()) == (None, UID10)


class Capture:
    def __init__(self):
        self.out = bytearray()
        self.incoming = bytearray()

    def read(self):
        data = bytes(self.incoming)
        self.incoming.clear()
        return data

    def write(self, frame):
        self.out.extend(frame)


def chips_for(hw, config):
    chips = []
    for cs in config["cs"]:
        chip = hw.model.MFRC522Model()
        hw.machine.attach(cs, chip)
        chips.append(chip)
    return chips


def test_main_loop_reports_tags_feeds_the_watchdog_and_tells_of_a_watchdog_reset(hw):
    config = dict(hw.main.CONFIG, leds=(2, 3, 4, 5), buzzer=6)
    chips = chips_for(hw, config)
    chips[3].dead = True
    hw.machine.RESET_CAUSE = hw.machine.WDT_RESET
    chips[1].lay(UID7)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=2000, loops=12)
    link.incoming += p.encode_frame(p.FEEDBACK, 0, p.feedback_payload(2, p.LED_ON, 0))
    chips[1].lift()
    hw.main.run(hub, transport, feedback, watchdog_ms=2000, loops=16)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    names = [n for n, _ in frames]
    assert names[:5] == ["hello", "inventory", "inventory", "inventory", "inventory"]
    hello = p.parse_hello(frames[0][1])
    assert hello[2:5] == (4, p.FEATURE_LED | p.FEATURE_BUZZER, 1000)
    assert hello[5] == "PICO-E6614C3A12345678"
    assert p.parse_inventory(frames[2][1]) == (1, p.CHANNEL_OK, UID7)
    assert p.parse_inventory(frames[4][1])[:2] == (3, p.CHANNEL_FAULT)
    errors = [p.parse_error(pl)[:2] for n, pl in frames if n == "error"]
    assert (p.ERR_WATCHDOG_RESET, p.NO_CHANNEL) in errors
    assert (p.ERR_READER_FAULT, 3) in errors
    assert ("removed", p.tag_payload(1, UID7)) in frames
    assert ("ack", p.ack_payload(p.FEEDBACK, 0, p.ACK_OK)) in frames
    assert hw.machine.Pin(4).value() == 1  # channel 2's LED
    assert hw.machine.watchdogs[-1].fed == 16


def test_firmware_main_loop_over_a_real_pty_to_the_host_bridge(hw, tmp_path):
    """The whole chain: card model → MFRC522 driver → hubcore → pty → HubReader → TagEvent."""
    config = dict(hw.main.CONFIG, heartbeat_ms=200)
    chips = chips_for(hw, config)
    port = VirtualPort(tmp_path / "by-id" / "usb-MicroPython_Board_in_FS_mode_E6614C-if00")
    port.plug()

    class PtyTransport:
        def read(self):
            return port.read()

        def write(self, frame):
            port.write(frame)

    hub, transport, feedback = hw.main.build(config, transport=PtyTransport())
    stop = threading.Event()

    def firmware():
        while not stop.is_set():
            port.wait_readable(0.002)
            hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=1)

    t = threading.Thread(target=firmware, daemon=True)
    t.start()
    events = Events()
    try:
        with HubReader(str(port.link), sink=events.queue) as r:
            assert r.wait_online(3)
            assert r.info is not None and r.info.hub_id.startswith("PICO-")
            chips[2].lay(UID10)
            assert brief([events.next()]) == [(2, UID10.hex().upper(), "present")]
            chips[2].lift()
            assert brief([events.next()]) == [(2, UID10.hex().upper(), "removed")]
            assert r.stats.bad_frames == 0
    finally:
        stop.set()
        t.join()
        port.close()


MICROPYTHON_MAIN = """
import machine
import mfrc522_model
import main
import protocol as p

config = dict(main.CONFIG)
chips = []
for cs in config["cs"]:
    chip = mfrc522_model.MFRC522Model()
    machine.attach(cs, chip)
    chips.append(chip)
chips[0].lay(bytes([4, 0xA1, 0xB2, 0xC3]))

class Capture:
    def __init__(self):
        self.out = bytearray()
    def read(self):
        return b""
    def write(self, frame):
        self.out.extend(frame)

link = Capture()
hub, transport, feedback = main.build(config, transport=link)
main.run(hub, transport, feedback, loops=12)
chips[0].lift()
chips[2].lay(bytes([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
main.run(hub, transport, feedback, loops=16)
print(bytes(link.out).hex())
"""


def test_the_firmware_runs_under_a_real_micropython():
    """main.py + mfrc522.py + hubcore.py + protocol.py in MicroPython, hardware stood in."""
    main_py = STANDINS.parent.parent / "firmware_bridge" / "firmware" / "main.py"
    extra = [main_py, STANDINS / "machine.py", STANDINS / "mfrc522_model.py"]
    out = run_micropython(MICROPYTHON_MAIN, extra).strip().splitlines()[-1]
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes.fromhex(out))]
    assert [n for n, _ in frames][:5] == [
        "hello",
        "inventory",
        "inventory",
        "inventory",
        "inventory",
    ]
    assert p.parse_inventory(frames[1][1]) == (0, p.CHANNEL_OK, UID4)
    assert ("removed", p.tag_payload(0, UID4)) in frames
    assert ("present", p.tag_payload(2, UID10)) in frames
