"""The typed contracts (issue 18 item 2): the event catalogue and the view's TypedDicts, the JSON
Schemas generated from them in docs/, and everything that must agree with them — the engine's
events and views over real sessions, every MQTT state topic and event message, the MQTT topic
list and the display's test fixtures.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import engine
from companion.cli.replay import read_session
from companion.cli.schema import CONTRACTS
from companion.mqtt.messages import event_message, state_messages
from companion.mqtt.topics import SECTIONS, Topics
from engine import CommandRejected, apply
from engine.contracts.events import EVENTS
from engine.contracts.schema import events_schema, payload_schema, state_schema
from engine.contracts.view import RETAINED_SECTIONS
from engine.state import TableState
from engine.view import SECTIONS as VIEW_SECTIONS
from engine.view import table_view
from tests.harness import ROOT
from tests.harness import views as dv

DOCS = ROOT / "docs"
#: (table, session): the example sessions, between them every family of rules
SESSIONS = (("table.toml", "session.jsonl"), ("fight.toml", "fight.jsonl"))
T = Topics("rhuna", "example")


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


STATE = _validator(state_schema())
EVENT_MESSAGE = _validator(events_schema())


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _play(table: str, session: str) -> Iterator[tuple[TableState, list[engine.Event]]]:
    state = engine.load_table(ROOT / "examples" / table)
    yield state, []
    for _, cmd in read_session(ROOT / "examples" / session):
        try:
            state, events = apply(state, cmd)
        except CommandRejected:
            continue
        yield state, events


def _errors(validator: jsonschema.Draft202012Validator, instance: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
        for e in validator.iter_errors(instance)
    ]


# --- the files in docs/ are what the contracts generate ---------------------------------------


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_the_schema_files_in_docs_are_current(name: str) -> None:
    """Regenerate with `rhuna-table schema --write docs` after changing engine/contracts."""
    from engine.contracts.schema import dumps

    current = (DOCS / name).read_text(encoding="utf-8") == dumps(CONTRACTS[name]())
    assert current, f"docs/{name} is stale: run `rhuna-table schema --write docs`"


def test_the_state_schema_names_a_payload_for_every_retained_topic() -> None:
    topics = state_schema()["x-topics"]
    assert set(topics) == {"state", "heroes/<id>", *SECTIONS}
    assert tuple(RETAINED_SECTIONS) == SECTIONS  # the MQTT topic list is the contracts' list


def test_the_view_s_sections_are_the_typed_ones() -> None:
    """A section registered without a contract (or a contract for none) fails here."""
    typed = set(state_schema()["$defs"]["TableView"]["properties"])
    core = {"table", "heroes", "bags", "awakened", "escalation", "can_undo"}
    assert set(VIEW_SECTIONS) == typed - core


# --- the engine's events ------------------------------------------------------------------------


def _event_names_in_code() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
    return names


def test_every_event_the_engine_names_is_in_the_catalogue() -> None:
    names = _event_names_in_code()
    assert len(names) > 50
    missing = sorted(names - set(EVENTS))
    assert not missing, (
        f"events without a contract: {missing} — add each payload's TypedDict to"
        " engine/contracts/events.py, then `rhuna-table schema --write docs`"
    )


@pytest.mark.parametrize(("table", "session"), SESSIONS)
def test_every_event_of_the_sessions_fits_its_payload_and_message_schema(
    table: str, session: str
) -> None:
    payloads = {name: _validator(payload_schema(name)) for name in EVENTS}
    seen: set[str] = set()
    seq = 0
    for state, events in _play(table, session):
        for event in events:
            assert event.type in EVENTS, f"{event.type} is not in engine/contracts/events.py"
            assert not _errors(payloads[event.type], _as_json(event.data)), event
            seq += 1
            message = event_message(seq, state, event, "script", "2026-12-01T08:00:00Z")
            assert not _errors(EVENT_MESSAGE, _as_json(message)), message
            seen.add(event.type)
    assert len(seen) > 15


def test_a_renamed_event_key_fails_the_message_schema(example_state: TableState) -> None:
    """The schema is strict: an extra key or a missing one is an error, not ignored."""
    state, events = apply(example_state, {"cmd": "begin_performance", "difficulty": 5})
    message = _as_json(event_message(1, state, events[0], "script", "now"))
    assert not _errors(EVENT_MESSAGE, message)
    message["level"] = message.pop("difficulty")
    assert _errors(EVENT_MESSAGE, message)


# --- the views, and every retained topic ----------------------------------------------------


@pytest.mark.parametrize(("table", "session"), SESSIONS)
def test_every_view_of_the_sessions_fits_the_state_schema(table: str, session: str) -> None:
    schema = state_schema()
    per_topic = {
        name: _validator({"$defs": schema["$defs"], **payload})
        for name, payload in schema["x-topics"].items()
    }
    sections_seen: set[str] = set()
    for i, (state, _) in enumerate(_play(table, session)):
        view = table_view(state)
        if i % 3 and i > 6:  # every third state past the start keeps the test quick
            continue
        assert not _errors(STATE, _as_json(view))
        for topic, payload in state_messages(view, T).items():
            name = topic.removeprefix(T.root + "/")
            key = "heroes/<id>" if name.startswith("heroes/") else name
            assert not _errors(per_topic[key], json.loads(payload)), topic
            if json.loads(payload) is not None:
                sections_seen.add(key)
    assert {"state", "heroes/<id>"} <= sections_seen


def test_a_renamed_view_key_fails_the_state_schema(example_state: TableState) -> None:
    view = _as_json(table_view(example_state))
    assert not _errors(STATE, view)
    view["heroes"]["aria"]["fatigue_max"] = view["heroes"]["aria"].pop("fatigue_capacity")
    assert _errors(STATE, view)


# --- the display's fixtures are views of the same contract -----------------------------------

FIXTURES = [
    name
    for name in dir(dv)
    if name.startswith(("performance_", "between_", "combat")) and callable(getattr(dv, name))
]


@pytest.mark.parametrize("name", FIXTURES)
def test_the_display_fixtures_fit_the_state_schema(name: str) -> None:
    view = getattr(dv, name)()
    assert not _errors(STATE, _as_json(view)), name


def test_the_fixtures_were_found() -> None:
    assert {"performance_mid", "performance_failed", "between_time", "combat"} <= set(FIXTURES)


def _files() -> list[Path]:
    return sorted(DOCS.glob("*.schema.json"))


def test_the_docs_schemas_are_valid_json_schema() -> None:
    assert len(_files()) >= 3
    for path in _files():
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text("utf-8")))
