"""The PNG panel: every frame written as a numbered PNG plus ``latest.png`` (the default driver).

It is a real panel for everything but the ink: the demo and the tests watch
``latest.png``, and ``full_refresh_s`` / ``partial_refresh_s`` make it take as
long as e-ink would, so the worker's pacing can be seen and tested without a
Raspberry Pi.

>>> import tempfile
>>> from display.render import render
>>> panel = PngPanel(tempfile.mkdtemp(), "2.13")
>>> panel.show(render({"heroes": {}}, "2.13"))
>>> panel.latest.name, panel.frames
('latest.png', 1)
"""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path
from typing import Any

from PIL import Image

from display.drivers.base import Panel
from display.panels import Colour, PanelSpec, check_colour, panel_spec
from settings.errors import ConfigError

#: refreshes remembered in :attr:`PngPanel.refreshes` (the newest; the log and tests read it)
REFRESHES_KEPT = 1000
_FRAME = re.compile(r"^frame-(\d{6})\.png$")


class PngPanel(Panel):
    """Writes ``frame-000001.png``, ``frame-000002.png`` … and ``latest.png`` into ``out_dir``."""

    def __init__(
        self,
        out_dir: str | Path,
        panel: str | PanelSpec = "2.13",
        colour: Colour | str = "bw",
        *,
        full_refresh_s: float = 0.0,
        partial_refresh_s: float | None = 0.0,
        keep: int | None = 500,
    ) -> None:
        self.spec = panel_spec(panel)
        self.colour = check_colour(str(colour))
        self.full_refresh_s = float(full_refresh_s)
        self.partial_refresh_s = None if partial_refresh_s is None else float(partial_refresh_s)
        self.keep = keep
        self.out_dir = Path(out_dir)
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(
                f"display out_dir {self.out_dir}: cannot create it ({e.strerror})"
            ) from None
        existing = sorted(
            int(m.group(1)) for p in self.out_dir.iterdir() if (m := _FRAME.match(p.name))
        )
        #: frames written so far (numbering continues after any already in the folder)
        self.frames = 0
        self._number = existing[-1] if existing else 0
        #: (frame number, partial?) of the newest refreshes, for the demo's log and the tests
        self.refreshes: list[tuple[int, bool]] = []

    @property
    def latest(self) -> Path:
        return self.out_dir / "latest.png"

    def frame_path(self, number: int) -> Path:
        return self.out_dir / f"frame-{number:06d}.png"

    def show(self, image: Image.Image, *, partial: bool = False) -> None:
        self.check(image)
        started = time.monotonic()
        self._number += 1
        path = self.frame_path(self._number)
        out = io.BytesIO()
        image.save(out, format="PNG")  # compressed once, written twice
        data = out.getvalue()
        path.write_bytes(data)
        tmp = self.latest.with_suffix(".png.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, self.latest)  # a viewer never sees half a file
        self.frames += 1
        self.refreshes.append((self._number, partial))
        if len(self.refreshes) > 2 * REFRESHES_KEPT:  # a long evening must not grow it
            del self.refreshes[:-REFRESHES_KEPT]
        if self.keep is not None and self._number > self.keep:
            self.frame_path(self._number - self.keep).unlink(missing_ok=True)
        # behave like e-ink: the call returns when the "refresh" would be over
        remaining = self.refresh_time(partial) - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)


def open(**options: Any) -> PngPanel:
    """``open(out_dir=…, panel="2.13", colour="bw", full_refresh_s=0, partial_refresh_s=0, keep=500)``."""
    out_dir = options.pop("out_dir", "display-out")
    try:
        return PngPanel(out_dir, **options)
    except TypeError as e:
        raise ConfigError(f"display (png driver): {e}") from None
