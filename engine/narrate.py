"""Events in plain words, for the replay log, the demo and the WorldKeeper's console.

The core keeps the registry and says what every family shares (Undo); each rule
family registers the narrators of its own events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.events import Event
from engine.registry import Registry
from engine.state import TableState

Narrator = Callable[[TableState, dict[str, Any]], str]
NARRATORS: Registry[Narrator] = Registry("narrator")


def narrator(kind: str) -> Callable[[Narrator], Narrator]:
    """Register how to say one event type (other modules add theirs)."""
    return NARRATORS.decorator(kind)


def describe(state: TableState, event: Event) -> str:
    """One line for a person; unknown event types fall back to their data."""
    fn = NARRATORS.get(event.type)
    if fn is not None:
        return fn(state, event.data)
    data = ", ".join(f"{k}={v}" for k, v in event.data.items())
    return f"{event.type.replace('_', ' ')}: {data}" if data else event.type.replace("_", " ")


def hero_name(state: TableState, hero: str) -> str:
    """The hero's name as the table file gives it; the id itself for one not (or no longer) seated."""
    h = state.heroes.get(hero)
    return h.name if h else hero


def signed(v: int) -> str:
    return f"{v:+d}"


NARRATORS.add("undone", lambda s, d: f"Undone ({d['remaining']} more can be undone)")
