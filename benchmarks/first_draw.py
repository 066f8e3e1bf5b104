"""Power to first draw: the service's start → READY → the first accepted draw, under a Pi's
CPU cap (issue 44, item 4).

    .venv/bin/python -m benchmarks.first_draw [--quick] [--starts N]
                                              [--caps uncapped,quarter,tenth] [--json FILE]

What a player waits for once the Pi's OS has booted (the OS's own boot is left out: it is
the board's and the SD card's, not this project's): ``systemd`` starts ``rhuna-table run``;
the service loads the table and its journal, opens the hub and the broker and says
``READY=1``; the WorldKeeper begins a Performance and a hero declares (two MQTT commands,
sent the moment the service is online, the first again every 0.25 s until answered, see
:func:`begin`: a person's pause is not counted); a token laid on a Draw Board well then
becomes a draw in the ``…/state`` a page reads. Each start is timed
from the moment this process spawns the service:

- **READY**: its ``READY=1`` datagram on the ``NOTIFY_SOCKET`` (the unit is ``Type=notify``);
- **online**: its retained ``…/status`` ``online`` at a plain paho subscriber;
- **first draw**: the ``…/state`` that has the laid token drawn, at that subscriber; the token
  is laid (the emulated hub's PRESENT frame on its pty) once the declare's reply is in.

The caps are ``benchmarks.pi_budget``'s, its Pi model: a cgroup v1 CPU quota of 2,500 µs per
10 ms per process (a quarter of a core of this machine, ≈ a Pi 4's core) or 1,000 µs (a tenth,
≈ a Pi Zero 2 W's), each process of the service's tree moved into a cgroup of its own by
``pi_budget.Mover`` as it appears; the broker and this process are not capped. Beside each
cap, in the same run and under the same cap, the floor: a bare ``python -c pass`` (the
interpreter's own start, the least any Python service could take), started the same way
(``sh`` joins the cgroup, then execs it). Every start is a fresh state directory (an empty
journal, the example table, a synthetic registry), a fresh broker and hub; the bytecode
cache is warm (one untimed start first: a deployed Pi has compiled its files), and so is the
OS's page cache (a Pi's first start after power-up reads its files from the SD card: not
modelled). Medians of ``--starts`` starts (5; 1 with ``--quick``); targets: the first draw
≤ 10 s at a quarter core and ≤ 20 s at a tenth. Verdicts are printed; the exit status is 0
whatever they say (not root, or no cgroup v1 cpu: the capped rows say "not measured: why").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import positive
from benchmarks.pi_budget import (
    ARIA,
    BEGIN,
    CAPS,
    WATCHDOG_USEC,
    Notify,
    Watcher,
    _drawn,
    _stop,
    _tree,
    cap_unavailable,
    capped,
    cpu_cap,
    in_group,
)
from engine import load_table
from firmware_bridge.emulator import HubEmulator
from tags.registry import TagRegistry
from tests.harness.broker import Broker
from tests.harness.service import write_config

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "examples" / "table.toml"
#: the Pi model's caps (a quota per process) and the run with none
NAMES = ("uncapped", "quarter", "tenth")
#: cap → the first draw allowed, s (issue 44, item 4)
TARGET_S = {"quarter": 10.0, "tenth": 20.0}
TOKEN = "aria.weight.0"  # one of Aria's bag tokens: the declare makes her the one drawing
TIMEOUT_S = 120.0  # a liveness bound for each step (a tenth of a core on a loaded machine)


def floor(quota: int | None, env: dict[str, str]) -> float:
    """Seconds of one ``python -c pass``, started under ``quota`` as the service is."""
    with contextlib.ExitStack() as stack:
        group = stack.enter_context(cpu_cap(quota)) if quota is not None else None
        t0 = time.perf_counter()
        subprocess.run(
            in_group(group, [sys.executable, "-c", "pass"]), cwd=ROOT, env=env, check=True
        )
        return time.perf_counter() - t0


def start(quota: int | None, folder: Path, env: dict[str, str]) -> dict[str, float]:
    """One start of the service under ``quota``: seconds from its spawn to READY=1, to
    ``online``, to each of the two commands' replies, and to the ``…/state`` with the first
    draw (the token laid once the declare's reply was in)."""
    folder.mkdir(parents=True)
    broker = Broker(folder / "broker", extra="set_tcp_nodelay true").start()
    hub = HubEmulator(channels=4, hub_id="EMU-first-draw", poll_ms=2.0)
    hub.start()
    readers = f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
    mqtt = f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
    config = write_config(folder / "table", mqtt, readers=readers)
    uid = TagRegistry.synthetic(load_table(TABLE).tokens).uid(TOKEN)
    assert uid is not None
    notify = Notify(folder / "notify.sock")
    watcher = Watcher(broker.port)
    log = (folder / "service.log").open("w")
    proc: subprocess.Popen[bytes] | None = None
    out: dict[str, float] = {}
    stack = contextlib.ExitStack()
    try:
        argv = [sys.executable, "-m", "companion.cli", "run", "--config", str(config)]
        argv, mover = capped(argv, quota, stack)
        service_env = {**env, "NOTIFY_SOCKET": str(notify.path),
                       "WATCHDOG_USEC": str(WATCHDOG_USEC), "TMPDIR": str(folder)}  # fmt: skip
        service_env.pop("WATCHDOG_PID", None)
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=log, env=service_env)
        if mover is not None:
            mover.start(proc.pid)
        deadline = t0 + TIMEOUT_S
        while not notify.times("READY=1"):
            if proc.poll() is not None or time.perf_counter() > deadline:
                raise SystemExit(f"first_draw: no READY=1: {_tail(folder)}")
            time.sleep(0.005)
        out["ready_s"] = notify.times("READY=1")[0] - t0
        out["ready_cpu_s"] = cpu_s(proc.pid)
        if not watcher.wait(lambda: watcher.status == b"online", TIMEOUT_S):
            raise SystemExit(f"first_draw: the service never said online: {_tail(folder)}")
        out["online_s"] = time.perf_counter() - t0
        begin(watcher, folder)
        out["begun_s"] = time.perf_counter() - t0
        took, status = watcher.turn(ARIA, TIMEOUT_S)
        if took is None or status != "ok":
            raise SystemExit(f"first_draw: declare: {status}: {_tail(folder)}")
        out["declared_s"] = time.perf_counter() - t0
        seen = len(watcher.states)
        laid = time.perf_counter()
        hub.lay(0, uid)
        if not watcher.wait(
            lambda: any(_drawn(x, TOKEN) for _, x in watcher.states[seen:]), TIMEOUT_S
        ):
            raise SystemExit(f"first_draw: no …/state with {TOKEN} drawn: {_tail(folder)}")
        arrived = next(t for t, x in watcher.states[seen:] if _drawn(x, TOKEN))
        out["draw_s"] = arrived - t0
        out["lay_to_draw_s"] = arrived - laid
        out["draw_cpu_s"] = cpu_s(proc.pid)
        return out
    finally:
        if proc is not None:
            _stop(proc, 30.0)
        stack.close()  # the cgroups, once the service is gone
        log.close()
        watcher.close()
        notify.close()
        hub.stop()
        broker.stop()


def cpu_s(pid: int) -> float:
    """The CPU seconds (user + system) the process tree of ``pid`` has used so far, its
    children that ended included: what the start costs, whatever the load beside it."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for each in _tree(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / tick


def begin(watcher: Watcher, folder: Path) -> None:
    """``begin_performance``, sent again every :data:`~benchmarks.pi_budget.AGAIN_S` until one
    is answered ``ok`` (:meth:`Watcher.until_answered`: a command sent the instant ``online``
    arrives may be lost). The first ``ok`` counts (a later copy is refused, a Performance being
    open, and changes nothing)."""
    if not watcher.until_answered(
        BEGIN, "first-draw-begin", lambda reply: reply.get("status") == "ok", TIMEOUT_S
    ):
        raise SystemExit(f"first_draw: begin_performance: no ok reply: {_tail(folder)}")


def _tail(folder: Path) -> str:
    with contextlib.suppress(OSError):
        return (folder / "service.log").read_text()[-2000:]
    return ""


def measure(caps: list[str], starts: int) -> dict[str, Any]:
    """Every cap asked for: ``starts`` starts of the service and as many floors, interleaved
    (a floor, then a start), after one untimed start that warms the bytecode cache."""
    tmp = Path(tempfile.mkdtemp(prefix="rhuna-first-draw-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    out: dict[str, Any] = {"starts": starts, "caps": {}}
    why = cap_unavailable()
    try:
        start(None, tmp / "warm", env)  # the bytecode cache, as a deployed Pi has it
        for name in caps:
            quota = CAPS[name][0]
            if quota is not None and why is not None:
                out["caps"][name] = {"not_measured": why}
                continue
            print(f"first_draw: {name} …", file=sys.stderr, flush=True)
            runs: list[dict[str, float]] = []
            floors: list[float] = []
            for i in range(starts):
                floors.append(floor(quota, env))
                runs.append(start(quota, tmp / f"{name}-{i}", env))
            out["caps"][name] = {
                "floor_s": statistics.median(floors),
                **{k: statistics.median(r[k] for r in runs) for k in runs[0]},
                "draw_max_s": max(r["draw_s"] for r in runs),
                "runs": runs,
                "floors": floors,
            }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def report(result: dict[str, Any]) -> list[str]:
    """The figures, one line a cap, then the table."""
    n = result["starts"]
    lines = [f"power to first draw (the OS's own boot left out), medians of {n} start(s):"]
    for name, r in result["caps"].items():
        label = CAPS[name][1]
        if "not_measured" in r:
            lines.append(f"first draw {name} ({label}): not measured: {r['not_measured']}")
            continue
        target = TARGET_S.get(name)
        judged = "no target"
        if target is not None:
            verdict = "ok" if r["draw_max_s"] <= target else "MISSED"
            judged = f"the slowest {r['draw_max_s']:.2f} s; target ≤ {target:g} s: {verdict}"
        lines.append(
            f"first draw {name}: start → READY {r['ready_s']:.2f} s, → online"
            f" {r['online_s']:.2f} s, → first draw {r['draw_s']:.2f} s ({judged});"
            f" floor `python -c pass` {r['floor_s']:.3f} s"
        )
    lines.append("")
    lines.append(
        "| cap | `python -c pass` | start → READY=1 | → online | → Performance begun |"
        " → Aria declared | → first draw | token laid → drawn | CPU to READY, to the draw |"
        " target |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in result["caps"].items():
        if "not_measured" in r:
            continue
        target = TARGET_S.get(name)
        lines.append(
            f"| {CAPS[name][1]} | {r['floor_s']:.3f} s | {r['ready_s']:.2f} s |"
            f" {r['online_s']:.2f} s | {r['begun_s']:.2f} s | {r['declared_s']:.2f} s |"
            f" {r['draw_s']:.2f} s | {r['lay_to_draw_s'] * 1e3:.0f} ms |"
            f" {r['ready_cpu_s']:.2f} s, {r['draw_cpu_s']:.2f} s |"
            f" {f'≤ {target:g} s' if target else '(info)'} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: one start a cap")
    parser.add_argument("--starts", type=positive, help="starts a cap (default 5; quick 1)")
    parser.add_argument("--caps", default=",".join(NAMES), help=f"some of {','.join(NAMES)}")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    caps = [c for c in args.caps.split(",") if c]
    unknown = [c for c in caps if c not in NAMES]
    if unknown:
        parser.error(f"unknown cap {unknown[0]!r}: one of {', '.join(NAMES)}")
    starts = args.starts or (1 if args.quick else 5)

    def terminated(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminated)
    try:
        result = measure(caps, starts)
    except KeyboardInterrupt:
        print("first_draw: interrupted; everything it started is stopped", file=sys.stderr)
        return 130
    print("\n".join(report(result)))
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
