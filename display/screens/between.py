"""Between Performances: the Time Board and each hero's health against capacity (T3–T12, P13–P15).

The Time Board row says where the day stands (band, Minor draws done, whether
a Minor or the Major is due, the weather, any Rest); below it one row per
hero: Fatigue and Strain as boxes filled up to capacity, Wounds as a number.
The ``time`` section is optional in the view: without it the screen shows the
heroes under the table's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast, get_args

from display.canvas import Canvas
from display.layout import Box
from display.panels import BLACK, WHITE
from display.screens.performance import track_line
from display.text import font, line_height, wrap
from display.viewmodel import View, section, title
from engine.contracts.terms import BandName
from engine.contracts.view import HeroView, TimeView

#: the Time Board's bands in the order they run: the contract's own list (T3), not a copy
BANDS: tuple[BandName, ...] = get_args(BandName)
SEP = " · "


def _lh(size: int, bold: bool = False) -> int:
    return line_height(font(size, bold))


def draw(c: Canvas, box: Box, view: View) -> None:
    m = c.m
    time = cast("TimeView | None", section(view, "time"))
    heroes = cast("list[HeroView]", list((view.get("heroes") or {}).values()))
    head, rest = box.top(_lh(m.big, True), m.gap)
    if time is None:
        table = str(view.get("table") or "")
        c.text(
            head,
            f"Between Performances{SEP}{table}" if table else "Between Performances",
            m.big,
            bold=True,
        )
    else:
        _time_head(c, head, time)
    # what blocks the next draw (a question to answer, a Time token to resolve) comes first and
    # is wrapped, never cut; then the optional lines, while every hero keeps a row (T3, T10)
    blocking = _blocking_lines(time) if time is not None else []
    extra = _time_lines(time, view, roomy=c.spec.roomy) if time is not None else []
    extra = _hurt_lines(view) + extra  # after a fight, until healed (C9, C10)
    track = track_line(view) if c.spec.roomy else ""
    if track:  # the Escalation track and the Awakened, where there is room (P18, P21)
        extra.append(track)
    row_h = max(_lh(m.body) + 2, int(m.small * 1.5))
    need_heroes = _lh(m.small) + 1 + len(heroes) * row_h
    compact_h = _lh(m.small) * 2 + 1 if heroes else 0
    for line in blocking:
        room = rest.h - compact_h
        n = len(wrap(line, rest.w - 1, font(m.body)))
        h = min(n * _lh(m.body), max(_lh(m.body), room))
        row, rest = rest.top(h, 1)
        c.lines(row, line, m.body, bold=True)
    shown_extra: list[str] = []
    for line in extra:
        if rest.h - (len(shown_extra) + 1) * (_lh(m.body) + 1) >= need_heroes:
            shown_extra.append(line)
    for line in shown_extra:
        row, rest = rest.top(_lh(m.body), 1)
        c.text(row, line, m.body)
    if c.spec.roomy and time is not None:
        board, rest = rest.top(max(m.token // 2, _lh(m.body) * 2), m.gap)
        if rest.h >= need_heroes:
            _board(c, board, time)
        else:
            rest = Box(rest.x0, board.y0, rest.x1, rest.y1)
    if c.spec.roomy and heroes:  # a big panel with few heroes: taller rows, bigger boxes
        room = (rest.h - _lh(m.small) - 1) // len(heroes)
        row_h = max(row_h, min(int(m.token * 0.6), room))
    if heroes and rest.h < len(heroes) * row_h:
        _compact_heroes(c, rest, heroes)
    else:
        _heroes(c, rest, heroes, time, row_h)


def _hurt_lines(view: View) -> list[str]:
    """``Hurt: Aria 1 injury (bleeding)``, one line a combatant — the roster's
    injuries and conditions stay after ``end_combat`` until they are healed (C2, C9, C10)."""
    if section(view, "combat") is not None:
        return []  # the fight is on: the combat screen shows them
    parts = []
    for p in view.get("roster") or []:
        if not isinstance(p, Mapping) or p.get("dead"):
            continue
        injuries = int(p.get("injuries") or 0)
        kinds = list(
            dict.fromkeys(
                str(i.get("type")) for i in p.get("injury_list") or [] if isinstance(i, Mapping)
            )
        )
        conditions = [
            f"{k.get('name')}" + (f" {k.get('level')}" if k.get("level") else "")
            for k in p.get("conditions") or []
            if isinstance(k, Mapping)
        ]
        if not injuries and not conditions:
            continue
        what = []
        if injuries:
            what.append(
                f"{injuries} injur{'y' if injuries == 1 else 'ies'}"
                + (f" ({', '.join(kinds)})" if kinds else "")
            )
        what += conditions
        parts.append(f"Hurt: {p.get('name') or p.get('id')} {', '.join(what)}")
    return parts


def _blocking_lines(time: TimeView) -> list[str]:
    """A Time token drawn and not yet resolved, and every question waiting for an answer."""
    out = []
    last = time.get("last")
    if isinstance(last, Mapping) and last.get("resolved") is False:
        out.append(f"▸ Resolve {_text_of(last)}")
    for p in time.get("prompts") or []:
        out.append(f"▸ {_text_of(p)}")
    return out


def _compact_heroes(c: Canvas, box: Box, heroes: Sequence[HeroView]) -> None:
    """No room for a row each: every hero on wrapped lines, ``Aria F0/5 S0/3 · Bren …``."""
    parts = []
    for h in heroes:
        text = (
            f"{h.get('name') or h.get('id')} F{h.get('fatigue', 0)}/{h.get('fatigue_capacity', 0)}"
            f" S{h.get('strain', 0)}/{h.get('strain_capacity', 0)}"
        )
        if int(h.get("wounds") or 0):
            text += f" W{h['wounds']}"
        parts.append(text)
    c.lines(box, SEP.join(parts), c.m.body)


def _time_head(c: Canvas, box: Box, time: TimeView) -> None:
    """``DAY 2 · MORNING`` on the left; the band's Minor draws and what is due on the right."""
    m = c.m
    due = str(time.get("due") or "minor")
    done = int(time.get("minor_done") or 0)
    due_text = "MAJOR due" if due == "major" else "Minor due"
    due_w = c.width_of(due_text, m.body, bold=True) + 2 * m.gap
    pip = max(6, _lh(m.body) // 2)
    pips_w = 4 * pip + 3 * max(2, pip // 3)
    right, left = box.right(min(due_w + pips_w + m.gap, box.w // 2), m.gap)
    band = str(time.get("band") or "").upper()
    c.text(left, f"DAY {time.get('day', '?')}{SEP}{band}", m.big, bold=True)
    pips, due_box = right.left(pips_w, m.gap)
    _band_pips(c, pips, done, due == "major", pip)
    if due == "major":
        fill, ink = c.emphasis()
        c.rect(due_box, fill=fill)
        c.text(due_box, due_text, m.body, bold=True, align="center", fill=ink)
    else:
        c.text(due_box, due_text, m.body, align="center")


def _band_pips(c: Canvas, box: Box, done: int, major_due: bool, pip: int) -> None:
    """Three Minor circles (filled when drawn) and the Major square (heavy when it is due) (T3)."""
    gap = max(2, pip // 3)
    y0 = box.y0 + (box.h - pip) // 2
    for i in range(3):
        x0 = box.x0 + i * (pip + gap)
        c.draw.ellipse(
            (x0, y0, x0 + pip - 1, y0 + pip - 1), outline=BLACK, fill=BLACK if i < done else WHITE
        )
    x0 = box.x0 + 3 * (pip + gap)
    fill, _ = c.emphasis() if major_due else (WHITE, BLACK)
    c.draw.rectangle((x0, y0, x0 + pip - 1, y0 + pip - 1), outline=BLACK, fill=fill, width=1)


def _time_lines(time: TimeView, view: View, *, roomy: bool) -> list[str]:
    """Weather, Rest, prompts, last draw, temporary tokens — as many as the panel has room for."""
    out: list[str] = []
    weather = time.get("weather")
    rest = time.get("rest")
    first = []
    if isinstance(weather, Mapping) and weather.get("name"):
        first.append(f"Weather: {weather['name']}")
    if isinstance(rest, Mapping):
        kind = title(str(rest.get("kind") or ""))
        label = f"{kind} Rest" if kind and kind.lower() != "rest" else "Rest"
        text = f"{label} {rest.get('minor_draws', 0)}"
        if rest.get("full_rest_at"):
            text += f"/{rest['full_rest_at']}"
        first.append(text)
    if first:
        out.append(SEP.join(first))
    last = time.get("last")
    if isinstance(last, Mapping) and _text_of(last) and last.get("resolved") is not False:
        out.append(f"Last: {_text_of(last)}")
    temporary = [_temporary(t, view) for t in time.get("temporary") or []]
    if any(temporary):
        out.append("Temporary: " + ", ".join(t for t in temporary if t))
    return out if roomy else out[:3]


def _temporary(item: Any, view: View) -> str:
    """``Purity (Bren)``: a temporary token by its face and whose bag it is in (T12)."""
    if not isinstance(item, Mapping):
        return str(item)
    face = title(str(item.get("face") or "")) or _text_of(item)
    hero = item.get("hero")
    if hero:
        name = ((view.get("heroes") or {}).get(hero) or {}).get("name") or title(str(hero))
        return f"{face} ({name})"
    return face


def _text_of(item: Any) -> str:
    """A prompt or a token, whatever shape it comes in: its text, name, face or token id."""
    if isinstance(item, Mapping):
        for key in ("text", "message", "name", "face", "token"):
            if item.get(key):
                return str(item[key])
        return ""
    return str(item)


def _board(c: Canvas, box: Box, time: TimeView) -> None:
    """The whole day: Morning, Day, Night, each three Minor draws and a Major (T3)."""
    m = c.m
    band = str(time.get("band") or "morning")
    current = BANDS.index(band) if band in BANDS else 0
    done = int(time.get("minor_done") or 0)
    for i, (cell, name) in enumerate(zip(box.cols(len(BANDS), m.gap), BANDS, strict=True)):
        now = i == current
        c.rect(cell, outline=BLACK, width=m.line * (2 if now else 1))
        label, pips = cell.inset(m.line * 2 + 1).top(_lh(m.small))
        c.text(label, name.upper(), m.small, bold=now, align="center")
        minor = 3 if i < current else (done if now else 0)
        pip = max(6, min(pips.h, pips.w // 6))
        width = 4 * pip + 3 * max(2, pip // 3)
        inner = Box(pips.x0 + (pips.w - width) // 2, pips.y0, pips.x1, pips.y1)
        _band_pips(c, inner, minor, now and time.get("due") == "major", pip)


def _heroes(
    c: Canvas,
    box: Box,
    heroes: Sequence[HeroView],
    time: TimeView | None,
    row_h: int,
) -> None:
    """One row per hero: name, Fatigue and Strain boxes against capacity, Wounds; rest status."""
    m = c.m
    if not heroes:
        return
    rest = time.get("rest") if time is not None else None
    resting = (rest.get("heroes") or {}) if isinstance(rest, Mapping) else {}
    roomy = c.spec.roomy
    cols = ["Fatigue", "Strain", "Wounds"] + (["Favor", "Redraws"] if roomy else [])
    head_h = _lh(m.small)
    with_head = box.h >= head_h + 1 + len(heroes) * row_h
    if with_head:
        head, box = box.top(head_h, 1)
    fits = max(1, box.h // row_h)
    rows_for = len(heroes) if fits >= len(heroes) else fits - 1
    col_gap = m.gap * 2
    rest_w = c.width_of("watch", m.small) + m.gap if resting else 0
    pip = max(5, min(row_h - 7, m.token // 3))
    readable = max(7, pip * 2 // 3)
    while True:  # smaller boxes, fewer columns, then small boxes: a name keeps a fifth of the row
        widths = _columns(c, cols, pip, heroes)
        fixed = sum(widths) + col_gap * (len(widths) + 1) + rest_w
        if box.w - fixed >= box.w // 5:
            break
        if pip > readable:
            pip -= 1
        elif len(cols) > 3:
            cols = cols[:-1]
        elif pip > 5:
            pip -= 1
        else:
            break
    name_w = max(box.w // 5, min(box.w - fixed, c.width_of("M" * 9, m.body, bold=True)))
    if with_head:
        x = box.x0 + name_w + col_gap
        for col, w in zip(cols, widths, strict=True):
            c.text(Box(x, head.y0, min(box.x1, x + w), head.y1), col, m.small)
            x += w + col_gap
    for i, hero in enumerate(heroes[:rows_for]):
        row = Box(box.x0, box.y0 + i * row_h, box.x1, box.y0 + (i + 1) * row_h)
        if i:
            c.hline(row.x0, row.x1 - 1, row.y0, width=1)
        state = resting.get(str(hero.get("id")))
        _hero_row(c, row.inset(0, 1), hero, name_w, widths, pip, state)
    if rows_for < len(heroes):
        more = Box(box.x0, box.y0 + rows_for * row_h, box.x1, box.y0 + (rows_for + 1) * row_h)
        c.text(more, f"+ {len(heroes) - rows_for} more", m.body)


def _columns(c: Canvas, cols: list[str], pip: int, heroes: Sequence[HeroView]) -> list[int]:
    m = c.m
    out = []
    for col in cols:
        label = c.width_of(col, m.small) + 1
        if col in ("Fatigue", "Strain"):
            cap = max(
                h["fatigue_capacity"] if col == "Fatigue" else h["strain_capacity"] for h in heroes
            )
            need = cap * pip + max(0, cap - 1) * max(1, pip // 3)
        else:
            need = c.width_of("99", m.body, bold=True)
        out.append(max(label, need))
    return out


def _hero_row(
    c: Canvas,
    row: Box,
    hero: HeroView,
    name_w: int,
    widths: list[int],
    pip: int,
    rest: str | None,
) -> None:
    m = c.m
    col_gap = m.gap * 2
    name_box, cells = row.left(name_w, col_gap)
    name = str(hero.get("name") or hero.get("id") or "?")
    size = m.big if row.h >= _lh(m.big, True) + 2 else m.body
    c.text(name_box, name, size, bold=True)
    x = cells.x0
    values = [
        ("pips", int(hero.get("fatigue") or 0), int(hero.get("fatigue_capacity") or 0)),
        ("pips", int(hero.get("strain") or 0), int(hero.get("strain_capacity") or 0)),
        ("number", int(hero.get("wounds") or 0), 0),
        ("number", int(hero.get("favor") or 0), 0),
        ("number", int(hero.get("redraws") or 0), 0),
    ]
    for (kind, value, cap), w in zip(values, widths, strict=False):
        cell = Box(x, row.y0, min(row.x1, x + w), row.y1)
        if kind == "pips":
            _pips(c, cell, value, cap, pip)
        else:
            c.text(cell, str(value), size, bold=value > 0)
        x += w + col_gap
    if rest and x < row.x1:
        c.text(Box(x, row.y0, row.x1, row.y1), "rest" if rest == "resting" else "watch", m.small)


def _pips(c: Canvas, box: Box, value: int, capacity: int, pip: int) -> None:
    """``capacity`` boxes, the first ``value`` filled: a track read at a glance (P13, P14)."""
    gap = max(1, pip // 3)
    y0 = box.y0 + (box.h - pip) // 2
    for i in range(max(capacity, value)):
        x0 = box.x0 + i * (pip + gap)
        if x0 + pip > box.x1:
            break
        over = i >= capacity
        fill = (c.emphasis()[0] if over else BLACK) if i < value else WHITE
        c.draw.rectangle((x0, y0, x0 + pip - 1, y0 + pip - 1), outline=BLACK, fill=fill)
