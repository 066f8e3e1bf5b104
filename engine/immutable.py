"""A fast ``replace`` for the engine's frozen, slotted dataclasses.

``dataclasses.replace`` re-runs ``__init__`` (and, for frozen classes, one
``object.__setattr__`` per field through the generated code) and was 60 % of
``apply()``'s time. None of the engine's value classes has ``__post_init__`` or
init-only fields, so copying the slots directly gives the same value at about
half the cost. Anything else falls back to ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, tuple[str, ...] | None] = {}
_set = object.__setattr__


def _plain_fields(cls: type) -> tuple[str, ...] | None:
    """The field names when a slot copy is equivalent to __init__, else None."""
    if cls not in _FIELDS:
        ok = (
            dataclasses.is_dataclass(cls)
            and "__slots__" in cls.__dict__
            and not hasattr(cls, "__post_init__")
            and all(f.init for f in dataclasses.fields(cls))
        )
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)) if ok else None
    return _FIELDS[cls]


def replace(obj: T, /, **changes: Any) -> T:
    """Like :func:`dataclasses.replace`, for the engine's immutable values."""
    cls = type(obj)
    names = _FIELDS.get(cls) if cls in _FIELDS else _plain_fields(cls)
    if names is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for key in changes:
        if key not in names:
            raise TypeError(f"{cls.__name__} has no field {key!r}")
    new = object.__new__(cls)
    for name in names:
        _set(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
