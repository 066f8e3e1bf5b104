"""`rhuna-table demo --serve`: its private Mosquitto serves the pages over WebSockets, with
throwaway accounts, and the URLs it prints open the live table in Chromium."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

from playwright.sync_api import expect

from companion.ops.demo_broker import DemoBroker
from tests.harness import missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import built_pages, playwright_chromium, screenshot


def test_demo_serve_prints_the_pages_urls_and_serves_them_live(tmp_path):
    built_pages()
    if DemoBroker.binary() is None:
        missing_real_part("Mosquitto (Debian package mosquitto)")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "demo", "--serve", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 3 * WAIT  # a start on a loaded machine: liveness only
        while not any("Ctrl-C to stop" in line for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            lines.append(proc.stdout.readline())  # type: ignore[union-attr]
        out = "".join(lines)
        urls = dict(
            re.findall(r"^\s+(overlay \(OBS\) \[example\]|convention wall): (\S+)$", out, re.M)
        )
        assert set(urls) == {"overlay (OBS) [example]", "convention wall"}, out
        assert "table display [example]: http://127.0.0.1:" in out
        gm = re.search(r"WorldKeeper remote \(secret!\) \[example\]: (\S+)$", out, re.M)
        assert gm is not None and "/gm.html?" in gm.group(1), out
        with playwright_chromium() as browser:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(urls["convention wall"])
            expect(page.locator(".table-card")).to_have_count(2, timeout=WAIT * 1000)
            for table in ("example", "fight"):
                card = page.locator(f'.table-card[data-table="{table}"]')
                expect(card).to_have_attribute("data-state", "live", timeout=WAIT * 1000)
            screenshot(page, "demo-wall")
            page.goto(urls["overlay (OBS) [example]"])
            expect(page.locator("#status")).to_have_attribute(
                "data-state", "live", timeout=WAIT * 1000
            )
            expect(page.locator('#heroes .hero[data-hero="aria"]')).to_be_visible()
            page.goto(gm.group(1))  # the remote logs in as example.gm and offers the table
            expect(page.locator("#status")).to_have_attribute(
                "data-state", "live", timeout=WAIT * 1000
            )
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, rest
    assert "Stopped." in rest
