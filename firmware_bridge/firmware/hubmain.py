"""Token hub firmware: Raspberry Pi Pico (RP2040) with N MFRC522 readers, MicroPython ≥ 1.20.

``main.py`` (the boot file) imports this module once it has switched Ctrl-C
off and calls :func:`boot`. Copy both to the board beside ``protocol.py``,
``hubcore.py`` and ``mfrc522.py`` (``docs/hardware.md``). Wiring, by default
(edit CONFIG to match yours; ``CONFIG["channels"]`` readers, reported in the hello):

    SPI0  SCK GP18 (pin 24), MOSI GP19 (25), MISO GP16 (21)   shared by every MFRC522
    CS    GP17 (22), GP20 (26), GP21 (27), GP22 (29),          one per reader:
          GP26 (31), GP27 (32)                                 channels 0 to 5
    RST   GP15 (20)                        every reader's NRSTPD, held high
    LEDs  none by default (one GPIO per channel); buzzer none (one GPIO)

The host talks to the hub over the Pico's USB serial port (or a UART at
115200 baud). The loop polls one channel per turn, services host bytes
between polls and feeds a hardware watchdog: if anything wedges the loop,
the board restarts within ``watchdog_ms`` and says so in its next hello.

Maintenance (a firmware update): the host's MAINTENANCE command, or BOOTSEL
held for a second while the hub runs, then let go, leaves a flag file and
restarts (not while it is held: the RP2040 would start its USB boot drive);
the next boot sees the flag and stops in the REPL with Ctrl-C on and no
watchdog, so ``mpremote`` can copy files. The rp2 watchdog cannot be stopped once
started, which is why this needs a restart. ``main.py`` checks the flag (and
BOOTSEL) itself, before it imports this module, so an update of this file that
does not import still leaves the board reachable.

A restart the firmware makes itself after a crash leaves a note file first, so
the next hello names the exception. On an RP2040 ``machine.reset()`` (and so
``mpremote reset`` after flashing) reboots through the watchdog, and
``reset_cause()`` alone would call it a watchdog reset: the pico-sdk's
watchdog scratch register tells a timeout from a deliberate reboot.
"""

import os
import sys

import machine
import micropython
import utime

try:
    import select
except ImportError:  # pragma: no cover - older MicroPython
    import uselect as select

try:  # on the host (tests with stand-ins for machine/utime)
    from firmware_bridge import protocol as p
    from firmware_bridge.firmware.hubcore import FIRMWARE_VERSION, Hub
    from firmware_bridge.firmware.mfrc522 import MFRC522
except ImportError:  # on the hub: every file flat on the board
    import protocol as p
    from hubcore import FIRMWARE_VERSION, Hub
    from mfrc522 import MFRC522

CONFIG = {
    #: reader channels: the first ``channels`` chip selects of ``cs`` (the hello reports them)
    "channels": 6,
    "spi": {"id": 0, "sck": 18, "mosi": 19, "miso": 16, "baudrate": 1000000},
    # GP17, GP20, GP21, GP22, GP26, GP27 = physical pins 22, 26, 27, 29, 31, 32
    "cs": (17, 20, 21, 22, 26, 27),
    "rst": 15,
    "leds": (),
    "buzzer": None,
    "heartbeat_ms": 1000,
    "present_hits": 2,
    "remove_misses": 3,
    "watchdog_ms": 2000,
    "reset_tries": 3,
    "transport": "usb",  # or "uart"
    "uart": {"id": 0, "tx": 0, "rx": 1, "baudrate": 115200},
}

MAINTENANCE_FLAG = "maintenance.flag"  # main.py reads these three names too
RESTART_NOTE = "restart.txt"
CRASHES = "crashes.txt"  # main.py counts crashes in a row; a hub that gets going clears it
#: a restart note of this text is a restart someone asked for: nothing to report
DELIBERATE = "deliberate"


def _write(path, text):
    try:
        f = open(path, "w")
        f.write(text)
        f.close()
    except OSError:
        pass


def _take(path):
    """Read and delete a small file; None when it is not there."""
    try:
        f = open(path)
        text = f.read()
        f.close()
        os.remove(path)
        return text
    except OSError:
        return None


def restart(note=DELIBERATE):
    """Restart the board, leaving ``note`` for the next boot to report (or not)."""
    _write(RESTART_NOTE, note[:32])
    machine.reset()


def enter_maintenance():
    """Restart into the REPL (no watchdog, Ctrl-C on) for a firmware update."""
    _write(MAINTENANCE_FLAG, "1")
    utime.sleep_ms(50)  # let the USB stack send the ACK before the board goes away
    restart(DELIBERATE)


def _bootsel():
    try:
        import rp2
    except ImportError:  # not an RP2040 (the tests' stand-ins may provide it)
        return False
    return bool(rp2.bootsel_button())


class UsbSerial:
    """The USB CDC port MicroPython's REPL uses, binary-safe (main.py turned Ctrl-C off).

    Reads never block the polling loop.
    """

    def __init__(self):
        micropython.kbd_intr(-1)  # main.py did this first already; harmless twice
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer

    def read(self):
        data = b""
        while len(data) < 64 and self._poll.poll(0):
            data += self._in.read(1)
        return data

    def write(self, frame):
        self._out.write(frame)


class Uart:
    """A hardware UART (to a USB-serial adapter), 115200 8N1 by default."""

    def __init__(self, cfg):
        self.uart = machine.UART(
            cfg["id"], baudrate=cfg["baudrate"], tx=machine.Pin(cfg["tx"]), rx=machine.Pin(cfg["rx"])
        )

    def read(self):
        return self.uart.read(self.uart.any()) if self.uart.any() else b""

    def write(self, frame):
        self.uart.write(frame)


class Feedback:
    """Per-channel LEDs (off / on / blink) and one buzzer, driven without blocking."""

    BLINK_MS = 250

    def __init__(self, leds, buzzer):
        self.leds = leds
        self.buzzer = buzzer
        self.modes = [p.LED_OFF] * len(leds)
        self._buzz_until = None

    def __call__(self, channel, led, buzzer_ms):
        for ch in range(len(self.leds)):
            if channel in (ch, p.ALL_CHANNELS):
                self.modes[ch] = led
                self.leds[ch].value(1 if led == p.LED_ON else 0)
        if buzzer_ms and self.buzzer is not None:
            self.buzzer.value(1)
            self._buzz_until = utime.ticks_add(utime.ticks_ms(), buzzer_ms)

    def update(self, now):
        phase = (now // self.BLINK_MS) & 1
        for ch in range(len(self.leds)):
            if self.modes[ch] == p.LED_BLINK:
                self.leds[ch].value(phase)
        if self._buzz_until is not None and utime.ticks_diff(now, self._buzz_until) >= 0:
            self.buzzer.value(0)
            self._buzz_until = None


def hub_id():
    """A stable id from the RP2040's flash serial, like the USB serial number."""
    raw = machine.unique_id()
    return "PICO-" + "".join(["%02X" % b for b in raw])[:16]


def _feed(wdt):
    if wdt is not None:
        wdt.feed()


#: pico-sdk: watchdog_enable() (machine.WDT) leaves this in WATCHDOG scratch[4];
#: watchdog_reboot(0, …) (machine.reset(), mpremote reset) leaves 0 there
NON_REBOOT_MAGIC = 0x6AB73121
WATCHDOG_SCRATCH4 = {"RP2040": 0x40058000 + 0x1C, "RP2350": 0x400D8000 + 0x1C}


def _watchdog_fired(cause):
    """True when the board's own watchdog timed out, not a deliberate machine.reset().

    On rp2 both reboot through the watchdog, so reset_cause() says WDT_RESET for
    either (ports/rp2/modmachine.c); the pico-sdk's scratch[4] tells them apart
    (hardware_watchdog/watchdog.c: watchdog_enable vs watchdog_reboot).
    """
    if cause != machine.WDT_RESET:
        return False
    chip = "RP2350" if "RP2350" in getattr(sys.implementation, "_machine", "") else "RP2040"
    mem32 = getattr(machine, "mem32", None)
    if mem32 is None:
        return True  # cannot tell: say it
    return mem32[WATCHDOG_SCRATCH4[chip]] & 0xFFFFFFFF == NON_REBOOT_MAGIC


def _boot_errors(cause):
    """What to tell the host about why the board started: a crash note, or a watchdog timeout."""
    note = _take(RESTART_NOTE)
    if note is not None and note != DELIBERATE:
        return [(p.ERR_CRASH_RESTART, p.NO_CHANNEL, ("restarted after " + note)[: p.MAX_ERROR_TEXT])]
    if note is None and _watchdog_fired(cause):
        return [(p.ERR_WATCHDOG_RESET, p.NO_CHANNEL, "restarted by the watchdog")]
    return []


def chip_selects(config):
    """The chip-select GPIOs of the configured channels (``config["channels"]`` of ``cs``)."""
    n = config.get("channels", len(config["cs"]))
    if not 1 <= n <= len(config["cs"]):
        raise ValueError("channels = %d, but cs names %d pins" % (n, len(config["cs"])))
    return config["cs"][:n]


def build(config=CONFIG, transport=None, wdt=None, boot_errors=None):
    """Make the hub from CONFIG: readers, transport, feedback. Returns (hub, transport, feedback).

    Every chip select goes high before the first transfer: an RP2040 output pin
    starts low, and a low CS on a reader not yet set up would put it on the bus
    beside the one being reset. A reader whose reset fails is retried, then
    reported; ``wdt`` is fed meanwhile. ``boot_errors``: why the board started,
    read by :func:`boot` before it started the watchdog (read here when None).
    """
    if boot_errors is None:
        boot_errors = _boot_errors(machine.reset_cause())
    boot_errors = list(boot_errors)
    cs_pins = [machine.Pin(pin, machine.Pin.OUT, value=1) for pin in chip_selects(config)]
    s = config["spi"]
    spi = machine.SPI(
        s["id"],
        baudrate=s["baudrate"],
        polarity=0,
        phase=0,
        sck=machine.Pin(s["sck"]),
        mosi=machine.Pin(s["mosi"]),
        miso=machine.Pin(s["miso"]),
    )
    if config["rst"] is not None:
        machine.Pin(config["rst"], machine.Pin.OUT).value(1)
        utime.sleep_ms(50)  # the MFRC522 oscillator starts up after NRSTPD rises
    readers = []
    for ch in range(len(cs_pins)):
        reader = MFRC522(spi, cs_pins[ch])
        for attempt in range(config.get("reset_tries", 3)):
            _feed(wdt)
            try:
                reader.reset()
                break
            except OSError as e:
                failure = str(e)
                utime.sleep_ms(10 * (attempt + 1))
        else:  # the hub reports it and retries every heartbeat
            text = "reset failed %dx: %s" % (config.get("reset_tries", 3), failure)
            boot_errors.append((p.ERR_READER_FAULT, ch, text[: p.MAX_ERROR_TEXT]))
        readers.append(reader)
    leds = [machine.Pin(n, machine.Pin.OUT) for n in config["leds"]]
    buzzer = None if config["buzzer"] is None else machine.Pin(config["buzzer"], machine.Pin.OUT)
    feedback = Feedback(leds, buzzer)
    features = (p.FEATURE_LED if leds else 0) | (p.FEATURE_BUZZER if buzzer is not None else 0)
    if transport is None:
        transport = UsbSerial() if config["transport"] == "usb" else Uart(config["uart"])
    hub = Hub(
        readers,
        transport.write,
        utime.ticks_ms,
        utime.ticks_diff,
        hub_id=hub_id(),
        fw_version=FIRMWARE_VERSION,
        heartbeat_ms=config["heartbeat_ms"],
        present_hits=config["present_hits"],
        remove_misses=config["remove_misses"],
        features=features,
        feedback=feedback,
        boot_errors=boot_errors,
        maintenance=enter_maintenance,
    )
    return hub, transport, feedback


BOOTSEL_HOLD_MS = 1000


def run(hub, transport, feedback, watchdog_ms=2000, loops=None, wdt=None):
    """The main loop: host bytes, one reader poll, LEDs, watchdog. ``loops`` bounds it for tests.

    BOOTSEL held for ``BOOTSEL_HOLD_MS`` and let go enters maintenance (checked once per
    heartbeat-ish tick, as ``rp2.bootsel_button()`` briefly stalls flash access). Not while
    it is still held: a reset with BOOTSEL down starts the RP2040's USB boot drive, not
    ``main.py`` (RP2040 datasheet, 2.7.2).
    """
    if wdt is None and watchdog_ms:
        wdt = machine.WDT(timeout=watchdog_ms)
    n = 0
    held_since = None
    last_check = utime.ticks_ms()
    going = False
    while loops is None or n < loops:
        data = transport.read()
        if data:
            hub.receive(data)
        hub.step()
        if not going and hub.ready:
            going = True
            _take(CRASHES)  # the hub got going: main.py's count of crashes in a row starts again
        now = utime.ticks_ms()
        feedback.update(now)
        if utime.ticks_diff(now, last_check) >= 100:
            last_check = now
            if _bootsel():
                if held_since is None:
                    held_since = now
            elif held_since is not None:
                if utime.ticks_diff(now, held_since) >= BOOTSEL_HOLD_MS:
                    enter_maintenance()
                held_since = None
        _feed(wdt)
        n += 1


def boot(config=CONFIG, transport=None, loops=None):
    """Called by main.py (which has ruled out maintenance): the hub, for ever.

    ``transport`` and ``loops`` are for the tests (the USB serial port; run for ever).
    """
    # Why the board started, read BEFORE machine.WDT: rp2's machine.WDT calls the pico-sdk's
    # watchdog_enable() (micropython ports/rp2/machine_wdt.c @0d326759), which writes
    # WATCHDOG_NON_REBOOT_MAGIC to scratch[4] (pico-sdk src/rp2_common/hardware_watchdog/
    # watchdog.c @8c6bb014, watchdog_enable), the very value _watchdog_fired looks for; read
    # after it, a plain machine.reset() (watchdog_reboot(0, SRAM_END, 0), scratch[4] = 0,
    # ports/rp2/modmachine.c) looked like a watchdog timeout. reset_cause() reads WATCHDOG
    # REASON (watchdog_caused_reboot), which watchdog_enable leaves alone.
    boot_errors = _boot_errors(machine.reset_cause())
    # early: a hang from here on restarts the board (imports are done; resets feed it)
    wdt = machine.WDT(timeout=config["watchdog_ms"]) if config["watchdog_ms"] else None
    hub, transport, feedback = build(config, transport, wdt=wdt, boot_errors=boot_errors)
    run(hub, transport, feedback, config["watchdog_ms"], loops=loops, wdt=wdt)
