"""Lossless conversion between the engine's frozen dataclasses and JSON values, and the one
JSON text every output writes.

States are trees of frozen dataclasses, tuples, ``dict[str, …]`` maps, enums
and scalars. One generic codec, driven by the type hints, keeps "state → JSON →
state is the identity" true for every module (Performance, Time, combat)
without each writing its own ``to_json``. :func:`dumps` is the JSON text of the
companion's outputs (the MQTT messages, the command source's refusals): here, below both
the table loop and the bridge, so that neither borrows it from the other.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")

_NONE = type(None)


def to_data(value: Any) -> Any:
    """Turn an engine value into plain JSON data (dicts, lists, str, int, bool, None)."""
    if value is None or isinstance(value, bool | int | str | float):
        if isinstance(value, enum.Enum):
            return value.value
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in _fields(type(value))}
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(to_data(v) for v in value)
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    raise TypeError(f"cannot encode {type(value).__name__}")


def from_data(cls: type[T], data: Any) -> T:
    """Rebuild a value of type ``cls`` from :func:`to_data` output."""
    return typing.cast(T, _decode(cls, data))


def from_data_shared(cls: type[T], data: dict[str, Any], memo: dict[tuple[str, str], Any]) -> T:
    """:func:`from_data` for one of many values of the dataclass ``cls`` that share most
    fields (a state and its Undo steps): a field whose JSON equals one decoded before, with
    the same ``memo``, is that same (immutable) object, decoded once.

    >>> from engine.tokens import Token
    >>> memo = {}
    >>> a = from_data_shared(Token, {"id": "t", "kind": "ember", "bag": "b", "name": "T"}, memo)
    >>> b = from_data_shared(Token, {"id": "t", "kind": "ember", "bag": "c", "name": "T"}, memo)
    >>> a.id is b.id, a.bag == b.bag
    (True, False)
    """
    tp: Any = cls
    hints = _hints(tp)
    kwargs = {}
    for f in _fields(tp):
        if f.name in data:
            key = (f.name, json.dumps(data[f.name], separators=(",", ":")))
            if key not in memo:
                memo[key] = _decode(hints[f.name], data[f.name])
            kwargs[f.name] = memo[key]
    return cls(**kwargs)


@functools.cache
def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls)


#: the rule families' state types, by name, for the core's annotations that name them
#: (``TableState.time: TimeBoard | None``) without importing the family
_FAMILY_TYPES: dict[str, type] = {}


def state_type(cls: type[T]) -> type[T]:
    """Register a rule family's state type (a class decorator), so the core can decode it.

    The core's :class:`~engine.state.TableState` names ``TimeBoard`` and ``Combat``
    only for the type checker: the core imports no family. Each family's state
    module registers its type here when ``import engine`` loads the family.
    """
    _FAMILY_TYPES[cls.__name__] = cls
    return cls


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, localns=_FAMILY_TYPES)


def _decode(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return data
    if origin is typing.Union or origin is types.UnionType:
        args = typing.get_args(tp)
        if data is None and _NONE in args:
            return None
        non_none = [a for a in args if a is not _NONE]
        if len(non_none) == 1:
            return _decode(non_none[0], data)
        for a in non_none:  # scalars only: first that accepts
            if isinstance(a, type) and isinstance(data, a):
                return data
        raise TypeError(f"cannot decode {data!r} as {tp}")
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in data)
        return tuple(_decode(a, v) for a, v in zip(args, data, strict=True))
    if origin in (frozenset, set):
        (arg,) = typing.get_args(tp)
        return frozenset(_decode(arg, v) for v in data)
    if origin is dict or origin is collections.abc.Mapping:
        _, vt = typing.get_args(tp)
        return {k: _decode(vt, v) for k, v in data.items()}
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return tp(data)
        if dataclasses.is_dataclass(tp):
            hints = _hints(tp)
            kwargs = {}
            for f in _fields(tp):
                if f.name in data:
                    kwargs[f.name] = _decode(hints[f.name], data[f.name])
            return tp(**kwargs)
        if tp is float and isinstance(data, int):
            return float(data)
        if tp in (int, str, bool, float):
            return data
    raise TypeError(f"cannot decode type {tp!r}")


#: one JSON encoder per separators (json.JSONEncoder keeps no state between calls)
_ENCODERS: dict[tuple[str, str] | None, json.JSONEncoder] = {}


def dumps(obj: Any, separators: tuple[str, str] | None = None) -> str:
    """JSON with non-ASCII kept as is, unless UTF-8 cannot carry it (a lone surrogate quoted
    back in a refusal): then escaped, so every answer can be written or published."""
    encoder = _ENCODERS.get(separators)
    if encoder is None:  # json.dumps would build an encoder for every call
        encoder = _ENCODERS[separators] = json.JSONEncoder(
            ensure_ascii=False, separators=separators
        )
    text = encoder.encode(obj)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(obj, separators=separators)
    return text
