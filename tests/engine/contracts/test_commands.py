"""engine/contracts/commands.py: one TypedDict per command, equal to the command specs and to
docs/commands.schema.json, the constructors every Python producer builds its commands with, and
the parsed arguments every handler reads."""

from __future__ import annotations

import ast
import json
import typing

import pytest

from engine.codegen import MODULE, commands_module
from engine.contracts import commands
from engine.contracts.schema import schema_of
from engine.vocabulary import REGISTRY, TRANSPORT_FIELDS
from tests.harness import ROOT

PUBLISHED = {
    v["title"]: v
    for v in json.loads((ROOT / "docs" / "commands.schema.json").read_text("utf-8"))["oneOf"]
}

#: the Python producers of commands (issue 40 item 1): none writes a command as a dict literal
PRODUCERS = (
    "tags/commands.py",
    "hardware/moves.py",
    "hardware/dial.py",
    "hardware/picks.py",
    "companion/record/carry.py",
    "engine/legal.py",
    "companion/cli/odds.py",
    "companion/cli/note.py",
    "engine/performance/questions.py",
)
#: the one dict literal left, on purpose: a Declare template without an action (legal.py, a
#: hero with no Training), which no constructor can make since the action is required
LEFT = {("engine/legal.py", "declare")}


def test_the_generated_module_is_current():
    assert MODULE.read_text("utf-8") == commands_module(), (
        "engine/contracts/commands.py is stale: .venv/bin/python -m engine.codegen"
    )


def _property_types(schema: dict) -> dict:
    """A property's JSON type, as both sides state it (the rest, bounds and words, is the
    published schema's alone)."""
    if "const" in schema:
        return {"const": schema["const"]}
    if "anyOf" in schema:  # id: a string or an integer
        return {"type": sorted(o["type"] for o in schema["anyOf"])}
    if isinstance(schema.get("type"), list):
        return {"type": sorted(schema["type"])}
    out = {"type": schema["type"]}
    if "items" in schema:
        out["items"] = schema["items"].get("type")
    return out


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_commands_typeddict_is_its_spec_and_its_published_schema(name):
    spec = REGISTRY[name][0]
    typed = commands.COMMANDS[name]
    defs: dict = {}
    ref = schema_of(typed, defs)
    ours = defs[ref["$ref"].rpartition("/")[2]]
    published = PUBLISHED[name]
    assert set(ours["properties"]) == set(published["properties"]), name
    assert set(ours["required"]) == set(published["required"]), name
    for key, prop in published["properties"].items():
        assert _property_types(ours["properties"][key]) == _property_types(prop), (name, key)
    # and the spec itself: every field, required as it says, and the transport fields
    assert set(typing.get_type_hints(typed)) == {"cmd", *spec.fields, *TRANSPORT_FIELDS}
    required = {k for k, f in spec.fields.items() if f.required}
    assert set(ours["required"]) == {"cmd", *required}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_handler_reads_its_commands_args(name):
    """The consumer's side: a handler's ``args`` is its command's ``<Name>Args``, every field of
    the spec, as parse_command hands them over (a field without a default may be None)."""
    spec, handler = REGISTRY[name]
    cls = "".join(part.title() for part in name.split("_"))
    args = getattr(commands, f"{cls}Args")
    assert typing.get_type_hints(handler)["args"] is args, handler
    hints = typing.get_type_hints(args)
    assert list(hints) == list(spec.fields)
    for key, f in spec.fields.items():
        optional = type(None) in typing.get_args(hints[key])
        assert optional == (not f.required and f.default is None), (name, key)


def test_a_constructor_returns_the_fields_in_the_order_given():
    made = commands.declare(hero="aria", shade="control", capability="skill", action="target")
    made["exert"] = True
    assert list(made.items()) == [
        ("cmd", "declare"),
        ("hero", "aria"),
        ("shade", "control"),
        ("capability", "skill"),
        ("action", "target"),
        ("exert", True),
    ]
    assert commands.adjust_hero(hero="bren", wounds=1, cause="carried") == {
        "cmd": "adjust_hero",
        "hero": "bren",
        "wounds": 1,
        "cause": "carried",
    }
    assert list(commands.adjust_hero(hero="bren", wounds=1, cause="c")) == [
        "cmd",
        "hero",
        "wounds",
        "cause",
    ]


def _dict_literals(path: str) -> list[tuple[str, str]]:
    """(file, command) of every dict literal with a "cmd" key in ``path``."""
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text("utf-8"))):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == "cmd":
                    found.append((path, v.value if isinstance(v, ast.Constant) else "?"))
    return found


def test_the_producers_build_their_commands_through_the_constructors():
    literals = {hit for path in PRODUCERS for hit in _dict_literals(path)}
    assert literals == LEFT
