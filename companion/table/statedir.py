"""The state directory: created for the service, held by one process at a time, a session set aside.

A service (and ``rhuna-table enroll``) holds ``rhuna-table.lock`` with ``flock`` for as long
as it runs, its pid written inside, so a second one on the same directory is refused with a
message naming the holder. The lock goes with the process: a kill -9 leaves no stale lock.
:func:`archive` moves a session's journal aside for ``--new-session``, under the same lock.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> with locked(folder):
...     pass
>>> archive(folder) is None  # no journal to set aside
True
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from companion.table.journal import ARCHIVE, JOURNAL, LOCK, MARK
from companion.table.journal_file import StoreError, StoreUnavailable, retryable
from companion.table.wal import wal_damage
from settings.atomic import fsync_dir

__all__ = ["BUSY_FIX", "archive", "hold", "locked", "make_dir", "release"]

#: what to do when another process holds the state directory (a second service)
BUSY_FIX = "stop it first (systemctl stop rhuna-table), or give this one its own [state] dir"


@contextlib.contextmanager
def locked(state_dir: str | Path, busy_fix: str = BUSY_FIX) -> Iterator[None]:
    """Hold the state directory's lock, as a running service does, for the block.

    ``rhuna-table enroll`` holds it while it enrols, so it never runs beside the service
    (which holds the reader's port and read the registry when it started) and the
    service cannot start halfway through an enrolment. ``busy_fix`` is the advice
    when the lock is taken.
    """
    state_dir = Path(state_dir)
    make_dir(state_dir)
    fd = hold(state_dir, busy_fix)
    try:
        yield
    finally:
        release(fd)


def make_dir(state_dir: Path) -> None:
    """Create the state directory (and its parents), or say how to make one writable."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        message = (
            f"state.dir {state_dir}: cannot create it ({e.strerror}) — create it for the"
            " service's user, or set [state] dir to a writable directory"
        )
        raise (StoreUnavailable if retryable(e) else StoreError)(message) from None


def hold(state_dir: Path, busy_fix: str = BUSY_FIX) -> int:
    """Take the directory's lock (never waiting) and write our pid in it; its descriptor."""
    path = state_dir / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        message = (
            f"{path}: cannot create the lock file ({e.strerror}) — the service's user must be"
            f" able to write to {state_dir}"
        )
        raise (StoreUnavailable if retryable(e) else StoreError)(message) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise StoreError(
            f"{state_dir}: another rhuna-table (pid {holder}) is running on this state"
            f" directory — {busy_fix}"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def release(fd: int | None) -> None:
    """Let the directory go (None: it was never held)."""
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing drops the flock


def archive(state_dir: str | Path, clock: Callable[[], float] = time.time) -> Path | None:
    """Move the journal (with its WAL) to ``archive/journal-<UTC time>.sqlite``.

    Used by ``--new-session``; works on a damaged journal too. Returns the
    archived path, or None when there was no journal.
    """
    state_dir = Path(state_dir)
    path = state_dir / JOURNAL
    if not any(Path(f"{path}{s}").exists() for s in ("", "-wal")):
        return None
    fd = hold(state_dir)
    try:
        # fold the WAL in when it is whole; a damaged one (or one beside a missing or empty
        # journal) is moved as it is: SQLite would drop or delete what it holds
        if wal_damage(path) is None and path.exists() and path.stat().st_size > 0:
            with contextlib.suppress(sqlite3.Error):
                db = sqlite3.connect(path, isolation_level=None)
                try:
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                finally:
                    db.close()
        folder = state_dir / ARCHIVE
        folder.mkdir(exist_ok=True)
        target = _free_name(folder, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock())))
        for suffix in ("", "-wal", "-shm", ".started"):
            src = Path(f"{path}{suffix}") if suffix != ".started" else state_dir / MARK
            if src.exists():
                os.replace(src, f"{target}{suffix}")
        fsync_dir(state_dir)
        fsync_dir(folder)
        return target
    except OSError as e:
        raise StoreError(
            f"{path}: cannot archive the journal ({e.strerror}) — check the permissions of"
            f" {state_dir}"
        ) from None
    finally:
        release(fd)


def _free_name(folder: Path, stamp: str) -> Path:
    """``journal-<stamp>.sqlite``, or ``-2``, ``-3`` … when two sessions end in one second."""
    target = folder / f"journal-{stamp}.sqlite"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"journal-{stamp}-{n}.sqlite"
    return target
