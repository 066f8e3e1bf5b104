"""Token hub firmware: Raspberry Pi Pico (RP2040) with N MFRC522 readers, MicroPython ≥ 1.20.

Copy to the board beside ``protocol.py``, ``hubcore.py`` and ``mfrc522.py``
(``docs/readers.md``). Wiring, by default (edit CONFIG to match yours):

    SPI0  SCK GP18, MOSI GP19, MISO GP16   shared by every MFRC522
    CS    GP17, GP20, GP21, GP22           one per reader = channels 0, 1, 2, 3
    RST   GP15                             every reader's NRSTPD, held high
    LEDs  none by default (one GPIO per channel); buzzer none (one GPIO)

The host talks to the hub over the Pico's USB serial port (or a UART at
115200 baud). The loop polls one channel per turn, services host bytes
between polls and feeds a hardware watchdog: if anything wedges the loop,
the board restarts within ``watchdog_ms`` and says so in its next hello.
"""

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
    "spi": {"id": 0, "sck": 18, "mosi": 19, "miso": 16, "baudrate": 1000000},
    "cs": (17, 20, 21, 22),
    "rst": 15,
    "leds": (),
    "buzzer": None,
    "heartbeat_ms": 1000,
    "present_hits": 2,
    "remove_misses": 3,
    "watchdog_ms": 2000,
    "transport": "usb",  # or "uart"
    "uart": {"id": 0, "tx": 0, "rx": 1, "baudrate": 115200},
}


class UsbSerial:
    """The USB CDC port MicroPython's REPL uses, made binary-safe.

    0x03 (Ctrl-C) is an ordinary byte inside a COBS frame, so keyboard
    interrupts are switched off; reads never block the polling loop.
    """

    def __init__(self):
        micropython.kbd_intr(-1)
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


def build(config=CONFIG, transport=None):
    """Make the hub from CONFIG: readers, transport, feedback. Returns (hub, transport, feedback)."""
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
    for pin in config["cs"]:
        reader = MFRC522(spi, machine.Pin(pin, machine.Pin.OUT))
        try:
            reader.reset()
        except OSError:
            pass  # its first poll fails too, and the hub reports the fault
        readers.append(reader)
    boot_errors = []
    if machine.reset_cause() == machine.WDT_RESET:
        boot_errors.append((p.ERR_WATCHDOG_RESET, p.NO_CHANNEL, "restarted by the watchdog"))
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
    )
    return hub, transport, feedback


def run(hub, transport, feedback, watchdog_ms=2000, loops=None):
    """The main loop: host bytes, one reader poll, LEDs, watchdog. ``loops`` bounds it for tests."""
    wdt = machine.WDT(timeout=watchdog_ms) if watchdog_ms else None
    n = 0
    while loops is None or n < loops:
        data = transport.read()
        if data:
            hub.receive(data)
        hub.step()
        feedback.update(utime.ticks_ms())
        if wdt is not None:
            wdt.feed()
        n += 1


def main():
    hub, transport, feedback = build(CONFIG)
    run(hub, transport, feedback, CONFIG["watchdog_ms"])


if __name__ == "__main__":
    main()
