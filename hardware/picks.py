"""The wheel's two small side modes, as values: picking the token a Redraw replaces, and a Call
Favor armed until its token is laid (P11, P18).

Each is a frozen value the :class:`~hardware.wheel.Wheel` holds while the mode lasts (None
otherwise): an input returns the next value, so the wheel's state is a few plain fields and
:meth:`~hardware.wheel.Wheel.selection` can read it without changing anything.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.facts import TableFacts


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

    def command(self) -> dict[str, Any]:
        hero, token = self.shown
        return {"cmd": "redraw", "hero": hero, "replace": token}

    def followed(self, candidates: Sequence[tuple[str, str]], lowest: int) -> RedrawPick | None:
        """In step with the board (a token undone, a Reset elsewhere): the token shown if it is
        still offered, else the ``lowest`` one, else no pick at all."""
        if self.shown in candidates:
            return RedrawPick(tuple(candidates), list(candidates).index(self.shown))
        if candidates:
            return RedrawPick(tuple(candidates), lowest)
        return None

    def view(self, f: TableFacts) -> dict[str, Any]:
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

    def view(self, f: TableFacts) -> dict[str, Any]:
        hero = f.hero(self.hero)
        name = hero.name if hero else self.hero
        return {
            "hero": self.hero,
            "armed": True,
            "prompt": f"{name} calls Favor: draw a token from the Favor Bag, lay it on the board",
        }


@dataclass(frozen=True, slots=True)
class DialMemory:
    """What the wheel remembers between declarations: who declared last (the next hero is the
    one after), the last declaration sent (Undo puts it back on the wheel), the one waiting for
    the engine's Undo to be restored, and the last Difficulty begun (the ring starts there)."""

    last_declared: str | None = None
    last_dial: Mapping[str, Any] | None = None
    restore_after_undo: Mapping[str, Any] | None = None
    last_difficulty: int | None = None
