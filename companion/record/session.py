"""An ended session's recap, kept: written into the recaps' folder, and the newest one's link.

When a new session starts, the service exports the last one here
(:func:`write_session_recap`, HTML when matplotlib is there, else Markdown); the table
display links the newest (:func:`latest_recap`, MQTT ``…/history``). The recap itself is
drawn by :mod:`companion.record.recap` and written by :mod:`companion.record.export`.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TypedDict

from companion.record.export import export
from companion.record.journal import open_journal
from settings.errors import ConfigError


class Recap(TypedDict):
    """The last ended session's recap, as the table display links it (MQTT ``…/history``)."""

    #: the session id (a UTC stamp) and its folder's name
    session: str
    #: ``recap.html`` or ``recap.md``
    file: str
    #: where it is served (``[record] recap_url``), or None when it is not
    href: str | None


def latest_recap(recaps: Path, url: str | None) -> Recap | None:
    """The newest recap in ``recaps`` (folders are session ids, UTC stamps: they sort), as
    the table display's link: ``{"session", "file", "href"}``; None when there is none."""
    if not recaps.is_dir():
        return None
    for folder in sorted((p for p in recaps.iterdir() if p.is_dir()), reverse=True):
        for name in ("recap.html", "recap.md"):
            if (folder / name).is_file():
                href = None if not url else f"{url.rstrip('/')}/{folder.name}/{name}"
                return {"session": folder.name, "file": name, "href": href}
    return None


def write_session_recap(
    journal: Path, recaps: Path, table: Path, url: str | None, frames: Path | None = None
) -> Recap | None:
    """Export an ended session into ``recaps/<session id>/`` (HTML when matplotlib is there,
    else Markdown; with the png panel's last ``frames``); returns its link, or None (logged)
    when it cannot be written."""
    log = logging.getLogger("rhuna.record")
    fmt = "html" if importlib.util.find_spec("matplotlib") is not None else "md"
    try:
        with open_journal(journal) as j:
            folder = recaps / j.session_id
            shots = frames if frames is not None and frames.is_dir() else None
            # the players' recap only: this folder is served beside the pages (the
            # WorldKeeper's own recap is `rhuna-table export`'s recap-worldkeeper.html)
            export(j, folder, table=str(table), fmt=fmt, frames=shots, audiences=("players",))
    except ConfigError as e:
        log.warning("no recap of %s: %s", journal, e)
        return None
    log.info("recap of the last session: %s", folder)
    return latest_recap(recaps, url)
