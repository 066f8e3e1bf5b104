"""Events in plain words, for the replay log, the demo and the WorldKeeper's console.

The core keeps the registry and says what every family shares (Undo); each rule
family registers the narrators of its own events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.contracts import events as ev
from engine.events import Event, EventKind
from engine.registry import Registry
from engine.state import TableState

P = TypeVar("P")

#: how to say one kind of event: the table and the event's payload, read as its TypedDict
Narrator = Callable[[TableState, P], str]
#: event name → its narrator; each registered through :func:`narrator` or :func:`say`, so the
#: payload a narrator reads is the contract's TypedDict of that event (mypy checks every key)
NARRATORS: Registry[Callable[[TableState, Any], str]] = Registry("narrator")


def narrator(kind: EventKind[P]) -> Callable[[Narrator[P]], Narrator[P]]:
    """``@narrator(ev.time_drawn)``: register how to say one event kind (other modules add
    theirs); the function's payload is that kind's TypedDict."""

    def register(fn: Narrator[P]) -> Narrator[P]:
        NARRATORS.add(kind.name, fn)
        return fn

    return register


def say(kind: EventKind[P], fn: Narrator[P]) -> None:
    """``say(ev.undone, lambda s, d: …)``: :func:`narrator` for a one-line lambda (``d`` is the
    kind's TypedDict)."""
    NARRATORS.add(kind.name, fn)


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


def _undone(s: TableState, d: ev.Undone) -> str:
    more = f"{d['remaining']} more can be undone"
    if "cmd" in d:
        return f"Undone {d['cmd']}: {d.get('what', '')} ({more})"
    return f"Undone ({more})"


say(ev.undone, _undone)
