"""Where the latency goes, hop by hop: benchmarks/latency.py's run with the service traced.

    .venv/bin/python -m benchmarks.hops [--samples 200] [--no-panel] [--json out.json]

The same setup as :mod:`benchmarks.latency` (one Mosquitto, ``rhuna-table run`` as its own
process with the PNG panel and the journal on the disk, the hub emulator on a real pty),
but the service is started through this file, which wraps a few functions with a clock
(``time.perf_counter``: CLOCK_MONOTONIC, the same clock in both processes) before it runs
the CLI. Each sample's path is then cut into hops:

command → event: publish (bench) → the service's paho thread has it → the loop took it →
applied → committed (fsync) → the MQTT subscriber is told → paho queued the event → the
event's bytes are on the service's socket → the subscriber has it (bench);

tag → state: the frame is on the pty (bench) → the reader decoded it → the loop took it →
applied → committed → the panel and the log are told → the events are out and the view
computed and ``…/state`` encoded (in the loop's turn, or on the publisher thread when the
loop was busy) → its bytes are on the socket → the subscriber has it.

Printed per hop: the median and the 99th percentile of its share, and for the slowest
1 % of samples the median share of each hop (what the tail is made of), plus how many of
the slow samples overlapped a panel render, a snapshot or a garbage collection in the
service. A diagnosis tool: the figures with targets are benchmarks/latency.py's.

A/B knobs (environment, the served process only): ``HOPS_FINE=1`` cuts the tag's last
hops finer (without pondering or ``StateAhead``, whose work is not in the turn),
``HOPS_NO_AHEAD``, ``HOPS_NO_PONDER``, ``HOPS_NO_FREEZE``, ``HOPS_NO_DIRECT``,
``HOPS_NO_DIRECT_STATE``, ``HOPS_NO_DIRECT_REPLY`` (a command's reply from the publisher
thread, as before issue 27's leftover), ``HOPS_SWITCH=<s>``.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import positive

# --- the service's side: wrap, then run the CLI --------------------------------------------

_TRACE: list[tuple[float, str]] = []


def _mark(name: str) -> None:
    _TRACE.append((time.perf_counter(), name))


def _around(owner: Any, attr: str, before: str | None, after: str | None,
            when: Callable[..., bool] | None = None) -> None:  # fmt: skip
    inner = getattr(owner, attr)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        on = when is None or when(*args, **kwargs)
        if on and before:
            _mark(before)
        try:
            return inner(*args, **kwargs)
        finally:
            if on and after:
                _mark(after)

    setattr(owner, attr, wrapper)


def _install(out: str) -> None:
    import gc

    import paho.mqtt.client as mqtt

    import companion.mqtt.bridge as bridge_mod
    import companion.mqtt.fast_path as fast_mod
    import companion.mqtt.intake as intake_mod
    import companion.mqtt.publisher as publisher_mod
    import companion.service as service_mod
    import companion.table.loop as loop_mod
    from companion.service import Service
    from companion.table.panel_output import PanelOutput
    from companion.table.store import Store
    from display.process import ProcessDisplayWorker
    from display.worker import DisplayWorker
    from firmware_bridge import protocol as p
    from firmware_bridge.hub import HubReader

    # A/B knobs for the diagnosis (not settings of the service)
    if os.environ.get("HOPS_SWITCH"):
        service_mod.SWITCH_INTERVAL = float(os.environ["HOPS_SWITCH"])
    if os.environ.get("HOPS_NO_DIRECT"):
        from companion.mqtt.client import Client

        Client.write_now = lambda self: False  # type: ignore[method-assign]
    if os.environ.get("HOPS_NO_AHEAD"):
        bridge_mod.MqttBridge.state_ahead = False
    if os.environ.get("HOPS_NO_DIRECT_STATE"):
        fast_mod.FastPath._state_now = lambda self, state, version, at: None  # type: ignore[method-assign]
    if os.environ.get("HOPS_NO_DIRECT_REPLY"):  # a command's reply left to the publisher
        fast_mod.FastPath._reply_now = lambda self, outcome, events: None  # type: ignore[method-assign]

    def command_topic(self: Any, client: Any, userdata: Any, message: Any) -> bool:
        topics = self.link.topics
        return topics is not None and topics.command_name(message.topic) is not None

    _around(intake_mod.Intake, "on_message", "rx", None, command_topic)
    _around(HubReader, "_dispatch", "serial", None, lambda self, port, t, payload: t == p.PRESENT)
    _around(loop_mod.TableLoop, "process", "take", None)
    _around(loop_mod, "apply", None, "applied")
    import companion.table.ponder as ponder_mod

    recall = ponder_mod.Ponder.recall

    def recalled(self: Any, state: Any, command: Any) -> Any:
        answer = recall(self, state, command)
        if answer is not None:  # pondered: the turn's apply is this lookup
            _mark("applied")
        return answer

    ponder_mod.Ponder.recall = recalled  # type: ignore[method-assign]
    _around(ponder_mod.Ponder, "_ponder", "ponder0", "ponder1")
    if os.environ.get("HOPS_NO_PONDER"):
        service_mod.Service.pondering = False
    _around(Store, "append", "commit0", "committed")
    _around(PanelOutput, "__call__", "panel0", "panel1")
    _around(Service, "outcome_log", "log0", None)
    _around(fast_mod.FastPath, "on_outcome", "mqtt0", "mqtt1")
    _around(publisher_mod.Publisher, "_publish_outcome", "publisher", None)
    _around(publisher_mod.Publisher, "_publish_state", "state0", "state1")
    import companion.views.cache as views_mod

    _around(views_mod, "table_view", "view0", "viewed")  # the bridge's and the panel's
    _around(fast_mod.FastPath, "_state_now", "direct0", "direct1")
    _around(DisplayWorker, "_update", "render0", "render1")
    _around(ProcessDisplayWorker, "_update", "render0", "render1")  # the child draws meanwhile
    from companion.table.snapshots import Snapshots

    _around(Snapshots, "_take", "snap0", "snap1")  # the snapshot thread's write

    publish = mqtt.Client.publish

    def published(self: Any, topic: str, *args: Any, **kwargs: Any) -> Any:
        if topic.endswith("/events"):
            _mark("event_queued")
        elif topic.endswith("/state"):
            _mark("state_queued")
        return publish(self, topic, *args, **kwargs)

    mqtt.Client.publish = published  # type: ignore[method-assign]
    sock_send = mqtt.Client._sock_send

    def sent(self: Any, buf: Any) -> int:
        if buf and buf[0] & 0xF0 == 0x30:  # PUBLISH
            _mark("sent")
        return sock_send(self, buf)

    mqtt.Client._sock_send = sent  # type: ignore[method-assign]

    def collected(phase: str, info: dict[str, int]) -> None:
        _mark(f"gc_{phase}")
        if info["generation"] == 2:
            _mark(f"gc2_{phase}")

    gc.callbacks.append(collected)
    if os.environ.get("HOPS_NO_FREEZE"):  # the service's heap left to the collector
        gc.freeze = lambda: None

    def dump() -> None:
        Path(out).write_text(json.dumps(_TRACE))

    atexit.register(dump)


def serve(out: str, argv: list[str]) -> int:
    _install(out)
    from companion.cli import main

    return main(argv)


# --- the benchmark's side --------------------------------------------------------------------

COMMAND_HOPS = [
    ("rx", "broker → the service's paho thread"),
    ("take", "paho thread → the loop took it"),
    ("applied", "engine.apply"),
    ("committed", "journal commit (fsync)"),
    ("mqtt0", "committed → the MQTT bridge told"),
    ("event_queued", "event encoded"),
    ("sent", "publish → socket send() (which thread)"),
    ("arrived", "broker → the subscriber"),
]
TAG_HOPS = [
    ("serial", "pty → the reader decoded it"),
    ("take", "reader thread → the loop took it"),
    ("applied", "engine.apply"),
    ("committed", "journal commit (fsync)"),
    ("mqtt0", "committed → the MQTT bridge told"),
    ("state_queued", "events out, view + …/state encoded"),
    ("sent", "paho.publish → socket send()"),
    ("arrived", "broker → the subscriber"),
]
# HOPS_FINE=1: the tag's "events out, view + …/state encoded" hop cut into its pieces
TAG_HOPS_FINE = [
    *TAG_HOPS[:5],
    ("event_queued", "first event encoded"),
    ("view0", "the rest of the events out"),
    ("viewed", "table_view"),
    ("state_queued", "…/state encoded"),
    *TAG_HOPS[6:],
]
OVERLAPS = [("render0", "render1", "panel render"), ("snap0", "snap1", "snapshot"),
            ("gc_start", "gc_stop", "gc"), ("gc2_start", "gc2_stop", "gc gen 2"),
            ("ponder0", "ponder1", "pondering")]  # fmt: skip


def measure(samples: int, panel: bool, where: str | None) -> dict[str, Any]:
    """benchmarks/latency.py's run (the same loop, raw paho interleaved), its service traced."""
    from benchmarks import latency as lat

    with tempfile.TemporaryDirectory(dir=where) as tmp:
        trace = Path(tmp) / "trace.json"
        windows: dict[str, list[tuple[float, float]]] = {}
        figures = lat.measure(
            samples,
            panel=panel,
            where=where,
            cli=[sys.executable, "-m", "benchmarks.hops", "--serve", str(trace), "--"],
            windows=windows,
        )
        out = analyse(windows, json.loads(trace.read_text()))
    out["figures"] = figures
    return out


def _first(trace: list[tuple[float, str]], name: str, start: float, end: float) -> float | None:
    for t, n in trace:
        if start <= t <= end and n == name:
            return t
    return None


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def _breakdown(
    windows: list[tuple[float, float]], hops: list[tuple[str, str]], trace: list[tuple[float, str]]
) -> dict[str, Any]:
    rows: list[dict[str, float]] = []
    missing: dict[str, int] = {}
    for start, end in windows:
        at = {"start": start, "arrived": end}
        prev = start
        row: dict[str, float] = {}
        for name, _ in hops:
            t = end if name == "arrived" else _first(trace, name, prev, end)
            if t is None:
                missing[name] = missing.get(name, 0) + 1
                break
            row[name] = (t - prev) * 1e3
            prev = t
            at[name] = t
        else:
            row["total"] = (end - start) * 1e3
            row["overlaps"] = float(sum(
                1 for a, b, _ in OVERLAPS if _overlapped(trace, a, b, start, end)
            ))  # fmt: skip
            for a, b, label in OVERLAPS:
                row[label] = float(_overlapped(trace, a, b, start, end))
            rows.append(row)
    totals = sorted(r["total"] for r in rows)
    cut = _pct(totals, 0.99)
    slow = [r for r in rows if r["total"] >= _pct(totals, 0.95)]
    out: dict[str, Any] = {"n": len(rows), "of": len(windows),
                           "total_p50": _pct(totals, 0.5), "total_p99": cut,
                           "slow_n": len(slow), "hops": [], "missing": missing}  # fmt: skip
    for name, label in hops:
        xs = [r[name] for r in rows]
        out["hops"].append({
            "hop": name, "label": label, "p50": _pct(xs, 0.5), "p99": _pct(xs, 0.99),
            "slow_p50": _pct([r[name] for r in slow], 0.5),
        })  # fmt: skip
    for _, _, label in OVERLAPS:
        out[f"overlap_{label}_all"] = sum(r[label] for r in rows) / max(1, len(rows))
        out[f"overlap_{label}_slow"] = sum(r[label] for r in slow) / max(1, len(slow))
    return out


def _overlapped(trace: list[tuple[float, str]], a: str, b: str, start: float, end: float) -> bool:
    began: float | None = None
    for t, n in trace:
        if n == a:
            began = t
        elif n == b and began is not None:
            if began <= end and t >= start:
                return True
            began = None
        if t > end and began is None:
            break
    return began is not None and began <= end


def _durations(trace: list[tuple[float, str]], a: str, b: str) -> dict[str, float]:
    xs: list[float] = []
    began: float | None = None
    for t, n in trace:
        if n == a:
            began = t
        elif n == b and began is not None:
            xs.append((t - began) * 1e3)
            began = None
    return {"n": len(xs), "p50": _pct(xs, 0.5), "p99": _pct(xs, 0.99), "max": max(xs, default=0)}


def analyse(marks: dict[str, list[tuple[float, float]]], raw: list[list[Any]]) -> dict[str, Any]:
    trace = sorted((float(t), str(n)) for t, n in raw)
    return {
        "durations": {label: _durations(trace, a, b) for a, b, label in OVERLAPS}
        | {
            "journal commit": _durations(trace, "commit0", "committed"),
            "state publish": _durations(trace, "state0", "state1"),
            "table_view": _durations(trace, "view0", "viewed"),
            "…/state in the loop's turn": _durations(trace, "direct0", "direct1"),
        },
        "command_event": _breakdown(marks["command_event"], COMMAND_HOPS, trace),
        "tag_state": _breakdown(
            marks["tag_state"], TAG_HOPS_FINE if os.environ.get("HOPS_FINE") else TAG_HOPS, trace
        ),
    }


def report(result: dict[str, Any]) -> None:
    f = result["figures"]
    for key, label in (("raw", "raw paho publish → receive"), ("command_event", "command → event"),
                       ("command_reply", "command → reply"), ("event_reply", "its first event → its reply"),
                       ("tag_state", "tag → state")):  # fmt: skip
        ratio = f"  p99 {f[key]['p99_ratio']:.2f}× raw" if "p99_ratio" in f[key] else ""
        print(f"{label:28s} p50 {f[key]['p50_ms']:6.2f} ms  p99 {f[key]['p99_ms']:6.2f} ms{ratio}")
    for label, d in result["durations"].items():
        print(f"{label}: {d['n']} times, p50 {d['p50']:.2f} ms, p99 {d['p99']:.2f} ms,"
              f" max {d['max']:.2f} ms")  # fmt: skip
    for key, title in (("command_event", "MQTT command → event"),
                       ("tag_state", "tag frame on the pty → state")):  # fmt: skip
        r = result[key]
        print(f"{title}: {r['n']} of {r['of']} samples traced;"
              f" total p50 {r['total_p50']:.2f} ms, p99 {r['total_p99']:.2f} ms")  # fmt: skip
        if r["missing"]:
            print(f"  not traced (the first hop not seen): {r['missing']}")
        print(f"  {'hop':44s} {'p50':>7s} {'p99':>7s} {'slowest 5 %: p50':>17s}")
        for h in r["hops"]:
            print(f"  {h['label']:44s} {h['p50']:7.3f} {h['p99']:7.3f} {h['slow_p50']:17.3f}")
        for _, _, label in OVERLAPS:
            print(f"  overlapping a {label}: {r[f'overlap_{label}_all']:.0%} of all samples,"
                  f" {r[f'overlap_{label}_slow']:.0%} of the slowest 5 %")  # fmt: skip


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        rest = sys.argv[3:]
        return serve(sys.argv[2], rest[1:] if rest[:1] == ["--"] else rest)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=positive, default=200)
    parser.add_argument("--no-panel", action="store_true", help="display driver none")
    parser.add_argument("--json", help="also write the breakdown here")
    parser.add_argument("--dir", help="put the state directory there (e.g. /dev/shm)")
    args = parser.parse_args()
    result = measure(args.samples, not args.no_panel, args.dir)
    report(result)
    if args.json:  # its folder made here: a fresh clone has no test-artefacts/ yet
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "main"
    raise SystemExit(main())
