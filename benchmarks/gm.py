"""The WorldKeeper's remote: a tap in gm.html until the page shows the service's reply.

    make web && .venv/bin/python -m benchmarks.gm [--taps 40]

Against a real Mosquitto (the accounts' passwd + ACL, websockets listener serving web/dist),
the real service (``rhuna-table run`` on the emulated config) and Debian's Chromium at a phone's
size. Each cycle taps *Begin* (begin_performance) and *Cancel* (cancel_performance). The time is
taken inside the page: from the button's click (dispatched there) until the reply's outlet says
done and the next frame is drawn: MQTT.js publish over WebSockets, the broker's ACL, the
service's loop and journal commit, the reply, and the page's repaint. (Timed from Playwright's
``click`` to a polled ``wait_for_function`` it read 175–185 ms on 2026-12-07, of which the page
and the table took about 10: the rest was the driver's own round trips.) Beside it, the
harness's view of the same taps, and the floor: a paho publish → receive of a small QoS 1
message on the same broker. Medians and p90 are printed with the ratio; the machine is shared,
so expect noise.
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


#: one tap, timed in the page: the button labelled ``label`` clicked, until the outlet
#: ``output.reply[data-for=key]`` says ok (the click makes it "pending" at once) and the frame
#: after that is drawn; ms
TAP = """async ({label, key}) => {
  const button = [...document.querySelectorAll('#performance-panel button')]
    .find((b) => b.textContent.startsWith(label));
  if (!button) throw new Error(`no ${label} button`);
  const done = () => document.querySelector(`output.reply[data-for='${key}']`)?.dataset.state === 'ok';
  const t0 = performance.now();
  button.click();
  if (done()) throw new Error(`the ${key} outlet said ok before its reply`);
  await new Promise((resolve, reject) => {
    const seen = new MutationObserver(() => { if (done()) { seen.disconnect(); resolve(); } });
    seen.observe(document.body, {subtree: true, childList: true, attributes: true});
    setTimeout(() => { seen.disconnect(); reject(new Error(`no reply to ${label} in 10 s`)); }, 10000);
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return performance.now() - t0;
}"""


def tap_ms(page, label: str, key: str) -> tuple[float, float]:
    """One tap: (in the page, ms; as the harness sees it, evaluate's round trip, ms)."""
    page.wait_for_selector(f"#performance-panel button:has-text('{label}'):enabled")
    t0 = time.perf_counter()
    inside = page.evaluate(TAP, {"label": label, "key": key})
    return inside, (time.perf_counter() - t0) * 1000


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
            seen: list[float] = []
            for i in range(args.taps + 2):
                for label, key in (("Begin", "begin"), ("Cancel", "perf")):
                    inside, outside = tap_ms(page, label, key)
                    if i >= 2:  # the first two warm the page, the broker and the journal up
                        taps.append(inside)
                        seen.append(outside)
            floor = paho_ms(broker.port, broker.login("service"), len(taps))
    finally:
        broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)  # the broker's files and the table's state
    m_tap, m_floor = statistics.median(taps), statistics.median(floor)
    print(
        f"gm tap -> reply shown: n={len(taps)} median {m_tap:.1f} ms, p90 {pct(taps, 0.9):.1f} ms"
    )
    print(
        f"  the harness's round trip of the same taps: median {statistics.median(seen):.1f} ms"
        " (Playwright's evaluate, not the WorldKeeper's wait)"
    )
    print(
        f"paho publish -> receive: n={len(floor)} median {m_floor:.2f} ms, p90 {pct(floor, 0.9):.2f} ms"
    )
    print(f"ratio (median): {m_tap / m_floor:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
