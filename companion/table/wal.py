"""The journal's write-ahead log, read frame by frame before SQLite opens it.

SQLite keeps a commit only if every frame up to its commit frame carries the header's salts
and continues the running checksum (https://www.sqlite.org/fileformat2.html#walformat); when
it opens the file it silently drops the rest, and its next write resets the log. After a power
cut the night lives in this file, so :func:`scan` reads it the same way first and tells apart:

- a whole log (nothing to say);
- a *torn tail*: the last frames of the last transaction, never committed or cut mid-write
  (a kill -9 or a power cut mid-commit); dropping them loses nothing acknowledged, because an
  acknowledged commit was fsync'd whole before its answer (``synchronous=FULL``);
- *damage*: a bad header with frames after it, or a bad frame followed by committed frames of
  the same generation (the same salts, each continuing its predecessor's checksum). Opening
  such a log would throw acknowledged commands away in silence: the store refuses it
  (:mod:`companion.table.guard`), and :mod:`companion.table.recover` rebuilds what it can.

Each frame is checked *locally*, from its predecessor's stored checksum, so the frames after a
damaged one are still told apart from leftovers of an older generation (other salts).

>>> import tempfile
>>> from pathlib import Path
>>> wal_damage(Path(tempfile.mkdtemp()) / "journal.sqlite") is None  # no log: nothing to say
True
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Frame", "WalScan", "read_scan", "scan", "wal_damage", "wal_sum"]

#: the two magic numbers of a WAL header (the low bit: the checksums' byte order)
_MAGICS = (0x377F0682, 0x377F0683)
_VERSION = 3007000
_HEADER = 32
_FRAME_HEADER = 24
_PAGE_SIZES = tuple(1 << n for n in range(9, 17))
#: a frame whose salt-1 is this little below the header's is an older generation's leftover
_OLD_GENERATIONS = 1 << 16


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of the log, as read."""

    index: int
    offset: int
    page: int
    #: the database size in pages after this commit; 0 for a frame that is no commit
    commit: int
    salts: tuple[int, int]
    #: carries the log's salts (the header's; the first frame's when the header is bad)
    salts_ok: bool
    #: continues its predecessor's stored checksum (the header's for the first frame)
    sum_ok: bool

    @property
    def good(self) -> bool:
        return self.salts_ok and self.sum_ok and self.page > 0


@dataclass(frozen=True, slots=True)
class WalScan:
    """What :func:`scan` found in one log."""

    path: Path
    size: int
    header_ok: bool
    big_endian: bool
    page_size: int
    salts: tuple[int, int]
    frames: tuple[Frame, ...]
    #: frames SQLite keeps: the unbroken run of good frames up to its last commit
    kept: int
    #: the first frame that breaks the run (== len(frames) when none does)
    broken: int
    #: bytes after the last whole frame that are not all zero
    ragged: int
    #: the frames SQLite's index (``-shm``) says were committed to this log (None: no index
    #: of this log, or one that does not check out); more than the log holds: it was cut
    indexed: int | None = None

    @property
    def cut(self) -> bool:
        """The log is shorter than its index says: committed frames are gone from the file."""
        return self.indexed is not None and self.indexed > len(self.frames)

    @property
    def whole(self) -> bool:
        """Nothing dropped: every frame kept, or only an older generation's after them."""
        if self.cut:
            return False
        if not self.header_ok:
            return not self.frames and not self.ragged
        if self.kept < self.broken:
            return False  # good frames of a transaction never committed
        if self.broken == len(self.frames):
            return not self.ragged
        # an older generation's leftover only when nothing of this generation is committed
        # after it: damage that lowers a frame's salt-1 a little looks the same, frame by frame
        return self._older(self.frames[self.broken]) and not self.lost_commits

    @property
    def lost_commits(self) -> list[Frame]:
        """Committed frames of this generation that SQLite would drop: the damage (the frame
        that breaks the run too, when only its salts are damaged and it is a commit)."""
        if not self.header_ok:
            return [f for f in self.frames if f.good]
        rest = self.frames[self.broken :]
        return [f for f in rest if f.commit and (f.good or (f is rest[0] and self._salted(f)))]

    @property
    def fatal(self) -> bool:
        """Opening the log would lose commits that were made (acknowledged ones)."""
        return bool(self.lost_commits) or self.cut

    def _older(self, frame: Frame) -> bool:
        """A leftover of an older generation of the log: its salt-1 a little behind the
        header's, and it does not continue its predecessor's checksum (a leftover was chained
        from the older generation's frames; a frame that continues this generation's chain
        is this generation's, its salts damaged)."""
        behind = (self.salts[0] - frame.salts[0]) & 0xFFFFFFFF
        return 0 < behind < _OLD_GENERATIONS and not frame.sum_ok

    @staticmethod
    def _salted(frame: Frame) -> bool:
        """This generation's frame whose salts alone are damaged (its page and checksum hold)."""
        return not frame.salts_ok and frame.sum_ok and frame.page > 0

    def describe(self) -> str | None:
        """The log in words; None when it is whole."""
        if self.whole:
            return None
        wal = self.path
        if self.lost_commits and not self.header_ok:
            return (
                f"{wal}: the write-ahead log's header is damaged, yet"
                f" {len(self.lost_commits)} good frames follow it: SQLite would ignore the"
                " whole log and lose every command written since its last checkpoint"
            )
        if self.lost_commits:
            bad = self.frames[self.broken]
            what = "salts" if not bad.salts_ok else "checksum"
            return (
                f"{wal}: frame {bad.index} (page {bad.page}, byte {bad.offset}) of the"
                f" write-ahead log is damaged (its {what}), and {len(self.lost_commits)}"
                " committed frames are at or after it: SQLite would keep only the"
                f" {self.kept} frames before it and lose the commands after them"
            )
        if self.cut:
            return (
                f"{wal}: the write-ahead log holds {len(self.frames)} frames, but SQLite's"
                f" index of it ({wal.name[:-4]}-shm) counted {self.indexed}: the file was cut"
                " short after its commits were made (a card that lied about a write?), and"
                " opening it would lose the commands in the missing frames"
            )
        if not self.header_ok:
            return f"{wal}: the write-ahead log's header is torn ({self.size} bytes, no frames)"
        dropped = len(self.frames) - self.kept
        torn = self.size - _HEADER - self.kept * self.frame_size
        return (
            f"{wal}: a torn tail ({dropped} frames, {torn} bytes) after the last complete"
            " commit of the write-ahead log: the last transaction, never committed (a kill -9"
            " or a power cut mid-write); SQLite drops it, the journal is restored to its last"
            f" good commit ({self.kept} frames kept)"
        )

    @property
    def frame_size(self) -> int:
        return _FRAME_HEADER + self.page_size


def wal_sum(data: bytes, big_endian: bool, s1: int, s2: int) -> tuple[int, int]:
    """SQLite's WAL checksum: Fibonacci-weighted over 32-bit words, in the magic's order."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


def read_scan(path: Path, page_size: int | None = None) -> WalScan | None:
    """:func:`scan` of ``<path>-wal`` (the journal's log); None when there is none or it is
    empty."""
    wal = Path(f"{path}-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if not data:
        return None
    found = scan(wal, data, page_size if page_size is not None else db_page_size(path))
    indexed = _indexed(Path(f"{path}-shm"), data)
    return found if indexed is None else dataclasses.replace(found, indexed=indexed)


def _indexed(shm: Path, data: bytes) -> int | None:
    """mxFrame of SQLite's wal-index header, when the index belongs to this log's header
    (same salts, its own checksum right, both copies equal); None else."""
    try:
        with open(shm, "rb") as f:
            head = f.read(96)
    except OSError:
        return None
    if len(head) < 96 or len(data) < _HEADER or head[:48] != head[48:96]:
        return None
    for order in ("<", ">"):
        version, _, _change, init, big, _size, mx = struct.unpack(f"{order}IIIBBHI", head[:20])
        if version != _VERSION or not init:
            continue
        stored = struct.unpack(f"{order}2I", head[40:48])
        if wal_sum(head[:40], order == ">", 0, 0) != stored or big not in (0, 1):
            continue
        if head[32:40] != data[16:24]:
            return None  # the index of another generation of the log
        return int(mx)
    return None


def db_page_size(path: Path) -> int | None:
    """The page size a database file's header gives (None: no file, or not a database)."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError:
        return None
    if len(head) < 100 or not head.startswith(b"SQLite format 3\0"):
        return None
    size = struct.unpack(">H", head[16:18])[0]
    size = 65536 if size == 1 else size
    return size if size in _PAGE_SIZES else None


def scan(wal: Path, data: bytes, page_size_hint: int | None = None) -> WalScan:
    """Every frame of the log ``data``, each checked from its predecessor."""
    if len(data) < _HEADER:
        return WalScan(wal, len(data), False, True, 0, (0, 0), (), 0, 0, int(any(data)))
    magic, version, page_size, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    header_ok = (
        magic in _MAGICS
        and version == _VERSION
        and page_size in _PAGE_SIZES
        and wal_sum(data[:24], bool(magic & 1), 0, 0) == (c1, c2)
    )
    if header_ok:
        frames = _frames(data, page_size, bool(magic & 1), (salt1, salt2), (c1, c2))
        return _result(wal, data, True, bool(magic & 1), page_size, (salt1, salt2), frames)
    # a damaged header: find the page size, the byte order and the salts from the frames
    sizes = [page_size] if page_size in _PAGE_SIZES else []
    sizes += [s for s in (page_size_hint, *_PAGE_SIZES) if s and s not in sizes]
    orders = [bool(magic & 1)] if magic in _MAGICS else [True, False]
    orders += [not orders[0]] if len(orders) == 1 else []
    best: WalScan | None = None
    for size in sizes:
        if len(data) < _HEADER + _FRAME_HEADER:
            break
        salts = struct.unpack(">2I", data[_HEADER + 8 : _HEADER + 16])
        for order in orders:
            frames = _frames(data, size, order, salts, (c1, c2))
            found = _result(wal, data, False, order, size, salts, frames)
            if best is None or _goods(found) > _goods(best):
                best = found
    if best is None or not _goods(best):
        ragged = int(any(data[_HEADER:]))
        return WalScan(wal, len(data), False, True, page_size, (salt1, salt2), (), 0, 0, ragged)
    return best


def _goods(s: WalScan) -> int:
    return sum(f.good for f in s.frames)


def _frames(
    data: bytes, page_size: int, big_endian: bool, salts: tuple[int, int], sums: tuple[int, int]
) -> list[Frame]:
    frame = _FRAME_HEADER + page_size
    out: list[Frame] = []
    prev = sums
    at = _HEADER
    while at + frame <= len(data):
        header = data[at : at + _FRAME_HEADER]
        page, commit, fs1, fs2, fc1, fc2 = struct.unpack(">6I", header)
        if not any(data[at : at + frame]):
            break  # zeros: the file was extended, never written
        s = wal_sum(header[:8], big_endian, *prev)
        s = wal_sum(data[at + _FRAME_HEADER : at + frame], big_endian, *s)
        out.append(
            Frame(len(out), at, page, commit, (fs1, fs2), (fs1, fs2) == salts, s == (fc1, fc2))
        )
        prev = (fc1, fc2)
        at += frame
    return out


def _result(
    wal: Path,
    data: bytes,
    header_ok: bool,
    big_endian: bool,
    page_size: int,
    salts: tuple[int, int],
    frames: list[Frame],
) -> WalScan:
    kept = broken = 0
    if header_ok:
        for f in frames:
            if not f.good:
                break
            broken += 1
            if f.commit:
                kept = broken
    else:
        broken = 0
    end = _HEADER + len(frames) * (_FRAME_HEADER + page_size)
    ragged = int(any(data[end:]))
    return WalScan(
        wal, len(data), header_ok, big_endian, page_size, salts, tuple(frames), kept, broken, ragged
    )


def wal_damage(path: Path) -> str | None:
    """What the log beside the journal ``path`` holds that SQLite would drop, in words; None
    when it is whole (or absent)."""
    found = read_scan(path)
    return None if found is None else found.describe()
