"""``rhuna-table schema``: print or write the command vocabulary (JSON Schema and Markdown) and the
JSON Schemas of the MQTT payloads: the state topics and event messages (engine/contracts), and the
bridge's history, error, reply and info messages (companion/mqtt/schema.py)."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine  # noqa: F401  (registers every command)
from companion.mqtt.schema import MESSAGES, message_schema
from companion.mqtt.topics import catalogue_json
from engine.contracts.schema import dumps, events_schema, state_schema
from engine.docs import commands_markdown, schema_json

#: the generated files beside commands.schema.json: name → what makes it (the engine's state and
#: events; the bridge's own messages: history, error, reply, info)
CONTRACTS: dict[str, Callable[[], dict[str, Any]]] = {
    "state.schema.json": state_schema,
    "events.schema.json": events_schema,
    **{f"{topic}.schema.json": functools.partial(message_schema, topic) for topic in MESSAGES},
    # every topic of a table: what web/gen-types.mjs makes the pages' section names from
    "topics.json": catalogue_json,
}


def register(sub: Any) -> None:
    p = sub.add_parser("schema", help="print the command vocabulary's JSON Schema")
    p.add_argument("--markdown", action="store_true", help="print docs/commands.md instead")
    p.add_argument(
        "--write",
        metavar="DIR",
        help="write commands.schema.json, commands.md, the MQTT payloads' schemas"
        " (state, events, history, error, reply, info) and the topic catalogue (topics.json)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.write:
        out = Path(args.write)
        out.mkdir(parents=True, exist_ok=True)
        (out / "commands.schema.json").write_text(schema_json(), "utf-8")
        (out / "commands.md").write_text(commands_markdown(), "utf-8")
        for name, make in CONTRACTS.items():
            (out / name).write_text(dumps(make()), "utf-8")
        written = ["commands.schema.json", "commands.md", *CONTRACTS]
        print(f"wrote {', '.join(str(out / n) for n in written)}")
        return 0
    sys.stdout.write(commands_markdown() if args.markdown else schema_json())
    return 0
