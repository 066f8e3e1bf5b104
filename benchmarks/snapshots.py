"""Do snapshots make replies wait? The real service's replies at a fixed rate, snapshots on and off.

    .venv/bin/python -m benchmarks.snapshots [--rate 150] [--commands 3000] [--rounds 2]
                                             [--every 1000] [--json out.json]

Each run is one ``rhuna-table run --config … --commands -`` process (as
tests/harness/service.py's ``ServiceProcess`` starts it: journal in SQLite, WAL,
``synchronous=FULL``, the PNG panel on) fed ``--commands`` commands on standard input at a fixed
``--rate`` a second, a varied evening made by tests.harness.service.session (Performances,
draws, resolves, Undo, Time draws: the Undo history full, as at a table). A command's
*reply* is the time from writing its line to reading its ``ack`` (or ``refused``) line: the
queueing behind a stall counts, as it does at the table.

Two settings, interleaved (on, off, off, on, …) so that they share the machine's load:

- **on**: ``[state] snapshot_every = --every`` (the default, 1,000): a snapshot every so many
  commands, the full state and its Undo history, written by the store's snapshot thread;
- **off**: ``snapshot_every = 0`` (a snapshot only when the service stops, after the last reply).

Printed: p50, p99 and max of the replies in each setting, pooled over the rounds; the same
for the commands sent in the ``WINDOW`` seconds after each ``--every``-th (where, when on, a
snapshot is being written; when off, the same commands and the same work without it); and the
ratios on/off. The target (issue 45 item 7): on's p99 within the run's noise of off's (the two
offs' spread, printed with ``--rounds`` 2 or more). On a machine shared with other work the
spread is large: compare on and off within one run, never across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks import positive
from engine import load_table
from tests.harness.service import session, write_config

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "examples" / "table.toml"

#: how long any one wait gives up after (s): a liveness bound, never a figure
LIVENESS = 120.0
#: seconds of commands after each snapshot's request counted apart ("after")
WINDOW = 3.0


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def one_run(
    folder: Path, commands: list[dict[str, Any]], rate: float, every: int
) -> dict[str, Any]:
    """One service with ``snapshot_every = every``, fed ``commands`` at ``rate`` a second;
    each command's reply time (s) and the journal's seq after it."""
    config = write_config(folder, state=f"snapshot_every = {every}\n")
    log = (folder / "service.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(config), "--commands", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        bufsize=0,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(folder)},
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    arrivals: list[float] = []
    seqs: list[int] = []  # the journal's seq after each answer (a refusal: the one before)
    got = threading.Condition()

    def read() -> None:
        for line in stdout:
            now = time.perf_counter()
            if line.startswith((b"ack", b"refused")):
                with got:
                    arrivals.append(now)
                    last = seqs[-1] if seqs else 0
                    seqs.append(int(line.split()[1]) if line.startswith(b"ack ") else last)
                    got.notify_all()
        with got:
            got.notify_all()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait_for(n: int) -> None:
        with got:
            if not got.wait_for(lambda: len(arrivals) >= n or proc.poll() is not None, LIVENESS):
                raise SystemExit(f"bench: no answer #{n} within {LIVENESS:g} s")
            if len(arrivals) < n:
                raise SystemExit(f"bench: the service exited {proc.returncode}: see {log.name}")

    try:
        # a warm-up: the service is up (imports, the journal opened) before the clock starts
        stdin.write(b'{"cmd": "undo"}\n')
        wait_for(1)
        lines = [json.dumps(c).encode() + b"\n" for c in commands]
        sent: list[float] = []
        start = time.perf_counter() + 0.1
        for i, line in enumerate(lines):
            due = start + i / rate
            while (ahead := due - time.perf_counter()) > 0:
                time.sleep(ahead)
            sent.append(time.perf_counter())
            stdin.write(line)
        wait_for(len(lines) + 1)
        stdin.close()
        proc.wait(LIVENESS)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    replies = [b - a for a, b in zip(sent, arrivals[1:], strict=True)]
    return {"replies": replies, "seqs": seqs[1:], "code": proc.returncode}


def summary(xs: list[float]) -> dict[str, float]:
    return {
        "p50_ms": pct(xs, 0.5) * 1e3,
        "p99_ms": pct(xs, 0.99) * 1e3,
        "max_ms": max(xs) * 1e3,
        "over_50ms": sum(x > 0.05 for x in xs),
        "n": len(xs),
    }


def after_snapshots(done: dict[str, Any], every: int, window: int) -> list[float]:
    """The replies of the ``window`` commands after each ``every``-th: where a snapshot is
    asked for when on (the same commands when off: the same seqs, the same work)."""
    return [
        r
        for r, seq in zip(done["replies"], done["seqs"], strict=True)
        if seq > every and 0 < (seq - 1) % every < window
    ]


def measure(
    n: int = 3000, rate: float = 150.0, rounds: int = 2, every: int = 1000, where: str | None = None
) -> dict[str, Any]:
    """Both settings, ``rounds`` times each, interleaved; per run and pooled per setting."""
    commands = session(load_table(TABLE), n, seed=45)
    order = [("on", "off") if r % 2 == 0 else ("off", "on") for r in range(rounds)]
    runs: list[dict[str, Any]] = []
    pooled: dict[str, list[float]] = {"on": [], "off": [], "on_after": [], "off_after": []}
    window = max(1, min(every, int(rate * WINDOW)))
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        for r, pair in enumerate(order):
            for setting in pair:
                folder = Path(tmp) / f"{setting}-{r}"
                done = one_run(folder, commands, rate, every if setting == "on" else 0)
                runs.append({"setting": setting, "round": r, **summary(done["replies"])})
                pooled[setting] += done["replies"]
                pooled[f"{setting}_after"] += after_snapshots(done, every, window)
                print(_line(f"{setting:>3} (round {r + 1})", runs[-1]), flush=True)
    out: dict[str, Any] = {
        "rate": rate,
        "commands": len(commands),
        "every": every,
        "window": window,
        "runs": runs,
        **{k: summary(xs) for k, xs in pooled.items() if xs},
    }
    out["ratio"] = {
        k: out["on"][k] / out["off"][k] if out["off"][k] else float("nan")
        for k in ("p50_ms", "p99_ms", "max_ms")
    }
    offs = [x["p99_ms"] for x in runs if x["setting"] == "off"]
    out["off_p99_spread"] = max(offs) / min(offs) if len(offs) > 1 and min(offs) else None
    return out


def _line(name: str, s: dict[str, float]) -> str:
    return (
        f"{name}: p50 {s['p50_ms']:.1f} ms  p99 {s['p99_ms']:.1f} ms  max {s['max_ms']:.1f} ms"
        f"  ({s['over_50ms']} of {s['n']} over 50 ms)"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.snapshots", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--rate", type=positive, default=150, help="commands a second (150)")
    ap.add_argument("--commands", type=positive, default=3000, help="commands a run (3000)")
    ap.add_argument("--rounds", type=positive, default=2, help="runs of each setting (2)")
    ap.add_argument("--every", type=positive, default=1000, help="snapshot_every when on (1000)")
    ap.add_argument("--dir", default=None, help="folder for the state directories (tmp)")
    ap.add_argument("--json", default=None, help="also write the figures here")
    a = ap.parse_args(argv)
    print(
        f"snapshots: {a.commands} commands at {a.rate}/s, snapshot_every {a.every} vs 0,"
        f" {a.rounds} round(s) interleaved; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    out = measure(a.commands, float(a.rate), a.rounds, a.every, a.dir)
    print(_line("snapshots on ", out["on"]))
    print(_line("snapshots off", out["off"]))
    if "on_after" in out and "off_after" in out:
        w = f"the {out['window']} commands after each {a.every}th"
        print(_line(f"  on,  {w}", out["on_after"]))
        print(_line(f"  off, {w}", out["off_after"]))
    r = out["ratio"]
    print(f"on/off: p50 {r['p50_ms']:.2f}×  p99 {r['p99_ms']:.2f}×  max {r['max_ms']:.2f}×")
    if out["off_p99_spread"] is not None:
        print(f"noise: off's p99 between runs {out['off_p99_spread']:.2f}×")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
