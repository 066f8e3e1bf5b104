"""Render time per panel size: how long one frame takes from view to palette picture.

Target (issue 6): under 50 ms for the 7.5" 800×480 panel on the project's
machine. Prints the median of several runs per panel and screen, and the
worst screen per panel. The machine is shared, so read medians, not single runs.

Then the display worker's coalescing (the brief's case, moved here from
tests/display/test_display_worker.py, which asserts the behaviour without the clock):
20 updates within 1 s to a panel taking 2 s make at most 2 refreshes, the newest last.

    .venv/bin/python -m benchmarks.display_render [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import positive
from display.drivers.png import PngPanel
from display.render import Frame, Renderer, render
from display.screens.banner import Banner
from display.worker import DisplayWorker
from tests.harness import views as dv

PANELS = ("2.13", "2.9", "4.2", "7.5")


def cases() -> dict[str, tuple[dict, Banner | None]]:
    """The screens; the outcome's costs are in its view (the ``costs`` section)."""
    return {
        "performance": (dv.performance_mid(), None),
        "outcome": (dv.performance_failed(), None),
        "between": (dv.between_time(), None),
        "combat": (dv.combat(), None),
        "banner": (dv.performance_mid(), Banner("Unknown tag 04:A2:19:7B: enrol it")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=positive, default=30)
    args = parser.parse_args()
    work = cases()
    for view, banner in work.values():  # warm the font cache, as a running service has it
        for panel in PANELS:
            render(view, panel, "bwr", banner=banner)
    print(f"render time per frame, median of {args.runs} runs (ms), colour bwr")
    print(f"{'panel':>6} " + " ".join(f"{name:>12}" for name in work) + f" {'worst':>8}")
    for panel in PANELS:
        medians = []
        for view, banner in work.values():
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                render(view, panel, "bwr", banner=banner)
                times.append((time.perf_counter() - t0) * 1000)
            medians.append(statistics.median(times))
        print(f"{panel:>6} " + " ".join(f"{m:12.2f}" for m in medians) + f" {max(medians):8.2f}")
    print("target: 7.5 worst < 50 ms")
    coalescing()


def coalescing(updates: int = 20, every_s: float = 0.045, refresh_s: float = 2.0) -> None:
    """The brief's case: ``updates`` views ``every_s`` apart to a png panel taking
    ``refresh_s`` per full refresh; how long the updates took to send, how many refreshes."""
    with tempfile.TemporaryDirectory() as tmp:
        panel = PngPanel(Path(tmp), "2.13", full_refresh_s=refresh_s, partial_refresh_s=None)
        worker: DisplayWorker[Frame] = DisplayWorker(panel, Renderer("2.13"))
        worker.start()
        views = [dv.view_with_total(i) for i in range(updates)]
        started = time.monotonic()
        for i, view in enumerate(views):
            time.sleep(max(0.0, started + i * every_s - time.monotonic()))
            worker.submit(Frame(view))
        spanned = time.monotonic() - started
        if not worker.wait_idle(30):
            raise SystemExit("bench: the display worker never went idle")
        worker.stop()
        refreshes = worker.stats.refreshes
    fits = spanned < 1.2  # the brief's "within 1 s", with the test's old allowance
    print(
        f"{updates} updates sent in {spanned:.3f} s (target < 1.2 s: {'ok' if fits else 'MISSED'}) "
        f"to a {refresh_s:g} s panel: {refreshes} refreshes (target <= 2: "
        f"{'ok' if refreshes <= 2 else 'MISSED'})"
    )


if __name__ == "__main__":
    main()
