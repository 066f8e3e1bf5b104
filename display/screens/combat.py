"""Combat: the six-tick wheel with the combatants on it (C2–C4, C8–C10).

The tick being played is filled; the combatants acting on it are bold; the
dead are struck through. On a strip panel the wheel is unrolled into six
columns; a roomy panel draws the wheel itself and lists each combatant's
injuries, conditions, armour, Aim and Guard beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from display.canvas import Canvas
from display.layout import Box
from display.panels import BLACK, WHITE
from display.text import font, line_height, wrap
from display.viewmodel import View, forecast_mark
from engine.contracts.view import CombatantView, CombatView

TICKS = 6
SEP = " · "


def _lh(size: int, bold: bool = False) -> int:
    return line_height(font(size, bold))


def draw(c: Canvas, box: Box, view: View) -> None:
    combat: CombatView = view["combat"]
    m = c.m
    people: list[CombatantView] = list(combat.get("combatants") or [])
    acting = {str(a) for a in combat.get("acting") or []}
    tick = int(combat.get("tick") or 1)
    head, rest = box.top(_lh(m.big, True), m.gap)
    if not _header(c, head, combat, people, acting):
        who = [_name(p) for p in people if str(p.get("id")) in acting]
        row, rest = rest.top(_lh(m.body, True), m.gap)
        c.text(row, "Acting: " + ", ".join(who), m.body, bold=True)
    odds = forecast_text(combat)
    if c.spec.roomy and odds is not None:  # wrapped, never cut: it is what the attack is worth
        n = len(wrap(odds, rest.w - 1, font(m.body, True)))
        foot, rest = rest.bottom(min(2, n) * _lh(m.body, True), m.gap)
        c.lines(foot, odds, m.body, bold=True)
    if c.spec.roomy:
        wheel_d = min(rest.h, int(rest.w * 0.56))
        wheel, listing = rest.left(wheel_d, m.gap * 2)
        _wheel(c, wheel, people, acting, tick)
        _listing(c, listing, people, acting)
    else:
        _strip(c, rest, people, acting, tick, odds, forecast_text(combat, short=True))


def _header(
    c: Canvas, box: Box, combat: CombatView, people: Sequence[CombatantView], acting: set[str]
) -> bool:
    """Round and tick; on a roomy panel who acts, beside it if it fits (False: it did not)."""
    m = c.m
    text = f"ROUND {combat.get('round', '?')}{SEP}TICK {combat.get('tick', '?')}"
    left_w = min(c.width_of(text, m.big, bold=True), box.w // 2)
    left, right = box.left(left_w, m.gap * 2)
    c.text(left, text, m.big, bold=True)
    who = [str(p.get("name") or p.get("id")) for p in people if str(p.get("id")) in acting]
    if who and c.spec.roomy:
        text = "Acting: " + ", ".join(who)
        if c.width_of(text, m.body, bold=True) > right.w:
            return False  # the caller gives it a line of its own
        c.text(right, text, m.body, bold=True, align="right")
    return True


def _name(p: CombatantView) -> str:
    return str(p.get("name") or p.get("id") or "?")


def _strip(
    c: Canvas,
    box: Box,
    people: Sequence[CombatantView],
    acting: set[str],
    tick: int,
    odds: str | None = None,
    short_odds: str | None = None,
) -> None:
    """The wheel as a ruler of six ticks with a dot per combatant, then who acts now and next."""
    m = c.m
    lh = _lh(m.body)
    dot = max(5, m.small // 2)
    ruler, rest = box.top(_lh(m.body, True) + dot + 3, m.gap)
    fill, ink_now = c.emphasis()
    for t, cell in enumerate(ruler.cols(TICKS, 2), start=1):
        now = t == tick
        c.rect(cell, fill=fill if now else None, outline=BLACK)
        ink = ink_now if now else BLACK
        number, dots = cell.top(_lh(m.body, True))
        c.text(number, str(t), m.body, bold=True, align="center", fill=ink)
        here = [p for p in people if int(p.get("tick") or 0) == t]
        _dots(c, dots, here, dot, ink)
    now_names = [_name(p) for p in people if str(p.get("id")) in acting]
    if not now_names:
        now_names = [_name(p) for p in people if int(p.get("tick") or 0) == tick]
    if rest.h < lh:
        return
    row, rest = rest.top(lh, 1)
    c.text(row, "Now: " + (", ".join(now_names) or "nobody"), m.body, bold=True)
    following = []
    for step in range(1, TICKS):
        t = (tick - 1 + step) % TICKS + 1
        waiting = [_name(p) for p in people if int(p.get("tick") or 0) == t and not p.get("dead")]
        if waiting:
            following.append(f"{t} {', '.join(waiting)}")
    if following and rest.h >= lh:
        row, rest = rest.top(lh, 1)
        c.text(row, "Next: " + SEP.join(following), m.body)
    first = next((p for p in people if str(p.get("id")) in acting), None)
    line = odds if odds is not None else _details(first, long=False) if first else None
    room = rest.h // max(1, _lh(m.small))
    if odds is not None and room and len(wrap(odds, rest.w - 1, font(m.small))) > room:
        # no room for all of it: the chance to hurt and to kill, whole, not a sentence cut
        # in the middle (the injuries expected are on the roomy panels) (C6, C9)
        line = short_odds or odds
    if line is not None and rest.h >= _lh(m.small):
        n = len(wrap(line, rest.w - 1, font(m.small)))
        row, rest = rest.top(max(1, min(n, rest.h // _lh(m.small))) * _lh(m.small), 1)
        c.lines(row, line, m.small)


def _dots(c: Canvas, box: Box, here: Sequence[CombatantView], dot: int, ink: int) -> None:
    """One dot per combatant on this tick; a cross for the dead."""
    gap = max(1, dot // 3)
    n = len(here)
    width = n * dot + max(0, n - 1) * gap
    x = box.x0 + max(0, (box.w - width) // 2)
    y = box.y0 + max(0, (box.h - dot) // 2)
    for p in here:
        if x + dot > box.x1:
            break
        if p.get("dead"):
            c.draw.line((x, y, x + dot - 1, y + dot - 1), fill=ink, width=1)
            c.draw.line((x, y + dot - 1, x + dot - 1, y), fill=ink, width=1)
        else:
            c.draw.ellipse((x, y, x + dot - 1, y + dot - 1), fill=ink)
        x += dot + gap


def _combatant_name(
    c: Canvas, row: Box, p: CombatantView, is_acting: bool, size: int, align: str, fill: int = BLACK
) -> None:
    rec = c.text(
        row,
        _name(p),
        size,
        bold=is_acting,
        align="center" if align == "center" else "left",
        fill=fill,
    )
    if p.get("dead") and rec.shown:
        y = (rec.ink[1] + rec.ink[3]) // 2
        c.hline(rec.ink[0], rec.ink[2], y, fill=fill, width=max(1, c.m.line - 1))


def _wheel(
    c: Canvas, box: Box, people: Sequence[CombatantView], acting: set[str], tick: int
) -> None:
    """Six sectors clockwise from the top, tick 1 first (C2)."""
    m = c.m
    d = min(box.w, box.h)
    lh_num = _lh(m.body, True)
    ring = lh_num + 2  # the tick numbers sit in a ring outside the wheel
    x0, y0 = box.x0 + (box.w - d) // 2 + ring, box.y0 + (box.h - d) // 2 + ring
    r = d / 2 - ring
    cx, cy = x0 + r, y0 + r
    outer = (x0, y0, int(x0 + 2 * r) - 1, int(y0 + 2 * r) - 1)
    fill, ink_now = c.emphasis()
    for t in range(1, TICKS + 1):
        start = -90 + (t - 1) * 60
        now = t == tick
        c.draw.pieslice(
            outer, start, start + 60, fill=fill if now else WHITE, outline=BLACK, width=m.line
        )
    hub = r * 0.14
    c.draw.ellipse(
        (cx - hub, cy - hub, cx + hub, cy + hub), fill=WHITE, outline=BLACK, width=m.line
    )
    lh = _lh(m.small, True)
    for t in range(1, TICKS + 1):
        now = t == tick
        ink = ink_now if now else BLACK
        angle = math.radians(-90 + (t - 1) * 60 + 30)
        nx, ny = cx + math.cos(angle) * (r + ring / 2), cy + math.sin(angle) * (r + ring / 2)
        num = Box(int(nx - lh_num), int(ny - lh_num / 2), int(nx + lh_num), int(ny + lh_num / 2))
        c.text(num, str(t), m.body, bold=True, align="center", fill=BLACK)
        # names at mid radius, as wide as the sector is there
        here = [p for p in people if int(p.get("tick") or 0) == t]
        if not here:
            continue
        mid = r * 0.58
        width = int(mid * 0.98)
        blocks = []
        for p in here:
            n_lines = 1 if c.width_of(_name(p), m.small, bold=True) <= width else 2
            blocks.append((p, n_lines))
        room = max(1, int((r * 0.62) // lh))
        shown: list[tuple[CombatantView, int]] = []
        used = 0
        for p, n_lines in blocks:
            if used + n_lines > room - (1 if len(shown) + 1 < len(blocks) else 0):
                break
            shown.append((p, n_lines))
            used += n_lines
        more = len(here) - len(shown)
        block_h = lh * (used + (1 if more else 0))
        mx, my = cx + math.cos(angle) * mid, cy + math.sin(angle) * mid
        top = int(my - block_h / 2)
        for p, n_lines in shown:
            cell = Box(int(mx - width / 2), top, int(mx + width / 2), top + n_lines * lh)
            is_acting = str(p.get("id")) in acting
            if n_lines == 1:
                _combatant_name(c, cell, p, is_acting, m.small, "center", fill=ink)
            else:
                for rec in c.lines(
                    cell, _name(p), m.small, bold=is_acting, align="center", fill=ink
                ):
                    if p.get("dead") and rec.shown:
                        y = (rec.ink[1] + rec.ink[3]) // 2
                        c.hline(rec.ink[0], rec.ink[2], y, fill=ink, width=max(1, m.line - 1))
            top += n_lines * lh
        if more:
            row = Box(int(mx - width / 2), top, int(mx + width / 2), top + lh)
            # one dot per combatant not named (as on the strip's ruler) — never "+1", which
            # reads as an Aim bonus (C9)
            _dots(c, row, here[len(shown) :], max(5, m.small // 2), ink)


def _injury(x: Any) -> str:
    """``concussion 3`` from the view's ``{"type", "hits", …}`` (a plain name is kept)."""
    if isinstance(x, Mapping):
        hits = x.get("hits")
        return f"{x.get('type', '?')}{f' {hits}' if hits and hits != 1 else ''}"
    return str(x)


def _condition(x: Any) -> str:
    """``fatigued 2`` from ``{"name", "level", …}`` (a plain name is kept). The engine gives
    every condition a level, 1 for one that does not stack: ``prone``, not ``prone 1``."""
    if isinstance(x, Mapping):
        level = x.get("level")
        return f"{x.get('name', '?')}{f' {level}' if level and level > 1 else ''}"
    return str(x)


def _armour(x: Any) -> str | None:
    """``scale 1/3`` (reduction / durability left) from ``{"name", "reduction", "durability"}``."""
    if isinstance(x, Mapping):
        if not x.get("reduction") and not x.get("durability"):
            return None
        return f"{x.get('name') or 'armour'} {x.get('reduction', 0)}/{x.get('durability', 0)}"
    return f"armour {x}" if x else None


def _percent(p: Any) -> str:
    q = float(p) * 100
    if q <= 0 or q >= 100:
        return f"{q:.0f}%"
    return "<1%" if q < 1 else ">99%" if q > 99 else f"{q:.0f}%"


def forecast_text(combat: CombatView, *, short: bool = False) -> str | None:
    """The exact odds of the acting combatant attacking the first foe offered (C6, C8, C9):
    ``Bren → Raider: 62% hurt · 1.0 injuries expected · 14% kill`` (``short``: without the
    injuries expected). ``forecast: counting…`` / ``forecast: too many`` while it is pending
    or too big to compute (never a previous state's figures)."""
    mark = forecast_mark(combat, long=not short)
    if mark:
        return mark
    offered = combat.get("forecast") or []
    f = offered[0] if offered else None
    if not isinstance(f, Mapping):
        return None
    names = {
        str(p.get("id")): _name(p) for p in combat.get("combatants") or [] if isinstance(p, Mapping)
    }
    attacker = names.get(str(f.get("attacker")), str(f.get("attacker") or "?"))
    target = f.get("target_name") or names.get(str(f.get("target")), str(f.get("target")))
    text = f"{attacker} → {target}: {_percent(f.get('damage', 0))} hurt"
    if not short:
        text += f"{SEP}{float(f.get('expected_injuries') or 0):.1f} injuries expected"
    if f.get("death"):
        text += f"{SEP}{_percent(f['death'])} kill"
    return text


def _details(p: CombatantView, *, long: bool) -> str:
    """``Orc: 2 injuries (bleeding, burned 2) · prone · mail 2/4 · aim 2 · guarding`` (C5–C10)."""
    parts = []
    injuries = int(p.get("injuries") or 0)
    names = [_injury(x) for x in p.get("injury_list") or []]
    if injuries or names:
        text = f"{injuries} injur{'y' if injuries == 1 else 'ies'}"
        if long and names:
            text += f" ({', '.join(names)})"
        parts.append(text)
    conditions = [_condition(x) for x in p.get("conditions") or []]
    if conditions:
        parts.append(", ".join(conditions))
    armour = _armour(p.get("armour"))
    if armour:
        parts.append(armour)
    if p.get("aim"):
        parts.append(f"aim {p['aim']}")
    if p.get("guarding"):
        parts.append("guarding")
    if p.get("dead"):
        parts = ["dead"]
    head = _name(p)
    return f"{head}: {SEP.join(parts)}" if parts else head


def _listing(c: Canvas, box: Box, people: Sequence[CombatantView], acting: set[str]) -> None:
    """Each combatant, in tick order: name, tick, and what is wrong with them — the details on
    two lines where they need them and the panel has the room (cut with "…" only past that)."""
    m = c.m
    order = sorted(people, key=lambda p: (int(p.get("tick") or 0), -int(p.get("initiative") or 0)))
    name_h = _lh(m.body, True)
    detail_h = _lh(m.small)
    details = []
    for p in order:
        detail = _details(p, long=True)
        details.append(detail.split(": ", 1)[1] if ": " in detail else "ready")
    one = name_h + detail_h + m.gap
    shown = len(order)
    while shown and shown * one + (name_h if shown < len(order) else 0) > box.h:
        shown -= 1
    # then a second detail line for whoever needs one, in order, while the room lasts
    spare = box.h - shown * one - (name_h if shown < len(order) else 0)
    wide = [1] * len(order)
    for i, d in enumerate(details[:shown]):
        if spare >= detail_h and len(wrap(d, box.w - 1, font(m.small))) > 1:
            wide[i], spare = 2, spare - detail_h
    heights = [one + (n - 1) * detail_h for n in wide]
    top = box.y0
    for p, detail, n, h in zip(order[:shown], details, wide, heights, strict=False):
        name_row = Box(box.x0, top, box.x1, top + name_h)
        detail_box = Box(box.x0, top + name_h, box.x1, top + name_h + n * detail_h)
        tick_text = f"tick {p.get('tick', '?')}"
        tick_box, name_box = name_row.right(c.width_of(tick_text, m.small) + 1, m.gap)
        _combatant_name(c, name_box, p, str(p.get("id")) in acting, m.body, "left")
        c.text(tick_box, tick_text, m.small, align="right")
        if n == 1:
            c.text(detail_box, detail, m.small)
        else:
            c.lines(detail_box, detail, m.small)
        top += h
    if shown < len(order):
        c.text(Box(box.x0, top, box.x1, top + name_h), f"+ {len(order) - shown} more", m.body)
