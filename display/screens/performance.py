"""The Performance screen: who declared what, the tokens drawn, the total against the Difficulty.

Strip panels (2.13", 2.9") follow the sketch in docs/display.md — one line of who and
what, the tokens with the running total huge beside them, one line of what is
left (draws, odds, the best Redraw). Once resolved, that last line becomes the
outcome and its cost (P19, P20). Roomy panels (4.2", 7.5") add the advice in
full, the other heroes in the same Performance and each hero's cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from display.canvas import Canvas
from display.costs import cost_parts, costs_for
from display.layout import Box
from display.screens import marks, tokens
from display.text import font, line_height, wrap
from display.viewmodel import (
    View,
    advice_texts,
    as_drawn_percent,
    best_play_percent,
    consequence,
    contributions,
    declaration,
    draws_text,
    focus,
    group_of,
    group_total,
    is_gain,
    names,
    next_move,
    odds_for,
    odds_mark,
    outcome_word,
    result_for,
    signed,
    title,
    token_code,
)
from engine.contracts.view import ContributionView, PerformanceView

#: the view's ``costs`` section: hero id → counts and ``text`` (engine/performance/costs.py)
Costs = Mapping[str, Any] | None
SEP = " · "
#: thin spaces around the dot: a strip panel cannot spare two full spaces per item
TIGHT = "\u2009·\u2009"


def draw(c: Canvas, box: Box, view: View) -> None:
    perf: PerformanceView = view["performance"]
    costs: Costs = view.get("costs")
    current = focus(perf)
    if current is None:
        _waiting(c, box, perf)
    elif c.spec.roomy:
        _roomy(c, box, view, perf, current, costs)
    else:
        _strip(c, box, view, perf, current, costs)


def _lh(size: int, bold: bool = False) -> int:
    return line_height(font(size, bold))


def _waiting(c: Canvas, box: Box, perf: PerformanceView) -> None:
    """Begun, nobody has declared yet: the Difficulty is what matters."""
    m = c.m
    head, rest = box.top(_lh(m.big, True), m.gap)
    c.text(head, f"Performance {perf.get('number', '')}", m.big, bold=True)
    hint, rest = rest.bottom(_lh(m.body), m.gap)
    c.text(hint, "Declare on the Performance Wheel", m.body)
    label, num = rest.left(rest.w // 2)
    c.text(label, "Difficulty", m.big, align="right")
    c.text(num, str(perf.get("difficulty", "?")), m.huge, bold=True, align="center", valign="ink")


# --- the strip (2.13", 2.9") -------------------------------------------------


def _strip(
    c: Canvas,
    box: Box,
    view: View,
    perf: PerformanceView,
    cur: ContributionView,
    costs: Costs,
) -> None:
    """Who and what (one or two lines), tokens and total, then status or outcome (one or two)."""
    m = c.m
    lh = _lh(m.body)
    name = _strip_name(view, perf, cur)
    decl = declaration(cur)
    if perf.get("weight") and perf.get("weight") != "off" and not perf.get("resolved"):
        decl = [*decl, f"WEIGHT {str(perf['weight']).upper()}"]  # it changes the draws (I-P16)
    name_w = c.width_of(name, m.body, bold=True) + 1
    head = [TIGHT.join(decl)]
    if name_w + c.width_of(TIGHT + head[0], m.body) > box.w and len(decl) > 2:
        head = [TIGHT.join(decl[:2]), TIGHT.join(decl[2:])]
    outcome = bool(perf.get("resolved")) or is_gain(cur)
    word, first, second = _outcome_parts(perf, cur, costs) if outcome else ("", [], [])
    look = marks.style(c, word)
    tag_w = c.width_of(look.label, m.big, bold=True) + 2 * (max(2, m.gap) + look.frame) + m.gap
    foot_lines = 1
    if outcome and second and tag_w + c.width_of(TIGHT.join(first + second), m.body) > box.w:
        foot_lines = 2
    min_main = int(m.token * 1.1)

    def main_h(head_n: int, foot_n: int) -> int:
        foot = (_lh(m.big, True) if outcome else lh) + (foot_n - 1) * (lh + 1)
        return box.h - head_n * lh - foot - 2 * m.gap

    if main_h(len(head), foot_lines) < min_main and len(head) == 2:
        head = [TIGHT.join(decl)]
    if main_h(len(head), foot_lines) < min_main and foot_lines == 2:
        foot_lines = 1
    show_head = main_h(len(head), foot_lines) >= min_main
    rest = box
    if show_head:
        for i, line in enumerate(head):
            row, rest = rest.top(lh, 0 if i < len(head) - 1 else m.gap)
            if i == 0:
                name_box, row = row.left(min(name_w, row.w // 2))
                c.text(name_box, name, m.body, bold=True)
                line = TIGHT + line
            c.text(row, line, m.body)
    foot_h = (_lh(m.big, True) if outcome else lh) + (foot_lines - 1) * (lh + 1)
    footer, main = rest.bottom(foot_h, m.gap)
    # the other heroes' parts (an Intersect, P23) on a line of their own when there is room
    parts = _others_text(perf, cur)
    if parts and main.h - _lh(m.small) - 1 >= min_main:
        others_row, main = main.bottom(_lh(m.small), 1)
        c.text(others_row, parts, m.small)
    _main(c, main, perf, cur, difficulty_size=max(m.big, m.huge // 2))
    if outcome:
        if foot_lines == 2:
            tag_row, cost_row = footer.top(_lh(m.big, True), 1)
            _outcome_line(c, tag_row, word, first)
            c.text(cost_row, TIGHT.join(second), m.body)
        else:
            _outcome_line(c, footer, word, first + second)
    else:
        # no room for who-and-what (a banner on a strip): the name leads the status line
        _status_line(c, footer, view, cur, who=None if show_head else name)


def _others_text(perf: PerformanceView, cur: ContributionView) -> str:
    """``Bren 1P 1V 0C = 3 ✘``: each other hero's tokens and total, for a strip panel."""
    out = []
    for o in contributions(perf):
        if o.get("hero") == cur.get("hero"):
            continue
        codes = " ".join(
            f"{signed(int(t.get('value') or 0))}{token_code(t)}"
            for t in [*(o.get("drawn") or []), *(o.get("favor") or [])]
        )
        text = f"{o.get('name') or title(str(o.get('hero')))} {codes} = {o.get('total', 0)}"
        result = result_for(perf, str(o.get("hero")))
        if result is not None and str(o.get("hero")) not in group_of(perf, str(cur.get("hero"))):
            text += f" {marks.GLYPHS[outcome_word(result)]}"
        out.append(text)
    return SEP.join(out)


def _strip_name(view: View, perf: PerformanceView, cur: ContributionView) -> str:
    heroes = group_of(perf, str(cur.get("hero")))
    name = " + ".join(names(view, heroes)) if len(heroes) > 1 else str(cur.get("name") or "")
    return name.upper()


def _main(
    c: Canvas, box: Box, perf: PerformanceView, cur: ContributionView, *, difficulty_size: int
) -> None:
    """Tokens on the left at full size; the running total, as big as the rest allows, on the right."""
    m = c.m
    hero = str(cur.get("hero"))
    resolved = bool(perf.get("resolved"))
    drawn = list(cur.get("drawn") or [])
    favor = list(cur.get("favor") or [])
    redraw = bool(cur.get("pending_redraw")) and not resolved
    empty = 0 if resolved else max(0, int(cur.get("draws_left") or 0) - int(redraw))
    n = 0 if is_gain(cur) else tokens.slot_count(len(drawn), len(favor), empty, redraw)
    side = m.token
    if c.spec.roomy:  # icons grow into the room a big panel has
        side = max(m.token, min(int(box.h / 1.3), int(box.w * 0.62 - (n - 1) * m.gap) // max(n, 1)))
    share = 0.6 if c.spec.roomy else 0.68  # the total is what the table reads first
    tokens_w = min(tokens.row_width(c, n, side), int(box.w * share)) if n else int(box.w * 0.5)
    left, block = box.left(tokens_w, m.gap * 2)
    total = signed(group_total(perf, hero))
    diff = f"/{perf.get('difficulty', '?')}"
    diff_w = min(c.width_of(diff, difficulty_size, bold=True), block.w // 2)
    diff_box, total_box = block.right(diff_w)
    rec = c.text(total_box, total, m.huge, bold=True, align="right", valign="ink", min_size=m.big)
    # the Difficulty sits on the total's baseline, half its size
    size = max(m.big, min(difficulty_size, rec.size // 2 + 2))
    low = Box(diff_box.x0, (rec.ink[1] + rec.ink[3]) // 2, diff_box.x1, rec.ink[3] + size // 6 + 1)
    c.text(low, diff, size, bold=True, align="left", valign="ink")
    if is_gain(cur):
        c.lines(left, "Gain: no draw, no check", m.body)
        return
    tokens.draw_row(c, left, drawn, favor, empty=empty, redraw=redraw, side=side)


def _segments(
    c: Canvas, box: Box, parts: list[tuple[str, bool]], size: int, sep: str = SEP
) -> None:
    """Left to right at full size; the last part takes what is left (shrunk, then cut)."""
    x = box.x0
    for i, (text, bold) in enumerate(parts):
        if x >= box.x1:
            return
        last = i == len(parts) - 1
        piece = text if i == 0 else sep + text
        width = box.x1 - x if last else min(box.x1 - x, c.width_of(piece, size, bold=bold))
        rec = c.text(Box(x, box.y0, x + width, box.y1), piece, size, bold=bold)
        x = rec.ink[2] + 1 if rec.shown else x


def _status_line(
    c: Canvas, box: Box, view: View, cur: ContributionView, who: str | None = None
) -> None:
    """``1 draw left · odds 58% · Redraw → 71%`` (the sketch in docs/display.md); ``who``
    first when the who-and-what line had no room; ``odds: counting…`` / ``odds: too many``
    while the view's odds are pending or too big."""
    parts: list[tuple[str, bool]] = [(draws_text(cur), False)]
    if who:
        parts.insert(0, (who, True))
    odds = odds_for(view, str(cur.get("hero")))
    mark = odds_mark(view)
    if mark:  # the odds are not in the view (yet): say so, never a figure of another state
        parts.append((mark, False))
    elif odds is not None:
        best, drawn, move = best_play_percent(odds), as_drawn_percent(odds), next_move(odds, cur)
        if best:
            parts.append((f"best play {best}", True))
        if move:
            parts.append((move, False))
        if drawn:
            parts.append((f"as drawn {drawn}", False))
    if who:  # under a banner: who, what is left and the headline odds — no half-cut advice
        parts = parts[:3]
    _segments(c, box, parts, c.m.body, TIGHT)


def _outcome_parts(
    perf: PerformanceView, cur: ContributionView, costs: Costs
) -> tuple[str, list[str], list[str]]:
    """(``FAILURE``, [``Impact``], [``+2 Fatigue → 1 Strain``, ``Favor −1``]) (P19, P20, P13)."""
    hero = str(cur.get("hero"))
    result = result_for(perf, hero)
    if is_gain(cur):
        word, first = "GAIN", ["no check"]
    elif result is None:
        word, first = "", [draws_text(cur)]
    else:
        word, first = outcome_word(result), [consequence(result)]
    return word, first, cost_parts(cur, costs_for(costs, hero))


def _outcome_line(c: Canvas, box: Box, word: str, rest: list[str]) -> None:
    """``SUCCESS · Wear`` / ``FAILURE · Impact · +2 Fatigue → 1 Strain``: the word inverted."""
    m = c.m
    x = box.x0
    if word:
        look = marks.style(c, word)
        pad = max(2, m.gap) + look.frame
        w = min(c.width_of(look.label, m.big, bold=True) + 2 * pad, box.w // 2)
        tag, after = box.left(w, m.gap)
        marks.block(c, tag, look)
        c.text(tag.inset(pad, 0), look.label, m.big, bold=True, align="center", fill=look.ink)
        x = after.x0
    c.text(Box(x, box.y0, box.x1, box.y1), TIGHT.join(rest), m.body)


# --- roomy panels (4.2", 7.5") -------------------------------------------------


def _roomy(
    c: Canvas,
    box: Box,
    view: View,
    perf: PerformanceView,
    cur: ContributionView,
    costs: Costs,
) -> None:
    m = c.m
    resolved = bool(perf.get("resolved"))
    hero = str(cur.get("hero"))
    heroes = group_of(perf, hero)

    # who: the name large, the Performance and WEIGHT mode small on the right — or, when the
    # two do not fit side by side, on a line of their own (never cut to "…": I-P16)
    head, rest = box.top(_lh(m.big, True), m.gap)
    info = f"Performance {perf.get('number', '')}"
    if perf.get("weight") and perf.get("weight") != "off":
        info += f"{SEP}WEIGHT {str(perf['weight']).upper()}"
    who = " + ".join(names(view, heroes)).upper()
    info_w = c.width_of(info, m.small)
    beside = c.width_of(who, m.big, bold=True) + m.gap * 2 + info_w <= head.w
    if beside:
        info_box, head = head.right(info_w, m.gap * 2)
        c.text(info_box, info, m.small, align="right")
    c.text(head, who, m.big, bold=True)
    decl, rest = rest.top(_lh(m.body), m.gap)
    c.text(decl, SEP.join(declaration(cur)), m.body)
    notes = ([] if beside else [info]) + table_notes(view, cur)
    for line in notes:
        row, rest = rest.top(_lh(m.small), 1)
        c.text(row, line, m.small)

    # what it is worth and what it cost: from the bottom up
    others = [o for o in contributions(perf) if o.get("hero") != hero]
    bottom_rows = _roomy_bottom(c, rest, view, perf, cur, costs, heroes, resolved)
    rest = Box(rest.x0, rest.y0, rest.x1, bottom_rows.y0 - m.gap)
    if others:
        row_h = _lh(m.body)
        room = max(0, (rest.h - m.token - m.gap) // (row_h + 1))
        shown = others[: min(len(others), room, 4)]
        if shown:
            list_box, rest = rest.bottom(len(shown) * (row_h + 1), m.gap)
            _others(c, list_box, perf, shown, row_h)
    _main(c, rest, perf, cur, difficulty_size=m.huge // 2)


def _roomy_bottom(
    c: Canvas,
    box: Box,
    view: View,
    perf: PerformanceView,
    cur: ContributionView,
    costs: Costs,
    heroes: list[str],
    resolved: bool,
) -> Box:
    """Draw the status (or outcome) block at the bottom of ``box``; return the box it used."""
    m = c.m
    lines: list[tuple[str, int, bool]] = []
    if resolved or is_gain(cur):
        for h in heroes:
            contribution = next((x for x in contributions(perf) if x.get("hero") == h), None)
            parts = cost_parts(contribution, costs_for(costs, h))
            if parts:
                who = names(view, [h])[0]
                lines.append((f"{who}: {', '.join(parts)}", m.body, False))
        block_h = _lh(m.big, True) + 2 * m.gap + len(lines) * _lh(m.body)
        used, _ = box.bottom(block_h)
        tag, rows = used.top(_lh(m.big, True) + 2 * m.gap, 0)
        _outcome_tag(c, tag, perf, cur)
        for i, row in enumerate(rows.rows(len(lines)) if lines else []):
            c.text(row, lines[i][0], lines[i][1])
        return used
    status = [draws_text(cur)]
    odds = odds_for(view, str(cur.get("hero")))
    advice: list[str] = []
    mark = odds_mark(view, long=True)
    if mark:  # in place of the odds and the advice, until they come (or for good: too_big)
        status.append(mark)
    elif odds is not None:
        best, drawn = best_play_percent(odds), as_drawn_percent(odds)
        if best:
            status.append(f"best play {best}")
        if drawn:
            status.append(f"as drawn {drawn}")
        advice = advice_texts(odds)[:2]
    # each piece of advice on the lines it wraps to (two at most) while the tokens keep their
    # room above: wrap first, then shrink, then cut with "…"
    lh = _lh(m.body)
    spare = box.h - int(m.token * 1.4) - (1 + len(advice)) * (lh + 1)
    spans: list[int] = []
    for text in advice:
        n = min(2, len(wrap(text, box.w - 1, font(m.body))))
        if n == 2 and spare >= lh:
            spare -= lh
        else:
            n = 1
        spans.append(n)
    used, _ = box.bottom((1 + sum(spans)) * (lh + 1) - 1)
    first, below = used.top(lh, 1)
    marked = [(status[0], False)] + [(s, s.startswith("best play")) for s in status[1:]]
    _segments(c, first, marked, m.body)
    for text, n in zip(advice, spans, strict=True):
        row, below = below.top(n * lh + (n - 1), 1)
        if n == 1:
            c.text(row, text, m.body)
        else:
            c.lines(row, text, m.body)
    return used


def _outcome_tag(c: Canvas, box: Box, perf: PerformanceView, cur: ContributionView) -> None:
    """A full-width block: ``SUCCESS · Wear`` inverted, so the result is seen from across the table."""
    m = c.m
    result = result_for(perf, str(cur.get("hero")))
    if is_gain(cur):
        word, text = "GAIN", f"GAIN{SEP}no check"
    elif result is None:
        word, text = "", draws_text(cur)
    else:
        word = outcome_word(result)
        text = (
            f"{marks.style(c, word).label}{SEP}{consequence(result)}"
            f"{SEP}{result.get('total')} vs {result.get('difficulty')}"
        )
    look = marks.style(c, word)
    marks.block(c, box, look)
    pad = m.gap + look.frame
    c.text(box.inset(pad, 0), text, m.big, bold=True, align="center", fill=look.ink)


def table_notes(view: View, cur: ContributionView) -> list[str]:
    """What a roomy panel adds: the Redraw just spent, the Escalation track, the Awakened (P11,
    P18, P21)."""
    out = []
    spent = [_token_name(t) for t in cur.get("set_aside") or []]
    if spent:
        out.append(f"Redraw spent: {', '.join(spent)} set aside")
    track = track_line(view)
    if track:
        out.append(track)
    return out


def track_line(view: View) -> str:
    """``Escalation +2 · Awakened: Xantyr`` (P18, P21), or "" when both are at rest."""
    track = []
    escalation = int(view.get("escalation") or 0)
    if escalation:
        track.append(f"Escalation {signed(escalation) if escalation < 0 else f'+{escalation}'}")
    awakened = [title(str(a)) if str(a).islower() else str(a) for a in view.get("awakened") or []]
    if awakened:
        track.append(f"Awakened: {', '.join(awakened)}")
    return SEP.join(track)


def _token_name(token: Any) -> str:
    """``aria.weight.0`` → ``Weight 0``; a token object by its name."""
    if isinstance(token, Mapping):
        return str(token.get("name") or token.get("id") or "?")
    parts = str(token).split(".")
    return title(" ".join(parts[1:] if len(parts) > 1 else parts))


def _others(
    c: Canvas,
    box: Box,
    perf: PerformanceView,
    others: Sequence[ContributionView],
    row_h: int,
) -> None:
    """The other heroes in this Performance: name, declaration, tokens as text, total."""
    m = c.m
    c.hline(box.x0, box.x1 - 1, box.y0, width=1)
    for i, o in enumerate(others):
        row = Box(box.x0, box.y0 + 1 + i * (row_h + 1), box.x1, box.y0 + 1 + (i + 1) * (row_h + 1))
        codes = " ".join(
            f"{signed(int(t.get('value') or 0))}{token_code(t)}"
            for t in [*(o.get("drawn") or []), *(o.get("favor") or [])]
        )
        total = f"{o.get('total', 0)}"
        result = result_for(perf, str(o.get("hero")))
        if result is not None:
            total += f" {marks.GLYPHS[outcome_word(result)]} {outcome_word(result)}"
        total_box, rest = row.right(c.width_of(total, m.body, bold=True) + 1, m.gap)
        c.text(total_box, total, m.body, bold=True, align="right")
        name = str(o.get("name") or title(str(o.get("hero"))))
        name_box, rest = rest.left(min(c.width_of(name, m.body, bold=True), rest.w // 3), m.gap)
        c.text(name_box, name, m.body, bold=True)
        what = f"{title(o.get('shade'))} {title(o.get('capability'))}"
        c.text(rest, f"{what}   {codes}" if codes else what, m.body)
