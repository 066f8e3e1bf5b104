"""A ``[[readers]]`` entry of the config, opened: the reader backend it names, not started.

The service and ``rhuna-table enroll`` both open their readers here, so an entry means
the same reader to both; ``emulated-hub`` also gives the in-process hub emulator it talks to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from firmware_bridge.config import ReaderConfig
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.hub import HubReader
from firmware_bridge.line_reader import LineReader
from firmware_bridge.pn532 import PN532Reader
from firmware_bridge.reader import SerialReader, Sink, StatusSink

#: what may stand in a port link's name as it is (udev's by-id names; the rest becomes '_')
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def _link_level(name: str) -> str:
    return _UNSAFE.sub("_", name) or "_"


def open_reader(
    rc: ReaderConfig,
    sink: Sink,
    on_status: StatusSink | None = None,
    *,
    link_dir: Path | None = None,
) -> tuple[SerialReader, HubEmulator | None]:
    """The reader a ``[[readers]]`` entry describes (not started), and for ``emulated-hub``
    the in-process :class:`HubEmulator` it talks to (start it before the reader, stop it
    after). The service and ``rhuna-table enroll`` both open their readers here.

    ``link_dir``: where an emulated hub's port link goes (the service's state directory,
    so a kill -9 leaves no ``rhuna-serial-*`` folder behind: the next start clears it);
    None: a temporary folder the emulator removes when it stops."""
    common: dict[str, Any] = {"sink": sink, "name": rc.name, "on_status": on_status}
    o = rc.options
    if rc.backend == "emulated-hub":
        hub_id = f"EMU-{rc.name}"
        link = (
            None
            if link_dir is None
            else link_dir / "serial" / "by-id" / f"usb-Rhuna_TokenHub_{_link_level(hub_id)}-if00"
        )
        hub = HubEmulator(link, channels=int(o["channels"]), hub_id=hub_id, poll_ms=5.0)
        return HubReader(hub.link, **common), hub
    port = str(rc.port)
    if rc.backend == "hub":
        return HubReader(port, baudrate=rc.baudrate, **common), None
    if rc.backend == "pn532":
        return PN532Reader(port, baudrate=rc.baudrate, channel=int(o["channel"]), **common), None
    reader = LineReader(
        port,
        baudrate=rc.baudrate,
        channel=int(o["channel"]),
        uid_format=str(o["uid_format"]),
        pattern=o["pattern"],
        uid_bytes=o["uid_bytes"],
        removal_timeout=o["removal_timeout"],
        **common,
    )
    return reader, None
