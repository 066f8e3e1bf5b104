"""The WorldKeeper's remote: a tap in gm.html until the page shows the service's reply.

    make web && .venv/bin/python -m benchmarks.gm [--taps 40]

Against a real Mosquitto (the accounts' passwd + ACL, websockets listener serving web/dist),
the real service (``rhuna-table run`` on the emulated config) and Debian's Chromium at a phone's
size. Each cycle taps *Begin* (begin_performance) and *Cancel* (cancel_performance), timing from
the click until the reply outlet shows the acknowledgement: MQTT.js publish over WebSockets,
the broker's ACL, the service's loop and journal commit, the reply, and the page's repaint. In
the same run, the floor: a paho publish → receive of a small QoS 1 message on the same broker.
Medians and p90 are printed with the ratio; the machine is shared, so expect noise.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks import positive
from tests.harness.web import CHROMIUM, PHONE, AccountsBroker, playwright_chromium, served_table


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def tap_ms(page, selector: str, key: str) -> float:
    out = f"output.reply[data-for='{key}']"
    t0 = time.perf_counter()
    page.click(selector)
    page.wait_for_function(
        f"() => {{ const o = document.querySelector(\"{out}\"); return o && o.dataset.state === 'ok'; }}",
        timeout=10_000,
    )
    return (time.perf_counter() - t0) * 1000


def paho_ms(port: int, login: tuple[str, str], n: int) -> list[float]:
    got = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.username_pw_set(*login)
    c.on_message = lambda *a: got.set()
    c.connect("127.0.0.1", port)
    # as the service's bridge does: without it each hop can wait ~40 ms (Nagle vs delayed ACK)
    c.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.loop_start()
    c.subscribe("rhuna/example/bench", qos=1)
    time.sleep(0.3)
    out = []
    for _ in range(n):
        got.clear()
        t0 = time.perf_counter()
        c.publish("rhuna/example/bench", b"x", qos=1)
        got.wait(5)
        out.append((time.perf_counter() - t0) * 1000)
    c.disconnect()
    c.loop_stop()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--taps", type=positive, default=40, help="Begin/Cancel cycles (2 taps each)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rhuna-bench-gm-"))
    broker = AccountsBroker(tmp / "broker")
    broker.start()
    try:
        with (
            served_table(tmp / "svc", broker, login=broker.login("service")) as _table,
            playwright_chromium(CHROMIUM) as browser,
        ):
            page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            page.goto(broker.url())
            page.wait_for_selector("#status[data-state='live']", timeout=10_000)
            page.wait_for_function(
                "() => window.rhuna.store.snapshot.tables.get('example')?.sections.state"
            )
            taps: list[float] = []
            for i in range(args.taps + 2):
                begin = tap_ms(page, "#performance-panel button:has-text('Begin')", "begin")
                cancel = tap_ms(page, "#performance-panel button:has-text('Cancel')", "perf")
                if i >= 2:  # the first two warm the page, the broker and the journal up
                    taps += [begin, cancel]
            floor = paho_ms(broker.port, broker.login("service"), len(taps))
    finally:
        broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)  # the broker's files and the table's state
    m_tap, m_floor = statistics.median(taps), statistics.median(floor)
    print(
        f"gm tap -> reply shown: n={len(taps)} median {m_tap:.1f} ms, p90 {pct(taps, 0.9):.1f} ms"
    )
    print(
        f"paho publish -> receive: n={len(floor)} median {m_floor:.2f} ms, p90 {pct(floor, 0.9):.2f} ms"
    )
    print(f"ratio (median): {m_tap / m_floor:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
