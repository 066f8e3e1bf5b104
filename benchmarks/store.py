"""The journal's speed: commits per second with synchronous=FULL on this disk, and restart time.

    .venv/bin/python -m benchmarks.store [--runs 5] [--commits 300] [--journal 10000] [--dir DIR]

- commits/s: accepted commands through the TableLoop with the journal hook, each its own
  fsync'd transaction (WAL, synchronous=FULL) — what the table can sustain, acknowledged;
- restart: Store.open + restore of a 10,000-command journal, (a) replaying all of it
  (no snapshot: the worst case) and (b) from the newest snapshot (snapshot_every = 1000,
  the default), i.e. what a reboot costs.

Prints medians of several runs (the machine is shared and noisy). ``--dir`` picks the
disk (default: a temporary folder, which here is the same disk as /var/lib).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import positive
from companion.table.loop import TableLoop
from companion.table.store import Store
from engine import load_table
from tags.registry import TagRegistry
from tests.harness.service import session

ROOT = Path(__file__).resolve().parent.parent

TABLE = ROOT / "examples" / "table.toml"


def commits_per_second(folder: Path, commands: list[dict]) -> float:
    initial = load_table(TABLE)
    with Store.open(folder, snapshot_every=0) as store:
        store.restore(initial, TABLE)
        loop = TableLoop(initial, TagRegistry(), journal=store.append)
        started = time.perf_counter()
        for cmd in commands:
            loop.submit(cmd)
            loop.step(0)
        took = time.perf_counter() - started
        committed = store.seq
    return committed / took


def build_journal(folder: Path, commands: list[dict], snapshot_every: int) -> int:
    """Write the journal through the real loop; fsync off only while building (not measured)."""
    initial = load_table(TABLE)
    with Store.open(folder, snapshot_every=snapshot_every) as store:
        store._db.execute("PRAGMA synchronous=OFF")
        store.restore(initial, TABLE)
        loop = TableLoop(initial, TagRegistry(), journal=store.append)
        for cmd in commands:
            loop.submit(cmd)
            loop.step(0)
            if store.snapshot_due:
                store.snapshot(loop.state)
        return store.seq


def restart_seconds(folder: Path) -> tuple[float, int]:
    initial = load_table(TABLE)  # the service loads the table file anyway; not the store's cost
    started = time.perf_counter()
    with Store.open(folder) as store:
        restored = store.restore(initial, TABLE)
    return time.perf_counter() - started, restored.replayed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=positive, default=5)
    parser.add_argument("--commits", type=positive, default=300)
    parser.add_argument("--journal", type=positive, default=10_000)
    parser.add_argument("--dir", help="where the journals go (default: a temporary folder)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="rhuna-bench-", dir=args.dir))
    try:
        initial = load_table(TABLE)

        rates = []
        for run in range(args.runs):
            commands = session(initial, args.commits, seed=run, refused=0)
            rates.append(commits_per_second(base / f"commits-{run}", commands))
        rate = statistics.median(rates)
        print(
            f"commits (WAL, synchronous=FULL, one transaction each): median {rate:,.0f}/s"
            f" = {1000 / rate:.2f} ms per acknowledged command"
            f"  (runs: {', '.join(f'{r:,.0f}' for r in rates)})"
        )

        commands = session(initial, args.journal, seed=42, refused=0)
        for label, every in (
            ("replaying all of it (no snapshot)", 0),
            ("from the newest snapshot (every 1000)", 1000),
        ):
            folder = base / f"journal-{every}"
            n = build_journal(folder, commands, every)
            times, replayed = [], 0
            for _ in range(args.runs):
                took, replayed = restart_seconds(folder)
                times.append(took)
            print(
                f"restart of a {n:,}-command journal, {label}: median {statistics.median(times):.3f} s"
                f" ({replayed:,} replayed; runs: {', '.join(f'{t:.3f}' for t in times)})"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
