"""Events: what a command did, for the display, MQTT, the journal and people."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
