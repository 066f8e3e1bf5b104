"""The CPU of one draw's answer, piece by piece, warm: the view, ``…/state``, the event, a frame.

    .venv/bin/python -m benchmarks.state [--runs 2000]

A token drawn in a declared Performance (the example table: begin, Aria declares, she
draws) costs the loop's turn, after the commit: the event message, ``table_view``, and
``…/state`` encoded (with the bags' JSON kept, as the bridge does:
:class:`~companion.mqtt.messages.StateEncoder`). The panel's child then writes the frame
(:class:`~display.drivers.png.PngPanel`). Each is timed alone in a warm loop, median of
``--runs``: what the code costs, without the cold caches of a real turn (in the service
the same calls take two to five times as long; benchmarks/hops.py measures those).
``--cold`` sleeps 10 ms before each call instead, which on a VM shows most of that
difference outside the service: the caches and the idle vCPU, not the service's threads.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import positive
from companion.mqtt.messages import StateEncoder, encode, event_message
from display.drivers.png import PngPanel
from display.render import render
from engine import apply, load_table
from engine.view import table_view

ROOT = Path(__file__).resolve().parent.parent

BEGIN = {"cmd": "begin_performance", "difficulty": 5}
ARIA = {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill",
        "action": "target"}  # fmt: skip
DRAW = {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"}


def median_ms(fn: Callable[[], object], runs: int, idle: float = 0.0) -> float:
    """The median of ``runs`` calls, in ms; with ``idle`` seconds of sleep before each call
    (a cold call, as in a turn: commands come at a table every second or so)."""
    times = []
    for _ in range(runs):
        if idle:
            time.sleep(idle)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def measure(runs: int = 2000, idle: float = 0.0) -> dict[str, float]:
    state = load_table(ROOT / "examples" / "table.toml")
    for cmd in (BEGIN, ARIA):
        state, _ = apply(state, cmd)
    drawn, events = apply(state, DRAW)
    view = table_view(drawn)
    encoder = StateEncoder()
    encoder.encode(table_view(state), state)  # the bags before the draw: all but one kept
    out: dict[str, float] = {
        "engine.apply (the draw)": median_ms(lambda: apply(state, DRAW), runs, idle),
        "event message, encoded": median_ms(
            lambda: [encode(event_message(1, drawn, e, "bench", "now")) for e in events],
            runs,
            idle,
        ),
        "table_view": median_ms(lambda: table_view(drawn), runs, idle),
        "…/state encoded, bags kept": median_ms(lambda: encoder.encode(view, drawn), runs, idle),
        "…/state encoded whole": median_ms(lambda: encode(view), runs, idle),
    }
    with tempfile.TemporaryDirectory() as tmp:
        panel = PngPanel(tmp, panel="2.13", colour="bwr", keep=10)
        image = render(view, "2.13", "bwr")
        out['PNG panel: a frame written (2.13")'] = median_ms(
            lambda: panel.show(image), max(50, runs // 10), idle
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=positive, default=2000)
    parser.add_argument(
        "--cold",
        action="store_true",
        help="sleep 10 ms before each call (cold caches, as in the service); 300 runs",
    )
    args = parser.parse_args()
    runs, idle = (min(args.runs, 300), 0.01) if args.cold else (args.runs, 0.0)
    for name, ms in measure(runs, idle).items():
        print(f"{name:40s} {ms:7.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
