"""``rhuna-table export``: a session's journal as files to keep and share.

Writes into ``--to DIR``:

- ``events.jsonl``: one line per journal row: seq, time, source, the command and
  its events, exactly as journaled;
- ``draws.csv``: one row per token laid on the Draw Board (draw, Redraw, Favor),
  with the engine's exact best-play and as-drawn odds of the hero's group just
  before it (numerator, denominator and percent, each in its own column);
- ``performances.csv``: one row per resolving group of each Performance (a hero
  alone, or Intersecting heroes, I-P10): Difficulty, total, outcome, the odds
  before its first draw, and the Fatigue, Strain and Wounds it cost;
- ``recap.html`` (one self-contained file) or, with ``--format md``, ``recap.md``: the
  players' recap, the one to share, with no worldkeeper-only words (the WorldKeeper's own
  notes, the P20 prompts);
- ``recap-worldkeeper.html`` (``recap-worldkeeper.md``): the WorldKeeper's recap, everything.

``--force`` replaces an earlier export's files; a recap of the other format left there by
it is removed (and said), so the folder never holds two nights' recaps.

The CSVs are safe to open in a spreadsheet: an odds is never one ``5/11`` cell (which a
spreadsheet reads as the 11th of May) but three numbers, and a text cell that would start a
formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return: OWASP's "CSV Injection") or
read as a date, time or number (``12-25``, ``18:30``) starts with ``'``, which makes it text.
Numbers stay numbers (a Weight token's value ``-1``); the ``time`` column is ISO 8601 UTC.
The journal is opened read-only (:mod:`companion.record.journal`): exporting a
running service's session never blocks it and never changes the file.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from companion.record import recap
from companion.record.journal import Journal, JournalError
from companion.record.night import Night, gather, percent
from settings.atomic import atomic_file
from settings.plain import shown

DRAW_COLUMNS = [
    "seq",
    "time",
    "source",
    "performance",
    "hero",
    "shade",
    "capability",
    "action",
    "training",
    "kind",
    "token",
    "token_name",
    "value",
    "total",
    "group",
    *(f"best_play_before_{part}" for part in ("numerator", "denominator", "percent")),
    *(f"as_drawn_before_{part}" for part in ("numerator", "denominator", "percent")),
    "undone",
]

PERFORMANCE_COLUMNS = [
    "performance",
    "seq_start",
    "seq_end",
    "heroes",
    "difficulty",
    "weight",
    "total",
    "outcome",
    *(f"best_play_before_first_draw_{p}" for p in ("numerator", "denominator", "percent")),
    *(f"as_drawn_before_first_draw_{p}" for p in ("numerator", "denominator", "percent")),
    "fatigue_change",
    "strain_change",
    "wounds_change",
    "undone",
]


#: how a cell a spreadsheet would run as a formula begins (OWASP "CSV Injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: text a spreadsheet would turn into a date, a time or a number (5/11, 12-25, 18:30, 1.5)
_CONVERTIBLE = re.compile(r"[\s\d.,:/%+-]*\d[\s\d.,:/%+-]*|[\d.]+[eE][+-]?\d+")


def text_cell(value: object) -> str:
    """A text field as a cell every spreadsheet keeps as that text: ``'`` before one that
    would start a formula or become a date, time or number.

    >>> [text_cell(v) for v in ("aria", "=1+1", "@SUM(A1)", "-x", "5/11", "12-25", "18:30")]
    ['aria', "'=1+1", "'@SUM(A1)", "'-x", "'5/11", "'12-25", "'18:30"]
    """
    text = shown(str(value), keep="\t\r")  # no terminal escape or bidi override in a cell
    if text.startswith(FORMULA_STARTS) or _CONVERTIBLE.fullmatch(text):
        return "'" + text
    return text


def odds_cells(p: Fraction | None) -> list[object]:
    """An exact probability as three numbers: numerator, denominator, percent (blank: none).

    >>> odds_cells(Fraction(5, 11))
    [5, 11, '45.45']
    """
    return ["", "", ""] if p is None else [p.numerator, p.denominator, percent(p)]


def _iso(at: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _write(path: Path, fill: Callable[[Any], None]) -> None:
    """Write whole or not at all (:mod:`settings.atomic`): a failed export never leaves half a file."""
    try:
        with atomic_file(path, newline="") as f:
            fill(f)
    except OSError as e:
        raise JournalError(f"{path}: cannot write it ({e.strerror}) — check --to") from None


def write_events(night: Night, journal: Journal, path: Path) -> None:
    def fill(f: Any) -> None:
        for entry in journal.entries():
            row = {"seq": entry.seq, "time": _iso(entry.at), **entry.to_json()}
            f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")

    _write(path, fill)


def write_draws(night: Night, path: Path) -> None:
    def fill(f: Any) -> None:
        w = csv.writer(f)
        w.writerow(DRAW_COLUMNS)
        for r in night.draws:
            w.writerow(
                [
                    r.seq,
                    _iso(r.at),
                    text_cell(r.source),
                    r.performance,
                    *map(text_cell, (r.hero, r.shade, r.capability, r.action, r.training)),
                    *map(text_cell, (r.kind, r.token, r.name)),
                    r.value,
                    r.total,
                    text_cell("+".join(r.group)),
                    *odds_cells(r.best_play_before),
                    *odds_cells(r.as_drawn_before),
                    str(r.undone).lower(),
                ]
            )

    _write(path, fill)


def write_performances(night: Night, path: Path) -> None:
    def fill(f: Any) -> None:
        w = csv.writer(f)
        w.writerow(PERFORMANCE_COLUMNS)
        for g in night.groups:
            w.writerow(
                [
                    g.performance,
                    g.seq_start,
                    g.seq_end,
                    text_cell("+".join(g.heroes)),
                    g.difficulty,
                    text_cell(g.weight),
                    "" if g.total is None else g.total,
                    text_cell(g.outcome),
                    *odds_cells(g.best_play_first),
                    *odds_cells(g.as_drawn_first),
                    g.fatigue,
                    g.strain,
                    g.wounds,
                    str(g.undone).lower(),
                ]
            )

    _write(path, fill)


def _write_text(path: Path, text: str) -> None:
    _write(path, lambda f: f.write(text))


def what_is_there(path: Path, *, folder: bool) -> str | None:
    """What an export (``folder``) or a sheet would replace at ``path``, said for people;
    None when nothing would be (missing, or an empty folder for an export).

    ``--to`` of ``export`` and ``sheet`` refuse it without ``--force``."""
    import time

    if not path.exists() and not path.is_symlink():
        return None
    if path.is_dir():
        if not folder:
            return f"{path} is a folder"
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        if not names:
            return None
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        ours = [n for n in names if n in EXPORTED]
        last = ""
        if ours:
            newest = max((path / n).stat().st_mtime for n in ours)
            last = f"; an export from {time.strftime('%Y-%m-%d %H:%M', time.localtime(newest))}"
        return f"{path} is not empty: {shown}{last}"
    if folder:
        return f"{path} is a file, not a folder"
    stat = path.stat()
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(stat.st_mtime))
    return f"{path} exists ({stat.st_size:,} bytes, changed {when})"


#: the files an export writes (one of the two recaps)
#: each format's recaps: the players' (to share) and the WorldKeeper's
RECAPS = {
    "html": ("recap.html", "recap-worldkeeper.html"),
    "md": ("recap.md", "recap-worldkeeper.md"),
}
EXPORTED = ("events.jsonl", "draws.csv", "performances.csv", *RECAPS["html"], *RECAPS["md"])


def export(
    journal: Journal,
    to: str | Path,
    *,
    table: str | None = None,
    fmt: str = "html",
    frames: str | Path | None = None,
    removed: list[Path] | None = None,
    audiences: tuple[str, ...] = recap.AUDIENCES,
) -> list[Path]:
    """Write the session's files into ``to``; return their paths. A recap of the other format
    there (an earlier export's) is removed and appended to ``removed``. ``audiences``: the
    recaps to write (the served session recap writes the players' only)."""
    out = Path(to)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise JournalError(f"--to {out}: cannot create it ({e.strerror})") from None
    if out.resolve() == journal.path.resolve().parent:
        raise JournalError(f"--to {out}: that is the journal's own folder — export somewhere else")
    night = gather(journal, table)
    paths = [out / "events.jsonl", out / "draws.csv", out / "performances.csv"]
    write_events(night, journal, paths[0])
    write_draws(night, paths[1])
    write_performances(night, paths[2])
    fmt = "md" if fmt == "md" else "html"
    for name, audience in zip(RECAPS[fmt], recap.AUDIENCES, strict=True):
        if audience not in audiences:
            continue
        if fmt == "md":
            text = recap.markdown(night, audience=audience)
        else:
            text = recap.html(night, frames=frames, audience=audience)
        path = out / name
        _write_text(path, text)
        paths.append(path)
    for other, names in RECAPS.items():
        if other == fmt:
            continue
        for name in names:
            old = out / name
            if old.is_file():
                old.unlink()
                if removed is not None:
                    removed.append(old)
    return paths
