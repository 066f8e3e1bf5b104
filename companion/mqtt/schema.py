"""JSON Schemas of the MQTT messages that are not the engine's: ``…/history``, ``…/error``,
``…/reply`` and ``…/info``, generated from the ``TypedDict``s in :mod:`companion.mqtt.messages` (where the
messages are built) as ``engine.contracts.schema`` does for the state and the events.

``rhuna-table schema --write docs`` writes them beside ``state.schema.json`` and
``events.schema.json``; tests/engine/contracts/test_contracts.py keeps them current and checks every message
the service publishes on those topics against them; web/gen-types.mjs makes the pages' types
from them. A reply's events are ``$ref``: ``events.schema.json`` (the events stream's own).

>>> sorted(MESSAGES)
['error', 'history', 'info', 'reply']
>>> message_schema("reply")["$id"]
'https://rhuna-table/reply.schema.json'
"""

from __future__ import annotations

from typing import Any

from companion.mqtt.messages import ErrorMessage, HistoryMessage, InfoMessage, Reply
from engine.contracts.schema import schema_of

#: topic (its last level) → the payload's type; each is docs/<topic>.schema.json
MESSAGES: dict[str, Any] = {
    "history": HistoryMessage,
    "error": ErrorMessage,
    "reply": Reply,
    "info": InfoMessage,
}
TITLES = {
    "history": "Rhuna table history (the retained rhuna/<table>/history topic)",
    "error": "Rhuna table error (one rhuna/<table>/error message)",
    "reply": "Rhuna table reply (one rhuna/<table>/reply message)",
    "info": "Rhuna table publisher (the retained rhuna/<table>/info topic)",
}


def message_schema(topic: str) -> dict[str, Any]:
    """The schema of one topic's payload, its parts in ``$defs``."""
    defs: dict[str, Any] = {}
    root = schema_of(MESSAGES[topic], defs)
    if "$ref" in root:  # a TypedDict: its definition is the root (and named once, by the root)
        root = defs.pop(root["$ref"].rpartition("/")[2])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://rhuna-table/{topic}.schema.json",
        **root,
        "title": TITLES[topic],
        "$defs": dict(sorted(defs.items())),
    }
