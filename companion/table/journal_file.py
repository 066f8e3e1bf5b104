"""The journal's SQLite file: opened durable, checked, and told apart when it is damaged.

:func:`connect` opens ``journal.sqlite`` the way every commit relies on (WAL mode,
``synchronous=FULL``), checks its integrity and format version, and creates the tables in a
new file. A failure becomes a :class:`StoreError` that names the file and the fix; a damaged
file (corruption, not a journal) gets the ``--new-session`` advice, a full, read-only or busy
disk does not, because starting over would not help there. :func:`inspect` reads a journal
without changing it (``check-config``).

>>> import tempfile
>>> from pathlib import Path
>>> inspect(Path(tempfile.mkdtemp())) is None  # no journal yet
True
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.table.journal import ARCHIVE, JOURNAL, SCHEMA, SCHEMA_VERSION
from companion.table.journal_errors import (
    StoreError,
    StoreUnavailable,
    retryable,
)

__all__ = [
    "JournalWriteFailed",
    "StoreError",
    "StoreUnavailable",
    "connect",
    "damaged",
    "inspect",
    "is_damage",
    "reading",
    "retryable",
    "transaction",
]

#: the tables a journal of this format has
_TABLES = {"meta", "journal", "states", "snapshots"}
#: SQLite's primary result codes for a file that is not (or no longer) a sound database
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26


class JournalWriteFailed(Exception):
    """One command could not be committed (disk full, read-only, I/O error)."""


def is_damage(e: sqlite3.Error) -> bool:
    """Corruption, as opposed to a disk that is full, read-only or busy."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is None:
        return type(e) is sqlite3.DatabaseError  # quick_check's findings, raised here
    return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def damaged(path: Path, error: BaseException) -> StoreError:
    """The error for a journal that cannot be restored from: set it aside, start anew."""
    return StoreError(
        f"{path}: the journal is damaged or not a journal ({error}) — the table cannot be"
        " restored from it. Fix: start a new session with `rhuna-table run --config <file>"
        f" --new-session`, which moves the file to {path.parent / ARCHIVE}/ (keep it for a bug"
        " report)"
    )


def connect(state_dir: Path) -> sqlite3.Connection:
    """The journal in ``state_dir``, open and checked (created when new); a StoreError else.

    One connection for the loop's commits and the snapshot thread's writes (hence
    ``check_same_thread=False``; the store serialises them), in autocommit mode so that one
    ``INSERT`` is its own transaction.
    """
    path = state_dir / JOURNAL
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        message = (
            f"{path}: cannot open the journal ({e}) — check that the service's user can"
            f" write to {state_dir}"
        )
        raise (StoreUnavailable if retryable(e) else StoreError)(message) from None
    try:
        _prepare(db, path)
    except BaseException:
        db.close()
        raise
    return db


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Durability first (WAL, synchronous=FULL), then integrity, then the format version."""
    try:
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=5000")
        if _checked(db, path):
            db.executescript(
                f"BEGIN IMMEDIATE;{SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;"
            )
    except sqlite3.Error as e:
        raise _cannot_use(path, e) from None
    if str(mode).lower() != "wal":
        raise StoreError(
            f"{path}: SQLite would not switch the journal to WAL mode (got {mode!r}) — put the"
            " state directory on a local file system"
        )


def _checked(db: sqlite3.Connection, path: Path) -> bool:
    """Integrity, then the format version: True for a new, empty database (no tables yet);
    a StoreError for a journal of another format; sqlite3.DatabaseError for corruption. Only
    reads: the start runs it, and ``check-config`` on a read-only connection."""
    problems = [r[0] for r in db.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise sqlite3.DatabaseError("; ".join(problems[:3]))
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables and version == 0:
        return True
    if version != SCHEMA_VERSION or not tables >= _TABLES:
        raise StoreError(
            f"{path}: journal format {version} is not the format this version writes"
            f" ({SCHEMA_VERSION}) — run the version that wrote it, or start a new session"
            " with --new-session (the old journal is archived)"
        )
    return False


def _cannot_use(path: Path, e: sqlite3.Error) -> StoreError:
    if is_damage(e):
        return damaged(path, e)
    message = (
        f"{path}: cannot use the journal ({e}) — check the disk (full? read-only?) and"
        " that the service's user can write to it"
    )
    return (StoreUnavailable if retryable(e) else StoreError)(message)


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, lock: threading.RLock) -> Iterator[None]:
    """One write transaction on the shared connection, rolled back if the block raises."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise


def inspect(state_dir: str | Path) -> dict[str, Any] | None:
    """What a journal holds, read-only (for ``check-config``); None when there is none.

    Refuses every journal the service's start refuses, with the same checks and words, and
    changes nothing: the check before SQLite opens it
    (:class:`~companion.table.guard.JournalRefused`), then on a read-only connection the
    integrity and the format version (a :class:`StoreError`). The replay's own refusals
    (another table file, a row that no longer applies) are checked by the start's plan
    (companion/ops/start_plan.py), on :func:`reading`'s connection too. A journal this user
    cannot read (another user's, check-config run as oneself) is ``{"error": …}``.
    """
    with reading(state_dir) as db:
        if db is None:
            return None
        path = Path(state_dir) / JOURNAL
        try:
            if _checked(db, path):
                return None  # an empty database: the start makes the journal in it
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            seq = db.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
            snap = db.execute("SELECT coalesce(max(seq), 0) FROM snapshots").fetchone()[0]
        except sqlite3.Error as e:
            if is_damage(e):
                raise damaged(path, e) from None
            return {"error": str(e)}
    return {"meta": meta, "seq": seq, "snapshot_seq": snap}


@contextlib.contextmanager
def reading(state_dir: str | Path) -> Iterator[sqlite3.Connection | None]:
    """The journal in ``state_dir`` on a read-only connection (None: there is none), after
    the check a start runs before SQLite opens it (:func:`companion.table.guard.check`, which
    copies nothing here). SQLite may rebuild the log's index (``-shm``) for it; the journal
    and its log are not written, nor made."""
    from companion.table.guard import check

    check(Path(state_dir), keep=False)
    path = Path(state_dir) / JOURNAL
    if not path.exists() or not path.stat().st_size:
        yield None
        return
    # no log beside it: the file is the whole journal, read as it is (a read-only connection
    # would create an empty log and its index)
    alone = "" if Path(f"{path}-wal").exists() else "&immutable=1"
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{alone}", uri=True)
    except sqlite3.Error as e:
        raise _cannot_use(path, e) from None
    try:
        yield db
    finally:
        db.close()
