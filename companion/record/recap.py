"""The night's story in words and pictures: ``recap.html`` (one offline file) or ``recap.md``.

The HTML recap is a single self-contained file: its styles are inline and its
charts are matplotlib figures rendered to SVG and embedded as ``data:`` images,
so it opens with no network and can be mailed or put on a drive as it is. It
carries no script at all.

Two recaps, by audience (I-T13, engine.contracts.events.AUDIENCE): the players'
(``audience="players"``, the default, ``recap.html``: the one to share) holds no
worldkeeper-only words — not the WorldKeeper's own notes, not the P20 prompts
("… resolves any Impact that applies (P20)"); the WorldKeeper's (``audience="worldkeeper"``,
``recap-worldkeeper.html``) holds everything. Charts:

- ``odds``: each Performance's best-play odds before and after each draw (P19);
- ``luck`` and ``calibration``: each hero's expected successes (from the exact
  odds before each first draw) against the actual ones, and how often checks
  given p succeeded across the session;
- ``health``: Fatigue, Strain and Wounds over the night (P13–P15);
- ``time``: the Time Board's day, band by band (T3), with each Time draw;
- ``fights``: the actions of each fight's rounds on the six-tick wheel (C2, C4).

``--frames DIR`` embeds the panel's PNG frames too. matplotlib is the optional
``recap`` extra (``pip install 'rhuna-table[recap]'``); the Markdown recap needs
nothing.
"""

from __future__ import annotations

import base64
import html as html_lib
import io
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, get_args

from companion.record.journal import JournalError
from companion.record.narrate import Line
from companion.record.night import GroupRow, Night, combatant, names
from engine.contracts.terms import BandName

#: the charts of the HTML recap, in order: id → title
CHARTS = {
    "odds": "Each Performance's odds, before and after each draw",
    "luck": "Luck against the odds: expected and actual successes",
    "calibration": "Calibration: checks given p, and how often they succeeded",
    "health": "Fatigue, Strain and Wounds over the night",
    "time": "The Time Board's day",
    "fights": "The fights, round by round",
}

#: frames embedded at most (the newest ones)
MAX_FRAMES = 24


def _pct(p: Fraction | None) -> str:
    return "—" if p is None else f"{float(p) * 100:.0f}%"


def _day(at: float | None) -> str:
    return "" if at is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def _date(at: float | None) -> str:
    return "" if at is None else time.strftime("%-d %B %Y", time.gmtime(at))


def heading(night: Night) -> str:
    """ "Session 3 · 1 December 2026" (the Time Board's session number, the night's date)."""
    parts = [f"Session {night.session_number}" if night.session_number else "A session"]
    if night.first_at is not None:
        parts.append(_date(night.first_at))
    return " · ".join(parts)


#: how each outcome reads (a Gain is a Gain, P7: no check, nothing to succeed at)
OUTCOME = {
    "success": "SUCCESS",
    "failure": "FAILURE",
    "gain": "a Gain",
    "cancelled": "cancelled",
    "unresolved": "not resolved",
}


#: a success below these odds, or a miss above them, is remarkable (a highlight)
REMARKABLE = Fraction(1, 2)


def highlights(night: Night) -> list[tuple[str, str]]:
    """(what, the sentence): only what is remarkable — the most improbable success when its
    odds were under 50 % (else the night's only success, said as the only one), and the
    cruellest miss when its odds were over 50 % — with the exact best-play odds before the
    first draw (the engine's, P10), in percent."""
    played = [
        g for g in night.groups if not g.undone and g.success is not None and g.best_play_first
    ]
    out: list[tuple[str, str]] = []
    wins = [g for g in played if g.success]
    misses = [g for g in played if not g.success]
    if wins:
        g = min(wins, key=lambda x: (x.best_play_first, x.performance))
        what = None
        if g.best_play_first is not None and g.best_play_first < REMARKABLE:
            what = "The most improbable success"
        elif len(wins) == 1:
            what = "The only success"
        if what:
            out.append(
                (
                    what,
                    f"{names(night, g.heroes)} in Performance {g.performance}: {g.total} vs"
                    f" {g.difficulty} with {_odds_words(g.best_play_first)} before the first"
                    " draw",
                )
            )
    if misses:
        g = max(misses, key=lambda x: (x.best_play_first, -x.performance))
        if g.best_play_first is not None and g.best_play_first > REMARKABLE:
            out.append(
                (
                    "The cruellest miss",
                    f"{names(night, g.heroes)} in Performance {g.performance}: {g.total} vs"
                    f" {g.difficulty}, though the odds were {_odds_words(g.best_play_first)}",
                )
            )
    return out


def _odds_words(p: Fraction | None) -> str:
    """ "a 91.6% chance": a percent, never the exact fraction (the CSVs keep that)."""
    if p is None:
        return "unknown odds"
    return f"a {float(p) * 100:.1f}% chance"


# --- words ------------------------------------------------------------------------------


def _odds_path(night: Night, g: GroupRow) -> str:
    curve = night.curves.get((g.performance, g.heroes), [])
    return " → ".join(_pct(best) for _, best, _ in curve)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


#: how a Rest ended (rest_ended's reason: T7, T8, I-T10)
REST_END = {
    "ended": "ended after {n}",
    "full_rest": "ended at the Full Rest, after {n}",
    "interrupted": "an Event interrupted it after {n}",
}

#: what made the weather (weather_drawn's or weather_changed's cause: T1, T2, T4)
WEATHER_CAUSE = {
    "session start": "drawn as the session began",
    "weather result": "a Weather result on the Time Board",
    "worldkeeper": "set at the table",
    "held": "carried on from the last session",
}


def rest_lines(night: Night) -> list[str]:
    """One sentence a Rest: whose it was (resting, keeping watch, T9), each resting hero's
    Full Rest (T8) and how it ended (T7, I-T10)."""
    out = []
    for r in night.rests:
        who = _and([night.names.get(h, h) for h in r.resting]) if r.resting else "nobody"
        watch = f", {_and([night.names.get(h, h) for h in r.watch])} kept watch" if r.watch else ""
        draws = f"{r.minor_draws} Minor draw{'' if r.minor_draws == 1 else 's'}"
        full = ""
        if r.full_rest:
            got = {"fatigue": "all Fatigue back", "strain": "1 Strain back"}
            full = "; Full Rest: " + ", ".join(
                f"{night.names.get(h, h)} {got.get(c, c)}" for h, c in r.full_rest.items()
            )
        end = (
            f"still resting at the night's end, after {draws}"
            if r.ended is None
            else REST_END.get(r.ended, r.ended + " after {n}").format(n=draws)
        )
        out.append(
            f"{r.kind.title()} Rest: {who} rested{watch}{full}; {end}"
            + (" [undone]" if r.seq in night.undone else "")
        )
    return out


def weather_line(night: Night) -> str | None:
    """What the weather became, each change with what made it (T1, T2, T4)."""
    kept = [w for w in night.weather if w.seq not in night.undone]
    if not kept:
        return None
    steps = " → ".join(f"{w.name} ({WEATHER_CAUSE.get(w.cause, w.cause)})" for w in kept)
    last = kept[-1].name
    return f"The weather: {steps}" + (
        f"; the night ended under {last}" if len(kept) > 1 else "; so it stayed all night"
    )


def story(night: Night) -> list[str]:
    """The night in sentences: one per Performance, fight, Rest and band of the Time Board,
    and the weather."""
    out: list[str] = []
    by_perf: dict[int, list[GroupRow]] = {}
    for g in night.groups:
        by_perf.setdefault(g.performance, []).append(g)
    for number, rows in sorted(by_perf.items()):
        parts = []
        for g in rows:
            if not g.heroes:
                continue
            odds = _odds_path(night, g)
            total = "" if g.total is None else f" {g.total} vs {g.difficulty}:"
            cost = ", ".join(
                f"{v:+d} {k}"
                for k, v in (("Fatigue", g.fatigue), ("Strain", g.strain), ("Wounds", g.wounds))
                if v
            )
            who = names(night, g.heroes)
            parts.append(
                f"{who}{total} {OUTCOME[g.outcome]}"
                + (f" (odds {odds})" if odds else "")
                # whose cost it is, by name: "…; Aria a Gain, Aria takes +2 Fatigue"
                + (f", {who} takes {cost}" if cost else "")
                + (" [undone]" if g.undone else "")
            )
        if rows[0].cancelled:
            parts = parts or ["cancelled"]
        out.append(
            f"Performance {number} (Difficulty {rows[0].difficulty}): "
            + "; ".join(parts or ["no check"])
        )
    for f in night.fights:
        injured = (
            ", ".join(f"{combatant(night, k)} {v}" for k, v in f.injuries.items()) or "no injuries"
        )
        dead = f"; fallen: {', '.join(combatant(night, c) for c in f.dead)}" if f.dead else ""
        rounds = f"{f.rounds} round{'' if f.rounds == 1 else 's'}"
        out.append(
            f"Fight {f.number}: {', '.join(combatant(night, c) for c in f.combatants)};"
            f" {rounds}, {len(f.actions)} actions; injuries: {injured}{dead}"
        )
    draws = [t for t in night.time if t.face]
    moved = night.time and (night.time[0].day, night.time[0].band) != (
        night.time[-1].day,
        night.time[-1].band,
    )
    if draws or moved:  # a board that never moved tonight tells nothing
        first, last = night.time[0], night.time[-1]
        out.append(
            f"The Time Board went from day {first.day} {first.band.title()} to day {last.day}"
            f" {last.band.title()} in {len(draws)} Time draws"
            + (
                ": " + ", ".join((t.face or "").replace("_", " ") for t in draws[:30])
                if draws
                else ""
            )
            + (" …" if len(draws) > 30 else "")
        )
    out += rest_lines(night)
    weather = weather_line(night)
    if weather is not None:
        out.append(weather)
    return out


LUCK_HEAD = [
    "hero",
    "checks",
    "expected successes (best play)",
    "expected (as drawn)",
    "successes",
    "luck",
    "luck percentile (50% = as the odds said)",
]


def luck_rows(night: Night) -> list[tuple[str, int, str, str, int, str, str]]:
    """(hero, checks, expected best play, expected as drawn, actual, luck, percentile) per hero
    with a check; the percentile is the engine's exact one (engine.luck)."""
    out = []
    for luck in night.luck.values():
        if not luck.checks:
            continue
        diff = luck.actual - luck.expected
        out.append(
            (
                luck.name,
                luck.checks,
                f"{float(luck.expected):.2f}",
                f"{float(luck.expected_as_drawn):.2f}",
                luck.actual,
                f"{float(diff):+.2f}",
                percentile_words(luck.percentile),
            )
        )
    return out


def percentile_words(p: Fraction | None) -> str:
    """The engine's mid-percentile (engine.luck: the share of the nights these odds allow with
    fewer successes, plus half of those with as many) in percent: "87.5%"."""
    if p is None:
        return "—"
    return f"{float(p) * 100:.1f}%"


#: what the luck percentile means, in the recap's words (the maths of engine.luck)
PERCENTILE_WORDS = (
    "Expected: the sum of the exact best-play odds before each check's first draw. The"
    " percentile places the night's successes among every night those very odds allow (exact,"
    " the Poisson-binomial distribution): the share of those nights with fewer successes, plus"
    " half of those with just as many. 50% is just as the odds said; above it the dice were"
    " kinder than the odds, below it crueller."
)


# --- charts ---------------------------------------------------------------------------


def _figure(width: float = 7.5, height: float = 3.2) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise JournalError(
            "recap.html draws its charts with matplotlib, which is not installed — pip install"
            " 'rhuna-table[recap]', or write a Markdown recap with --format md"
        ) from None
    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Any) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rhuna"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    data = base64.b64encode(buf.getvalue().encode("utf-8")).decode("ascii")
    return f"data:image/svg+xml;base64,{data}"


def chart_odds(night: Night) -> Any:
    from matplotlib.collections import LineCollection

    fig = _figure()
    ax = fig.add_subplot()
    outcome = {(g.performance, g.heroes): g for g in night.groups}
    lines, colours = [], []
    longest = 1
    for key, curve in night.curves.items():
        if not curve:
            continue
        g = outcome.get(key)
        ok = None if g is None else g.success
        colours.append("#2a7" if ok else "#c33" if ok is False else "#888")
        lines.append([(i, float(best) * 100) for i, (_, best, _) in enumerate(curve)])
        longest = max(longest, len(curve) - 1)
    # one artist for every Performance: a night of a thousand checks still draws at once
    ax.add_collection(LineCollection(lines, colors=colours, linewidths=1.5, alpha=0.7))
    # each Performance's line labelled at its end (at most a dozen labels: a long night's
    # lines stay unlabelled rather than unreadable)
    keys = [k for k, c in night.curves.items() if c]
    if len(keys) <= 12:
        for key, line, colour in zip(keys, lines, colours, strict=True):
            x, y = line[-1]
            ax.annotate(
                f"P{key[0]} {names(night, key[1])}",
                (x, y),
                xytext=(4, 0),
                textcoords="offset points",
                fontsize=7,
                color=colour,
                va="center",
            )
    ax.set_xlim(-0.2, longest + 1.6)
    ax.set_xlabel("tokens drawn (0: before the first draw)")
    ax.set_ylabel("chance of success with best play, %")
    ax.set_ylim(-3, 103)
    ax.set_title("green: succeeded, red: failed", fontsize=9)
    return fig


def chart_luck(night: Night) -> Any:
    fig = _figure(7.5, 2.8)
    ax = fig.add_subplot()
    rows = list(night.luck.values())
    xs = range(len(rows))
    rows = [r for r in rows if r.checks]
    xs = range(len(rows))
    ax.bar(
        [x - 0.2 for x in xs],
        [float(r.expected) for r in rows],
        0.4,
        label="successes the odds promised (best play)",
    )
    ax.bar([x + 0.2 for x in xs], [r.actual for r in rows], 0.4, label="successes at the table")
    ax.set_xticks(list(xs), [r.name for r in rows])
    ax.set_ylabel("successes")
    ax.legend(fontsize=8)
    return fig


def calibration_bins(night: Night, bins: int = 5) -> list[tuple[float, float, int]]:
    """(mean predicted p, observed success rate, checks) per equal-width bin of p."""
    groups: list[list[tuple[Fraction, bool]]] = [[] for _ in range(bins)]
    for luck in night.luck.values():
        for p, ok in luck.points:
            groups[min(bins - 1, int(p * bins))].append((p, ok))
    out = []
    for items in groups:
        if items:
            mean = float(sum(p for p, _ in items) / len(items))
            out.append((mean, sum(ok for _, ok in items) / len(items), len(items)))
    return out


def chart_calibration(night: Night) -> Any:
    fig = _figure(4.5, 4.0)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], linestyle="--", color="#999", linewidth=1, label="perfectly fair")
    points = calibration_bins(night)
    if points:
        ax.scatter(
            [p for p, _, _ in points],
            [o for _, o, _ in points],
            s=[30 + 15 * n for _, _, n in points],
            label="the night's checks (size: how many)",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("chance of success before the first draw (best play)")
    ax.set_ylabel("share that succeeded")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def chart_health(night: Night) -> Any:
    fig = _figure(7.5, 4.6)
    axes = fig.subplots(3, 1, sharex=True)
    last = max(night.commands, 1)
    for ax, track in zip(axes, ("fatigue", "strain", "wounds"), strict=True):
        for hero, series in night.health.items():
            xs = [h.seq for h in series] + [last]
            ys = [getattr(h, track) for h in series]
            ys.append(ys[-1])
            ax.step(xs, ys, where="post", label=night.names.get(hero, hero))
        ax.set_ylabel(track.title())
    axes[0].legend(fontsize=7, ncol=4)
    _night_axis(axes[-1], night)
    return fig


def _night_axis(ax: Any, night: Night) -> None:
    """The x axis in the table's words: where each Performance (P1 …) and fight (F1 …) began,
    instead of journal row numbers."""
    marks: dict[int, str] = {}
    for g in night.groups:
        marks.setdefault(g.seq_start, f"P{g.performance}")
    for f in night.fights:
        marks[f.seq_start] = f"F{f.number}"
    ticks = sorted(marks.items())
    if len(ticks) > 16:  # a long night: every k-th, at most 16
        step = len(ticks) // 16 + 1
        ticks = ticks[::step]
    ax.set_xticks([x for x, _ in ticks], [t for _, t in ticks], fontsize=7)
    ax.set_xlabel("the night: P1, P2 … each Performance begins; F1 … each fight")


#: each band's place in its day: the contract's bands (T3), in the order they run
_BANDS: dict[BandName, int] = {band: i for i, band in enumerate(get_args(BandName))}
_PER_DAY = len(_BANDS)


def chart_time(night: Night) -> Any:
    fig = _figure(7.5, 3.0)
    ax = fig.add_subplot()
    xs = [t.seq for t in night.time]
    ys = [(t.day - 1) * _PER_DAY + _BANDS[t.band] + t.minor_done / 4 for t in night.time]
    if xs:
        ax.step([*xs, max(night.commands, xs[-1])], [*ys, ys[-1]], where="post", color="#446")
    drawn = [(t.seq, y, t.face or "") for t, y in zip(night.time, ys, strict=True) if t.face]
    faces = sorted({f for _, _, f in drawn})
    for face in faces:
        pts = [(x, y) for x, y, f in drawn if f == face]
        ax.scatter([x for x, _ in pts], [y for _, y in pts], s=18, label=face.replace("_", " "))
    lo = min(ys, default=0)
    hi = max(ys, default=0)
    ticks = list(range(int(lo), int(hi) + 2))
    if len(ticks) > 12:  # a long campaign: one tick a day, at most a dozen
        step = max(1, (len(ticks) // _PER_DAY) // 12 + 1) * _PER_DAY
        ticks = [t for t in ticks if t % step == 0]
    ax.set_yticks(
        ticks,
        [f"day {t // _PER_DAY + 1} {list(_BANDS)[t % _PER_DAY]}" for t in ticks],
        fontsize=7,
    )
    _night_axis(ax, night)
    if faces:
        ax.legend(fontsize=6, ncol=3)
    return fig


def chart_fights(night: Night) -> Any:
    fig = _figure(7.5, 2.8)
    ax = fig.add_subplot()
    labels: list[str] = []
    bottoms: list[int] = []
    per: dict[str, list[int]] = {}
    for f in night.fights:
        for r in range(1, f.rounds + 1):
            labels.append(f"fight {f.number}, round {r}")
            for who in {c for _, c, _ in f.actions} | set(per):
                per.setdefault(who, [0] * (len(labels) - 1))
            for who in per:
                per[who].append(sum(1 for rr, c, _ in f.actions if rr == r and c == who))
    bottoms = [0] * len(labels)
    for who, counts in per.items():
        counts += [0] * (len(labels) - len(counts))
        ax.bar(range(len(labels)), counts, bottom=bottoms, label=combatant(night, who))
        bottoms = [b + c for b, c in zip(bottoms, counts, strict=True)]
    ax.set_xticks(range(len(labels)), labels, fontsize=7, rotation=45)
    ax.set_ylabel("actions")
    if not labels:
        ax.text(0.5, 0.5, "no fight tonight", ha="center", va="center", transform=ax.transAxes)
    elif per:
        ax.legend(fontsize=7)
    return fig


#: whether a chart has anything to show tonight (an empty chart is left out)
CHART_SHOWS: dict[str, Callable[[Night], bool]] = {
    "odds": lambda n: any(n.curves.values()),
    "luck": lambda n: any(r.checks for r in n.luck.values()),
    "calibration": lambda n: bool(calibration_bins(n)),
    "health": lambda n: any(len(series) > 1 for series in n.health.values()),
    "time": lambda n: any(t.face for t in n.time),
    "fights": lambda n: any(f.actions for f in n.fights),
}


def charts(night: Night) -> list[str]:
    """The chart ids with something to show tonight, in order (a fight-only night: the fight)."""
    return [c for c in CHARTS if CHART_SHOWS[c](night)]


CHART_MAKERS: dict[str, Callable[[Night], Any]] = {
    "odds": chart_odds,
    "luck": chart_luck,
    "calibration": chart_calibration,
    "health": chart_health,
    "time": chart_time,
    "fights": chart_fights,
}


# --- the files ----------------------------------------------------------------------------


_CSS = """
body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem} .sub{color:#666;margin-top:0}
figure{margin:1.5rem 0} figure img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-weight:600;margin-bottom:.4rem}
table{border-collapse:collapse;font-size:.9rem} td,th{border:1px solid #ccc;padding:.2rem .5rem}
th{background:#f3f3f3} pre{font-size:.8rem;white-space:pre-wrap}
.wide{overflow-x:auto;max-width:100%}
.frames img{width:250px;margin:.2rem;border:1px solid #ccc;image-rendering:pixelated}
"""


def _table(head: list[str], rows: list[tuple[Any, ...]]) -> str:
    e = html_lib.escape
    out = ["<table><tr>", *(f"<th>{e(h)}</th>" for h in head), "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _frames(folder: str | Path | None) -> list[str]:
    if folder is None:
        return []
    path = Path(folder)
    if not path.is_dir():
        raise JournalError(f"--frames {path}: no such folder (the png panel's out_dir)")
    files = (
        sorted(path.glob("frame-*.png"))[-MAX_FRAMES:] or sorted(path.glob("*.png"))[-MAX_FRAMES:]
    )
    return [
        "data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii") for p in files
    ]


def title(night: Night) -> str:
    """The recap's heading: "The night at the example table" (a name's own leading "The" in
    the middle of the sentence, so never "The night at The example table")."""
    name = night.table_name or night.table_id
    if name.startswith("The "):
        name = "the " + name[4:]
    return f"The night at {name}"


#: who a recap is for: the players' (to share) or the WorldKeeper's own (everything)
AUDIENCES = ("players", "worldkeeper")


def _notes(night: Night, audience: str = "players") -> tuple[list[str], list[str]]:
    """The notes for everyone (table, public) and the WorldKeeper's own (I-T13): none of the
    latter in the players' recap."""
    shared = [n.text for n in night.notes if n.audience != "worldkeeper"]
    own = [n.text for n in night.notes if n.audience == "worldkeeper"]
    return shared, own if audience == "worldkeeper" else []


def journal_lines(night: Night, audience: str = "players") -> list[Line]:
    """The journal as the recap tells it: for the players, without any worldkeeper-only words —
    each such event left out (a P20 prompt, a WorldKeeper's note) and a row that was nothing
    else (the ``note`` itself, whose command holds the words) left out whole."""
    if audience == "worldkeeper":
        return list(night.lines)
    out = []
    for line in night.lines:
        if not line.audiences or len(line.audiences) != len(line.events):
            out.append(line)
            continue
        kept = tuple(
            (e, a) for e, a in zip(line.events, line.audiences, strict=True) if a != "worldkeeper"
        )
        if not kept and line.events:
            continue  # every word of it was the WorldKeeper's
        out.append(
            replace(line, events=tuple(e for e, _ in kept), audiences=tuple(a for _, a in kept))
        )
    return out


def _check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise JournalError(
            f"recap audience {audience!r}: not one of {', '.join(AUDIENCES)} — players (the"
            " recap to share) or worldkeeper (everything, for the WorldKeeper)"
        )


def html(night: Night, *, frames: str | Path | None = None, audience: str = "players") -> str:
    """The recap as one self-contained HTML page, for ``audience`` (:data:`AUDIENCES`)."""
    _check_audience(audience)
    e = html_lib.escape
    performances = len({g.performance for g in night.groups})
    body = [
        f"<h1>{e(title(night))}</h1>",
        f"<p class=sub id=heading>{e(heading(night))}</p>",
        f"<p class=sub>{e(_day(night.first_at))} to {e(_day(night.last_at))} ·"
        f" {night.commands} commands, {len(night.draws)} tokens laid, {performances}"
        f" Performance{'' if performances == 1 else 's'}, {len(night.fights)}"
        f" fight{'' if len(night.fights) == 1 else 's'}</p>",
    ]
    shared, own = _notes(night, audience)
    if audience == "worldkeeper":
        body.append(
            "<p class=sub id=audience><b>The WorldKeeper's recap</b>: it holds the"
            " WorldKeeper's own notes and prompts. Share recap.html, the players' one.</p>"
        )
    best = highlights(night)
    if best:
        body.append("<h2>Highlights</h2><ul id=highlights>")
        body += [f"<li><b>{e(what)}</b>: {e(said)}</li>" for what, said in best]
        body.append("</ul>")
    body += ["<h2>The story</h2><ul>", *(f"<li>{e(x)}</li>" for x in story(night)), "</ul>"]
    if shared or own:
        body.append("<h2>Notes</h2><ul id=notes>")
        body += [f"<li>{e(x)}</li>" for x in shared]
        body += [f"<li class=own>{e(x)} <i>(the WorldKeeper's own note)</i></li>" for x in own]
        body.append("</ul>")
    rows = luck_rows(night)
    if rows:
        body += [
            "<h2>Luck against the odds</h2>",
            f"<div class=wide>{_table(LUCK_HEAD, rows)}</div>",
            f"<p>{e(PERCENTILE_WORDS)}</p>",
        ]
    for chart_id in charts(night):
        chart_title = CHARTS[chart_id]
        fig = CHART_MAKERS[chart_id](night)
        body.append(
            f'<figure id="chart-{chart_id}"><figcaption>{e(chart_title)}</figcaption>'
            f'<img alt="{e(chart_title)}" src="{_svg(fig)}"></figure>'
        )
    shots = _frames(frames)
    if shots:
        body.append("<h2>The panel</h2><div class=frames>")
        body += [f'<img alt="panel frame {i + 1}" src="{s}">' for i, s in enumerate(shots)]
        body.append("</div>")
    body.append("<h2>The journal</h2><details><summary>every command, narrated</summary><pre>")
    body += [e(line.text()) + "\n" for line in journal_lines(night, audience)]
    body.append("</pre></details>")
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{e(title(night))}</title><style>{_CSS}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )


def _md_table(head: list[str], rows: list[tuple[Any, ...]]) -> str:
    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(night: Night, *, audience: str = "players") -> str:
    """The recap as Markdown, to paste into a campaign log, for ``audience``."""
    _check_audience(audience)
    shared, own = _notes(night, audience)
    out = [
        f"# {title(night)}",
        "",
        f"{heading(night)}: {_day(night.first_at)} to {_day(night.last_at)},"
        f" {night.commands} commands, {len(night.draws)} tokens laid.",
        "",
        *(
            [
                "**The WorldKeeper's recap**: it holds the WorldKeeper's own notes. Share"
                " recap.md, the players' one.",
                "",
            ]
            if audience == "worldkeeper"
            else []
        ),
        *(
            ["## Highlights", "", *(f"- **{w}**: {x}" for w, x in highlights(night)), ""]
            if highlights(night)
            else []
        ),
        "## The story",
        "",
        *(f"- {s}" for s in story(night)),
        "",
        *(
            [
                "## Notes",
                "",
                *(f"- {x}" for x in shared),
                *(f"- {x} *(the WorldKeeper's own note)*" for x in own),
                "",
            ]
            if shared or own
            else []
        ),
        # no check, no Performance: no empty table to puzzle over (as the HTML recap)
        *(
            [
                "## Luck against the odds",
                "",
                _md_table(LUCK_HEAD, luck_rows(night)),
                "",
                PERCENTILE_WORDS,
                "",
            ]
            if luck_rows(night)
            else []
        ),
    ]
    rows = [g for g in night.groups if g.heroes]
    if not rows:
        return "\n".join(out)
    out += [
        "## Performances",
        "",
        _md_table(
            [
                "#",
                "heroes",
                "Difficulty",
                "total",
                "outcome",
                "odds before",
                "Fatigue",
                "Strain",
                "Wounds",
            ],
            [
                (
                    g.performance,
                    names(night, g.heroes),
                    g.difficulty,
                    "" if g.total is None else g.total,
                    OUTCOME[g.outcome] + (" (undone)" if g.undone else ""),
                    _pct(g.best_play_first),
                    f"{g.fatigue:+d}",
                    f"{g.strain:+d}",
                    f"{g.wounds:+d}",
                )
                for g in rows
            ],
        ),
        "",
    ]
    return "\n".join(out)
