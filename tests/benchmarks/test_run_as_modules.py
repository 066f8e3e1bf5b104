"""Every benchmark runs as ``python -m benchmarks.<name>`` from the checkout's root, in its quick
mode, on the real parts (a Mosquitto, the service, the hub emulator on a pty, Chromium), and
prints its figures.

Each is its own process with the root as its working directory, as a reader types it: a
benchmark that runs a file of its own by path (which puts benchmarks/ first on ``sys.path``,
where a module named after one of the product's packages shadows it) or that needs an edited
``sys.path`` fails here. The figures are not judged (a test asserts no wall time): each run
must exit 0 and print its figures, lines matched by :data:`QUICK`'s patterns. The runs go two
at a time, the longest first, started together when the module's first test asks for them; a
run that never ends is stopped after :data:`BOUND` s (a liveness bound, not a judgement).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: each benchmark's quick flags ({tmp}: a folder of the test's) and the figure lines it must
#: print; the longest runs first (the pool starts them in this order)
QUICK: dict[str, tuple[list[str], list[str]]] = {
    "venue": (
        ["--tables", "2", "--live", "1", "--seconds", "2", "--cut", "9", "--keepalive", "5"],
        [
            r"^venue, \d+ events over 2 s: p50 [\d.]+ ms, p99 [\d.]+ ms$",
            r"^venue restart → fresh subscriber .*: [\d.]+ s$",
            r"^wall in Chromium \(tables\.html.*whole [\d.]+ s after opening$",
        ],
    ),
    "web": (
        ["--draws", "2", "--opens", "1"],
        [
            r"^  token laid → overlay DOM +p50 +[\d.]+ ms",
            r"^  page open → first paint, .* p50 +[\d.]+ ms",
        ],
    ),
    "web_edges": (
        ["--quick", "--json", "{tmp}/web_edges.json"],
        [r"^  web: .*: [\d,.]+ .*\(target .*: (ok|MISSED)\)$", r"^  flood answers: \{"],
    ),
    "pi_budget": (
        ["--quick", "--caps", "uncapped"],
        [
            r"^CLI cold `rhuna-table odds.* +[\d,.]+ +ms ",
            r"^pi uncapped: token → state p99 +[\d,.]+ ",
        ],
    ),
    "first_draw": (
        ["--quick", "--caps", "uncapped"],
        [
            r"^first draw uncapped: start → READY [\d.]+ s, → online [\d.]+ s,"
            r" → first draw [\d.]+ s \(no target\); floor `python -c pass` [\d.]+ s$",
        ],
    ),
    "bench": (
        [
            "--quick",
            "--only",
            "engine,odds,serial,commit,panel,ready,restart",
            "--json",
            "{tmp}/bench.json",
        ],
        [
            r"^engine: commands applied +[\d,.]+ +commands/s ",
            r"^start → READY +[\d,.]+ +s ",
            r"^restart: 3,999-command journal, \d+ replayed +[\d,.]+ +s ",
        ],
    ),
    "gm": (["--taps", "1"], [r"^gm tap -> reply shown: n=2 median [\d.]+ ms"]),
    "reads": (
        ["--quick"],  # the counts are printed, not judged: the detuned tag's misses (issue 43)
        [r"^draws: \d+$", r"^phantoms: \d+$", r"^misses: \d+$", r"^unsync shown p99: \d+ ms$"],
    ),
    "hops": (
        ["--samples", "4"],
        [r"^tag → state +p50 +[\d.]+ ms", r"^MQTT command → event: \d+ of \d+ samples traced"],
    ),
    "latency": (
        ["--samples", "4"],
        [
            r"^tag frame on the pty → state +p50 +[\d.]+ ms",
            r"^floor: raw p50 \+ commit p50 +[\d.]+ ms",
        ],
    ),
    "glass": (
        # three draws: a second Performance with one token laid of two (an odd count once
        # waited for a REMOVED that no tag laid could send)
        ["--draws", "3", "--raw", "5", "--cap", "uncapped"],
        [
            r"^  the overlay's DOM +p50 +[\d.]+ .* n 3$",
            r"^  the panel's frame on disk +p50 +[\d.]+ .* n 3$",
            r"^  the venue wall's DOM +p50 +[\d.]+ .* n 3$",
        ],
    ),
    "snapshots": (
        ["--commands", "300", "--every", "100", "--rounds", "1"],
        [
            r"^snapshots on : p50 [\d.]+ ms  p99 [\d.]+ ms  max [\d.]+ ms",
            r"^on/off: p50 [\d.]+×  p99 [\d.]+×  max [\d.]+×$",
        ],
    ),
    "record": (
        ["--runs", "1", "--journal", "200", "--format", "md"],
        [
            r"^export --format md: [\d.]+ s wall",
            r"^two commands while history follows .*: [\d.]+ s",
        ],
    ),
    "soak": (["--commands", "300"], [r"^soak: [\d,]+ command lines in \d+ s", r"^  verdict: ok$"]),
    "display_render": (
        ["--runs", "1"],
        [r"^ +7\.5 +[\d. ]+$", r"^20 updates sent in [\d.]+ s .*: \d refreshes"],
    ),
    "serial_bridge": (
        ["--quick"],
        [r"^hub decoder, C CRC +: +[\d,]+ frames/s", r"^command after a chatter : [\d.]+ s"],
    ),
    "audit": (
        ["--quick"],
        [
            r"^answer after the last token: \d+ ms \(worst of 1; target",
            r"^answer: audit of the Favor Bag: 5 of 23 seen, 18 missing$",
        ],
    ),
    "odds": (
        ["--samples", "3", "--processes", "1", "--intersect-samples", "1"],
        [
            r"^first query in a fresh process, median of 1:$",
            r"^  ours, whole view, 3 heroes +[\d.]+ ms$",
            r"^agree: yes$",
        ],
    ),
    "mqtt": (["--quick"], [r"^  p50 [\d.]+ ms   p99 [\d.]+ ms$", r"^  median [\d,]+ events/s"]),
    "store": (
        ["--runs", "1", "--commits", "20", "--journal", "200"],
        [
            r"^commits \(WAL.*: median [\d,]+/s",
            r"^restart of a 200-command journal, .*: median [\d.]+ s",
        ],
    ),
    "combat": (["--quick"], [r"^10d6 vs 10d6 +[\d.]+ +[\d.]+ ", r"^attack_forecast .* +[\d.]+$"]),
    "fsync": (["--samples", "20"], [r"^commit alone +p50 +[\d.]+ ms +p99 +[\d.]+ ms"]),
    "state": (["--runs", "20"], [r"^…/state encoded whole +[\d.]+ ms$"]),
    "engine_apply": (
        ["--runs", "1", "--commands", "500"],
        [r"^replay of 500 commands: median \d+ ms", r"^apply\(\): [\d,]+ commands/s median"],
    ),
    "wheel": (["--runs", "1", "--number", "20"], [r"^worst [\d.]+ us per input"]),
}

#: seconds a run may take before it is stopped: a liveness bound (the quick runs take 1–30 s)
BOUND = 300.0
#: runs at a time: the machine has two cores, and most runs mostly wait on a broker or a page
AT_ONCE = 2


@dataclass
class Run:
    argv: list[str]
    returncode: int
    output: str
    seconds: float


def _run(name: str, folder: Path, started: list[subprocess.Popen[bytes]]) -> Run:
    folder.mkdir(parents=True)
    args = [a.replace("{tmp}", str(folder)) for a in QUICK[name][0]]
    argv = [sys.executable, "-m", f"benchmarks.{name}", *args]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the root only, by -m
    log = folder / "output.txt"
    t0 = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        started.append(proc)
        try:
            code = proc.wait(BOUND)
        except subprocess.TimeoutExpired:
            _stop(proc)
            code = -1
    return Run(argv, code, log.read_text("utf-8", "replace"), time.monotonic() - t0)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """The run and what it started (its own session: brokers, the service, Chromium)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
    dict[str, Future[Run]]
]:  # fmt: skip
    """The runs this session's tests of the module ask for, all started at once."""
    wanted = {
        item.callspec.params.get("name")
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.module is request.module
        and hasattr(item, "callspec")
    }  # fmt: skip
    folder = tmp_path_factory.mktemp("bench-as-modules")
    started: list[subprocess.Popen[bytes]] = []
    pool = ThreadPoolExecutor(AT_ONCE, thread_name_prefix="bench")
    futures = {n: pool.submit(_run, n, folder / n, started) for n in QUICK if n in wanted}
    try:
        yield futures
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in started:
            _stop(proc)


def test_every_benchmark_has_a_quick_run_here() -> None:
    names = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"__init__"}
    assert names == set(QUICK), (
        f"benchmarks without a quick run in {Path(__file__).name}: {sorted(names - set(QUICK))};"
        f" named here but gone: {sorted(set(QUICK) - names)}"
    )


@pytest.mark.parametrize("name", list(QUICK))
def test_the_benchmark_runs_as_a_module_and_prints_its_figures(
    name: str, runs: dict[str, Future[Run]]
) -> None:
    run = runs[name].result()
    tail = run.output[-3000:]
    assert run.returncode == 0, (
        f"{' '.join(run.argv[1:])} (cwd {ROOT}) exited {run.returncode}"
        f" after {run.seconds:.0f} s:\n{tail}"
    )
    lines = run.output.splitlines()
    missing = [p for p in QUICK[name][1] if not any(re.search(p, line) for line in lines)]
    assert not missing, f"{' '.join(run.argv[1:])} printed no line like {missing}:\n{tail}"


def test_a_flag_the_venue_refuses_is_one_line_naming_the_key_not_a_traceback() -> None:
    """``--keepalive 1`` makes a venue file Mosquitto would refuse: said as the checker says it
    (file, key, the bound), exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.venue", "--tables", "2", "--keepalive", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "venue.keepalive: 1 s — at least 5" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["odds", "--samples", "0"], "argument --samples: 0: give at least 1"),
        (["store", "--runs", "-1"], "argument --runs: -1: give at least 1"),
        (["wheel", "--number", "x"], "argument --number: 'x' is not a whole number"),
    ],
)
def test_a_count_below_one_is_refused_naming_the_flag(argv: list[str], said: str) -> None:
    """A count of samples, runs or commands is at least 1 (benchmarks.positive): 0 was a
    statistics error or an empty table after the run, now argparse's one line, exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{argv[0]}", *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 2 and said in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
