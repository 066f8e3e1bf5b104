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
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import CommandRejected, malformed
from engine.registry import Registry
from engine.rules import bound, shipped_rules

if TYPE_CHECKING:
    from engine.events import Event
    from engine.state import TableState

TRANSPORT_FIELDS = frozenset({"id", "source"})

#: the input limits of the rules data (``[limits]``: every command, from every source), and
#: why each is what it is; shipped values only (engine.rules.check_rules: a table cannot
#: change them, so the published schema holds for every table)
LIMITS: Mapping[str, int] = {
    k: v for k, v in shipped_rules()["limits"].items() if isinstance(v, int)
}
LIMITS_WHY: Mapping[str, str] = dict(shipped_rules()["limits"]["why"])
#: the shipped rules data: the bounds the published schema states (a table's own may be
#: higher, up to each bound's ceiling: ``[bounds]``, engine.rules.check_bounds)
SHIPPED: Mapping[str, Any] = shipped_rules()

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
    #: the rules data's ``[bounds.<name>]`` that bounds an integer, or an integer array's
    #: items (a die: ``die``), by a rule; the table's own rules decide (up to the ceiling)
    bound: str | None = None
    #: the ``[bounds.<name>]`` that bounds how many items an array holds (entered dice:
    #: ``roll``); every array is at least bounded by ``limits.array_items``
    length: str | None = None
    #: the rule a refusal cites when the bound serves several rules (a die of the DAMAGE
    #: roll: C8); else the bound's own rule, else the command's first
    rule: str | None = None

    @property
    def bounds(self) -> tuple[int | None, int | None]:
        """The smallest and largest value an integer field takes under the shipped rules
        (None: not an integer)."""
        return self.bounds_in(SHIPPED)

    def bounds_in(self, rules: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The smallest and largest value an integer field takes under ``rules``."""
        if self.type != "integer":
            return None, None
        return self._range(rules)

    def _range(self, rules: Mapping[str, Any]) -> tuple[int, int]:
        cap = LIMITS[self.limit]
        low, high = -cap, cap
        if self.bound is not None:
            b_low, b_high = bound(rules, self.bound)
            low, high = max(low, b_low), min(high, b_high)
        if self.minimum is not None:
            low = max(low, self.minimum)
        if self.maximum is not None:
            high = min(high, self.maximum)
        return low, high

    def item_bounds_in(self, rules: Mapping[str, Any]) -> tuple[int, int] | None:
        """The smallest and largest item of an integer array (None: not bounded so)."""
        if self.type != "array" or self.items != "integer" or self.bound is None:
            return None
        return self._range(rules)

    def length_in(self, rules: Mapping[str, Any]) -> int:
        """How many items an array may hold under ``rules``."""
        most = LIMITS["array_items"]
        return most if self.length is None else min(most, bound(rules, self.length)[1])

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.items is not None:
            out["items"] = {"type": self.items}
            item = self.item_bounds_in(SHIPPED)
            if item is not None:
                out["items"].update(minimum=item[0], maximum=item[1])
            out["maxItems"] = self.length_in(SHIPPED)
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
    #: True for a command Undo does not reach back past (``start_session``: the carried
    #: values and the last session come before it); it leaves no Undo history behind it
    undo_floor: bool = False


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


#: a handler as a rules module writes it: it reads its command's ``<Name>Args`` (the parsed
#: :attr:`Command.args`, engine/contracts/commands.py), so a field renamed there is a mypy error
#: where the handler reads it
_H = TypeVar("_H", bound=Callable[["TableState", Any], "tuple[TableState, list[Event]]"])


def command(spec: CommandSpec) -> Callable[[_H], _H]:
    """Register ``handler`` as the way to apply ``spec.name``."""

    def register(handler: _H) -> _H:
        REGISTRY.add(spec.name, (spec, handler))
        return handler

    return register


def parse_command(obj: Any, rules: Mapping[str, Any] | None = None) -> Command:
    """Validate a JSON object against the vocabulary; raise CommandRejected if it does not fit.

    ``rules`` is the table's rules data (``state.rules``): its ``[bounds]`` bound the numbers
    (a table may raise a bound up to its ceiling); None: the shipped bounds. A
    :class:`Command` already parsed is checked again against ``rules``' bounds.
    """
    if isinstance(obj, Command):
        if rules is not None:
            spec = REGISTRY[obj.name][0]
            for key, value in obj.args.items():
                f = spec.fields.get(key)
                if f is not None and value is not None:
                    _check_bounds(spec, key, f, value, rules)
        return obj
    rules = SHIPPED if rules is None else rules
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
        args[key] = _check(spec, key, f, value, rules)
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


def _check(spec: CommandSpec, key: str, f: Field, value: Any, rules: Mapping[str, Any]) -> Any:
    name = spec.name
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
            if not isinstance(v, _TYPES[f.items]) or (f.items == "integer" and isinstance(v, bool)):
                raise malformed(f"{name}: every {key} item must be {f.items}", field=key)
        value = tuple(value)
    _check_bounds(spec, key, f, value, rules)
    return value


def _check_bounds(
    spec: CommandSpec, key: str, f: Field, value: Any, rules: Mapping[str, Any]
) -> None:
    """Refuse a number (or an array's items and length) outside the field's bounds."""
    name = spec.name
    if f.type == "array":
        if f.length is not None and len(value) > f.length_in(rules):
            most = f.length_in(rules)
            raise _out_of_bound(spec, key, f, f.length, f" has {len(value)} items,", rules, most)
        item = f.item_bounds_in(rules)
        if item is not None:
            for v in value:
                if not item[0] <= v <= item[1]:
                    raise _out_of_bound(spec, key, f, f.bound, f" item {v}", rules)
    if f.type == "integer":
        low, high = f._range(rules)
        if low <= value <= high:
            return
        if f.bound is not None:
            b_low, b_high = bound(rules, f.bound)
            if not b_low <= value <= b_high:
                raise _out_of_bound(spec, key, f, f.bound, f" = {value}", rules)
        if value < low:
            raise _out_of_range(name, key, f, f"≥ {low}", low == -LIMITS[f.limit])
        raise _out_of_range(name, key, f, f"≤ {high}", high == LIMITS[f.limit])


def _out_of_bound(
    spec: CommandSpec,
    key: str,
    f: Field,
    which: str | None,
    what: str,
    rules: Mapping[str, Any],
    most: int | None = None,
) -> Exception:
    """A refusal naming the field, the bound, its rule id and the fix (``[bounds.<which>]``)."""
    assert which is not None
    entry = rules["bounds"][which]
    shipped = SHIPPED["bounds"][which]
    rule = f.rule or entry.get("rule") or (spec.rules[0] if spec.rules else None)
    low, high = bound(rules, which)
    ceiling = int(shipped["ceiling"])
    if most is not None:  # an array's length
        where, want = f"more than {most}", f"list at most {most}"
    else:
        where, want = f"is outside {low} to {high}", f"use {low} to {high}"
    if isinstance(shipped["maximum"], str):
        tail = f"; the table's rules.{shipped['maximum'].lstrip('-')} sets it (at most {ceiling})"
    elif ceiling > high:
        tail = f"; a table may raise [rules.bounds.{which}] maximum up to {ceiling}"
    else:
        tail = ""
    return CommandRejected(
        f"{spec.name}: {key}{what} {where} ({rule}, bounds.{which})",
        rule=rule,
        field=key,
        fix=f"{want}: {entry['why']}{tail}",
        code=str(entry.get("code", "malformed")),
    )


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
