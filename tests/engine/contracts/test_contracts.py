"""The typed contracts (issue 18 item 2): the event catalogue and the view's TypedDicts, the JSON
Schemas generated from them in docs/, and everything that must agree with them — the engine's
events and views over real sessions, every MQTT state topic and event message, the bridge's own
…/history, …/error, …/reply and …/info messages from a real service on a real Mosquitto, the
MQTT topic list and the display's test fixtures.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

import engine
from companion.cli.replay import read_session
from companion.cli.schema import CONTRACTS
from companion.mqtt.messages import (
    error_message,
    event_message,
    history_message,
    reply_ok,
    state_messages,
)
from companion.mqtt.schema import MESSAGES, message_schema
from companion.mqtt.topics import SECTIONS, Topics
from engine import CommandRejected, apply
from engine.contracts import events as catalogue
from engine.contracts.events import EVENTS
from engine.contracts.schema import events_schema, payload_schema, state_schema
from engine.contracts.view import RETAINED_SECTIONS
from engine.errors import RuleViolation
from engine.events import EventKind
from engine.state import TableState
from engine.view import VIEW_SECTIONS, table_view
from tests.harness import ARIA, BEGIN, ROOT, WAIT
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
    core = {"table", "heroes", "bags", "awakened", "escalation", "can_undo", "undo", "answers"}
    core |= {"changed_at"}  # stamped by the service on …/state, not a section
    assert set(VIEW_SECTIONS) == typed - core


# --- the engine's events ------------------------------------------------------------------------


def test_the_engine_builds_every_event_through_its_typed_constructor() -> None:
    """``Event(name, data)`` takes any name and any dict; the constructors of
    engine/contracts/events.py take only their own payload, which mypy checks, and they are
    the catalogue the schema is generated from. So no engine module may call ``Event`` itself."""
    direct = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if path == ROOT / "engine" / "events.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if (getattr(func, "id", None) or getattr(func, "attr", None)) == "Event":
                direct.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}")
    assert not direct, (
        f"events built without their constructor: {direct} — write ev.<event>({{...}}) with"
        " `from engine.contracts import events as ev` (add a new event's TypedDict and"
        " constructor there, then `rhuna-table schema --write docs`)"
    )


def test_each_constructor_is_named_as_its_event_and_makes_the_catalogue() -> None:
    kinds = {k: v for k, v in vars(catalogue).items() if isinstance(v, EventKind)}
    assert {k: v.name for k, v in kinds.items()} == {k: k for k in kinds}
    assert {v.name: v.shape for v in kinds.values()} == EVENTS
    assert len(EVENTS) > 50


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


#: besides the sessions, one short scene per event they never tell (rules cited), so that every
#: event of the catalogue is checked against its payload at least once
SCENES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    # I-T13: a WorldKeeper's notes, one for the WorldKeeper only, one for everyone
    "notes": (
        "table.toml",
        [
            {"cmd": "note", "text": "the lich heard every word"},
            {"cmd": "note", "text": "a storm rolls in over the pass", "audience": "public"},
        ],
    ),
    "sheet (P13, P16, P18)": (
        "table.toml",
        [
            {"cmd": "adjust_hero", "hero": "aria", "favor": 1},
            {"cmd": "adjust_hero", "hero": "aria", "wounds": 1},
            {"cmd": "adjust_hero", "hero": "aria", "wounds": -1},
            {"cmd": "adjust_hero", "hero": "aria", "strain": 2},
            {
                "cmd": "set_strain_tokens",
                "hero": "aria",
                "tokens": ["aria.strain.3", "aria.strain.1"],
            },
        ],
    ),
    "a Performance called off (P19)": (
        "table.toml",
        [{"cmd": "begin_performance", "difficulty": 5}, {"cmd": "cancel_performance"}],
    ),
    "the Time Board set, a Full Rest chosen (T3, T8)": (
        "table.toml",
        [
            {"cmd": "set_time", "day": 2},
            {"cmd": "start_session"},
            {"cmd": "draw_weather", "bag": "overworld", "token": "weather.overworld.clear.1"},
            {"cmd": "adjust_hero", "hero": "bren", "strain": 1},
            {"cmd": "begin_rest", "kind": "safe"},
            {"cmd": "choose_full_rest", "hero": "bren", "choice": "fatigue"},
        ],
    ),
    "an Unsafe Rest interrupted (T10, I-T10)": (
        "table.toml",
        [
            {"cmd": "start_session"},
            {"cmd": "draw_weather", "bag": "overworld", "token": "weather.overworld.clear.1"},
            {"cmd": "begin_rest", "kind": "unsafe"},
            {"cmd": "draw_time", "face": "event", "resolve": True},  # token filled in below
            {"cmd": "answer_interruption", "interrupts": True},
        ],
    ),
    "a combatant added and joining, injuries healed (C3, I-C3b, C9)": (
        "fight.toml",
        [
            {"cmd": "start_combat", "combatants": ["aria", "raider"], "seed": 1},
            {
                "cmd": "add_combatant",
                "combatant": "goblin",
                **dict.fromkeys(("reflex", "might", "dodge", "parry", "fortitude"), 1),
                "speed": 4,
            },
            {"cmd": "join_combat", "combatant": "goblin", "seed": 2},
            {"cmd": "injure", "combatant": "raider", "type": "bleeding"},
            {"cmd": "heal_injuries", "combatant": "raider"},
        ],
    ),
    # I-C8: worn armour set (a carried session, mended armour; issue 41 item 12)
    "armour set (I-C8)": (
        "fight.toml",
        [{"cmd": "set_armour", "combatant": "bren", "durability": 2, "cause": "carried"}],
    ),
}


def _scene(table: str, commands: list[dict[str, Any]]) -> Iterator[tuple[TableState, list[Any]]]:
    """Every command of a scene is accepted (a refused one would quietly check nothing)."""
    from tests.harness.timeboard import token_of

    state = engine.load_table(ROOT / "examples" / table)
    for cmd in commands:
        if "face" in cmd:  # a Time token showing that face, from the bag due now
            cmd = {
                **{k: v for k, v in cmd.items() if k != "face"},
                "token": token_of(state, cmd["face"]),
            }
        state, events = apply(state, cmd)
        yield state, events


def test_every_event_of_the_catalogue_is_checked_against_its_payload() -> None:
    """The sessions and the scenes above between them tell every catalogued event; each fits
    its payload schema and the …/events message schema (an event added to the catalogue
    without a scene that tells it fails here)."""
    payloads = {name: _validator(payload_schema(name)) for name in EVENTS}
    plays = [_play(table, session) for table, session in SESSIONS]
    plays += [_scene(table, commands) for table, commands in SCENES.values()]
    seen: set[str] = set()
    seq = 0
    for play in plays:
        for state, events in play:
            for event in events:
                assert event.type in EVENTS, f"{event.type} is not in engine/contracts/events.py"
                assert not _errors(payloads[event.type], _as_json(event.data)), event
                seq += 1
                message = event_message(seq, state, event, "script", "2026-12-01T08:00:00Z")
                assert not _errors(EVENT_MESSAGE, _as_json(message)), message
                seen.add(event.type)
    untold = sorted(set(EVENTS) - seen)
    assert not untold, f"catalogued events no session or scene tells (add a scene): {untold}"


def test_a_renamed_event_key_fails_the_message_schema(example_state: TableState) -> None:
    """The schema is strict: an extra key or a missing one is an error, not ignored."""
    state, events = apply(example_state, BEGIN)
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


RENAMED = """
from engine.state import TableState
from engine.view import table_view


def read(state: TableState) -> object:
    view = table_view(state)
    assert view["performance"] is not None
    return view["cost"], view["heroes"]["aria"]["fatigue_max"], view["performance"]["dificulty"]
"""


@pytest.mark.slow
def test_mypy_refuses_a_renamed_view_key(tmp_path: Path) -> None:
    """table_view returns the TableView TypedDict: a key renamed (or misspelt) where the view
    is read fails the type check, not only the schema (issue 18 item 2)."""
    import subprocess
    import sys

    snippet = tmp_path / "renamed.py"
    snippet.write_text(RENAMED, "utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(snippet)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in run.stdout.splitlines() if "renamed.py" in line and "error" in line]
    assert run.returncode == 1 and len(errors) == 3, run.stdout
    assert all('has no key "' in line for line in errors), run.stdout


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


# --- the messages that are not state: …/history, …/error, …/reply, …/info -------------------


def _message_validator(topic: str) -> jsonschema.Draft202012Validator:
    """A topic's schema, with events.schema.json in reach (a reply's events are its messages)."""
    schema = message_schema(topic)
    jsonschema.Draft202012Validator.check_schema(schema)
    events = Resource.from_contents(events_schema())
    registry: Registry = Registry().with_resource(events_schema()["$id"], events)
    return jsonschema.Draft202012Validator(schema, registry=registry)


MESSAGE = {topic: _message_validator(topic) for topic in MESSAGES}


def test_every_topic_says_where_its_payload_s_schema_is() -> None:
    """The topic list and the contracts are one list: each message's schema is named by the
    topic it goes on, and every topic the bridge publishes JSON on has a schema."""
    for topic in MESSAGES:
        assert getattr(T, topic) == f"{T.root}/{topic}", topic
    published = {name for name, v in vars(Topics).items() if isinstance(v, property)}
    schemas = {
        "state": "state.schema.json",  # and x-topics: every section, heroes/<id>
        "events": "events.schema.json",
        "gm_events": "events.schema.json",  # the events withheld from …/events, whole
        "vocabulary": "commands.schema.json",  # the payload is that schema itself
        "command": "commands.schema.json",  # in
        **{topic: f"{topic}.schema.json" for topic in MESSAGES},
    }
    plain = {"root", "status", "heroes", "command_filter"}  # a prefix, "online"/"offline", filters
    assert published == set(schemas) | plain, published ^ (set(schemas) | plain)
    for name in schemas.values():
        assert (DOCS / name).is_file(), name


@pytest.mark.error_log  # the second service on the same table id says so (…/error "duplicate")
def test_every_history_error_and_reply_the_service_publishes_fits_its_schema(
    tmp_path: Path,
) -> None:
    """The real Service (journal, emulated hub) on a real Mosquitto: accepted, refused and
    malformed commands on MQTT (with and without a transaction), an unknown tag on the Draw
    Board, a command from a script, a second service on the same table id. Every message on
    …/history, …/error, …/reply and …/info validates against its schema."""
    from tests.harness.broker import Watcher, running_broker
    from tests.harness.service import InProcess

    with running_broker(tmp_path / "broker") as broker:
        mqtt = f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
        watcher = Watcher(broker.port, [f"{T.root}/#"])
        table = InProcess(tmp_path / "one", mqtt)
        try:
            [bridge] = [e for e in table.service.extensions if hasattr(e, "wait_ready")]
            assert bridge.wait_ready(WAIT)
            watcher.send(T.command, {**BEGIN, "transaction": 1})
            watcher.reply(T.reply, 1)
            watcher.send(T.command + "/declare", {**ARIA, "id": "two"})
            watcher.reply(T.reply, "two")
            watcher.send(T.command, {"cmd": "draw", "hero": "bren", "seed": 1, "transaction": 3})
            watcher.send(T.command + "/juggle", {"transaction": [4]})
            watcher.send(T.command, b"{nope")
            table.submit({"cmd": "draw", "hero": "aria", "seed": 2})
            table.hub.lay(1, "04C0FFEE000001")  # an unknown tag on the Draw Board
            watcher.send(T.command + "/undo", b"")
            watcher.wait(lambda ms: len(watcher.on(T.reply)) >= 6, "six replies")
            watcher.wait(
                lambda ms: any(len(m.json()["entries"]) >= 4 for m in watcher.on(T.history)),
                "the history of four accepted commands",
            )
            watcher.wait(lambda ms: any("tag" in m.json() for m in watcher.on(T.error)), "the tag")
            second = InProcess(tmp_path / "two", mqtt)  # the same table id
            try:
                watcher.wait(
                    lambda ms: any("other" in m.json() for m in watcher.on(T.error)),
                    "the duplicate reported",
                )
            finally:
                second.close()
        finally:
            table.close()
            watcher.close()
    kinds: set[str] = set()
    for topic in ("history", "error", "reply", "info"):
        messages = [m for m in watcher.on(getattr(T, topic)) if m.payload]
        assert messages, topic
        for m in messages:
            payload = m.json()
            assert not _errors(MESSAGE[topic], payload), (topic, payload)
            if topic == "reply":
                kinds.add(
                    f"reply {payload['status']}" + (" +tx" if "transaction" in payload else "")
                )
            elif topic == "error":
                kinds |= {f"error {key}" for key in ("command", "tag", "other") if key in payload}
            elif topic == "history":
                kinds.add("history entries" if payload["entries"] else "history empty")
    assert {
        "reply ok +tx",
        "reply ok",
        "reply error +tx",
        "reply error",
        "error command",
        "error tag",
        "error other",
        "history entries",
    } <= kinds, kinds


def _ok_reply(state: TableState) -> dict[str, Any]:
    state, events = apply(state, BEGIN)
    messages = [event_message(1, state, e, "mqtt:1", "now") for e in events]
    return _as_json(reply_ok(7, BEGIN, messages))


@pytest.mark.parametrize(
    ("topic", "path", "renamed"),
    [
        ("reply", ("data",), ("events", "evts")),
        ("reply", ("data", "events", 0), ("difficulty", "level")),  # the event, by events.schema
        ("reply", (), ("status", "state")),
        ("error", (), ("message", "msg")),
        ("history", ("entries", 0), ("time", "clock")),
        ("history", ("recap",), ("href", "link")),
    ],
)
def test_a_renamed_message_key_fails_its_schema(
    example_state: TableState, topic: str, path: tuple, renamed: tuple[str, str]
) -> None:
    from companion.record.narrate import Line

    messages: dict[str, Any] = {
        "reply": _ok_reply(example_state),
        "error": _as_json(
            error_message(
                RuleViolation("no", rule="P23", field="hero", fix="declare"),
                "mqtt:2",
                "now",
                BEGIN,
            )
        ),
        "history": _as_json(
            history_message(
                [
                    Line(
                        1, 1764615296.2, "MQTT", "begin_performance difficulty=5", ("begins",)
                    ).to_json()
                ],
                {"session": "20261130T230512Z", "file": "recap.html", "href": None},
            )
        ),
    }
    message = messages[topic]
    assert not _errors(MESSAGE[topic], message), message
    part = message
    for key in path:
        part = part[key]
    old, new = renamed
    part[new] = part.pop(old)
    assert _errors(MESSAGE[topic], message), message
