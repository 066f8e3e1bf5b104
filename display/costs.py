"""What a Performance cost each hero, gathered from the engine's events (P9, P13–P15, P18).

The view shows health as it is *now*; the panel also has to say what just
changed ("+2 Fatigue → 1 Strain"), which only the events know. A
:class:`CostLedger` listens to the event stream the table loop already has,
adds up Fatigue, Strain and Wounds per hero since the Performance began, and
starts over at the next one. Favor spent needs no ledger: the view lists the
Favor tokens on the Draw Board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class HeroCost:
    """One hero's health changes, kept as the cascade they happened in (P13, P14)."""

    #: Fatigue added, including any that then overflowed
    fatigue: int = 0
    #: times Fatigue overflowed into 1 Strain (P13)
    fatigue_overflows: int = 0
    #: of those, times the Strain track was full and became 1 Wound (P14)
    chained_wounds: int = 0
    #: Strain added directly (Time, Rest), including any that overflowed
    strain: int = 0
    #: times a direct Strain overflowed into 1 Wound
    strain_overflows: int = 0
    #: Wounds added directly
    wounds: int = 0

    def describe(self) -> list[str]:
        """``["+2 Fatigue → 1 Strain"]``, ``["+2 Fatigue → Strain full → 1 Wound"]`` …"""
        out = []
        if self.fatigue:
            text = f"+{self.fatigue} Fatigue"
            if self.chained_wounds:
                text += f" → Strain full → {_count(self.chained_wounds, 'Wound')}"
            elif self.fatigue_overflows:
                text += f" → {_count(self.fatigue_overflows, 'Strain')}"
            out.append(text)
        if self.strain:
            text = f"+{self.strain} Strain"
            if self.strain_overflows:
                text += f" → Strain full → {_count(self.strain_overflows, 'Wound')}"
            out.append(text)
        if self.wounds:
            out.append(f"+{_count(self.wounds, 'Wound')}")
        return out

    @property
    def empty(self) -> bool:
        return not (self.fatigue or self.strain or self.wounds)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _event(e: Any) -> tuple[str, Mapping[str, Any]]:
    if isinstance(e, Mapping):
        return str(e.get("type")), e
    return str(e.type), e.data


def costs_from_events(events: Iterable[Any]) -> dict[str, HeroCost]:
    """Sum the health events (``engine.Event`` objects or their JSON) per hero, in order."""
    out: dict[str, HeroCost] = {}
    # heroes whose Fatigue just overflowed: the Strain step that follows is part of that chain
    overflowing: set[str] = set()
    for e in events:
        kind, data = _event(e)
        hero = data.get("hero")
        if not isinstance(hero, str):
            continue
        c = out.get(hero, HeroCost())
        chained = hero in overflowing
        overflowing.discard(hero)
        if kind == "fatigue_gained":
            c = replace(c, fatigue=c.fatigue + int(data.get("amount") or 0))
        elif kind == "fatigue_overflow":
            c = replace(
                c,
                fatigue=c.fatigue + int(data.get("added") or 0),
                fatigue_overflows=c.fatigue_overflows + 1,
            )
            overflowing.add(hero)
        elif kind == "strain_gained":
            if data.get("cause") != "fatigue overflow":
                c = replace(c, strain=c.strain + 1)
        elif kind == "strain_overflow":
            if chained:
                c = replace(c, chained_wounds=c.chained_wounds + 1)
            else:
                c = replace(c, strain=c.strain + 1, strain_overflows=c.strain_overflows + 1)
        elif kind == "wound_gained":
            if data.get("cause") != "strain overflow":
                c = replace(c, wounds=c.wounds + 1)
        else:
            continue
        out[hero] = c
    return out


class CostLedger:
    """Costs since the current Performance began; feed it every event batch the loop produces.

    >>> ledger = CostLedger()
    >>> ledger.feed([{"type": "performance_started"}, {"type": "fatigue_gained", "hero": "aria", "amount": 2}])
    >>> ledger.costs["aria"].describe()
    ['+2 Fatigue']
    """

    def __init__(self) -> None:
        self._events: list[Any] = []
        self.costs: dict[str, HeroCost] = {}

    def feed(self, events: Iterable[Any]) -> None:
        for e in events:
            kind, _ = _event(e)
            if kind in ("performance_started", "performance_reset", "performance_cancelled"):
                self._events = []
            else:
                self._events.append(e)
        self.costs = costs_from_events(self._events)
