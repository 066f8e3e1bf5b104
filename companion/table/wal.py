"""What a power cut left at the end of the journal's write-ahead log, read before SQLite opens it.

SQLite keeps a commit only if every frame up to its commit frame carries the right salts and
checksum (https://www.sqlite.org/fileformat2.html#walformat) and silently drops the rest when it
opens the file. :func:`wal_damage` reads the log the same way first, so the service can say that
something was dropped, and where, instead of losing it without a word.

>>> import tempfile
>>> from pathlib import Path
>>> wal_damage(Path(tempfile.mkdtemp()) / "journal.sqlite") is None  # no log: nothing to say
True
"""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["wal_damage"]

#: the two magic numbers of a WAL header (the low bit: the checksums' byte order)
_MAGICS = (0x377F0682, 0x377F0683)
_HEADER = 32
_FRAME_HEADER = 24


def wal_damage(path: Path) -> str | None:
    """What a power cut left at the end of ``path``'s write-ahead log, in words; None when
    the log is whole (or absent).

    A commit the service acknowledged was fsync'd (synchronous=FULL) before its answer, so a
    cut can only take the commit being written, unless the file itself was damaged afterwards.
    """
    wal = Path(f"{path}-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if not data:
        return None
    if len(data) < _HEADER:
        return f"{wal}: the write-ahead log is cut short in its header ({len(data)} bytes)"
    magic, _version, page_size, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in _MAGICS or _wal_sum(data[:24], magic, 0, 0) != (c1, c2):
        return (
            f"{wal}: the write-ahead log's header is damaged: SQLite ignores the whole log, so"
            " the commands written since its last checkpoint are lost"
        )
    good_end, good_frames = _last_commit(data, magic, page_size, (salt1, salt2), (c1, c2))
    rest = len(data) - good_end
    if rest == 0 or not any(data[good_end:]):
        return None
    # frames of an older generation (with other salts) stay behind after SQLite restarts the
    # log from its beginning: they are no damage
    next_salts = data[good_end + 8 : good_end + 16]
    if len(next_salts) == 8 and struct.unpack(">2I", next_salts) != (salt1, salt2):
        return None
    return (
        f"{wal}: {rest} bytes after the last complete commit of the write-ahead log are torn"
        f" or damaged (a power cut mid-write?); SQLite drops them, so the journal is restored"
        f" to its last good commit ({good_frames} frames kept)"
    )


def _last_commit(
    data: bytes, magic: int, page_size: int, salts: tuple[int, int], sums: tuple[int, int]
) -> tuple[int, int]:
    """Where the last frame SQLite would keep ends, and how many frames that is.

    Walks the frames as SQLite does: each must carry the header's salts and continue the
    running checksum; only a commit frame (one with a database size) ends a kept stretch.
    """
    frame = _FRAME_HEADER + page_size
    s1, s2 = sums
    good_end, good_frames, at, frames = _HEADER, 0, _HEADER, 0
    while at + frame <= len(data):
        header = data[at : at + _FRAME_HEADER]
        _page, commit, fs1, fs2, fc1, fc2 = struct.unpack(">6I", header)
        if (fs1, fs2) != salts:
            break
        s1, s2 = _wal_sum(header[:8], magic, s1, s2)
        s1, s2 = _wal_sum(data[at + _FRAME_HEADER : at + frame], magic, s1, s2)
        if (s1, s2) != (fc1, fc2):
            break
        at += frame
        frames += 1
        if commit:
            good_end, good_frames = at, frames
    return good_end, good_frames


def _wal_sum(data: bytes, magic: int, s1: int, s2: int) -> tuple[int, int]:
    """SQLite's WAL checksum: Fibonacci-weighted over 32-bit words, in the magic's order."""
    words = struct.unpack(f"{'>' if magic & 1 else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2
