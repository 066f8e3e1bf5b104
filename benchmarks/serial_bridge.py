"""Serial side benchmarks: hub frame decoder throughput, and pty latency to a TagEvent.

    .venv/bin/python -m benchmarks.serial_bridge            (or: make bench-serial)
    .venv/bin/python -m benchmarks.serial_bridge --recovery (3. only)
    .venv/bin/python -m benchmarks.serial_bridge --quick    (a smoke run: one run of each, few frames)

1. Decoder throughput: frames/s through ``protocol.Decoder`` for a realistic
   mix (tag events and heartbeats), fed in 4 KiB chunks as a serial port
   hands them over; with the C CRC (CPython) and with the table CRC the
   MicroPython firmware uses, and the PN532 frame parser for comparison.
2. Latency: the emulated hub writes a PRESENT/REMOVED frame to the pty →
   the bridge's thread reads, decodes and delivers the TagEvent. Measured
   per event with ``time.perf_counter`` on both ends (same process).

3. Recovery (the figures the tests no longer time; they assert the behaviour): a hub and
   a PN532 unplugged and plugged back in → online again (target < 2 s, as
   tests/firmware_bridge/test_hub_bridge.py and test_pn532_reader.py once asserted);
   ``HubReader.stop()`` → its thread ended (target < 1 s); and the whole Service after a
   chattering reader (1,000 'present' frames for one token in a second) → the next
   command committed (target < 5 s, tests/companion/service/test_faults.py).

Medians of several runs are printed; the machine is shared, so expect noise.
"""

from __future__ import annotations

import argparse
import queue
import statistics
import time
from pathlib import Path

from firmware_bridge import pn532
from firmware_bridge import protocol as p
from firmware_bridge.emulator import HubEmulator, PN532Emulator
from firmware_bridge.events import TagEvent
from firmware_bridge.hub import HubReader
from firmware_bridge.stats import ReaderStats
from firmware_bridge.uid import parse_uid
from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.service import InProcess, uid_of

RUNS = 9
FRAMES = 20_000
EVENTS = 300


def hub_stream(n: int) -> bytes:
    uid7 = bytes.fromhex("04A1B2C3D4E5F6")
    out = bytearray()
    for i in range(n):
        if i % 4 == 3:
            out += p.encode_frame(p.HEARTBEAT, i, p.heartbeat_payload(i * 1000, 0b0101))
        else:
            out += p.encode_frame(p.PRESENT if i % 2 else p.REMOVED, i, p.tag_payload(i % 4, uid7))
    return bytes(out)


def decode_rate(stream: bytes, n: int) -> float:
    d = p.Decoder()
    t0 = time.perf_counter()
    got = 0
    for i in range(0, len(stream), 4096):
        got += len(d.feed(stream[i : i + 4096]))
    dt = time.perf_counter() - t0
    assert got == n, (got, n)
    return n / dt


def pn532_rate(n: int) -> float:
    frame = pn532.build_frame(bytes.fromhex("4B01010044000704A1B2C3D4E5F6"), pn532.TFI_PN532)
    stream = (pn532.ACK + frame) * n
    parser = pn532.FrameParser(ReaderStats())
    t0 = time.perf_counter()
    got = 0
    for i in range(0, len(stream), 4096):
        got += len(parser.feed(stream[i : i + 4096]))
    dt = time.perf_counter() - t0
    assert got == 2 * n
    return n / dt


def latency_run(n: int) -> list[float]:
    """Seconds from the emulator's write of each tag frame to its TagEvent in the sink."""
    writes: list[float] = []

    def on_write(frame: bytes, t: float) -> None:
        if p.cobs_decode(frame[:-1])[0] in (p.PRESENT, p.REMOVED):
            writes.append(t)

    events: queue.Queue[TagEvent] = queue.Queue()
    emu = HubEmulator(channels=4, poll_ms=2, heartbeat_ms=500, present_hits=1, remove_misses=1)
    emu.on_write = on_write
    lat: list[float] = []
    with emu, HubReader(emu.link, sink=events, clock=time.perf_counter) as reader:
        if not reader.wait_online(5):
            raise SystemExit("bench: the bridge did not come online")
        uid = bytes.fromhex("04A1B2C3")
        for i in range(n):
            ch = i % 4
            if i % 2 == 0:
                emu.lay(ch, uid[:3] + bytes([i & 0xFF]))
            else:
                emu.lift((i - 1) % 4)
            event = events.get(timeout=5)
            lat.append(event.timestamp - writes[len(lat)])
        if reader.stats.bad_frames or reader.stats.lost_frames:
            raise SystemExit(f"bench: link errors {reader.stats.snapshot()}")
    return lat


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(runs: int = RUNS, frames: int = FRAMES, events: int = EVENTS, latency_runs: int = 3,
         recovery_runs: int = 5) -> None:  # fmt: skip
    stream = hub_stream(frames)
    # C and table runs interleaved, so load from other users of the machine hits both alike
    c_rates: list[float] = []
    table_rates: list[float] = []
    saved = p._crc_hqx
    for _ in range(runs):
        c_rates.append(decode_rate(stream, frames))
        p._crc_hqx = None  # the firmware's path: table-driven CRC in Python
        try:
            table_rates.append(decode_rate(stream, frames))
        finally:
            p._crc_hqx = saved
    pn_rates = [pn532_rate(frames) for _ in range(runs)]
    c_med, t_med = statistics.median(c_rates), statistics.median(table_rates)
    print(
        f"hub decoder, C CRC      : {c_med:>10,.0f} frames/s (median of {runs} x {frames} frames)"
    )
    print(
        f"hub decoder, table CRC  : {t_med:>10,.0f} frames/s (MicroPython's CRC path; C/table = {c_med / t_med:.2f}x)"
    )
    print(f"pn532 parser            : {statistics.median(pn_rates):>10,.0f} ACK+response pairs/s")
    print(f"  115200 baud carries at most {115200 // 10 // 16:,} hub frames/s of ~16 bytes")

    p50s, p99s = [], []
    for _ in range(latency_runs):
        lat = latency_run(events)
        p50s.append(pct(lat, 0.50))
        p99s.append(pct(lat, 0.99))
    print(
        f"emulator write -> TagEvent over a pty: p50 {statistics.median(p50s) * 1e3:.3f} ms, "
        f"p99 {statistics.median(p99s) * 1e3:.3f} ms"
        f" (median of {latency_runs} runs x {events} events)"
    )

    recovery(recovery_runs)


def verdict(value: float, target: float) -> str:
    return f"(target < {target:g} s: {'ok' if value < target else 'MISSED'})"


def replug_s(hub: bool) -> float:
    """Seconds from the replug to the reader online again, after an unplug it noticed."""
    sink: queue.Queue[TagEvent] = queue.Queue()
    if hub:
        emu: HubEmulator | PN532Emulator = HubEmulator(channels=4, poll_ms=5, heartbeat_ms=250)
    else:
        emu = PN532Emulator()
    with emu:
        reader = (
            HubReader(emu.link, sink=sink)
            if hub
            else pn532.PN532Reader(emu.link, sink=sink, poll_interval=0.01, name="favor")
        )
        with reader:
            if not reader.wait_online(10):
                raise SystemExit("bench: the reader did not come online")
            emu.unplug()
            wait_until(lambda: reader.state == "offline", "the reader noticing the unplug")
            started = time.perf_counter()
            emu.replug()
            if not reader.wait_online(30):
                raise SystemExit("bench: the reader did not come back")
            return time.perf_counter() - started


def stop_s() -> float:
    """Seconds ``HubReader.stop()`` takes to end its thread, online and idle."""
    sink: queue.Queue[TagEvent] = queue.Queue()
    with HubEmulator(channels=4, poll_ms=5, heartbeat_ms=250) as emu:
        reader = HubReader(emu.link, sink=sink).start()
        if not reader.wait_online(10):
            raise SystemExit("bench: the hub did not come online")
        started = time.perf_counter()
        reader.stop()
        return time.perf_counter() - started


def chatter_s(folder: Path) -> float:
    """The Service in process: 1,000 'present' frames for one token in a second, then one
    command; seconds from submitting it to its commit."""
    table = InProcess(folder)
    try:
        table.submit(BEGIN, ARIA)
        table.settled(2)
        payload = p.tag_payload(0, parse_uid(uid_of(table.service, "aria.weight.1")))
        for _ in range(1000):
            table.hub.send_frame(p.PRESENT, payload)
            time.sleep(0.001)
        table.settled(3)
        started = time.perf_counter()
        table.submit({"cmd": "adjust_hero", "hero": "aria", "favor": 1})
        table.settled(4)
        return time.perf_counter() - started
    finally:
        table.close()


def recovery(runs: int = 5) -> None:
    import tempfile

    hub = statistics.median(replug_s(True) for _ in range(runs))
    pn = statistics.median(replug_s(False) for _ in range(runs))
    stop = statistics.median(stop_s() for _ in range(runs))
    chatters = min(runs, 3)
    with tempfile.TemporaryDirectory() as tmp:
        chatter = statistics.median(chatter_s(Path(tmp) / str(i)) for i in range(chatters))
    print(f"hub replug -> online    : {hub:.3f} s median of {runs} {verdict(hub, 2)}")
    print(f"pn532 replug -> online  : {pn:.3f} s median of {runs} {verdict(pn, 2)}")
    print(f"HubReader.stop()        : {stop * 1e3:.1f} ms median of {runs} {verdict(stop, 1)}")
    print(f"command after a chatter : {chatter:.3f} s median of {chatters} {verdict(chatter, 5)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recovery", action="store_true", help="3. only")
    ap.add_argument("--quick", action="store_true", help="a smoke run: one run of each, few frames")
    args = ap.parse_args()
    if args.quick:
        if args.recovery:
            recovery(1)
        else:
            main(runs=1, frames=2_000, events=20, latency_runs=1, recovery_runs=1)
    elif args.recovery:
        recovery()
    else:
        main()
