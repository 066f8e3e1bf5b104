"""Make the README's pictures of the web pages: the overlay over a sample stream frame, the table
display. The real thing end to end: a Mosquitto serving web/dist, the service on the emulated
config with tokens laid on its emulated hub, Debian's Chromium.

    make web && .venv/bin/python -m scripts.web_screenshots     # writes docs/web-*.png

run from the checkout's root (``-m``: the root is then on the import path, for
``tests.harness``); ``--out DIR`` writes the two pictures there instead of docs/.

The stream frame is drawn here with Pillow (a table top under a lamp, a few tokens and a
cloth bag), and the overlay, screenshotted with a transparent background, is laid over it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter
from playwright.sync_api import sync_playwright

from tests.harness.web import CHROMIUM, ServedTable, WebBroker, launch_chromium

ROOT = Path(__file__).resolve().parents[1]

W, H = 1920, 1080
DOCS = ROOT / "docs"


def stream_frame() -> Image.Image:
    """A made-up camera frame of a game table: wood under a warm lamp, tokens, a bag."""
    img = Image.new("RGB", (W, H))
    px = img.load()
    assert px is not None
    for y in range(H):
        for x in range(0, W, 4):
            # warm light from the upper middle, falling off to the corners; wood grain bands
            d = ((x - W * 0.55) ** 2 + (y - H * 0.25) ** 2) ** 0.5 / W
            light = max(0.25, 1.1 - d * 1.3)
            grain = 10 * ((y // 37 + x // 211) % 3)
            c = (int((120 + grain) * light), int((78 + grain // 2) * light), int(45 * light))
            for i in range(4):
                px[x + i, y] = c
    draw = ImageDraw.Draw(img)
    draw.ellipse((1180, 560, 1620, 980), fill=(92, 40, 52))  # the cloth bag
    draw.ellipse((1300, 520, 1500, 600), fill=(70, 30, 40))
    for i, (x, y) in enumerate([(700, 700), (820, 760), (960, 690), (600, 860), (1050, 880)]):
        shade = (210, 190, 140) if i % 2 else (60, 70, 90)
        draw.ellipse((x, y, x + 90, y + 90), fill=shade, outline=(30, 20, 10), width=4)
    return img.filter(ImageFilter.GaussianBlur(2))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DOCS, help="the folder the pictures go to (docs/)")
    out = ap.parse_args().out
    if not out.is_dir():
        ap.error(f"--out: {out} is not a folder")
    with tempfile.TemporaryDirectory() as tmp:
        broker = WebBroker(Path(tmp) / "broker")
        broker.start()
        table = ServedTable(Path(tmp) / "table", broker)
        try:
            table.command({"cmd": "draw_weather", "bag": "overworld", "seed": 3})
            table.command({"cmd": "begin_performance", "difficulty": 5})
            table.command(
                {
                    "cmd": "declare",
                    "hero": "aria",
                    "shade": "control",
                    "capability": "skill",
                    "action": "target",
                }
            )
            for token in ("aria.ember.skill", "aria.potential.lore.2"):
                table.lay(token)
                time.sleep(0.3)
            with sync_playwright() as p:
                browser = launch_chromium(p, CHROMIUM)
                page = browser.new_page(viewport={"width": W, "height": H})
                page.goto(broker.url("overlay.html", motion="off"))
                page.wait_for_selector('.token[data-token="aria.potential.lore.2"]')
                page.wait_for_selector("#status[data-state=live]")
                overlay = Path(tmp) / "overlay.png"
                page.screenshot(path=str(overlay), omit_background=True)
                frame = stream_frame().convert("RGBA")
                frame.alpha_composite(Image.open(overlay).convert("RGBA"))
                frame.convert("RGB").save(out / "web-overlay.png", optimize=True)

                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(broker.url("table.html", motion="off", last=8))
                page.wait_for_selector('.token[data-token="aria.potential.lore.2"]')
                page.wait_for_selector("#history-list .history-item")
                page.screenshot(path=str(out / "web-table.png"))
                browser.close()
        finally:
            table.close()
            broker.stop()
    print(f"wrote {out / 'web-overlay.png'} and {out / 'web-table.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
