"""Render time per panel size: how long one frame takes from view to palette picture.

Target (issue 6): under 50 ms for the 7.5" 800×480 panel on the project's
machine. Prints the median of several runs per panel and screen, and the
worst screen per panel. The machine is shared, so read medians, not single runs.

    .venv/bin/python benchmarks/display.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from display.render import render
from display.screens.banner import Banner
from tests.harness import views as dv

PANELS = ("2.13", "2.9", "4.2", "7.5")


def cases() -> dict[str, tuple[dict, object, Banner | None]]:
    failed, costs = dv.performance_failed()
    return {
        "performance": (dv.performance_mid(), None, None),
        "outcome": (failed, costs, None),
        "between": (dv.between_time(), None, None),
        "combat": (dv.combat(), None, None),
        "banner": (dv.performance_mid(), None, Banner("Unknown tag 04:A2:19:7B: enrol it")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    work = cases()
    for view, costs, banner in work.values():  # warm the font cache, as a running service has it
        for panel in PANELS:
            render(view, panel, "bwr", costs=costs, banner=banner)
    print(f"render time per frame, median of {args.runs} runs (ms), colour bwr")
    print(f"{'panel':>6} " + " ".join(f"{name:>12}" for name in work) + f" {'worst':>8}")
    for panel in PANELS:
        medians = []
        for view, costs, banner in work.values():
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                render(view, panel, "bwr", costs=costs, banner=banner)
                times.append((time.perf_counter() - t0) * 1000)
            medians.append(statistics.median(times))
        print(f"{panel:>6} " + " ".join(f"{m:12.2f}" for m in medians) + f" {max(medians):8.2f}")
    print("target: 7.5 worst < 50 ms")


if __name__ == "__main__":
    main()
