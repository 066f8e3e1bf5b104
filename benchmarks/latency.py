"""The whole product's latency, measured from outside, against raw paho on the same broker.

    .venv/bin/python -m benchmarks.latency [--samples 300] [--json out.json]

One run, one Mosquitto (``set_tcp_nodelay true``, as docs/mqtt.md recommends),
the real :class:`~companion.service.Service` on the emulated config: journal in
SQLite (WAL, synchronous=FULL), the PNG panel on (2.13" three-colour), an
emulated hub on a real pty, the MQTT bridge. Three distributions, interleaved so
that they share the machine's load:

1. **raw**: paho publish (QoS 1) → receive at another paho client, no service in
   the path: the floor any MQTT figure stands on;
2. **command → event**: a client publishes a command on ``…/command`` → the first
   event of that command arrives at a subscriber of ``…/events``; and **command → reply**,
   the same commands (each with a ``transaction``, as a gm's) → their ``…/reply`` arrives
   (begin and declare: the cancel's reply is not waited for), and from the first event's
   arrival to the reply's (what the reply waits beyond the event);
3. **tag → state**: the emulated hub writes a tag frame on the pty → the retained
   ``…/state`` that follows arrives at a subscriber;
4. **commit**: one draw committed by the real journal (:meth:`companion.table.store.Store.append`:
   SQLite, WAL, ``synchronous=FULL``) in a second state directory beside the service's, on
   the same disk, in this process: the disk's share of 2 and 3, measured in the same run.

Targets (issue 27 item 5): 2 and 3 against the floor of the same run, p50 ≤ floor p50 + 1 ms
and p99 ≤ floor p99 + 5 ms, the floor being raw paho and the journal's commit alone (p50:
raw p50 + commit p50; p99: raw p99 + commit p99). They replace issue 17's p50 ≤ 2 ms and
p99 ≤ 3 × raw p99, which the commit alone broke on this disk (its p99 alone was 3.12 × raw
p99 at 01:58 and 64.7 × at 01:36, docs/performance.md): what they judged was the disk.

The floor under them. Every sample of 2 and 3 contains one commit (an event is told only
once its command is durable: nothing acknowledged is lost), and 3 also one broker hop, so
``raw p50 + commit p50`` is the least a p50 can be, and ``raw p99 + commit p99`` a p99 that
stalls in both (the disk's stalls are the disk's, whatever the service does). The figures
carry the floor (``floor``: both, and the commit alone's p99 / raw p99), so that a run is
judged against its own disk and broker.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
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
from companion.mqtt.client import no_delay
from companion.table.loop import Outcome
from companion.table.store import Store
from engine import apply, load_table
from engine.state import TableState
from firmware_bridge import protocol as p
from firmware_bridge.emulator import HubEmulator
from tags.registry import TagRegistry
from tests.harness.broker import Broker
from tests.harness.service import write_config

ROOT = Path(__file__).resolve().parent.parent

R = "rhuna/example"
TABLE = ROOT / "examples" / "table.toml"
BEGIN = {"cmd": "begin_performance", "difficulty": 5}
ARIA = {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill",
        "action": "target"}  # fmt: skip
CYCLE = [BEGIN, ARIA, {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"},
         {"cmd": "cancel_performance"}]  # fmt: skip


#: how long any one wait gives up after (s): a liveness bound, never a figure; generous, as a
#: loaded machine (a CI run beside others) starts the service and answers late
LIVENESS = 120.0


class Client:
    """A paho client that notes the arrival time of every message by topic."""

    def __init__(self, port: int, topics: list[str]) -> None:
        self.cond = threading.Condition()
        self.arrivals: dict[str, list[float]] = {t: [] for t in topics}
        self.payloads: dict[str, bytes] = {}
        self.states: list[tuple[float, bytes]] = []  # every …/state: arrival, payload
        self.replies: dict[Any, float] = {}  # transaction → arrival of its …/reply
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_socket_open = no_delay
        self.client.on_message = self._message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.connect("127.0.0.1", port)
        if topics:
            self.client.subscribe([(t, 1) for t in topics])
        self.client.loop_start()
        # the broker's SUBACK, not a pause: a message sent before it is not delivered here
        if topics and not subscribed.wait(LIVENESS):
            raise SystemExit(f"bench: no SUBACK for {topics} within {LIVENESS:g} s")

    def _message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        with self.cond:
            self.arrivals.setdefault(msg.topic, []).append(now)
            self.payloads[msg.topic] = bytes(msg.payload)
            if msg.topic.endswith("/state"):
                self.states.append((now, bytes(msg.payload)))
            if msg.topic.endswith("/reply"):  # by transaction: each command's own reply
                self.replies[json.loads(msg.payload).get("transaction")] = now
            self.cond.notify_all()

    def last_payload(self, topic: str) -> bytes | None:
        with self.cond:
            return self.payloads.get(topic)

    def count(self, topic: str) -> int:
        with self.cond:
            return len(self.arrivals[topic])

    def wait(self, topic: str, n: int, timeout: float = LIVENESS) -> float:
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.arrivals[topic]) >= n, timeout)
            if not ok:
                raise SystemExit(f"bench: no message #{n} on {topic}")
            return self.arrivals[topic][n - 1]

    def drawn(self, after: int, token: str, timeout: float = LIVENESS) -> float:
        """The arrival of the first ``…/state`` after the ``after``-th that has ``token``
        drawn (not merely the next one: under load a late state of the turn before arrives
        after the quiet that should have seen it go, and was taken for this one)."""
        with self.cond:
            if not self.cond.wait_for(
                lambda: any(_drawn(x, token) for _, x in self.states[after:]), timeout
            ):
                raise SystemExit(f"bench: no …/state with {token} drawn")
            return next(t for t, x in self.states[after:] if _drawn(x, token))

    def reply(self, transaction: Any, timeout: float = LIVENESS) -> float:
        with self.cond:
            if not self.cond.wait_for(lambda: transaction in self.replies, timeout):
                raise SystemExit(f"bench: no reply for transaction {transaction!r}")
            return self.replies[transaction]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def summary(xs: list[float]) -> dict[str, float]:
    return {"p50_ms": pct(xs, 0.5) * 1e3, "p99_ms": pct(xs, 0.99) * 1e3, "n": len(xs)}


def measure(
    samples: int = 300,
    *,
    panel: bool = True,
    where: str | None = None,
    cli: list[str] | None = None,
    windows: dict[str, list[tuple[float, float]]] | None = None,
    pace: float = 0.0,
) -> dict[str, Any]:
    """The distributions and the ratios, from one run (see the module docstring).

    The service is its own process (``rhuna-table run``), as at the table; the hub
    emulator (on a real pty), the broker's clients and the clock are this one's.
    ``where``: the folder for the state directory (default: the system's temporary one).
    ``cli``: the command that is ``rhuna-table`` (benchmarks/hops.py runs a traced one);
    ``windows``: filled with each sample's (start, arrival) on ``time.perf_counter``'s clock;
    ``pace``: seconds of quiet before each sample beyond the 10 ms the burst before it needs
    (0: as fast as the service answers; a table lays a token a second or more apart, so
    the service's own work after a draw — the pondering, the panel's frame — is over by
    then, and its caches are as cold as a table leaves them).
    """
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker", extra="set_tcp_nodelay true").start()
        hub = HubEmulator(channels=4, hub_id="EMU-bench", poll_ms=2.0)
        hub.start()
        service: subprocess.Popen[bytes] | None = None
        try:
            readers = f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
            extra = f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
            path = write_config(folder / "table", extra, readers=readers)
            if not panel:
                text = path.read_text().replace('driver = "png"', 'driver = "none"')
                path.write_text(text)
            log = (folder / "service.log").open("w")
            service = subprocess.Popen(
                [*(cli or [sys.executable, "-m", "companion.cli"]), "run", "--config", str(path)],
                cwd=ROOT,
                stdout=log,
                stderr=log,
                env={**os.environ, "TMPDIR": str(folder)},
            )
            with Store.open(folder / "commit-floor", snapshot_every=0) as store:
                store.restore(load_table(TABLE), TABLE)
                log_path = folder / "service.log"
                return _measure(hub, broker.port, samples, service, log_path, windows, store, pace)
        finally:
            if service is not None:
                _stop(service, folder / "service.log")
            hub.stop()
            broker.stop()


def _measure(
    hub: HubEmulator,
    port: int,
    samples: int,
    service: subprocess.Popen[bytes],
    log: Path,
    windows: dict[str, list[tuple[float, float]]] | None = None,
    store: Store | None = None,
    pace: float = 0.0,
) -> dict[str, Any]:
    watcher = Client(port, [f"{R}/events", f"{R}/state", f"{R}/status", f"{R}/reply", "bench/raw"])
    deadline = time.monotonic() + LIVENESS  # the service's start: imports and all, loaded
    while not watcher.count(f"{R}/status") or watcher.last_payload(f"{R}/status") != b"online":
        if service.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(
                f"bench: the service did not come up within {LIVENESS:g} s: "
                f"{log.read_text()[-2000:]}"
            )
        time.sleep(0.05)
    writes: list[float] = []
    removals: list[float] = []

    def on_write(frame: bytes, t: float) -> None:
        kind = p.cobs_decode(frame[:-1])[0]
        if kind == p.PRESENT:
            writes.append(t)
        elif kind == p.REMOVED:
            removals.append(t)

    hub.on_write = on_write
    sender = Client(port, [])
    spans: dict[str, list[tuple[float, float]]] = {
        "raw": [], "command_event": [], "command_reply": [], "event_reply": [], "tag_state": []
    }  # fmt: skip
    raw, command, tag = spans["raw"], spans["command_event"], spans["tag_state"]
    reply, after = spans["command_reply"], spans["event_reply"]
    commits: list[tuple[float, float]] = []
    initial = load_table(TABLE)
    registry = TagRegistry.synthetic(initial.tokens)
    draw = _a_draw(initial)
    tokens = ["aria.weight.0", "aria.weight.1"]
    try:
        time.sleep(0.5)  # the retained state after start has gone out
        while min(len(raw), len(command), len(tag)) < samples:
            # 4. the journal's commit alone, after the same quiet as the others (the disk's)
            if store is not None:
                t0 = time.perf_counter()
                store.append(draw)
                commits.append((t0, time.perf_counter()))
            # 1. raw paho
            seen = watcher.count("bench/raw")
            t0 = time.perf_counter()
            sender.client.publish("bench/raw", b"x" * 200, qos=1)
            raw.append((t0, watcher.wait("bench/raw", seen + 1)))
            # 2. command → event (every command of the cycle tells at least one event)
            for cmd in (BEGIN, ARIA):
                seen = watcher.count(f"{R}/events")
                t0 = time.perf_counter()
                transaction = len(command)  # a gm's: its reply is timed too
                asked = {**cmd, "transaction": transaction}
                sender.client.publish(f"{R}/command", json.dumps(asked), qos=1)
                command.append((t0, watcher.wait(f"{R}/events", seen + 1)))
                reply.append((t0, watcher.reply(transaction)))
                after.append((command[-1][1], reply[-1][1]))  # the event's arrival → the reply's
                _settle(watcher, f"{R}/state", pace=pace)
            # 3. tag frame on the pty → the retained state at the subscriber
            for channel, token in enumerate(tokens):
                uid = registry.uid(token)
                assert uid is not None
                seen = watcher.count(f"{R}/state")
                before = len(writes)
                hub.lay(channel, uid)
                arrived = watcher.drawn(seen, token)
                while len(writes) <= before:
                    time.sleep(0.0005)
                tag.append((writes[before], arrived))
                _settle(watcher, f"{R}/state", pace=pace)
            lifted = len(removals)
            for channel in range(len(tokens)):
                hub.lift(channel)
            deadline = time.monotonic() + LIVENESS
            while len(removals) < lifted + len(tokens):  # the hub saw them go
                if time.monotonic() > deadline:
                    raise SystemExit("bench: the hub never reported the tokens lifted")
                time.sleep(0.001)
            seen = watcher.count(f"{R}/events")
            t0 = time.perf_counter()
            sender.client.publish(f"{R}/command", json.dumps({"cmd": "cancel_performance"}), qos=1)
            command.append((t0, watcher.wait(f"{R}/events", seen + 1)))
            _settle(watcher, f"{R}/state", pace=pace)
    finally:
        hub.on_write = None
        watcher.close()
        sender.close()
    if windows is not None:
        windows.update(spans)
    out: dict[str, Any] = {k: summary([b - a for a, b in xs]) for k, xs in spans.items()}
    raw_p99 = out["raw"]["p99_ms"]
    for key in ("command_event", "command_reply", "tag_state"):
        out[key]["p99_ratio"] = out[key]["p99_ms"] / raw_p99
    if commits:
        c = out["commit"] = summary([b - a for a, b in commits])
        out["floor"] = {
            "p50_ms": out["raw"]["p50_ms"] + c["p50_ms"],
            "p99_ms": raw_p99 + c["p99_ms"],
            "commit_p99_ratio": c["p99_ms"] / raw_p99,
        }
    return out


def _drawn(payload: bytes, token: str) -> bool:
    """Whether a ``…/state`` payload has ``token`` on the Draw Board."""
    if token.encode() not in payload:
        return False
    with contextlib.suppress(ValueError, AttributeError, TypeError):
        perf = json.loads(payload).get("performance") or {}
        return any(
            d.get("id") == token for c in perf.get("contributions", []) for d in c.get("drawn", [])
        )
    return False


def _stop(service: subprocess.Popen[bytes], log: Path, grace: float = 60.0) -> None:
    """SIGTERM, and the service reaped: ``grace`` seconds for its clean stop (a liveness bound:
    on a loaded machine it took more than 30 s once), then SIGKILL, said on stderr with the
    end of its log, never silently."""
    if service.poll() is not None:
        return
    service.send_signal(signal.SIGTERM)
    try:
        service.wait(grace)
    except subprocess.TimeoutExpired:  # ours, by its pid
        service.kill()
        service.wait(10)
        with contextlib.suppress(OSError):
            tail = log.read_text()[-2000:]
            print(
                f"bench: the service did not stop within {grace:g} s of SIGTERM; killed. Its log ends:\n{tail}",
                file=sys.stderr,
            )


def _a_draw(initial: TableState) -> Outcome:
    """The benchmark's draw (P6: Aria lays a weight token) as the loop hands it to the
    journal: its command, its events and the state after it."""
    state = initial
    for cmd in (BEGIN, ARIA):
        state, _ = apply(state, cmd)
    state, events = apply(state, CYCLE[2])
    return Outcome("bench", state, CYCLE[2], tuple(events))


def _settle(watcher: Client, topic: str, quiet: float = 0.01, pace: float = 0.0) -> None:
    """Wait until nothing more arrives on ``topic`` for ``quiet`` seconds (the burst is over),
    then ``pace`` seconds more."""
    last = watcher.count(topic)
    while True:
        time.sleep(quiet)
        now = watcher.count(topic)
        if now == last:
            break
        last = now
    if pace > 0:
        time.sleep(pace)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=positive, default=300)
    parser.add_argument("--no-panel", action="store_true", help="display driver none")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--dir", help="put the state directory there (e.g. /dev/shm)")
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds of quiet before each sample (a table's)"
    )
    args = parser.parse_args()
    result = measure(args.samples, panel=not args.no_panel, where=args.dir, pace=args.pace)
    for key, label in (
        ("raw", "raw paho publish → receive"),
        ("command_event", "MQTT command → event"),
        ("command_reply", "MQTT command → reply"),
        ("event_reply", "its first event → its reply"),
        ("tag_state", "tag frame on the pty → state"),
        ("commit", "the journal's commit alone"),
    ):
        r = result[key]
        ratio = f"  p99 {r['p99_ratio']:.2f}× raw" if "p99_ratio" in r else ""
        print(f"{label:32s} p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms{ratio}")
    floor = result["floor"]
    print(
        f"{'floor: raw p50 + commit p50':32s}     {floor['p50_ms']:6.2f} ms"
        f"  commit p99 {floor['commit_p99_ratio']:.2f}× raw p99"
    )
    if args.json:  # its folder made here: a fresh clone has no test-artefacts/ yet
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
