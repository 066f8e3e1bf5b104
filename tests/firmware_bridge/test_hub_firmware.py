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
from firmware_bridge.firmware.hubcore import COLLISION, NOISE, TWO_TAGS, TWO_TAGS_TEXT
from firmware_bridge.firmware.mfrc522 import MFRC522, crc_a
from firmware_bridge.hub import HubReader
from tests.harness import ROOT, WAIT
from tests.harness.readers import Events, brief, run_micropython

STANDINS = Path(__file__).parent / "firmware_standins"
UID4 = bytes.fromhex("04A1B2C3")
UID7 = bytes.fromhex("04A1B2C3D4E5F6")
UID10 = bytes.fromhex("0102030405060708090A")


@pytest.fixture
def hw(monkeypatch, tmp_path):
    """The stand-in hardware modules, importable as MicroPython names; the board's flash is tmp_path."""
    monkeypatch.syspath_prepend(str(STANDINS))
    monkeypatch.chdir(tmp_path)
    names = ("machine", "utime", "micropython", "rp2", "mfrc522_model")
    names += ("firmware_bridge.firmware.mfrc522", "firmware_bridge.firmware.hubmain")
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    import machine
    import mfrc522_model

    machine.reset_all()
    import firmware_bridge.firmware.hubmain as main
    import firmware_bridge.firmware.mfrc522 as driver

    yield SimpleNamespace(machine=machine, model=mfrc522_model, main=main, driver=driver)
    for name in names:
        sys.modules.pop(name, None)


def reader_on_bus(hw, cs=17):
    chip = hw.model.MFRC522Model()
    hw.machine.attach(cs, chip)
    spi = hw.machine.SPI(0)
    reader = hw.driver.MFRC522(spi, hw.machine.Pin(cs, hw.machine.Pin.OUT, value=1))
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

    class NoHalt(MFRC522):  # and its field left on, or the card would start from IDLE each poll
        def _halt(self):
            pass

        def _another_card(self):  # its REQA would put the un-halted card back to IDLE
            return False

        def antenna_off(self):
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
    hw.machine.watchdog_timeout()
    chips[1].lay(UID7)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=2000, loops=12)
    link.incoming += p.encode_frame(p.FEEDBACK, 0, p.feedback_payload(2, p.LED_ON, 0))
    chips[1].lift()
    hw.main.run(hub, transport, feedback, watchdog_ms=2000, loops=16)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    names = [n for n, _ in frames]
    assert names[:7] == ["hello"] + ["inventory"] * 6
    hello = p.parse_hello(frames[0][1])
    assert hello[2:5] == (6, p.FEATURE_LED | p.FEATURE_BUZZER, 1000)  # six readers by default
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
    # the bridge's timers as a safety net only (see test_hub_bridge.PATIENT): on a loaded
    # machine this firmware thread can miss three 200 ms heartbeats, a reconnect not asked for
    patient = {"lost_after": WAIT, "hello_timeout": WAIT, "command_timeout": WAIT}
    try:
        with HubReader(str(port.link), sink=events.queue, **patient) as r:
            assert r.wait_online(WAIT)
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
import hubmain as main
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
print("fields", mfrc522_model.FIELD_VIOLATIONS[0], max(c.early_reads for c in chips))
print(bytes(link.out).hex())
"""


def test_the_firmware_runs_under_a_real_micropython():
    """main.py + mfrc522.py + hubcore.py + protocol.py in MicroPython, hardware stood in."""
    main_py = ROOT / "firmware_bridge" / "firmware" / "hubmain.py"
    extra = [main_py, STANDINS / "machine.py", STANDINS / "mfrc522_model.py"]
    lines = run_micropython(MICROPYTHON_MAIN, extra).strip().splitlines()
    assert lines[-2] == "fields 0 0"  # one field at a time; PowerDown read 50 ms after SoftReset
    out = lines[-1]
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes.fromhex(out))]
    assert [n for n, _ in frames][:7] == ["hello"] + ["inventory"] * 6
    assert p.parse_hello(frames[0][1])[2] == 6
    assert p.parse_inventory(frames[1][1]) == (0, p.CHANNEL_OK, UID4)
    assert ("removed", p.tag_payload(0, UID4)) in frames
    assert ("present", p.tag_payload(2, UID10)) in frames


# -- issue 14: what a real bus and real clone boards do ---------------------------------------


@pytest.mark.parametrize("version", [0x91, 0x92, 0x88, 0x12, 0x82, 0x80, 0x89, 0xB2])
def test_clone_boards_with_any_version_register_work_and_the_host_hears_the_version(hw, version):
    """Working clones report VersionReg 0x82, 0x80, 0x89, 0xB2 …: only 0x00/0xFF mean no chip."""
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    chip = hw.model.MFRC522Model(version=version)
    hw.machine.attach(17, chip)
    chip.lay(UID4)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=3)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    inventory = [pl for n, pl in frames if n == "inventory"]
    assert p.parse_inventory(inventory[0]) == (0, p.CHANNEL_OK, UID4)
    assert p.inventory_chip(inventory[0]) == version


def test_a_missing_reader_whose_miso_floats_high_is_a_fault_not_a_collision(hw):
    """MISO pulled high reads 0xFF everywhere; ErrorReg 0xFF would otherwise say CollErr forever."""
    reader, chip = reader_on_bus(hw)
    chip.miso_high = True
    with pytest.raises(OSError, match="0xFF"):
        reader.poll()
    with pytest.raises(OSError, match="VersionReg reads 0xFF: MISO floats high"):
        reader.reset()


def test_a_floating_reader_on_the_hub_is_reported_as_a_reader_fault(hw):
    config = dict(hw.main.CONFIG, channels=2, cs=(17, 20))
    chips = chips_for(hw, config)
    chips[1].miso_high = True
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=12)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    errors = [p.parse_error(pl) for n, pl in frames if n == "error"]
    assert [e[:2] for e in errors] == [(p.ERR_READER_FAULT, 1)], errors
    assert "reset failed 3x" in errors[0][2]
    assert p.parse_inventory([pl for n, pl in frames if n == "inventory"][1])[1] == p.CHANNEL_FAULT
    assert not any(n == "error" and p.parse_error(pl)[0] == p.ERR_COLLISION for n, pl in frames)


def test_a_reset_that_fails_at_boot_is_retried(hw):
    """The first reset after power-up finds no chip (it is still powering up); the retry does."""
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))

    class LateChip(hw.model.MFRC522Model):
        def __init__(self):
            super().__init__()
            self.silent = 5  # transfers answered with a floating MISO

        def transfer(self, out):
            if self.silent:
                self.silent -= 1
                return b"\xff" * len(out)
            return super().transfer(out)

    hw.machine.attach(17, LateChip())
    link = Capture()
    hub, _transport, _feedback = hw.main.build(config, transport=link)
    assert hub.faulty == [False]
    assert hub.readers[0].version == 0x92


def test_every_chip_select_is_high_before_the_first_transfer(hw):
    """An RP2040 output starts low: readers not yet set up would share the bus with the first."""
    config = dict(hw.main.CONFIG)
    chips_for(hw, config)
    hw.main.build(config, transport=Capture())
    assert hw.machine.contended[0] == 0


def test_the_driver_waits_50_ms_after_a_soft_reset_before_reading_power_down(hw):
    """miguelbalboa/rfid PCD_Reset and ESPHome rc522: delay(50), then read CommandReg's PowerDown.

    The model keeps PowerDown set and drops writes for 50 ms after SoftReset, and counts every
    CommandReg read in that time: the driver makes none, and its configuration survives.
    """
    reader, chip = reader_on_bus(hw)
    assert chip.early_reads == 0
    assert chip.regs[0x11] == 0x3D  # ModeReg: CRC preset 0x6363, written after the start-up
    chip.lay(UID4)
    assert reader.poll() == UID4

    class Hasty(hw.driver.MFRC522):  # the old driver: CommandReg read at once, then configured
        STARTUP_MS = 0

    hasty = Hasty(reader.spi, reader.cs)
    hasty.reset()
    assert chip.early_reads > 0, "the model should see a look sooner than 50 ms"

    class Careless(hw.driver.MFRC522):  # older still: configured straight after the reset command
        def reset(self):
            self._w(hw.driver.COMMAND, hw.driver.CMD_SOFT_RESET)
            self._w(hw.driver.MODE, 0x3D)

    Careless(reader.spi, reader.cs).reset()
    assert chip.regs[0x11] != 0x3D, "the model should lose what is written while the chip starts"


def test_only_the_reader_being_polled_has_its_field_on(hw):
    """PCD_AntennaOn / PCD_AntennaOff around each poll: six readers, one field at a time."""
    config = dict(hw.main.CONFIG)
    chips = chips_for(hw, config)
    assert len(chips) == 6
    chips[0].lay(UID4)
    chips[5].lay(UID7)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=30)
    assert all(chip.transceives >= 5 for chip in chips)  # every reader was polled
    assert hub.present_mask() == 0b100001
    assert hw.model.FIELD_VIOLATIONS[0] == 0
    assert hw.model.FIELDS_ON == []  # and none left on between polls

    class AlwaysOn(hw.driver.MFRC522):  # the old driver: antenna on at reset, for good
        def antenna_off(self):
            pass

    for reader in hub.readers:
        reader.__class__ = AlwaysOn
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=12)
    assert hw.model.FIELD_VIOLATIONS[0] >= 5, "the model should count a second field"


def test_a_hung_transceive_is_bounded_in_milliseconds_not_in_spi_reads(hw):
    """A slow bus (1 ms a transfer) gives up after wait_ms, well inside the 2 s watchdog.

    The board's clock moves by the bus alone here (utime.hold_real_time), so the figure is a
    count of transfers: the same on a loaded host, where real time once added to it."""
    reader, chip = reader_on_bus(hw)
    hw.machine.SPI_MS = 1
    chip.hung = True
    utime = sys.modules["utime"]
    utime.hold_real_time()
    start = utime.ticks_ms()
    with pytest.raises(OSError, match="in 40 ms"):
        reader.poll()
    assert utime.ticks_diff(utime.ticks_ms(), start) < 500  # a loop of 2000 reads: 2000 ms


def test_a_plain_reset_is_not_reported_as_the_watchdog_even_though_boot_starts_one(hw):
    """boot() reads scratch[4] before machine.WDT writes WATCHDOG_NON_REBOOT_MAGIC there.

    pico-sdk hardware_watchdog/watchdog.c (8c6bb014), watchdog_enable; rp2 machine_wdt.c calls it.
    """
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    chips_for(hw, config)

    def boot_errors():
        link = Capture()
        hw.main.boot(config, transport=link, loops=4)
        frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
        return [p.parse_error(pl)[0] for n, pl in frames if n == "error"]

    hw.machine.WDT(timeout=2000)  # the hub ran, its watchdog on ...
    with pytest.raises(hw.machine.Reset):
        hw.machine.reset()  # ... then a deliberate reset (mpremote reset, machine.reset())
    assert boot_errors() == []
    hw.machine.watchdog_timeout()  # the loop hung
    assert boot_errors() == [p.ERR_WATCHDOG_RESET]


def test_a_watchdog_restart_is_reported_a_deliberate_one_is_not_and_a_crash_says_why(hw):
    """rp2: machine.reset() is a watchdog reboot too; the pico-sdk's scratch[4] tells them apart."""
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    chips_for(hw, config)

    def boot_errors():
        hub, _t, _f = hw.main.build(config, transport=Capture())
        return [(code, text) for code, _ch, text in hub._pending_errors]

    hw.machine.watchdog_timeout()  # the loop hung: the watchdog fired
    assert boot_errors() == [(p.ERR_WATCHDOG_RESET, "restarted by the watchdog")]
    hw.machine.WDT(timeout=2000)  # the hub runs, its watchdog on ...
    with pytest.raises(hw.machine.Reset):
        hw.machine.reset()  # ... and after flashing, mpremote reset: no note, no watchdog
    assert hw.machine.reset_cause() == hw.machine.WDT_RESET
    assert boot_errors() == []
    with pytest.raises(hw.machine.Reset):
        hw.main.restart()  # maintenance
    assert boot_errors() == []
    with pytest.raises(hw.machine.Reset):
        hw.main.restart("ZeroDivisionError: divide")
    assert boot_errors() == [(p.ERR_CRASH_RESTART, "restarted after ZeroDivisionError: divide")]


def test_main_py_turns_ctrl_c_off_first_and_restarts_on_any_exception(hw, monkeypatch):
    import runpy

    micropython = sys.modules.get("micropython") or __import__("micropython")
    calls = []
    monkeypatch.setattr(micropython, "kbd_intr", lambda c: calls.append(("kbd_intr", c)))
    monkeypatch.syspath_prepend(str(Path(hw.main.__file__).parent))

    def boot():
        calls.append(("boot",))
        raise KeyboardInterrupt  # a 0x03 that slipped in, or any bug

    monkeypatch.setitem(sys.modules, "hubmain", SimpleNamespace(boot=boot))
    with pytest.raises(hw.machine.Reset):
        runpy.run_path(str(Path(hw.main.__file__).parent / "main.py"))
    assert calls == [("kbd_intr", -1), ("boot",)]
    assert Path("restart.txt").read_text().startswith("KeyboardInterrupt")


def test_the_maintenance_command_acks_then_restarts_into_the_repl(hw, monkeypatch, capsys):
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    chips_for(hw, config)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=3)
    link.incoming += p.encode_frame(p.MAINTENANCE, 7)
    with pytest.raises(hw.machine.Reset):
        hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=1)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    assert frames[-1] == ("ack", p.ack_payload(p.MAINTENANCE, 7, p.ACK_OK))
    assert Path("maintenance.flag").exists()
    micropython = sys.modules["micropython"]
    import runpy

    monkeypatch.setitem(sys.modules, "hubmain", None)  # main.py decides before importing it
    runpy.run_path(str(Path(hw.main.__file__).parent / "main.py"))  # the next boot: the REPL
    assert "maintenance mode" in capsys.readouterr().out
    assert micropython.kbd_intr_char == 3
    assert hw.machine.watchdogs == []
    assert not Path("maintenance.flag").exists()


def test_bootsel_held_for_a_second_enters_maintenance_once_let_go(hw, monkeypatch):
    """Issue 44, D6: the hub used to reset as soon as it had seen BOOTSEL held for a second,
    with the button still down, and a reset with BOOTSEL held starts the RP2040's USB boot
    drive (datasheet 2.7.2), not main.py. Now the reset waits for the button to be let go;
    a press shorter than a second does nothing. The clock moves by bus transfers only."""
    import utime

    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    chips_for(hw, config)
    hub, transport, feedback = hw.main.build(config, transport=Capture())
    utime.hold_real_time()
    hw.machine.SPI_MS = 1  # the stand-in clock runs 1 ms a transfer: no real second to wait
    t0 = utime.ticks_ms()
    presses = ((200, 600), (1000, 3500))  # ms after t0: a short press, then 2.5 s held

    def held() -> bool:
        at = utime.ticks_diff(utime.ticks_ms(), t0)
        return any(start <= at < end for start, end in presses)

    entered: list[tuple[int, bool]] = []
    enter = hw.main.enter_maintenance

    def entering() -> None:
        entered.append((utime.ticks_diff(utime.ticks_ms(), t0), held()))
        enter()

    monkeypatch.setattr(hw.main, "_bootsel", held)
    monkeypatch.setattr(hw.main, "enter_maintenance", entering)
    with pytest.raises(hw.machine.Reset):
        hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=100_000)
    assert len(entered) == 1 and not entered[0][1], entered  # once, and let go by then
    assert entered[0][0] >= presses[1][1], entered  # not at the short press, nor while held
    assert Path("maintenance.flag").exists()


@pytest.mark.parametrize("frames", [1, 2, 3, 4, 5, 6])
def test_a_card_lifted_in_the_middle_of_a_cascade_is_never_a_partial_uid(hw, frames):
    """WUPA, then anticollision + SELECT per level: the card leaves after ``frames`` of them."""
    reader, chip = reader_on_bus(hw)
    chip.lay(UID10)
    chip.lift_after(frames)
    assert reader.poll() in (NOISE, None)
    assert reader.poll() is None


def test_the_hub_reports_a_card_lifted_mid_read_once_removed_and_nothing_else(hw):
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    (chip,) = chips_for(hw, config)
    chip.lay(UID7)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=4)
    chip.lift_after(2)  # gone after the WUPA and the first anticollision
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=6)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    tags = [(n, p.parse_tag(pl)) for n, pl in frames if n in ("present", "removed")]
    assert tags == [("removed", (0, UID7))]  # present came in the inventory
    assert p.parse_inventory(next(pl for n, pl in frames if n == "inventory"))[2] == UID7


def test_the_watchdog_runs_before_the_first_reader_is_touched_and_is_fed_through_the_resets(hw):
    """issue 14, 1.1: a reader that hangs the bus at boot restarts the board, too."""
    config = dict(hw.main.CONFIG, channels=2, cs=(17, 20))
    at_first_transfer = []

    class Watching(hw.model.MFRC522Model):
        def transfer(self, out):
            if not at_first_transfer:
                at_first_transfer.append(len(hw.machine.watchdogs))
            return super().transfer(out)

    hw.machine.attach(17, Watching())
    slow = hw.model.MFRC522Model()
    slow.miso_high = True  # every reset of this one fails: three tries
    hw.machine.attach(20, slow)
    hw.main.boot(config, transport=Capture(), loops=2)
    assert at_first_transfer == [1]
    assert len(hw.machine.watchdogs) == 1, "one watchdog, started once"
    assert hw.machine.watchdogs[0].fed == 1 + 3 + 2  # each reset try (1 and 3), each loop turn


def test_reqa_wakes_an_idle_card_but_not_a_halted_one_wupa_wakes_both(hw):
    """ISO/IEC 14443-3 type A state machine: a HALT card answers WUPA (0x52) only, an IDLE one REQA too."""
    reader, chip = reader_on_bus(hw)
    reqa, wupa = bytes((0x26,)), bytes((0x52,))
    reader.antenna_on()  # poll() does this itself; the bare exchanges below need it on
    chip.lay(UID4)  # entering the field: IDLE
    assert reader._transceive(reqa, last_bits=7) == (0, b"\x04\x00", 16)  # ATQA, single size
    chip.lift()
    chip.lay(UID4)
    assert reader._look() == UID4  # WUPA, select, then HLTA: the card is HALT
    assert reader._transceive(reqa, last_bits=7)[0] == 1  # timeout: a halted card ignores REQA
    assert reader._transceive(wupa, last_bits=7) == (0, b"\x04\x00", 16)


def test_a_second_token_in_a_well_is_one_notice_never_removed_then_drawn_again(hw):
    """issue 30: two tokens on one reader: a collision, told once, and no removal of the first."""
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    (chip,) = chips_for(hw, config)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=3)
    chip.lay(UID7)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=4)
    chip.lay(bytes.fromhex("04112233445566"))  # a second token beside the first
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=12)
    chip.lift(bytes.fromhex("04112233445566"))
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=6)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    said = [
        (n, p.parse_tag(pl) if n != "error" else p.parse_error(pl))
        for n, pl in frames
        if n in ("present", "removed", "error")
    ]
    assert said == [
        ("present", (0, UID7)),
        ("error", (p.ERR_COLLISION, 0, "one token per well: lift the extra token")),
        ("error", (p.ERR_COLLISION_CLEARED, 0, "one token again")),
    ]
    chip.lift()
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=4)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    assert frames[-1] == ("removed", p.tag_payload(0, UID7))


def test_collisions_and_misses_alternating_never_remove_a_present_tag():
    """A reader that alternates collision / timeout with two tokens on it (cards left READY)."""
    from firmware_bridge.firmware.hubcore import ChannelTracker

    tracker = ChannelTracker(present_hits=2, remove_misses=3)
    assert tracker.update(UID4) == []
    assert tracker.update(UID4) == [(p.PRESENT, UID4)]
    for _ in range(10):
        assert tracker.update(COLLISION) == []
        assert tracker.update(None) == []
    assert tracker.update(None) == []  # one timeout right after: still there
    assert tracker.update(UID4) == []
    assert [tracker.update(None) for _ in range(3)][-1] == [(p.REMOVED, UID4)]


# -- issue 43, item 2: two tokens in one well that do not collide --------------------------------

STRONG = bytes.fromhex("04112233445566")


def test_a_token_stacked_under_another_is_two_tags_not_the_stronger_one_alone(hw):
    """The capture effect: the nearer card drowns the other out, no CollErr; the REQA after
    the HLTA finds the other (a halted card ignores REQA, an IDLE one answers ATQA)."""
    reader, chip = reader_on_bus(hw)
    chip.lay(UID7, weak=True)
    chip.lay(STRONG)
    assert reader.poll() == TWO_TAGS  # on the old driver: STRONG, as if it lay there alone
    chip.lift(UID7)
    assert [reader.poll() for _ in range(5)] == [STRONG] * 5  # one card: no false alarm


def test_a_token_laid_over_the_drawn_one_never_replaces_it(hw):
    """Token A lies drawn; B, laid over it, is stronger: one collision notice (two or more
    tags), never REMOVED A then PRESENT B; B lifted: one token again, A still there."""
    config = dict(hw.main.CONFIG, channels=1, cs=(17,))
    (chip,) = chips_for(hw, config)
    link = Capture()
    hub, transport, feedback = hw.main.build(config, transport=link)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=3)
    first = chip.lay(UID7)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=4)
    first.weak = True  # the new token lies nearer the antenna
    chip.lay(STRONG)
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=12)
    chip.lift(STRONG)
    first.weak = False
    hw.main.run(hub, transport, feedback, watchdog_ms=0, loops=6)
    frames = [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(link.out))]
    said = [
        (n, p.parse_tag(pl) if n != "error" else p.parse_error(pl))
        for n, pl in frames
        if n in ("present", "removed", "error")
    ]
    assert said == [
        ("present", (0, UID7)),
        ("error", (p.ERR_COLLISION, 0, TWO_TAGS_TEXT)),
        ("error", (p.ERR_COLLISION_CLEARED, 0, "one token again")),
    ]


MICROPYTHON_STACKED = """
import machine
import mfrc522_model
import hubmain as main

config = dict(main.CONFIG, channels=1, cs=(17,))
chip = mfrc522_model.MFRC522Model()
machine.attach(17, chip)
spi = machine.SPI(0)
reader = main.MFRC522(spi, machine.Pin(17, machine.Pin.OUT, value=1))
reader.reset()
chip.lay(bytes([4, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]), 0x08, True)
chip.lay(bytes([4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
print("stacked", reader.poll())
chip.lift(bytes([4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
print("alone", reader.poll())
"""


def test_the_reqa_after_hlta_works_under_a_real_micropython():
    main_py = ROOT / "firmware_bridge" / "firmware" / "hubmain.py"
    extra = [main_py, STANDINS / "machine.py", STANDINS / "mfrc522_model.py"]
    lines = run_micropython(MICROPYTHON_STACKED, extra).strip().splitlines()
    assert lines[-2:] == ["stacked two_tags", "alone " + repr(UID7)]
