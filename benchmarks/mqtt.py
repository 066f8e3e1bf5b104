"""MQTT bridge benchmarks through a real local Mosquitto (started here on a free port).

    .venv/bin/python -m benchmarks.mqtt [--quick]   (--quick: a smoke run, one run of few)

1. Round trip: an overlay client publishes a command (QoS 1) with a
   transaction and waits for its reply on ``…/reply``: MQTT in → paho's thread
   → the table loop (engine.apply) → the bridge's publisher (events, reply,
   retained state with the odds) → MQTT out. The commands cycle through a
   Performance: begin, declare, two draws, cancel. p50 and p99 per run.
2. Events/s: the same cycle submitted straight to the loop (as the readers
   and the wheel do), timed until the overlay has received the last event.

Medians of several runs are printed; the machine is shared, so expect noise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.mqtt.client import no_delay
from tests.harness import ARIA, BEGIN, draw
from tests.harness.broker import Broker, table_on_mqtt

RUNS = 5
ROUND_TRIPS = 200
CYCLES = 200  # × 5 events
R = "rhuna/example"
CYCLE = [
    BEGIN,
    ARIA,
    draw("aria", "aria.ember.skill"),
    draw("aria", "aria.weight.1"),
    {"cmd": "cancel_performance"},
]


class Overlay:
    """A paho client that sends commands and notes when replies and events arrive."""

    def __init__(self, port: int) -> None:
        self.replies: dict[int, float] = {}
        self.events = 0
        self.last_seq = 0
        self.cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_socket_open = no_delay  # time the bridge, not this client's Nagle
        self.client.on_message = self.on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe([(f"{R}/reply", 1), (f"{R}/events", 1)])
        self.client.loop_start()
        time.sleep(0.2)  # let the subscription settle before timing anything

    def on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        body = json.loads(msg.payload)
        with self.cond:
            if msg.topic.endswith("/reply"):
                self.replies[body["transaction"]] = now
            else:
                self.events += 1
                self.last_seq = body["seq"]
            self.cond.notify_all()

    def round_trip(self, n: int, command: dict[str, object]) -> float:
        t0 = time.perf_counter()
        self.client.publish(f"{R}/command", json.dumps({**command, "transaction": n}), qos=1)
        with self.cond:
            assert self.cond.wait_for(lambda: n in self.replies, 10), f"no reply to {n}"
            return self.replies[n] - t0

    def wait_seq(self, seq: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: self.last_seq >= seq, 60), "events missing"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def round_trips(port: int, n: int = ROUND_TRIPS) -> tuple[float, float]:
    with table_on_mqtt(port) as (bridge, _):
        assert bridge.wait_ready(10)
        overlay = Overlay(port)
        try:
            times = [overlay.round_trip(i, CYCLE[i % len(CYCLE)]) for i in range(n)]
        finally:
            overlay.close()
    return percentile(times, 0.5), percentile(times, 0.99)


def event_rate(port: int, cycles: int = CYCLES) -> float:
    with table_on_mqtt(port) as (bridge, running):
        assert bridge.wait_ready(10)
        overlay = Overlay(port)
        try:
            t0 = time.perf_counter()
            for _ in range(cycles):
                for command in CYCLE:
                    running.loop.submit(command, source="script")
            overlay.wait_seq(cycles * len(CYCLE))
            elapsed = time.perf_counter() - t0
            assert overlay.events == cycles * len(CYCLE) and bridge.stats.dropped == 0
        finally:
            overlay.close()
    return cycles * len(CYCLE) / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: one run of few commands")
    quick = ap.parse_args().quick
    runs, trips, cycles, stock_trips = (1, 20, 10, 10) if quick else (RUNS, ROUND_TRIPS, CYCLES, 40)
    with tempfile.TemporaryDirectory() as tmp:
        # Mosquitto's default leaves Nagle on towards subscribers: each hop waits for the
        # subscriber's delayed ACK (~40 ms). docs/mqtt.md recommends set_tcp_nodelay.
        broker = Broker(Path(tmp) / "fast", extra="set_tcp_nodelay true").start()
        try:
            p50s, p99s, rates = [], [], []
            for _ in range(runs):
                p50, p99 = round_trips(broker.port, trips)
                p50s.append(p50)
                p99s.append(p99)
                rates.append(event_rate(broker.port, cycles))
        finally:
            broker.stop()
        stock = Broker(Path(tmp) / "stock").start()
        try:
            stock_p50 = statistics.median(
                round_trips(stock.port, stock_trips)[0] for _ in range(min(runs, 3))
            )
        finally:
            stock.stop()
    ms = 1000
    print(
        f"MQTT command → reply round trip, broker with set_tcp_nodelay true ({trips} × {runs} runs, medians):"
    )
    print(
        f"  p50 {statistics.median(p50s) * ms:.2f} ms   p99 {statistics.median(p99s) * ms:.2f} ms"
    )
    print(f"  (stock Mosquitto config, Nagle on: p50 {stock_p50 * ms:.1f} ms)")
    print(f"MQTT events through the broker ({cycles * len(CYCLE)} events × {runs} runs):")
    print(
        f"  median {statistics.median(rates):,.0f} events/s   (runs: {', '.join(f'{r:,.0f}' for r in rates)})"
    )


if __name__ == "__main__":
    main()
