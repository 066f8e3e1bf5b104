"""How a journal fails: refused as it is (:class:`StoreError`, exit 2) or for now
(:class:`StoreUnavailable`, exit 75, a full or read-only disk). Its own module so that the
start's guard (companion/table/guard.py), which checks a journal before SQLite opens it, and
the journal file's code can both raise them without importing each other.
"""

from __future__ import annotations

import errno

from settings.errors import ConfigError


class StoreError(ConfigError):
    """The journal cannot be used as it is; the message names the file and the fix.

    A ConfigError, because like a broken config it stops the service with a
    clear message (exit status 2), never a traceback.
    """


class StoreUnavailable(StoreError):
    """The journal's disk is full, read-only or failing: a retry may cure it (exit 75,
    EX_TEMPFAIL, which systemd's ``Restart=on-failure`` retries; 2 it does not)."""

    exit_status = 75

    def __init__(self, message: str) -> None:
        super().__init__(
            f"{message} (exit status 75: a condition a retry may cure — under systemd,"
            " Restart=on-failure starts the service again)"
        )


#: errno values of a disk that is full, read-only or failing (a retry may cure them)
RETRYABLE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EIO, errno.EDQUOT})
#: SQLite's primary result codes for the same (BUSY, LOCKED, READONLY, IOERR, FULL)
_SQLITE_RETRYABLE = frozenset({5, 6, 8, 10, 13})


def retryable(e: BaseException) -> bool:
    """A full, read-only or failing disk (or a busy database), not a damaged file."""
    if isinstance(e, OSError):
        return e.errno in RETRYABLE_ERRNOS
    code = getattr(e, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _SQLITE_RETRYABLE
