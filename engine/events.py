"""Events: what a command did, for the display, MQTT, the journal and people."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``data`` holds only JSON values.

    >>> Event("token_drawn", {"hero": "aria", "value": 2}).to_json()
    {'type': 'token_drawn', 'hero': 'aria', 'value': 2}
    """

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        data = dict(obj)
        return cls(str(data.pop("type")), data)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


class EventKind(Generic[P]):
    """One event's name and payload shape (a ``TypedDict``); calling it builds the Event.

    The engine builds every event through one of these (``engine/contracts/events.py``
    holds them all), so mypy checks each payload against its shape where it is built, and
    the JSON Schema generated from the same shapes cannot drift from what is built. The
    payload is kept as given (no copy, keys in the order written): the JSON is unchanged.

    >>> from typing import TypedDict
    >>> class Drawn(TypedDict):
    ...     hero: str
    ...     value: int
    >>> EventKind("token_drawn", Drawn)({"hero": "aria", "value": 2}).to_json()
    {'type': 'token_drawn', 'hero': 'aria', 'value': 2}
    """

    __slots__ = ("name", "shape")

    def __init__(self, name: str, shape: type[P]) -> None:
        self.name = name
        self.shape = shape

    def __call__(self, data: P) -> Event:
        return Event(self.name, cast(dict[str, Any], data))

    def of(self, event: Event) -> P | None:
        """``event``'s payload read as this kind's shape, or None for an event of another kind:
        how a reader (a narrator, the record) takes an event, so that mypy checks every key it
        reads against the contract (a field renamed there is an error here, not a KeyError).

        >>> from typing import TypedDict
        >>> class Drawn(TypedDict):
        ...     hero: str
        >>> drawn = EventKind("token_drawn", Drawn)
        >>> drawn.of(Event("token_drawn", {"hero": "aria"}))
        {'hero': 'aria'}
        >>> drawn.of(Event("undone", {"remaining": 2})) is None
        True
        """
        return cast(P, event.data) if event.type == self.name else None

    def __repr__(self) -> str:
        return f"EventKind({self.name!r}, {getattr(self.shape, '__name__', self.shape)})"
