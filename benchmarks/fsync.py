"""What a journal commit costs on this disk, alone and with CPU work running beside it.

    .venv/bin/python -m benchmarks.fsync [--samples 300] [--burn-ms 0.6] [--dir DIR]

Each sample commits one journal-sized row to SQLite as the journal does (WAL,
``synchronous=FULL``, one ``INSERT`` that is its own transaction: the write and the fsync
in one call that releases the GIL), after 10 ms idle (as commands come at a table), in
one of three settings, interleaved so that they share the machine's load:

1. **alone**: nothing else runs in this benchmark;
2. **beside a thread**: a thread of this process starts ``--burn-ms`` of pure-Python work
   just before the write (what computing the state's view during the commit would be);
3. **beside a process**: another process does the same work (what the panel's child, the
   broker or any other program on the machine is), so the GIL plays no part.

The question it answers (issue 17, latency): can the service hide the commit's fsync by
computing ``…/state`` while the disk syncs? Only if the commit takes no longer with CPU
work beside it, or by less than the work it overlaps: on a disk whose flush is longer than
the view, the second held (companion.mqtt.ahead). The figures printed are medians and 99th percentiles of the commit
call itself, and the ratio of each setting's median to the median alone.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from benchmarks import positive


def burn(seconds: float) -> None:
    """Pure-Python work for ``seconds`` of wall time (holds the GIL, as a view does)."""
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < seconds:
        n += 1


def _child(conn: Connection, seconds: float) -> None:
    while conn.recv():
        burn(seconds)
        conn.send(True)


class _Beside:
    """Starts ``burn`` on a thread or in a process just before the write; ``done`` waits."""

    def __init__(self, kind: str, seconds: float) -> None:
        self.kind = kind
        if kind == "thread":
            self._go, self._done = threading.Event(), threading.Event()

            def work() -> None:
                while True:
                    self._go.wait()
                    self._go.clear()
                    burn(seconds)
                    self._done.set()

            threading.Thread(target=work, daemon=True).start()
        else:
            ours, theirs = multiprocessing.Pipe()
            self._conn = ours
            self._process = multiprocessing.get_context("fork").Process(
                target=_child, args=(theirs, seconds), daemon=True
            )
            self._process.start()

    def start(self) -> None:
        if self.kind == "thread":
            self._go.set()
        else:
            self._conn.send(True)

    def done(self) -> None:
        if self.kind == "thread":
            self._done.wait()
            self._done.clear()
        else:
            self._conn.recv()

    def close(self) -> None:
        if self.kind == "process":
            self._conn.send(False)
            self._process.join(5)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(samples: int = 300, burn_ms: float = 0.6, where: str | None = None) -> dict[str, Any]:
    """``{setting: {p50_ms, p99_ms, ratio}}`` for alone, beside a thread, beside a process."""
    seconds = burn_ms / 1e3
    sys.setswitchinterval(0.0005)  # the service's (companion.service.SWITCH_INTERVAL)
    besides = {"thread": _Beside("thread", seconds), "process": _Beside("process", seconds)}
    times: dict[str, list[float]] = {"alone": [], "thread": [], "process": []}
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        db = sqlite3.connect(Path(tmp) / "journal.sqlite", isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, command TEXT, events TEXT)")
            row = (
                '{"cmd":"draw","hero":"aria","token":"aria.weight.1"}',
                "[" + "{}," * 400 + "{}]",
            )
            for i in range(samples * 3):
                setting = ("alone", "thread", "process")[i % 3]
                beside = besides.get(setting)
                time.sleep(0.01)
                if beside is not None:
                    beside.start()
                t0 = time.perf_counter()
                db.execute("INSERT INTO journal VALUES (NULL, ?, ?)", row)
                times[setting].append(time.perf_counter() - t0)
                if beside is not None:
                    beside.done()
        finally:
            db.close()
            for b in besides.values():
                b.close()
    alone = statistics.median(times["alone"])
    return {
        k: {
            "p50_ms": statistics.median(v) * 1e3,
            "p99_ms": pct(v, 0.99) * 1e3,
            "ratio": statistics.median(v) / alone,
            "n": len(v),
        }
        for k, v in times.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=positive, default=300)
    parser.add_argument("--burn-ms", type=float, default=0.6, help="the work beside (ms)")
    parser.add_argument("--dir", help="the disk to commit on (default: the temporary folder's)")
    args = parser.parse_args(argv)
    result = measure(args.samples, args.burn_ms, args.dir)
    labels: dict[str, str] = {
        "alone": "commit alone",
        "thread": f"beside {args.burn_ms} ms of work on a thread",
        "process": f"beside {args.burn_ms} ms of work in a process",
    }
    for key, r in result.items():
        print(
            f"{labels[key]:40s} p50 {r['p50_ms']:6.3f} ms  p99 {r['p99_ms']:6.3f} ms"
            f"  {r['ratio']:.2f}× alone"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
