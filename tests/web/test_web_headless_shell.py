"""The suite's browser is a faithful stand-in for the full one: the overlay, the table display
and the remote, mid-Performance, are the same pixels in Debian's ``chromium-headless-shell``
(every other browser test runs in it: a third less CPU) as in ``/usr/bin/chromium`` (the
streamer's and the WorldKeeper's, and the benchmarks'). Both are built from one Chromium
source at one version (Debian's ``chromium`` source package); the shell is Blink and its
compositor without the desktop browser around them, which is what Playwright itself runs
for headless Chromium. A page that rendered otherwise in one of them fails here, pixel by
pixel (Pillow; a channel may be 2 levels apart, anti-aliasing's noise), with both pictures
left in test-artefacts/web/.

Both pages read one fixed clock (Playwright's ``clock.set_fixed_time``, the same instant for
both): "changed 3 s ago" in one and "changed 12 s ago" in the other are other words and other
widths (a masked age still moved its neighbours: 1,711 pixels, once, beside a CPU hog).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from tests.harness import ARIA, BEGIN, missing_real_part
from tests.harness.broker import WAIT
from tests.harness.gm import gm_rig
from tests.harness.web import (
    ARTEFACTS,
    CHROMIUM,
    HEADLESS_SHELL,
    PHONE,
    address,
    built_pages,
    launch_chromium,
    settle,
)

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (the test extras)")

MS = WAIT * 1000
TOKEN = "aria.ember.skill"


def picture(browser: Any, url: str, name: str, viewport: dict[str, int], at: datetime) -> Path:
    phone = viewport == PHONE
    context = browser.new_context(
        viewport=viewport, device_scale_factor=2 if phone else 1, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    try:
        page.clock.set_fixed_time(at)  # Date.now() is ``at`` (the timers still run)
        page.goto(url)
        expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
        # the drawn token in the page's store (each page shows it its own way), then painted
        page.wait_for_function(
            "t => JSON.stringify(window.rhuna.store.snapshot.tables.get('example')"
            "?.sections.state ?? null).includes(t)",
            arg=TOKEN,
            timeout=MS,
        )
        settle(page)
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTEFACTS / f"{name}.png"
        page.screenshot(path=str(path), animations="disabled")
        return path
    finally:
        context.close()


#: the most a colour channel may differ at one pixel: Skia's anti-aliasing of a rounded
#: corner came out one level apart between two renderings, 13 pixels by 1 once (beside a CPU
#: hog); a text, a layout or a colour that differs moves far more than 2 levels
SHADE = 2


def differ(a: Path, b: Path) -> tuple[int, tuple[int, int, int, int] | None]:
    """How many pixels differ by more than :data:`SHADE` in a channel, and where (their
    bounding box)."""
    with Image.open(a) as one, Image.open(b) as other:
        assert one.size == other.size, (one.size, other.size)
        diff = ImageChops.difference(one.convert("RGB"), other.convert("RGB"))
        beyond = diff.point(lambda level: 255 if level > SHADE else 0).convert("L")
        box = beyond.getbbox()
        changed = sum(1 for px in beyond.tobytes() if px) if box else 0
        return changed, box


@pytest.fixture(scope="module")
def browsers() -> Iterator[tuple[Any, Any]]:
    """(the headless shell, the full browser), both under one Playwright."""
    if not HEADLESS_SHELL.exists():
        missing_real_part("Chromium's headless shell (Debian package chromium-headless-shell)")
    from playwright.sync_api import sync_playwright

    built_pages()
    with sync_playwright() as p:
        shell = launch_chromium(p, HEADLESS_SHELL)
        full = launch_chromium(p, CHROMIUM)
        try:
            yield shell, full
        finally:
            full.close()
            shell.close()


@pytest.mark.parametrize(
    ("page", "viewport"),
    [
        ("overlay.html", {"width": 1280, "height": 720}),
        ("table.html", {"width": 1280, "height": 720}),
        ("gm.html", PHONE),
    ],
)
def test_a_page_is_the_same_pixels_in_the_headless_shell_and_the_full_browser(
    tmp_path, browsers, page, viewport
):
    shell, full = browsers
    with gm_rig(tmp_path, shell) as (_gm, table, broker):
        table.command(dict(BEGIN))
        table.command(dict(ARIA))
        table.lay(TOKEN)
        if page == "gm.html":
            url = broker.url()  # the WorldKeeper's login (the page drops it from its own URL)
        else:
            user, password = broker.login("overlay" if page == "overlay.html" else "display")
            url = address(
                f"http://127.0.0.1:{broker.ws_port}/{page}",
                {
                    "broker": f"ws://127.0.0.1:{broker.ws_port}/",
                    "table": "example",
                    "username": user,
                    "password": password,
                },
            )
        stem = f"headless-shell-{page.removesuffix('.html')}"
        at = datetime.now(UTC) + timedelta(seconds=5)  # after every stamp of the table's
        ours = picture(shell, url, f"{stem}-shell", viewport, at)
        theirs = picture(full, url, f"{stem}-full", viewport, at)
    changed, box = differ(ours, theirs)
    assert changed == 0, f"{changed} pixels differ past {SHADE} in {box}: see {ours}, {theirs}"
