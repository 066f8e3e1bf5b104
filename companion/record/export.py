"""``rhuna-table export``: a session's journal as files to keep and share.

Writes into ``--to DIR``:

- ``events.jsonl``: one line per journal row: seq, time, source, the command and
  its events, exactly as journaled;
- ``draws.csv``: one row per token laid on the Draw Board (draw, Redraw, Favor),
  with the engine's exact best-play and as-drawn odds of the hero's group just
  before it (as a fraction and in percent);
- ``performances.csv``: one row per resolving group of each Performance (a hero
  alone, or Intersecting heroes, I-P10): Difficulty, total, outcome, the odds
  before its first draw, and the Fatigue, Strain and Wounds it cost;
- ``recap.html`` (one self-contained file) or, with ``--format md``, ``recap.md``.

The journal is opened read-only (:mod:`companion.record.journal`): exporting a
running service's session never blocks it and never changes the file.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.record import recap
from companion.record.journal import Journal, JournalError
from companion.record.night import Night, fraction_text, gather, percent
from settings.atomic import atomic_file

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
    "best_play_before",
    "best_play_before_percent",
    "as_drawn_before",
    "as_drawn_before_percent",
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
    "best_play_before_first_draw",
    "best_play_before_first_draw_percent",
    "as_drawn_before_first_draw",
    "as_drawn_before_first_draw_percent",
    "fatigue_change",
    "strain_change",
    "wounds_change",
    "undone",
]


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
                    r.source,
                    r.performance,
                    r.hero,
                    r.shade,
                    r.capability,
                    r.action,
                    r.training,
                    r.kind,
                    r.token,
                    r.name,
                    r.value,
                    r.total,
                    "+".join(r.group),
                    fraction_text(r.best_play_before),
                    percent(r.best_play_before),
                    fraction_text(r.as_drawn_before),
                    percent(r.as_drawn_before),
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
                    "+".join(g.heroes),
                    g.difficulty,
                    g.weight,
                    "" if g.total is None else g.total,
                    g.outcome,
                    fraction_text(g.best_play_first),
                    percent(g.best_play_first),
                    fraction_text(g.as_drawn_first),
                    percent(g.as_drawn_first),
                    g.fatigue,
                    g.strain,
                    g.wounds,
                    str(g.undone).lower(),
                ]
            )

    _write(path, fill)


def export(
    journal: Journal,
    to: str | Path,
    *,
    table: str | None = None,
    fmt: str = "html",
    frames: str | Path | None = None,
) -> list[Path]:
    """Write the session's files into ``to``; return their paths."""
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
    if fmt == "md":
        path = out / "recap.md"
        text = recap.markdown(night)
    else:
        path = out / "recap.html"
        text = recap.html(night, frames=frames)
    _write(path, lambda f: f.write(text))
    paths.append(path)
    return paths
