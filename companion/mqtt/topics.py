"""Every MQTT topic the bridge uses, in one place, so users can predict the next one.

>>> t = Topics("rhuna", "kitchen")
>>> t.status, t.hero("aria"), t.command, t.reply
('rhuna/kitchen/status', 'rhuna/kitchen/heroes/aria', 'rhuna/kitchen/command', 'rhuna/kitchen/reply')
>>> t.command_name("rhuna/kitchen/command"), t.command_name("rhuna/kitchen/command/undo")
('', 'undo')
>>> t.command_name("rhuna/kitchen/state") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.contracts.view import RETAINED_SECTIONS

#: the retained views besides the whole table and the heroes: topic suffix → table_view key
#: (the contracts say which, and docs/state.schema.json gives each one's payload)
SECTIONS = tuple(RETAINED_SECTIONS)

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def level(name: str) -> str:
    """An id as one topic level: '/', '+', '#', spaces and the like become '_'."""
    return _UNSAFE.sub("_", name) or "_"


@dataclass(frozen=True, slots=True)
class Topics:
    """``<base_topic>/<table id>/…``: status, retained state, events, commands and replies."""

    base_topic: str
    table_id: str

    @property
    def root(self) -> str:
        return f"{self.base_topic}/{level(self.table_id)}"

    @property
    def status(self) -> str:
        """``online`` / ``offline``, retained; ``offline`` is also the last will."""
        return f"{self.root}/status"

    @property
    def vocabulary(self) -> str:
        """The command vocabulary's JSON Schema (docs/commands.schema.json), retained: a remote
        builds its forms from the commands this service takes."""
        return f"{self.root}/vocabulary"

    @property
    def info(self) -> str:
        """Who publishes this table (instance id, host, pid, start, version), retained: a second
        service with the same table id sees it and says so (docs/mqtt.md)."""
        return f"{self.root}/info"

    @property
    def state(self) -> str:
        """The whole table view, retained."""
        return f"{self.root}/state"

    def section(self, name: str) -> str:
        """One retained part of the view: ``performance``, ``time``, ``combat``, ``odds``, ``costs``."""
        return f"{self.root}/{name}"

    @property
    def history(self) -> str:
        """The last narrated journal entries, retained (``rhuna-table history --json``'s shape)."""
        return f"{self.root}/history"

    @property
    def heroes(self) -> str:
        """Filter matching every hero topic (to find retained heroes no longer at the table)."""
        return f"{self.root}/heroes/+"

    def hero(self, hero_id: str) -> str:
        return f"{self.root}/heroes/{level(hero_id)}"

    @property
    def events(self) -> str:
        """One non-retained message per engine event, with a sequence number."""
        return f"{self.root}/events"

    @property
    def error(self) -> str:
        """Refused commands and unknown tags (non-retained)."""
        return f"{self.root}/error"

    @property
    def command(self) -> str:
        """``{"cmd": …}`` in; ``…/command/<name>`` takes the fields alone."""
        return f"{self.root}/command"

    @property
    def command_filter(self) -> str:
        return f"{self.command}/+"

    @property
    def reply(self) -> str:
        """Replies to commands (not under ``command/`` so they are never read as one)."""
        return f"{self.root}/reply"

    def command_name(self, topic: str) -> str | None:
        """``''`` for the command topic, the name for ``command/<name>``, None otherwise."""
        if topic == self.command:
            return ""
        prefix = self.command + "/"
        if topic.startswith(prefix) and "/" not in topic[len(prefix) :]:
            return topic[len(prefix) :]
        return None
