"""JSON Schemas of the MQTT messages that are not the engine's: ``…/board``, ``…/panel``,
``…/history``, ``…/error``, ``…/reply``, ``…/info``, the WorldKeeper's ``…/gm`` and ``…/audit`` and the
overlays' switches (``…/overlay``, the gm's to write), generated
from the ``TypedDict``s in :mod:`companion.mqtt.messages` (where the messages are built) as
``engine.contracts.schema`` does for the state and the events.

``rhuna-table schema --write docs`` writes them beside ``state.schema.json`` and
``events.schema.json``; tests/engine/contracts/test_contracts.py keeps them current and checks every message
the service publishes on those topics against them; web/gen-types.mjs makes the pages' types
from them. A reply's events are ``$ref``: ``events.schema.json`` (the events stream's own).

>>> sorted(MESSAGES)
['audit', 'board', 'error', 'gm', 'history', 'info', 'overlay', 'panel', 'reply']
>>> message_schema("reply")["$id"]
'https://rhuna-table/reply.schema.json'
"""

from __future__ import annotations

from typing import Any

from companion.mqtt import messages
from companion.mqtt.topics import CATALOGUE, Topic
from engine.contracts.schema import schema_of


def _payload_type(topic: Topic) -> Any:
    """A titled catalogue entry's payload ``TypedDict``, from companion/mqtt/messages.py."""
    found = getattr(messages, topic.type or "", None)
    if found is None or topic.payload != f"{topic.suffix}.schema.json":
        raise TypeError(
            f"CATALOGUE's {topic.suffix!r} (companion/mqtt/topics.py) has a title, so its payload"
            f" must be {topic.suffix}.schema.json and its type a TypedDict of"
            f" companion/mqtt/messages.py; it says {topic.payload!r} and {topic.type!r}"
        )
    return found


#: topic (its last level) → the payload's type; each is docs/<topic>.schema.json: the
#: catalogue's entries that carry a title (companion/mqtt/topics.py, CATALOGUE)
MESSAGES: dict[str, Any] = {t.suffix: _payload_type(t) for t in CATALOGUE if t.title}
TITLES: dict[str, str] = {t.suffix: t.title for t in CATALOGUE if t.title}


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
