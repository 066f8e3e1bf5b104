"""Glass to glass: a token's frame on the hub's pty → the overlay's DOM, the panel's frame and
the venue wall's DOM, with the service under a Pi's CPU cap (issue 43 item 7).

    .venv/bin/python -m benchmarks.glass [--draws 100] [--cap quarter]

Everything is real and on loopback: the hub emulator on a real pty (the firmware's own
debounce), ``rhuna-table run`` as its own process under :mod:`benchmarks.pi_budget`'s cap
(``quarter``: each process of the service's tree a quarter of a core, about a Pi 4;
``tenth``: a Pi Zero 2 W; ``uncapped``), the PNG panel, the table's Mosquitto (plain and
websockets listeners, the pages' accounts) bridged as docs/convention.md writes it to a venue
Mosquitto (``rhuna-table venue``'s files), and Debian's Chromium (not capped: the streamer's
computer and the wall's) with the overlay open on the table's broker and the wall (tables.html,
the wall's login and roster) on the venue's.

Each draw is timed from the moment the hub emulator wrote the token's PRESENT frame on the pty
(``HubEmulator.on_write``) to:

- **overlay**: the token's element is in the overlay's DOM (a MutationObserver in the page);
- **panel**: the PNG panel's next frame is on the disk (``frame-NNNNNN.png`` seen by a 2 ms
  poll; the panel is left quiet before each draw, so that frame is the draw's). The e-ink
  refresh itself comes after this on a real panel (docs/hardware.md gives its seconds);
- **wall**: the wall's cards are rewritten with the draw's event in its store (a
  MutationObserver on ``#tables``, as :mod:`benchmarks.venue` measures the wall);

and, in the same run, the hops under them, each at a plain paho client: the event at the
table's broker (the service's share), the same event at the venue's broker (the bridge's share, on
the real events: the bridge carries only the table's public topics), and the floor: a raw
paho publish → receive round trip of a small QoS 1 message on the table's broker, before and
after the draws.

Targets: overlay p95 ≤ 150 ms, wall p95 ≤ 250 ms, under the ``quarter`` cap. A draw that
never arrives somewhere is counted as missed, never left out. p50, p95 and p99 are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks import positive
from benchmarks.pi_budget import CAPS, Notify, _stop, cap_unavailable, capped
from benchmarks.web import OBSERVER
from companion.mqtt.client import no_delay
from companion.ops import venue as V
from engine import load_table
from firmware_bridge import protocol as p
from firmware_bridge.emulator import HubEmulator
from tags.registry import TagRegistry
from tests.harness.broker import free_port
from tests.harness.service import write_config
from tests.harness.web import (
    CHROMIUM,
    SERVICE_PASSWORD,
    SERVICE_USER,
    WebBroker,
    address,
    built_pages,
    launch_chromium,
)

ROOT = Path(__file__).resolve().parent.parent
TABLE_ID = "example"
R = f"rhuna/{TABLE_ID}"
BEGIN = {"cmd": "begin_performance", "difficulty": 5}
ARIA = {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill",
        "action": "target"}  # fmt: skip
TOKENS = ["aria.weight.0", "aria.weight.1"]
#: a liveness bound on every wait (s), never a figure
WAIT = 30.0
OVERLAY_P95_MS = 150.0
WALL_P95_MS = 250.0


#: the wall: at each rewrite of its cards, the newest event seq of our table it holds
WALL_JS = """(id) => {
  window.__wall = {};
  const check = () => {
    const t = window.rhuna.store.snapshot.tables.get(id);
    if (!t) return;
    const now = Date.now();
    for (const e of t.events) if (typeof e.seq === 'number' && !(e.seq in window.__wall))
      window.__wall[e.seq] = now;
  };
  new MutationObserver(check).observe(document.getElementById('tables'), {childList: true});
  check();
}"""


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def line(name: str, xs: list[float], missed: int = 0) -> str:
    if not xs:
        return f"{name:<40} not measured"
    tail = f"  ({missed} missed)" if missed else ""
    return (
        f"{name:<40} p50 {pct(xs, 50):7.1f}  p95 {pct(xs, 95):7.1f}  p99 {pct(xs, 99):7.1f}"
        f"  max {max(xs):7.1f} ms  n {len(xs)}{tail}"
    )


class Listener:
    """A paho client noting, by wall-clock ms, when each message on ``topics`` arrived."""

    def __init__(self, port: int, topics: list[str], user: str, password: str) -> None:
        self.port = port
        self.cond = threading.Condition()
        self.got: list[tuple[float, str, bytes]] = []
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.c.username_pw_set(user, password)
        self.c.on_socket_open = no_delay
        subscribed = threading.Event()

        def on_connect(c: mqtt.Client, *_: object) -> None:
            c.subscribe([(t, 1) for t in topics])

        def on_subscribe(*_: object) -> None:
            subscribed.set()

        def on_message(c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
            now = time.time() * 1000
            with self.cond:
                self.got.append((now, msg.topic, bytes(msg.payload)))
                self.cond.notify_all()

        self.c.on_connect, self.c.on_subscribe, self.c.on_message = (
            on_connect, on_subscribe, on_message)  # fmt: skip
        self.c.connect("127.0.0.1", port, keepalive=30)
        self.c.loop_start()
        if not subscribed.wait(WAIT):
            raise SystemExit(f"glass: no SUBACK from the broker on port {port}")

    def first(self, after: int, match: Any, timeout: float = WAIT) -> tuple[float, bytes] | None:
        """The first message from index ``after`` on for which ``match(topic, payload)``."""

        def find() -> tuple[float, bytes] | None:
            for t, topic, body in self.got[after:]:
                if match(topic, body):
                    return t, body
            return None

        with self.cond:
            self.cond.wait_for(lambda: find() is not None, timeout)
            return find()

    def mark(self) -> int:
        with self.cond:
            return len(self.got)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def _event(token: str) -> Any:
    def match(topic: str, body: bytes) -> bool:
        if not topic.endswith("/events") or token.encode() not in body:
            return False
        with contextlib.suppress(ValueError, AttributeError):
            e = json.loads(body)
            return bool(e.get("type") == "token_drawn" and e.get("token") == token)
        return False

    return match


def round_trips(pub_port: int, sub: Listener, topic: str, n: int,
                login: tuple[str, str]) -> list[float]:  # fmt: skip
    """Raw paho: publish a small QoS 1 message on ``pub_port``, until ``sub`` has it (ms)."""
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.username_pw_set(*login)
    c.on_socket_open = no_delay
    c.connect("127.0.0.1", pub_port, keepalive=30)
    c.loop_start()
    out: list[float] = []
    try:
        for i in range(n):
            body = f"glass-raw-{i}-{os.getpid()}".encode()
            at = sub.mark()
            t0 = time.time() * 1000
            c.publish(topic, body, qos=1)
            got = sub.first(at, lambda _t, b, body=body: b == body, 10)
            if got is not None:
                out.append(got[0] - t0)
            time.sleep(0.02)
    finally:
        c.disconnect()
        c.loop_stop()
    return out


class Frames:
    """The PNG panel's folder, polled every 2 ms: when each new frame file appeared (ms)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.seen: dict[str, float] = {}
        self.cond = threading.Condition()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="frames", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.002):
            with contextlib.suppress(OSError):
                names = [n for n in os.listdir(self.folder) if n.startswith("frame-")]
                now = time.time() * 1000
                new = [n for n in names if n not in self.seen]
                if new:
                    with self.cond:
                        for n in new:
                            self.seen[n] = now
                        self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.seen)

    def quiet(self, for_s: float = 0.3, timeout: float = WAIT) -> None:
        """Until no new frame has come for ``for_s`` (the panel has drawn what it had)."""
        deadline = time.monotonic() + timeout
        n, since = self.count(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.02)
            if (m := self.count()) != n:
                n, since = m, time.monotonic()
            elif time.monotonic() - since >= for_s:
                return

    def next_after(self, count: int, timeout: float = WAIT) -> float | None:
        """When the first frame after the ``count``-th appeared."""
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.seen) > count, timeout):
                return None
            return sorted(self.seen.values())[count]

    def close(self) -> None:
        self._stop.set()
        self.thread.join(2)


def venue_for(folder: Path) -> tuple[V.Venue, Path]:
    """One venue with our table on its roster; its pages and ``tables.json`` in ``www``."""
    www = folder / "www"
    data = {
        "venue": {
            "host": "127.0.0.1",
            "port": free_port(),
            "websockets_port": free_port(),
            "bind": "127.0.0.1",
            "keepalive": 5,
            "http_dir": str(www),
            "persistence_location": f"{folder}/venue-data/",
        },
        "wall": {"password": "wall-pw"},
        "director": {"password": "director-pw"},
        "table": [{"id": TABLE_ID, "name": "Glass table", "password": "glass-pw"}],
    }
    (folder / "venue-data").mkdir(parents=True, exist_ok=True)
    return V.parse(data, "glass-venue.toml"), www


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.glass", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--draws", type=positive, default=100)
    ap.add_argument("--cap", choices=[c for c in CAPS if not c.endswith("-shared")],
                    default="quarter")  # fmt: skip
    ap.add_argument("--raw", type=positive, default=200, help="raw round trips for the floor")
    ap.add_argument("--json", help="also write every sample here")
    args = ap.parse_args(argv)
    if not (built_pages() / "overlay.html").exists():
        print("benchmarks/glass.py: the pages are not built: run `make web` first", file=sys.stderr)
        return 2
    quota = CAPS[args.cap][0]
    if quota is not None and (why := cap_unavailable()) is not None:
        print(f"benchmarks/glass.py: no CPU cap here ({why}); --cap uncapped runs without one",
              file=sys.stderr)  # fmt: skip
        return 2

    def terminated(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminated)
    try:
        res, raw = _run(args, quota)
    except KeyboardInterrupt:
        # a terminal's Ctrl-C reaches the whole group: Playwright's driver (Node, which catches
        # SIGINT whatever it inherits) is gone too, and its last pending reply is not news
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        print("benchmarks/glass.py: interrupted; everything it started is stopped", file=sys.stderr)
        return 130
    _report(args, res, raw)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"cap": args.cap, **res, "raw": raw}, indent=1))
    return 0


def _run(args: argparse.Namespace, quota: int | None) -> tuple[dict[str, Any], list[float]]:
    """Every part started, the draws made, every part stopped (also on Ctrl-C)."""
    from playwright.sync_api import sync_playwright

    from tests.harness.venue import VenueBroker

    tmp = Path(tempfile.mkdtemp(prefix="rhuna-glass-"))
    stack = contextlib.ExitStack()
    try:
        venue, www = venue_for(tmp / "venue")
        venue_broker = VenueBroker(tmp / "venue", venue)
        www.mkdir(exist_ok=True)
        for page in built_pages().glob("*.html"):
            shutil.copy(page, www / page.name)
        shutil.copy(tmp / "venue" / "venue" / "tables.json", www / "tables.json")
        stack.enter_context(contextlib.closing(_Stopper(venue_broker.start())))
        table = venue.tables[0]
        broker = WebBroker(tmp / "broker", extra=V.bridge_text(venue, table))
        broker.start()
        stack.callback(broker.stop)
        hub = HubEmulator(channels=4, hub_id="EMU-glass")
        hub.start()
        stack.callback(hub.stop)
        login = (SERVICE_USER, SERVICE_PASSWORD)
        at_table = Listener(broker.port, [f"{R}/#"], *login)
        stack.callback(at_table.close)
        at_venue = Listener(venue.port, [f"{R}/events", f"{R}/status"], "wall", "wall-pw")
        stack.callback(at_venue.close)
        # the floor, before the service runs (and again after the draws)
        raw = round_trips(broker.port, at_table, f"{R}/glass-raw", args.raw, login)
        folder = tmp / "table"
        readers = f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
        mqtt_conf = (f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
                     f'username = "{SERVICE_USER}"\npassword = "{SERVICE_PASSWORD}"\n')  # fmt: skip
        config = write_config(folder, mqtt_conf, readers=readers)
        frames = Frames(folder / "state" / "panel")
        stack.callback(frames.close)
        proc = _serve(config, quota, tmp, stack)
        if at_table.first(0, lambda t, b: t.endswith("/status") and b == b"online", 120) is None:
            raise SystemExit(f"glass: the service never said online: {_tail(tmp)}")
        pw = stack.enter_context(sync_playwright())
        browser = launch_chromium(pw, CHROMIUM)
        stack.callback(browser.close)
        overlay = browser.new_page(viewport={"width": 1280, "height": 720})
        overlay.add_init_script(OBSERVER)  # benchmarks/web.py's: when each token enters
        overlay.goto(broker.url("overlay.html", motion="off"))
        overlay.wait_for_function(
            "document.querySelector('#status').dataset.state === 'live'", timeout=WAIT * 1000
        )
        wall = browser.new_page(viewport={"width": 1920, "height": 1080})
        wall.goto(address(f"http://127.0.0.1:{venue.websockets_port}/tables.html",
                          {"roster": "tables.json", "rotate": "off", "username": "wall",
                           "password": "wall-pw"}))  # fmt: skip
        wall.wait_for_function("() => window.rhuna && window.rhuna.paints > 0",
                               timeout=WAIT * 1000)  # fmt: skip
        wall.evaluate(WALL_JS, TABLE_ID)
        res = _draws(args.draws, hub, at_table, at_venue, overlay, wall, frames)
        raw_after = round_trips(broker.port, at_table, f"{R}/glass-raw", args.raw, login)
        if proc.poll() is not None:
            raise SystemExit(f"glass: the service stopped mid-run: {_tail(tmp)}")
    finally:
        stack.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return res, raw + raw_after


class _Stopper:
    def __init__(self, broker: Any) -> None:
        self.broker = broker

    def close(self) -> None:
        self.broker.stop()


def _serve(config: Path, quota: int | None, tmp: Path, stack: contextlib.ExitStack
           ) -> subprocess.Popen[bytes]:  # fmt: skip
    """``rhuna-table run`` as its own process, each of its processes under ``quota``."""
    argv = [sys.executable, "-m", "companion.cli", "run", "--config", str(config)]
    argv, mover = capped(argv, quota, stack)
    notify = Notify(tmp / "notify.sock")
    stack.callback(notify.close)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path), "TMPDIR": str(tmp)}
    log = (tmp / "service.log").open("w")
    stack.callback(log.close)
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=log, env=env)

    stack.callback(_stop, proc, 30.0)
    if mover is not None:
        mover.start(proc.pid)
    deadline = time.monotonic() + 120
    while not notify.times("READY=1"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"glass: the service never said READY=1: {_tail(tmp)}")
        time.sleep(0.01)
    return proc


def _tail(tmp: Path) -> str:
    with contextlib.suppress(OSError):
        return (tmp / "service.log").read_text()[-1500:]
    return "(no log)"


def _command(listener: Listener, pub: mqtt.Client, command: dict[str, Any], key: str) -> None:
    at = listener.mark()
    pub.publish(f"{R}/command", json.dumps({**command, "id": key}), qos=1)

    def answered(topic: str, body: bytes) -> bool:
        return topic.endswith("/reply") and key.encode() in body

    if listener.first(at, answered) is None:
        raise SystemExit(f"glass: no reply to {command['cmd']} within {WAIT:g} s")


def _draws(n: int, hub: HubEmulator, at_table: Listener, at_venue: Listener, overlay: Any,
           wall: Any, frames: Frames) -> dict[str, Any]:  # fmt: skip
    registry = TagRegistry.synthetic(load_table(ROOT / "examples" / "table.toml").tokens)
    present: list[float] = []  # wall-clock ms of each PRESENT frame the hub wrote
    removed: list[int] = []
    wrote = threading.Condition()

    def on_write(frame: bytes, t: float) -> None:
        now = time.time() * 1000 - (time.perf_counter() - t) * 1000  # the write, wall-clock
        body = p.cobs_decode(frame[:-1])
        with wrote:
            if body[0] == p.PRESENT:
                present.append(now)
            elif body[0] == p.REMOVED:
                removed.append(body[3])
            wrote.notify_all()

    pub = mqtt.Client(CallbackAPIVersion.VERSION2)
    pub.username_pw_set(SERVICE_USER, SERVICE_PASSWORD)
    pub.connect("127.0.0.1", at_table.port, keepalive=30)
    pub.loop_start()
    out: dict[str, Any] = {k: [] for k in ("overlay", "panel", "wall", "service", "bridge")}
    missed = {k: 0 for k in out}
    hub.on_write = on_write
    k = 0
    try:
        while len(out["overlay"]) + missed["overlay"] < n:
            k += 1
            _command(at_table, pub, BEGIN, f"glass-{k}-begin")
            _command(at_table, pub, ARIA, f"glass-{k}-declare")
            overlay.evaluate("window.__seen = {}")
            laid = 0
            for channel, token in enumerate(TOKENS):
                if len(out["overlay"]) + missed["overlay"] >= n:
                    break
                laid += 1
                frames.quiet()
                uid = registry.uid(token)
                assert uid is not None
                before, fcount = len(present), frames.count()
                mark_t, mark_v = at_table.mark(), at_venue.mark()
                hub.lay(channel, uid)
                with wrote:
                    if not wrote.wait_for(functools.partial(_longer, present, before), WAIT):
                        raise SystemExit("glass: the hub wrote no PRESENT frame")
                t0 = present[before]
                ev = at_table.first(mark_t, _event(token))
                if ev is None:
                    raise SystemExit(f"glass: no token_drawn for {token} within {WAIT:g} s")
                seq = json.loads(ev[1])["seq"]
                out["service"].append(ev[0] - t0)
                got = at_venue.first(mark_v, _event(token))
                if got is None:
                    missed["bridge"] += 1
                else:
                    out["bridge"].append(got[0] - ev[0])
                _dom(overlay, f"window.__seen[{token!r}]", t0, out, missed, "overlay")
                _dom(wall, f"window.__wall[{seq}]", t0, out, missed, "wall")
                f = frames.next_after(fcount)
                if f is None:
                    missed["panel"] += 1
                else:
                    out["panel"].append(f - t0)
            # the tokens laid this round back in the bag: one REMOVED each (a round that ended
            # early, an odd --draws, laid fewer than TOKENS)
            gone = len(removed)
            for lifted in range(laid):
                hub.lift(lifted)
            with wrote:
                if not wrote.wait_for(functools.partial(_longer, removed, gone + laid - 1), WAIT):
                    raise SystemExit(f"glass: the hub said {len(removed) - gone} REMOVED of {laid}")
            _command(at_table, pub, {"cmd": "cancel_performance"}, f"glass-{k}-cancel")
    finally:
        hub.on_write = None
        pub.disconnect()
        pub.loop_stop()
    return {"times": out, "missed": missed}


def _longer(xs: list[Any], n: int) -> bool:
    return len(xs) > n


def _dom(page: Any, expr: str, t0: float, out: dict[str, Any], missed: dict[str, int],
         name: str) -> None:  # fmt: skip
    try:
        page.wait_for_function(f"{expr} !== undefined", timeout=WAIT * 1000, polling=5)
    except Exception:  # a Playwright timeout: this draw never reached that page
        missed[name] += 1
        return
    out[name].append(float(page.evaluate(expr)) - t0)


def _report(args: argparse.Namespace, res: dict[str, Any], raw: list[float]) -> None:
    t, m = res["times"], res["missed"]
    print(f"benchmarks/glass.py — {args.draws} draws, the service under the '{args.cap}' cap "
          f"({CAPS[args.cap][1]}), Chromium {CHROMIUM}")  # fmt: skip
    print("from the PRESENT frame on the hub's pty to:")
    print(line("  the overlay's DOM", t["overlay"], m["overlay"]))
    print(line("  the panel's frame on disk", t["panel"], m["panel"]))
    print(line("  the venue wall's DOM", t["wall"], m["wall"]))
    print("the hops under them:")
    print(line("  frame → event at the table's broker", t["service"]))
    print(line("  event: table broker → venue broker", t["bridge"], m["bridge"]))
    print(line("  floor: raw paho round trip (table)", raw))
    for name, xs, limit in (("overlay", t["overlay"], OVERLAY_P95_MS),
                            ("wall", t["wall"], WALL_P95_MS)):  # fmt: skip
        if not xs or m[name]:
            verdict = "NOT met" if m[name] else "not measured"
        elif args.cap != "quarter":
            verdict = "for information (the target is at the quarter cap)"
        else:
            verdict = "met" if pct(xs, 95) <= limit else "NOT met"
        print(f"  target: {name} p95 ≤ {limit:g} ms: {verdict}")


if __name__ == "__main__":
    sys.exit(main())
