"""The journal checked before SQLite opens it: nothing that was acknowledged is given up in silence.

SQLite, opening a journal, drops what its write-ahead log holds past a damaged frame or under
a damaged header, and its next write resets the log; beside a missing or empty
``journal.sqlite`` it starts an empty database and deletes the log. Either way a night of
acknowledged commands would be gone without a word. :func:`check` runs first (the service's
start, ``check-config``, ``rhuna-table recover``):

- a log that is not whole is copied aside into ``archive/`` (``damaged-<UTC time>/``), never
  deleted, before anything else touches it;
- a torn tail (the last transaction, never committed) is only logged: nothing acknowledged is
  in it;
- damage with committed frames after it, or a missing or empty journal where the folder shows
  it had a night (a log, the journal's ``journal.started`` mark, an ``archive/``, the panel's
  frames), is a :class:`JournalRefused`: the service does not start, and the message names
  the copy and ``rhuna-table recover --state DIR``.

>>> import tempfile
>>> from pathlib import Path
>>> check(Path(tempfile.mkdtemp())) is None  # a new folder: nothing to say
True
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from companion.table.journal import ARCHIVE, JOURNAL, MARK
from companion.table.journal_errors import StoreError, StoreUnavailable, retryable
from companion.table.wal import WalScan, read_scan
from settings.atomic import fsync_dir

__all__ = ["MARK", "JournalRefused", "check", "mark_started", "recover_command"]

log = logging.getLogger("rhuna.store")


class JournalRefused(StoreError):
    """Starting would lose acknowledged commands; the message names the copy and the fix."""


def recover_command(state_dir: Path) -> str:
    return f"rhuna-table recover --state {state_dir}"


def check(
    state_dir: Path,
    *,
    marks: Iterable[Path] = (),
    new_session: bool = False,
    keep: bool = True,
    clock: Callable[[], float] = time.time,
) -> str | None:
    """Refuse (:class:`JournalRefused`) a journal that SQLite would open with loss; the
    warning for a torn tail (logged too); None when all is whole.

    ``marks``: more signs that the folder had a night (the panel's frames folder).
    ``new_session``: the journal was just archived on purpose (``--new-session``): a missing
    one is expected. ``keep``: copy a log that is not whole aside (False: ``check-config``,
    which changes nothing).
    """
    path = state_dir / JOURNAL
    found = read_scan(path)
    main_size = _size(path)
    if main_size in (None, 0) and not new_session:
        signs = _signs(state_dir, found, marks)
        if signs:
            copy = _keep(state_dir, clock) if keep and found is not None else None
            what = "missing" if main_size is None else "empty (0 bytes)"
            raise JournalRefused(
                f"{path}: the journal is {what}, but this folder had a night ({', '.join(signs)})"
                f" — starting would begin an empty table{_and_delete(found)}."
                f"{_copied(copy)} Fix: `{recover_command(state_dir)}` rebuilds what the log"
                " holds; or, to start afresh on purpose, `rhuna-table run --config <file>"
                " --new-session` (nothing is deleted: it goes to"
                f" {state_dir / ARCHIVE}/)"
            )
    if found is None or found.whole:
        return None
    words = found.describe()
    copy = _keep(state_dir, clock) if keep else None
    if found.fatal:
        raise JournalRefused(
            f"{words}.{_copied(copy)} The service will not start on it: that would throw"
            f" acknowledged commands away. Fix: `{recover_command(state_dir)}` replays every"
            " good frame into a new journal (the damaged one is kept in"
            f" {state_dir / ARCHIVE}/), then start the service again"
        )
    message = f"{words}{_copied(copy, lead=';')}"
    log.warning("%s", message)
    return message


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):  # none there (a file where its folder goes)
        return None


def _signs(state_dir: Path, found: WalScan | None, marks: Iterable[Path]) -> list[str]:
    signs = []
    if found is not None:
        signs.append(f"a {found.size:,}-byte write-ahead log with {len(found.frames)} frames")
    if (state_dir / MARK).exists():
        signs.append(f"its mark {MARK}")
    archive = state_dir / ARCHIVE
    if archive.is_dir() and any(archive.iterdir()):
        signs.append(f"sessions in {archive}/")
    for mark in marks:
        if mark.is_dir() and any(mark.glob("*.png")):
            signs.append(f"panel frames in {mark}/")
    return signs


def _and_delete(found: WalScan | None) -> str:
    return "" if found is None else " and SQLite would delete the log that holds the night"


def _copied(copy: Path | None, lead: str = "") -> str:
    if copy is None:
        return ""
    return f"{lead} {'a' if lead else 'A'} copy of the log as it was is in {copy}/ (kept, never deleted)."


def _keep(state_dir: Path, clock: Callable[[], float]) -> Path:
    """Copy the journal, its log and the log's index (as they are) into
    ``archive/damaged-<UTC time>/``: the index (``-shm``) is what tells a log cut short."""
    folder = state_dir / ARCHIVE
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    target = folder / f"damaged-{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"damaged-{stamp}-{n}"
    try:
        target.mkdir(parents=True)
        for suffix in ("", "-wal", "-shm"):
            src = state_dir / f"{JOURNAL}{suffix}"
            if src.exists():
                dst = target / src.name
                shutil.copyfile(src, dst)
                with open(dst, "rb+") as f:
                    os.fsync(f.fileno())
        fsync_dir(target)
        fsync_dir(folder)
    except OSError as e:
        message = (
            f"{state_dir / JOURNAL}: its write-ahead log is not whole and cannot be copied aside"
            f" into {target} ({e.strerror}) — the service will not open it before it is kept."
            " Fix: free space on the card (or make it writable), then start again"
        )
        raise (StoreUnavailable if retryable(e) else JournalRefused)(message) from None
    return target


def mark_started(state_dir: Path, created: str) -> None:
    """Write ``journal.started`` beside a new journal (a sign, later, that it existed)."""
    try:
        (state_dir / MARK).write_text(f"{created}\n")
    except OSError as e:  # a courtesy: the journal itself is committed
        log.warning("%s: cannot write the journal's mark (%s)", state_dir / MARK, e.strerror)
