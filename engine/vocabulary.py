"""The one command vocabulary: every input (hardware, MQTT, scripts, CLI) speaks it.

A command is a JSON object ``{"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}``.
Each command is declared once here, as a :class:`CommandSpec`, together with the
handler that applies it. The same specs validate incoming JSON, generate the
JSON Schema in ``docs/`` and list the vocabulary for people, so the three can
never disagree.

Transport fields (``id`` for a request id, ``source`` for where it came from)
are accepted and ignored by the engine: the MQTT bridge echoes ``id`` in its
reply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.errors import malformed
from engine.registry import Registry
from engine.rules import default_rules

if TYPE_CHECKING:
    from engine.events import Event
    from engine.state import TableState

TRANSPORT_FIELDS = frozenset({"id", "source"})

#: the input limits of the rules data (``[limits]``: every command, from every source), and
#: why each is what it is; shipped values only (engine.rules.check_rules: a table cannot
#: change them, so the published schema holds for every table)
LIMITS: Mapping[str, int] = {
    k: v for k, v in default_rules()["limits"].items() if isinstance(v, int)
}
LIMITS_WHY: Mapping[str, str] = dict(default_rules()["limits"]["why"])

#: JSON type names used by :class:`Field` → the Python types they accept.
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list, tuple),
}


#: how a type error's fix names the expected type
_AS: dict[str, str] = {
    "string": 'text in quotes, e.g. "aria"',
    "integer": "a whole number without quotes, e.g. 5",
    "boolean": "true or false",
    "object": "an object, e.g. {}",
    "array": "a list, e.g. []",
}


@dataclass(frozen=True, slots=True)
class Field:
    """One argument of a command, as JSON Schema sees it."""

    type: str
    description: str
    required: bool = False
    enum: tuple[str, ...] | None = None
    items: str | None = None  # element type for arrays
    minimum: int | None = None
    maximum: int | None = None
    default: Any = None
    #: the ``[limits]`` key that bounds an integer both ways (``amount``: a change to a
    #: track); every integer is at least bounded by ``limits.integer``
    limit: str = "integer"

    @property
    def bounds(self) -> tuple[int | None, int | None]:
        """The smallest and largest value an integer field takes (None: not an integer)."""
        if self.type != "integer":
            return None, None
        cap = LIMITS[self.limit]
        low = -cap if self.minimum is None else max(self.minimum, -cap)
        high = cap if self.maximum is None else min(self.maximum, cap)
        return low, high

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.items is not None:
            out["items"] = {"type": self.items}
            out["maxItems"] = LIMITS["array_items"]
        if self.type == "string" and self.enum is None:
            out["maxLength"] = LIMITS["string_length"]
        low, high = self.bounds
        if low is not None:
            out["minimum"] = low
        if high is not None:
            out["maximum"] = high
        if self.default is not None:
            out["default"] = self.default
        return out


Handler = Callable[["TableState", Mapping[str, Any]], "tuple[TableState, list[Event]]"]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A command's name, what it is for, the rules it applies and its fields."""

    name: str
    summary: str
    group: str
    rules: tuple[str, ...] = ()
    fields: Mapping[str, Field] = field(default_factory=dict)
    #: False for commands that change nothing in the game (undo is handled by apply).
    records_history: bool = True


@dataclass(frozen=True, slots=True)
class Command:
    """A validated command: its name and its arguments (defaults filled in)."""

    name: str
    args: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"cmd": self.name, **self.args}

    def __getitem__(self, key: str) -> Any:
        return self.args[key]


#: name → (spec, handler); filled by the ``@command`` decorator in each rules module.
REGISTRY: Registry[tuple[CommandSpec, Handler]] = Registry("command")


def command(spec: CommandSpec) -> Callable[[Handler], Handler]:
    """Register ``handler`` as the way to apply ``spec.name``."""

    def register(handler: Handler) -> Handler:
        REGISTRY.add(spec.name, (spec, handler))
        return handler

    return register


def parse_command(obj: Any) -> Command:
    """Validate a JSON object against the vocabulary; raise CommandRejected if it does not fit."""
    if isinstance(obj, Command):
        return obj
    if not isinstance(obj, Mapping):
        raise malformed(
            f"a command must be a JSON object, not {type(obj).__name__}",
            fix='send {"cmd": "<name>", ...}',
        )
    name = obj.get("cmd")
    if not isinstance(name, str):
        raise malformed("missing command name", field="cmd", fix='add "cmd": "<name>"')
    if name not in REGISTRY:
        raise malformed(
            f"unknown command {name!r}",
            field="cmd",
            fix="see docs/commands.md for the vocabulary",
        )
    spec = REGISTRY[name][0]
    args: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "cmd" or key in TRANSPORT_FIELDS:
            continue
        f = spec.fields.get(key)
        if f is None:
            known = ", ".join(sorted(spec.fields)) or "none"
            raise malformed(
                f"{name}: unknown field {key!r}", field=key, fix=f"fields of {name}: {known}"
            )
        args[key] = _check(name, key, f, value)
    for key, f in spec.fields.items():
        if key not in args:
            if f.required:
                raise malformed(
                    f"{name}: missing required field {key!r}",
                    field=key,
                    fix=f"add {key!r}: {f.description}",
                )
            args[key] = f.default
    return Command(name, args)


def _check(name: str, key: str, f: Field, value: Any) -> Any:
    if value is None and not f.required:
        return f.default
    ok = isinstance(value, _TYPES[f.type]) and not (f.type == "integer" and isinstance(value, bool))
    if not ok:
        raise malformed(
            f"{name}: field {key!r} must be {f.type}, got {type(value).__name__}",
            field=key,
            fix=f"give {key} as {_AS[f.type]} ({f.description})",
        )
    if f.enum is not None and value not in f.enum:
        raise malformed(
            f"{name}: {key}={value!r} is not one of {', '.join(f.enum)}",
            field=key,
            fix=f"use one of: {', '.join(f.enum)}",
        )
    if f.type == "string" and len(value) > LIMITS["string_length"]:
        raise _beyond(name, key, f"holds {len(value)} characters", "string_length")
    if f.type == "array":
        assert f.items is not None
        if len(value) > LIMITS["array_items"]:
            raise _beyond(name, key, f"has {len(value)} items", "array_items")
        for v in value:
            if not isinstance(v, _TYPES[f.items]):
                raise malformed(f"{name}: every {key} item must be {f.items}", field=key)
        value = tuple(value)
    if f.type == "integer":
        low, high = f.bounds
        if low is not None and value < low:
            raise _out_of_range(name, key, f, f"≥ {low}", low == -LIMITS[f.limit])
        if high is not None and value > high:
            raise _out_of_range(name, key, f, f"≤ {high}", high == LIMITS[f.limit])
    return value


def _out_of_range(name: str, key: str, f: Field, bound: str, by_limit: bool) -> Exception:
    if not by_limit:  # the field's own range (a Difficulty, a count that starts at 1)
        return malformed(f"{name}: {key} must be {bound}", field=key, fix=f.description)
    return malformed(
        f"{name}: {key} must be {bound} (limits.{f.limit})",
        field=key,
        fix=f"{LIMITS_WHY[f.limit]}; send several commands for a larger change",
    )


def _beyond(name: str, key: str, what: str, limit: str) -> Exception:
    return malformed(
        f"{name}: {key} {what}, more than {LIMITS[limit]} (limits.{limit})",
        field=key,
        fix=LIMITS_WHY[limit],
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every command, generated from the specs."""
    variants = []
    for name, (spec, _) in sorted(REGISTRY.items()):
        props: dict[str, Any] = {"cmd": {"const": name}}
        props.update({k: f.schema() for k, f in spec.fields.items()})
        props["id"] = {"type": ["string", "integer"], "description": "request id, echoed"}
        props["source"] = {"type": "string", "description": "where the command came from"}
        variants.append(
            {
                "title": name,
                "description": spec.summary
                + (f" Rules: {', '.join(spec.rules)}." if spec.rules else ""),
                "type": "object",
                "properties": props,
                "required": ["cmd", *[k for k, f in spec.fields.items() if f.required]],
                "additionalProperties": False,
            }
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rhuna-table/commands.schema.json",
        "title": "Rhuna table command",
        "oneOf": variants,
    }
