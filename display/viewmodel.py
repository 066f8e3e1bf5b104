"""What the screens read from the table view: plain questions with short answers.

The view (``engine.view.table_view``) is JSON data; sections added by other
modules (``odds``, ``time``, ``combat``) may be absent or None. Everything that
interprets the view — whose turn it is, which group a hero resolves in, how a
token is labelled — lives here so the drawing code only draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, assert_never, cast

from engine.contracts.terms import AdviceActionName
from engine.contracts.view import (
    CombatView,
    ContributionView,
    OddsGroup,
    OddsView,
    PerformanceView,
    ResultView,
    TokenView,
)
from engine.tokens import Action

View = Mapping[str, Any]
MINUS = "\u2212"

_SHADE_CODE = {
    "control": "C",
    "versatility": "V",
    "impulse": "I",
    "gray": "G",
    "xul": "Xu",
    "xantyr": "Xa",
}


def signed(n: int) -> str:
    """An integer with a real minus sign (a hyphen is too thin on e-ink)."""
    return f"{MINUS}{-n}" if n < 0 else str(n)


def title(word: str | None) -> str:
    return (word or "").replace("_", " ").title()


def section(view: View, name: str) -> Mapping[str, Any] | None:
    """An optional view section, None when absent, null or not an object."""
    value = view.get(name)
    return value if isinstance(value, Mapping) else None


# the view's sections as the contracts type them (engine/contracts/view.py): the view is the
# engine's TableView (tests/engine/contracts/test_contracts.py checks the panel's fixtures against its schema),
# so from here on mypy checks every key the panel reads


def performance(view: View) -> PerformanceView | None:
    return cast("PerformanceView | None", section(view, "performance"))


def odds(view: View) -> OddsView | None:
    return cast("OddsView | None", section(view, "odds"))


def combat(view: View) -> CombatView | None:
    return cast("CombatView | None", section(view, "combat"))


# --- the Performance --------------------------------------------------------


def contributions(perf: PerformanceView) -> list[ContributionView]:
    return list(perf.get("contributions") or [])


def focus(perf: PerformanceView) -> ContributionView | None:
    """The contribution the table is looking at: the first still drawing, else the last declared."""
    items = contributions(perf)
    if not items:
        return None
    if not perf.get("resolved"):
        for c in items:
            if c.get("pending_redraw") or int(c.get("draws_left") or 0) > 0:
                return c
    return items[-1]


def group_of(perf: PerformanceView, hero: str) -> list[str]:
    """The heroes ``hero`` resolves with (Intersecting heroes summed, I-P10)."""
    for g in perf.get("groups") or []:
        if hero in g:
            return [str(h) for h in g]
    return [hero]


def group_total(perf: PerformanceView, hero: str) -> int:
    """The engine's total for ``hero``'s resolving group (the view's ``group_total``, I-P10):
    the one figure the panel and the pages set against the Difficulty."""
    for c in contributions(perf):
        if c.get("hero") == hero:
            return int(c["group_total"])
    return 0


def result_for(perf: PerformanceView, hero: str) -> ResultView | None:
    for r in perf.get("results") or []:
        if hero in (r.get("heroes") or []):
            return r
    return None


def is_gain(c: ContributionView) -> bool:
    """The declaration makes no check: a Gain (the engine's :attr:`Action.checks`, P7)."""
    action = c.get("action")
    return action in set(Action) and not Action(action).checks


def declaration(c: ContributionView) -> list[str]:
    """Shade · Capability · Action · Training, then Exert, the Moment and Intersect when used."""
    parts = [title(c.get("shade")), title(c.get("capability")), title(c.get("action"))]
    parts.append(title(c.get("training")))
    if c.get("exert"):
        parts.append("Exert")
    if c.get("moment"):
        parts.append(title(c.get("moment")))
    if c.get("intersect"):
        parts.append(f"with {title(c.get('intersect'))}")
    return [p for p in parts if p]


def token_code(token: TokenView) -> str:
    """The short mark under a token's value: its Shade letter, P, W2, S, or a Favor's relation."""
    kind = token.get("kind")
    shade = str(token.get("shade") or "")
    # every kind the contract names (TokenKindName), each once: a new kind is a mypy error
    # at assert_never below until it gets its mark here
    match kind:
        case "ember":
            return _SHADE_CODE.get(shade, "?")
        case "potential":
            return "P"
        case "weight":
            w = token.get("weight")
            return f"W{w}" if w is not None else "W"
        case "strain":
            return "S"
        case "favor":  # drawn as a circle: the shape already says Favor
            return _SHADE_CODE.get(shade, "F")
        case "time" | "weather" | "temporary" | None:  # their name's initial
            name = str(token.get("name") or kind or "?")
            return name[:1].upper()
        case _:
            assert_never(kind)


def draws_text(c: ContributionView) -> str:
    """What is left to do at the Draw Board for ``c``."""
    if c.get("pending_redraw"):
        return "draw the Redraw"
    left = int(c.get("draws_left") or 0)
    if left > 0:
        return f"{left} draw left" if left == 1 else f"{left} draws left"
    return "all drawn"


# --- odds (optional section) -----------------------------------------------


#: what stands in for an answer the view does not hold (yet) (``engine.view.answer``):
#: ``pending``, computed off the table's turn and on its way for this very state;
#: ``too_big``, it cannot be computed exactly (nothing approximate is shown instead). Short
#: for a strip's status line, long where a roomy panel has the room.
ANSWER_MARKS = {"pending": "counting…", "too_big": "too many"}
ANSWER_MARKS_LONG = {"pending": "counting…", "too_big": "too many to count exactly"}


def answer_mark(what: str, status: str | None, *, long: bool = False) -> str | None:
    """``odds: counting…`` / ``odds: too many`` for an answer not ready; None when it is."""
    mark = (ANSWER_MARKS_LONG if long else ANSWER_MARKS).get(str(status))
    return f"{what}: {mark}" if mark else None


def odds_status(view: View) -> str | None:
    """``ready``, ``pending`` or ``too_big``; None without an odds section (a view from before
    the status: its groups are its answer, ``ready``)."""
    found = odds(view)
    if found is None:
        return None
    return str(found.get("status") or "ready")


def odds_mark(view: View, *, long: bool = False) -> str | None:
    """What the odds line shows instead of a percentage while the odds are not in the view."""
    return answer_mark("odds", odds_status(view), long=long)


def forecast_mark(combat: CombatView, *, long: bool = False) -> str | None:
    """The same for the attack forecast (``combat.forecast_status``)."""
    return answer_mark("forecast", combat.get("forecast_status"), long=long)


def odds_for(view: View, hero: str) -> OddsGroup | None:
    """The odds group ``hero`` resolves in, only when the view's odds are ready."""
    found = odds(view)
    if found is None or odds_status(view) != "ready":
        return None
    for g in found.get("groups") or []:
        if hero in (g.get("heroes") or []):
            return g
    return None


def percent(p: Any) -> str:
    """58 → "58%", 99.6 → ">99%", 0.2 → "<1%" (never round a sure thing up to certainty)."""
    value = float(p)
    if 0 < value < 1:
        return "<1%"
    if 99 < value < 100:
        return ">99%"
    return f"{round(value):d}%"


def _percent_of(group: OddsGroup, key: Literal["best_play", "as_drawn"]) -> str | None:
    s = group.get(key)
    if isinstance(s, Mapping) and s.get("percent") is not None:
        return percent(s["percent"])
    return None


def best_play_percent(group: OddsGroup) -> str | None:
    """The headline: P(success) with the Redraws and Favor left used well (docs/odds.md)."""
    return _percent_of(group, "best_play")


def as_drawn_percent(group: OddsGroup) -> str | None:
    """The secondary figure: P(success) with no more choices."""
    return _percent_of(group, "as_drawn")


def advice_texts(group: OddsGroup) -> list[str]:
    out = []
    for a in group.get("advice") or []:
        text = a.get("text") if isinstance(a, Mapping) else a
        if text:
            out.append(str(text))
    return out


def _action_word(action: AdviceActionName) -> str:
    """An advised move's word on a strip panel; every move the odds advise (a new one is a
    mypy error at assert_never until it has its word)."""
    match action:
        case "redraw":
            return "Redraw"
        case "call_favor":
            return "Favor"
        case "draw":
            return "Draw"
        case "resolve":
            return "Resolve"
        case _:
            assert_never(action)


def short_advice(group: OddsGroup) -> list[str]:
    """``Redraw → 58%``: the advice cut to what a strip panel's status line has room for."""
    out = []
    for a in group.get("advice") or []:
        if not isinstance(a, Mapping):
            continue
        text = str(a.get("text") or "")
        action = a.get("action")
        word = _action_word(action) if action else (text.split(" ")[0] if text else "")
        value = a.get("best_play")
        target = percent(value["percent"]) if isinstance(value, Mapping) else ""
        if not target and "→" in text:
            target = text.rsplit("→", 1)[1].strip()
        if word and target:
            out.append(f"{word} → {target}")
        elif text:
            out.append(text)
    return out


def next_move(group: OddsGroup, cur: ContributionView) -> str | None:
    """The best move when it is a choice (``Redraw W0``, ``Favor``); None while drawing on
    (or resolving) is best: the strip has no room for the obvious."""
    advice = group.get("advice") or []
    top = advice[0] if advice and isinstance(advice[0], Mapping) else None
    if top is None or top.get("hero") not in (None, cur.get("hero")):
        return None
    if top.get("action") == "redraw":
        drawn = [t for t in cur.get("drawn") or [] if t.get("id") == top.get("token")]
        return f"Redraw {token_code(drawn[0])}" if drawn else "Redraw"
    if top.get("action") == "call_favor":
        return "Favor"
    return None


# --- outcome and cost -------------------------------------------------------


def outcome_word(result: ResultView) -> str:
    """The engine's typed outcome (``results[].outcome``), in the panel's capitals."""
    return str(result["outcome"]).upper()


def consequence(result: ResultView) -> str:
    """The engine's P20 consequence (``results[].consequence``: wear or impact), a word."""
    return str(result["consequence"]).capitalize()


def names(view: View, heroes: Sequence[str]) -> list[str]:
    hv = view.get("heroes") or {}
    return [str((hv.get(h) or {}).get("name") or title(h)) for h in heroes]
