"""scripts/web_screenshots.py runs as a module from the checkout's root (no ``sys.path`` edit)
and makes the README's two pictures: here into a folder of the test's, not docs/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def test_the_screenshots_are_made_by_the_module_run_from_the_root(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scripts.web_screenshots", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a liveness bound: Chromium, a broker and the service start here
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sizes = {p.name: Image.open(p).size for p in sorted(tmp_path.glob("*.png"))}
    assert sizes == {"web-overlay.png": (1920, 1080), "web-table.png": (1280, 800)}, sizes


def test_a_missing_out_folder_is_refused_naming_the_option(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scripts.web_screenshots", "--out", str(tmp_path / "none")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--out" in done.stderr and "Traceback" not in done.stderr
