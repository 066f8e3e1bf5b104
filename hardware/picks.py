"""The wheel's two small side modes, as values: picking the token a Redraw replaces, and a Call
Favor armed until its token is laid (P11, P18).

Each is a frozen value the wheel's state holds while the mode lasts (None otherwise): an
input returns the next value, so :meth:`~hardware.wheel.Wheel.selection` can read it without
changing anything. Which tokens a Redraw may replace, and why none, is the engine's answer
(:func:`engine.performance.questions.redraws`, through :class:`~hardware.facts.TableFacts`);
this module only orders it for the hand: the focus hero first, their lowest token shown.

>>> pick = RedrawPick((("aria", "aria.ember.skill"), ("aria", "aria.weight.1")), at=1)
>>> pick.turned(+1).shown
('aria', 'aria.ember.skill')
>>> pick.command()
{'cmd': 'redraw', 'hero': 'aria', 'replace': 'aria.weight.1'}
>>> pick.followed([("aria", "aria.weight.1")], lowest=0).at  # the token shown is still offered
0
>>> pick.followed([], lowest=0) is None  # nothing left to Redraw: the pick ends
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from engine.contracts import commands
from engine.contracts.commands import RedrawCommand
from engine.picking import hero_meant
from hardware.facts import TableFacts
from hardware.notices import Notice


class RedrawView(TypedDict):
    """The Redraw pick on the panel: the token shown, and every one the engine offers."""

    hero: str
    replace: str
    name: str
    value: int | None
    choices: list[str]


class FavorView(TypedDict):
    """A Call Favor armed, on the panel: who calls, and what to do."""

    hero: str
    armed: Literal[True]
    prompt: str


@dataclass(frozen=True, slots=True)
class RedrawPick:
    """Turning through the drawn tokens a Redraw may replace (the engine's list); a push or a
    second Redraw press takes the one shown (P11)."""

    candidates: tuple[tuple[str, str], ...]
    at: int = 0

    @property
    def shown(self) -> tuple[str, str]:
        return self.candidates[self.at]

    def turned(self, moves: int) -> RedrawPick:
        return RedrawPick(self.candidates, (self.at + moves) % len(self.candidates))

    def command(self) -> RedrawCommand:
        hero, token = self.shown
        return commands.redraw(hero=hero, replace=token)

    def followed(self, candidates: Sequence[tuple[str, str]], lowest: int) -> RedrawPick | None:
        """In step with the board (a token undone, a Reset elsewhere): the token shown if it is
        still offered, else the ``lowest`` one, else no pick at all."""
        if self.shown in candidates:
            return RedrawPick(tuple(candidates), list(candidates).index(self.shown))
        if candidates:
            return RedrawPick(tuple(candidates), lowest)
        return None

    @staticmethod
    def start(f: TableFacts, focus: str | None) -> RedrawPick | Notice:
        """The pick the Redraw button opens, on the focus hero's lowest token; or why none."""
        candidates, reason = redraw_candidates(f, focus)
        if not candidates:
            return reason
        return RedrawPick(tuple(candidates), lowest(candidates, f, focus))

    def view(self, f: TableFacts) -> RedrawView:
        hero, token = self.shown
        c = f.contribution(hero)
        drawn = next((t for t in (c.drawn if c else ()) if t.id == token), None)
        return {
            "hero": hero,
            "replace": token,
            "name": drawn.name if drawn else token,
            "value": drawn.value if drawn else None,
            "choices": [t for _, t in self.candidates],
        }


@dataclass(frozen=True, slots=True)
class FavorArm:
    """Call Favor pressed with ``call_favor = "token"``: the Favor token laid on the board is the
    call (P18). Ends when it arrives, or when the Performance does."""

    hero: str
    #: Favor tokens the hero had called when the button was pressed
    called: int

    def done(self, f: TableFacts) -> bool:
        c = f.contribution(self.hero)
        return c is None or c.favor > self.called or f.phase != "open"

    def view(self, f: TableFacts) -> FavorView:
        hero = f.hero(self.hero)
        name = hero.name if hero else self.hero
        return {
            "hero": self.hero,
            "armed": True,
            "prompt": f"{name} calls Favor: draw a token from the Favor Bag, lay it on the board",
        }


def focus_hero(f: TableFacts, turned_to: str | None, last_declared: str | None) -> str | None:
    """The hero a Redraw or a Favor call is for: the one turned to on the wheel, the last one
    declared, or the only one drawing (a hero whose declaration makes a check)."""
    return hero_meant([c.hero for c in f.contributions if c.checks], [turned_to, last_declared])


def redraw_candidates(f: TableFacts, focus: str | None) -> tuple[list[tuple[str, str]], Notice]:
    """Drawn tokens a Redraw may replace (P11: the engine's answer), focus hero first; and
    why there are none (the focus hero's refusal, if they have one)."""
    if f.phase != "open":
        return [], Notice("no Performance is running: nothing to Redraw", "P11")
    out = sorted(f.redraws, key=lambda c: c[0] != focus)  # stable: board order kept
    reason = Notice("nothing drawn yet to Redraw", "P11")
    refused = sorted(f.redraw_refusals.items(), key=lambda r: r[0] == focus)
    if refused:  # the focus hero's reason last, so it is the one shown
        why = refused[-1][1]
        reason = Notice(f"{why.message} — {why.fix}" if why.fix else why.message, why.rule)
    return out, reason


def lowest(candidates: Sequence[tuple[str, str]], f: TableFacts, focus: str | None) -> int:
    """The focus hero's lowest-value drawn token (the first of equals): the best Redraw for a
    plain "total ≥ Difficulty", so the pick opens on it. Values are the engine's."""
    pool = [i for i, (h, _) in enumerate(candidates) if h == focus] or list(range(len(candidates)))
    values = {(c.hero, t.id): t.value for c in f.contributions for t in c.drawn}
    return min(pool, key=lambda i: (values[candidates[i]], i))
