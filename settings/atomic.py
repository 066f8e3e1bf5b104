"""Writing a file whole or not at all, and durably: a power cut leaves the old file or the new one.

The text goes to a temporary file beside the target (``.<name>.tmp``), which is fsync'd and
renamed over the target; then the folder is fsync'd, so once the write returns the new file
survives a power cut. The tag registry (saved after every enrolled token), the broker's
accounts and password files, and ``rhuna-table export``'s files are written this way.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> write_atomic(folder / "registry.json", '{"tags": {}}\\n')
>>> (folder / "registry.json").read_text(), sorted(p.name for p in folder.iterdir())
('{"tags": {}}\\n', ['registry.json'])
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


@contextlib.contextmanager
def atomic_file(
    path: str | Path, *, mode: int | None = None, newline: str | None = None
) -> Iterator[TextIO]:
    """A UTF-8 text file to write that replaces ``path`` when the block ends, fsync'd; if the
    block raises, ``path`` is left as it was and the temporary file removed.

    ``mode``: the file's permissions from the moment it exists (a password file is never
    readable by others, not even for an instant); None: the usual (umask) ones."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666 if mode is None else mode)
    try:
        if mode is not None:
            os.fchmod(fd, mode)  # an old temporary file keeps its mode otherwise
        with open(fd, "w", encoding="utf-8", newline=newline, closefd=False) as f:
            yield f
            f.flush()
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_atomic(path: str | Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` whole or not at all, durably (see :func:`atomic_file`)."""
    with atomic_file(path, mode=mode) as f:
        f.write(text)


def fsync_dir(path: str | Path) -> None:
    """Make a rename in ``path`` durable; some file systems cannot fsync a folder: ignored."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
