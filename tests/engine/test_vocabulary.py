"""The one command vocabulary: validation, error objects, and the generated docs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from engine import CommandRejected, apply, json_schema, parse_command
from engine.docs import commands_markdown, schema_json
from tests.harness import ROOT

SESSION = ROOT / "examples" / "session.jsonl"


def session_commands(path: Path = SESSION) -> list[dict]:
    lines = path.read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


def test_docs_are_generated_from_the_current_specs():
    """Regenerate with `rhuna-table schema --write docs` when this fails."""
    assert (ROOT / "docs" / "commands.schema.json").read_text() == schema_json()
    assert (ROOT / "docs" / "commands.md").read_text() == commands_markdown()


def test_the_schema_accepts_every_command_of_the_example_session():
    """The Performance part and the whole day (P1–P23, T1–T12) fit the published schema."""
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)  # built once: validate() rebuilds it
    commands = session_commands()
    assert {"declare", "draw_time", "begin_rest"} <= {c["cmd"] for c in commands}
    for cmd in commands:
        validator.validate(cmd)


@pytest.mark.parametrize(
    "bad",
    [
        {"cmd": "draw", "hero": "aria", "tokn": "x"},
        {"cmd": "begin_performance"},
        {"cmd": "begin_performance", "difficulty": "5"},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "gray",
            "capability": "skill",
            "action": "target",
        },
        {"cmd": "teleport"},
        {"hero": "aria"},
    ],
)
def test_schema_and_engine_agree_on_malformed_commands(example_state, bad):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, json_schema())
    with pytest.raises(CommandRejected) as info:
        apply(example_state, bad)
    assert info.value.violation.code == "malformed"


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"cmd": "draw", "hero": "aria", "tokn": "x"}, "tokn"),
        ({"cmd": "begin_performance"}, "difficulty"),
        ({"cmd": "begin_performance", "difficulty": True}, "difficulty"),
        ({"cmd": "begin_performance", "difficulty": 5, "weight": "heavy"}, "weight"),
        ({"cmd": "teleport"}, "cmd"),
        ({"hero": "aria"}, "cmd"),
    ],
)
def test_malformed_commands_name_the_field(example_state, bad, field):
    with pytest.raises(CommandRejected) as info:
        parse_command(bad)
    v = info.value.violation
    assert v.field == field and v.message and v.fix


def test_not_an_object_is_malformed(example_state):
    for bad in (None, [], "draw", 3):
        with pytest.raises(CommandRejected) as info:
            apply(example_state, bad)
        assert info.value.violation.code == "malformed"


def test_request_id_and_source_are_transport_fields(example_state):
    s, _ = apply(
        example_state, {"cmd": "begin_performance", "difficulty": 5, "id": "r-1", "source": "mqtt"}
    )
    assert s.performance is not None


def test_error_object_is_json(example_state):
    with pytest.raises(CommandRejected) as info:
        apply(example_state, {"cmd": "begin_performance", "difficulty": 9})
    obj = info.value.violation.to_json()
    assert obj == json.loads(json.dumps(obj))
    assert obj["rule"] == "P19" and obj["field"] == "difficulty" and obj["code"] == "illegal"
    assert "3 to 8" in obj["fix"]
