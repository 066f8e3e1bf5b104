"""``rhuna-table recover``: a journal rebuilt from every good frame of a damaged write-ahead log.

What SQLite's checkpoint does, done by hand and without stopping at the first bad frame: the
main file's pages, then each committed transaction's frames in order (a later frame of a page
replaces the earlier one), skipping only frames that fail their own checksum or belong to an
older generation. A damaged frame's page is usually written again by the next command (the
journal's last leaf page), so most often nothing is lost. The rebuilt database is read by
SQLite in a folder of its own; its journal rows, from #1 up to the first one missing, go into
a new ``journal.sqlite`` (the snapshots are left out: the next start replays the journal).
The old files are moved, never deleted, to ``archive/recovered-<UTC time>/``, with the rows
after a gap (if any) in ``unrecovered.jsonl`` for the WorldKeeper to enter again.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.table.journal import ARCHIVE, JOURNAL, SCHEMA, SCHEMA_VERSION
from companion.table.journal_file import StoreError
from companion.table.statedir import hold, release
from companion.table.wal import _FRAME_HEADER, WalScan, db_page_size, read_scan
from settings.atomic import fsync_dir

__all__ = ["Recovered", "rebuild_pages", "recover"]

#: a ``journal`` row: seq, at, source, command, events
Row = tuple[int, float, str, str, str]


@dataclass(frozen=True, slots=True)
class Recovered:
    """What :func:`recover` did."""

    rows: int
    unrecovered: int
    frames_used: int
    frames_skipped: int
    kept_in: Path | None
    #: frames SQLite's index counted that the log no longer holds (it was cut short)
    missing_frames: int = 0

    def summary(self, state_dir: Path) -> str:
        lost = (
            f"; {self.unrecovered} row(s) after a gap could not be replayed (listed in"
            f" {self.kept_in}/unrecovered.jsonl: enter them again)"
            if self.unrecovered
            else ""
        )
        if self.missing_frames:
            lost += (
                f"; the log was cut short: {self.missing_frames} frame(s) its index counted"
                " are gone, and the commands in them with it (enter them again)"
            )
        lost = lost or "; nothing lost"
        return (
            f"{state_dir / JOURNAL}: rebuilt with {self.rows} command(s) ({self.frames_used}"
            f" frames of the log replayed, {self.frames_skipped} damaged or torn skipped){lost}."
            f" The old files are kept in {self.kept_in}/. Start the service again."
        )


def rebuild_pages(main: bytes, found: WalScan | None, data: bytes) -> tuple[bytes, int, int]:
    """The database the log ``data`` (scanned as ``found``) makes of the main file ``main``:
    every committed transaction applied, damaged frames skipped; with the frames used and
    skipped."""
    if found is None or not found.page_size:
        return main, 0, 0
    size = found.page_size
    pages = bytearray(main[: len(main) - len(main) % size])
    pending: dict[int, bytes] = {}
    used = skipped = 0
    waiting = 0
    for f in found.frames:
        usable = f.sum_ok and f.page > 0 and (f.salts_ok or not found._older(f))
        if not usable:
            skipped += 1
            continue
        pending[f.page] = data[f.offset + _FRAME_HEADER : f.offset + _FRAME_HEADER + size]
        waiting += 1
        if f.commit:
            end = f.commit * size
            if len(pages) < end:
                pages.extend(bytes(end - len(pages)))
            for page, content in pending.items():
                if page <= f.commit:
                    pages[(page - 1) * size : page * size] = content
            del pages[end:]
            used += waiting
            pending.clear()
            waiting = 0
    return bytes(pages), used, skipped + waiting


def recover(state_dir: Path, clock: Callable[[], float] = time.time) -> Recovered:
    """Rebuild ``state_dir``'s journal from its file and log (the service must be stopped:
    the folder's lock is held meanwhile)."""
    path = state_dir / JOURNAL
    fd = hold(
        state_dir, "stop it first (systemctl stop rhuna-table): recover works on a stopped table"
    )
    try:
        return _recover(state_dir, path, clock)
    finally:
        release(fd)


def _recover(state_dir: Path, path: Path, clock: Callable[[], float]) -> Recovered:
    main = path.read_bytes() if path.exists() else b""
    wal = Path(f"{path}-wal")
    data = wal.read_bytes() if wal.exists() else b""
    found = read_scan(path, db_page_size(path))
    if not main and found is None:
        raise StoreError(
            f"{path}: nothing is left to recover (no journal, no write-ahead log) — look in"
            f" {state_dir / ARCHIVE}/ for copies; to start afresh: rhuna-table run --config"
            " <file> --new-session"
        )
    pages, used, skipped = rebuild_pages(main, found, data)
    with tempfile.TemporaryDirectory(prefix="rhuna-recover-") as tmp:
        rebuilt = Path(tmp) / "rebuilt.sqlite"
        rebuilt.write_bytes(pages)
        meta, rows, unrecovered = _read_rows(rebuilt, path)
        fresh = state_dir / f"{JOURNAL}.recovering"
        fresh.unlink(missing_ok=True)
        _write_journal(fresh, meta, rows)
    kept = _move_old(state_dir, path, clock)
    if unrecovered:
        with open(kept / "unrecovered.jsonl", "w", encoding="utf-8") as f:
            for row in unrecovered:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(fresh, path)
    fsync_dir(state_dir)
    missing = max(0, found.indexed - len(found.frames)) if found and found.indexed else 0
    return Recovered(len(rows), len(unrecovered), used, skipped, kept, missing)


def _read_rows(
    rebuilt: Path, path: Path
) -> tuple[list[tuple[str, str]], list[Row], list[dict[str, object]]]:
    try:
        db = sqlite3.connect(rebuilt)
        try:
            db.text_factory = bytes
            meta = [(k.decode(), v.decode()) for k, v in db.execute("SELECT key, value FROM meta")]
            raw = db.execute(
                "SELECT seq, at, source, command, events FROM journal ORDER BY seq"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as e:
        raise StoreError(
            f"{path}: the journal rebuilt from its file and log cannot be read ({e}) — keep"
            f" {path.parent / ARCHIVE}/ for a bug report; to start afresh: rhuna-table run"
            " --config <file> --new-session"
        ) from None
    rows: list[Row] = []
    unrecovered: list[dict[str, object]] = []
    for seq, at, source, command, events in raw:
        try:
            row = (int(seq), float(at), source.decode(), command.decode(), events.decode())
            json.loads(row[3])
            json.loads(row[4])
        except (ValueError, AttributeError, TypeError):
            row = None
        if row is not None and not unrecovered and row[0] == len(rows) + 1:
            rows.append(row)
        else:
            unrecovered.append({"seq": int(seq), "command": _text(command)})
    return meta, rows, unrecovered


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _write_journal(fresh: Path, meta: list[tuple[str, str]], rows: list[Row]) -> None:
    db = sqlite3.connect(fresh, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(f"BEGIN IMMEDIATE;{SCHEMA}PRAGMA user_version={SCHEMA_VERSION};")
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta)
        db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    Path(f"{fresh}-wal").unlink(missing_ok=True)
    Path(f"{fresh}-shm").unlink(missing_ok=True)


def _move_old(state_dir: Path, path: Path, clock: Callable[[], float]) -> Path:
    folder = state_dir / ARCHIVE
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    target = folder / f"recovered-{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"recovered-{stamp}-{n}"
    target.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            shutil.move(src, target / src.name)
    fsync_dir(target)
    fsync_dir(folder)
    fsync_dir(state_dir)
    return target
