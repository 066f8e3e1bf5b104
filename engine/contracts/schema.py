"""JSON Schemas (draft 2020-12) generated from the contracts' ``TypedDict``s.

``docs/state.schema.json`` (every retained MQTT state topic) and
``docs/events.schema.json`` (one ``…/events`` message) are written by
``rhuna-table schema --write docs`` beside ``commands.schema.json``, and a test
keeps them equal to what this module generates. The web project generates its
TypeScript types from them, so a key renamed here breaks its build.

>>> from typing import TypedDict
>>> class Point(TypedDict):
...     x: int
...     label: str | None
>>> schema_of(Point, {})
{'$ref': '#/$defs/Point'}
"""

import json
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, Required, Union, get_args, get_origin

from engine.contracts.events import AUDIENCE, AUDIENCES, EVENTS, NoticeMessage, WithheldMessage
from engine.contracts.view import RETAINED_SECTIONS, HeroView, TableView

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NONE = type(None)
#: keys the MQTT bridge adds to every event message (companion/mqtt/messages.py)
ENVELOPE: dict[str, Any] = {
    "seq": {"type": "integer", "minimum": 1, "description": "the event's sequence number"},
    "type": {"type": "string", "description": "the event's name"},
    "text": {"type": "string", "description": "the event in words"},
    "source": {"type": "string", "description": "where the command came from"},
    "at": {"type": "string", "description": "when (UTC, ISO 8601)"},
    "audience": {
        "enum": list(AUDIENCES),
        "description": "who may read it: worldkeeper (the remote and the CLI only), table (the"
        " table display too), public (the overlay and the wall too); pages filter by it",
    },
}


@dataclass(frozen=True, slots=True)
class Ref:
    """``Annotated[T, Ref("events.schema.json")]``: a value whose schema is another file's
    (T is what mypy sees). A reply's events are the events stream's messages."""

    uri: str


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of one annotation; a TypedDict goes into ``defs`` and is referenced."""
    if tp is Any:
        return {}
    if tp is _NONE or tp is None:
        return {"type": "null"}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    origin = get_origin(tp)
    if origin in (Required, NotRequired):
        return schema_of(get_args(tp)[0], defs)
    if origin is Annotated:
        refs = [m for m in tp.__metadata__ if isinstance(m, Ref)]
        return {"$ref": refs[0].uri} if refs else schema_of(tp.__origin__, defs)
    if origin is Literal:
        values = list(get_args(tp))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if origin is Union or origin is types.UnionType:
        options = [schema_of(a, defs) for a in get_args(tp)]
        return {"anyOf": options}
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return {"type": "array", "items": schema_of(item, defs)}
    if origin is dict:
        _, value = get_args(tp) or (str, Any)
        return {"type": "object", "additionalProperties": schema_of(value, defs)}
    if _is_typeddict(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder: a type that refers to itself stops here
            defs[name] = _object(tp, defs)
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _required(tp: Any, key: str, hint: Any) -> bool:
    """From the annotation itself: under ``from __future__ import annotations`` Python 3.11
    fills ``__required_keys__`` without seeing ``NotRequired``."""
    if get_origin(hint) is NotRequired:
        return False
    if get_origin(hint) is Required:
        return True
    return key in tp.__required_keys__


def _object(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(tp, include_extras=True)
    out: dict[str, Any] = {"title": tp.__name__}
    doc = tp.__dict__.get("__doc__")
    if doc and not doc.startswith(tp.__name__ + "("):  # the functional syntax's default doc
        out["description"] = " ".join(doc.split())
    out["type"] = "object"
    out["properties"] = {k: schema_of(v, defs) for k, v in hints.items()}
    out["required"] = [k for k, v in hints.items() if _required(tp, k, v)]
    out["additionalProperties"] = False
    return out


def state_schema() -> dict[str, Any]:
    """Every retained state topic: ``…/state`` is the whole view; ``$defs`` names the rest."""
    defs: dict[str, Any] = {}
    root = schema_of(TableView, defs)
    schema_of(HeroView, defs)
    topics = {"state": root, "heroes/<id>": {"$ref": "#/$defs/HeroView"}}
    for name, tp in RETAINED_SECTIONS.items():
        topics[name] = {"anyOf": [schema_of(tp, defs), {"type": "null"}]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rhuna-table/state.schema.json",
        "title": "Rhuna table state (the retained MQTT topics)",
        "description": "The payload of rhuna/<table>/state. The payload of every other retained"
        " topic rhuna/<table>/<topic> is x-topics.<topic>.",
        **root,
        "x-topics": topics,
        "$defs": dict(sorted(defs.items())),
    }


def events_schema() -> dict[str, Any]:
    """One ``…/events`` message: the envelope plus one event's payload, by ``type``."""
    defs: dict[str, Any] = {}
    variants = []
    for name, tp in EVENTS.items():
        ref = schema_of(tp, defs)
        payload = defs[ref["$ref"].rpartition("/")[2]]
        props = {**ENVELOPE, "type": {"const": name}}
        if "audience" not in tp.__annotations__:  # else its own (a note's), one of AUDIENCES
            props["audience"] = {
                **ENVELOPE["audience"],
                "enum": [AUDIENCE.get(name, "public")],
            }
        own = "audience" in tp.__annotations__  # a note's: the envelope's audience is it
        for key, value in payload["properties"].items():
            if own and key == "audience":
                props["audience"] = {**ENVELOPE["audience"], **value}
                continue
            # an event key the envelope already uses is sent as event_<key> (messages.py)
            props[f"event_{key}" if key in ENVELOPE else key] = value
        required = [
            "seq",
            "type",
            *(
                f"event_{k}" if k in ENVELOPE else k
                for k in payload["required"]
                if not (own and k == "audience")
            ),
        ]
        variants.append(
            {
                "title": name,
                "type": "object",
                "properties": props,
                "required": [*required, "text", "source", "at", "audience"],
                "additionalProperties": False,
            }
        )
    # not an engine event: a notice about the table, with no seq
    variants.append(schema_of(NoticeMessage, defs))
    # an event only the WorldKeeper may read, withheld: its seq and no words
    variants.append(schema_of(WithheldMessage, defs))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rhuna-table/events.schema.json",
        "title": "Rhuna table event (one rhuna/<table>/events message)",
        "description": "An engine event (with its seq), or a notice about the table (type"
        " notice: no seq, never journaled; gap detection ignores it), or an event withheld"
        " (type withheld: its seq, no words; the event is on …/gm_events).",
        "oneOf": variants,
        "$defs": dict(sorted(defs.items())),
    }


def payload_schema(event_type: str) -> dict[str, Any]:
    """The schema of one event's ``Event.data`` (for tests of the engine's own events)."""
    defs: dict[str, Any] = {}
    ref = schema_of(EVENTS[event_type], defs)
    return {**defs[ref["$ref"].rpartition("/")[2]], "$defs": defs}


def dumps(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
