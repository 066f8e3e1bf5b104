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

#: the packages whose commands are built through the constructors (issue 40 item 1): none
#: writes a named command as a dict literal (the constructors themselves are the generated
#: engine/contracts/commands.py, left out)
PACKAGES = ("settings", "engine", "firmware_bridge", "tags", "hardware", "display", "companion")
#: the dict literals left, on purpose: a Declare template without an action (legal.py, a hero
#: with no Training), which no constructor can make since the action is required; the stand-in
#: for a journal entry whose command cannot be read (companion/mqtt/messages.py), no command
LEFT = {("engine/legal.py", "declare"), ("companion/mqtt/messages.py", "?")}


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
    """(file, command) of every dict literal with a "cmd" key naming a command in ``path`` (a
    name held in a variable is a command read or echoed, not one made here)."""
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text("utf-8"))):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == "cmd" and isinstance(v, ast.Constant):
                    found.append((path, v.value))
    return found


def test_the_producers_build_their_commands_through_the_constructors():
    """Every producer, the odds' advice (engine/performance/odds.py) among them."""
    paths = [
        str(p.relative_to(ROOT))
        for package in PACKAGES
        for p in sorted((ROOT / package).rglob("*.py"))
        if p != MODULE
    ]
    assert "engine/performance/odds.py" in paths
    literals = {hit for path in paths for hit in _dict_literals(path)}
    assert literals == LEFT


def test_the_advice_makes_each_move_with_the_vocabularys_own_command():
    """An advised move's ``command`` (docs/state.schema.json, ``Advice``) is one of the
    vocabulary's commands, one per move the odds advise, with the published fields: the pages'
    ``Advice["command"]`` is a ``Command`` they may send."""
    from engine.contracts.terms import AdviceActionName

    state = json.loads((ROOT / "docs" / "state.schema.json").read_text("utf-8"))
    options = state["$defs"]["Advice"]["properties"]["command"]["anyOf"]
    made = {}
    for option in options:
        typed = state["$defs"][option["$ref"].rpartition("/")[2]]
        made[typed["properties"]["cmd"]["const"]] = typed
    assert set(made) == set(typing.get_args(AdviceActionName))
    for name, typed in made.items():
        published = PUBLISHED[name]
        assert set(typed["properties"]) == set(published["properties"]), name
        assert set(typed["required"]) == set(published["required"]), name
        for key, prop in published["properties"].items():
            assert _property_types(typed["properties"][key]) == _property_types(prop), (name, key)
