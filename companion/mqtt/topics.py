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
from typing import Literal

from engine.contracts.view import RETAINED_SECTIONS

#: the retained views besides the whole table and the heroes: topic suffix → table_view key
#: (the contracts say which, and docs/state.schema.json gives each one's payload)
SECTIONS = tuple(RETAINED_SECTIONS)


@dataclass(frozen=True, slots=True)
class Topic:
    """One topic of a table, ``<base_topic>/<table id>/<suffix>``: the catalogue's entry."""

    #: after the table's root; ``<id>`` and ``<name>`` stand for one topic level
    suffix: str
    #: retained (True), a stream (False), or a topic the service reads (None: commands in)
    retained: bool | None
    #: what its payload is: a schema file of docs/ (``#/…`` a part of it), or ``text``
    payload: str
    #: the public pages (overlay, table display, wall) follow it unless told otherwise
    pages: bool = False
    qos: int = 1
    #: the payload's type by name, when the payload is a whole schema file: the ``TypedDict`` of
    #: companion/mqtt/messages.py for the bridge's own messages (those with a ``title``), else
    #: the root type the pages' generated types give that file (web/gen-types.mjs)
    type: str | None = None
    #: the bridge's own messages: the title of docs/<suffix>.schema.json, which
    #: companion/mqtt/schema.py makes from ``type`` (None: the engine's, or no schema of its own)
    title: str | None = None
    #: a part of the table's state a page may follow (ConnectionOptions.sections): the pages'
    #: store keeps its latest payload
    section: bool = False
    #: ``…/state`` carries this section's payload under the same key, so the pages' store sets it
    #: from a ``…/state`` too (``bags`` is not: ``…/state``'s bags are without their tokens)
    in_state: bool = False
    #: who may read it on the broker: ``public`` (every login of the table, and the wall), or
    #: ``worldkeeper`` (the table's gm and service logins only): companion/ops/accounts.py
    #: grants the public logins read on the ``public`` topics by name, and on nothing else
    audience: Literal["public", "worldkeeper"] = "public"
    #: who publishes it: ``service`` (the service alone), or ``worldkeeper``: the table's gm
    #: login too, a setting of the WorldKeeper's kept retained on the broker (as Zigbee2MQTT's
    #: frontend keeps its own), which companion/ops/accounts.py lets the gm login write
    writer: Literal["service", "worldkeeper"] = "service"


#: every topic of a table, in the order a page subscribes to the retained ones (``…/status``
#: last: its retained copy closes the table's state). The one catalogue: the builders below
#: name only these, companion/mqtt/schema.py makes the bridge's messages' schemas from the
#: ``title``d entries, ``rhuna-table schema --write docs`` writes it to docs/topics.json, and
#: web/gen-types.mjs makes from that file the pages' topic → payload types, their router and
#: their store's sections (docs/mqtt.md, "Adding a topic").
CATALOGUE: tuple[Topic, ...] = (
    Topic("events", False, "events.schema.json", type="EventMessage"),
    # the WorldKeeper's words (issue 42 item 4): each event withheld from ``…/events`` (a
    # worldkeeper note, a P20 prompt, an improvised foe), whole, before its wordless stand-in
    Topic("gm_events", False, "events.schema.json", audience="worldkeeper"),
    Topic(
        "error",
        False,
        "error.schema.json",
        type="ErrorMessage",
        title="Rhuna table error (one rhuna/<table>/error message)",
        audience="worldkeeper",
    ),
    Topic(
        "reply",
        False,
        "reply.schema.json",
        type="Reply",
        title="Rhuna table reply (one rhuna/<table>/reply message)",
        audience="worldkeeper",
    ),
    Topic(
        "info",
        True,
        "info.schema.json",
        type="InfoMessage",
        title="Rhuna table publisher (the retained rhuna/<table>/info topic)",
    ),
    Topic("vocabulary", True, "commands.schema.json", section=True),
    Topic("state", True, "state.schema.json", type="TableView", section=True),
    *(
        Topic(
            name,
            True,
            f"state.schema.json#/x-topics/{name}",
            pages=name != "bags",
            section=True,
            in_state=name != "bags",
        )
        for name in SECTIONS
    ),
    Topic(
        "history",
        True,
        "history.schema.json",
        pages=True,
        type="HistoryMessage",
        title="Rhuna table history (the retained rhuna/<table>/history topic)",
        section=True,
    ),
    # the board in sync or not (issue 43 item 1): each unsync in words, where and what on the
    # board, so public (docs/readers.md); the pages show it until it is resolved
    Topic(
        "board",
        True,
        "board.schema.json",
        pages=True,
        type="BoardMessage",
        title="Rhuna table board (the retained rhuna/<table>/board topic)",
        section=True,
    ),
    # the panel answering or not (issue 43 item 5): a hung e-ink panel said in words on the
    # pages until it answers again. Not ``…/status`` (the last will and Home Assistant's
    # availability: ``online``/``offline`` only) and not ``…/board`` (the board is in sync)
    Topic(
        "panel",
        True,
        "panel.schema.json",
        pages=True,
        type="PanelMessage",
        title="Rhuna table panel (the retained rhuna/<table>/panel topic)",
        section=True,
    ),
    # the bag audit (docs/readers.md): the one that runs, or the last one's answer; the gm's
    Topic(
        "audit",
        True,
        "audit.schema.json",
        type="AuditMessage",
        title="Rhuna table bag audit (the retained rhuna/<table>/audit topic)",
        audience="worldkeeper",
    ),
    Topic("heroes/<id>", True, "state.schema.json#/x-topics/heroes~1<id>"),
    Topic(
        "gm",
        True,
        "gm.schema.json",
        type="GmMessage",
        title="Rhuna table, the WorldKeeper's (the retained rhuna/<table>/gm topic)",
        audience="worldkeeper",
    ),
    # the stream overlays' switches (issue 42 item 1): the WorldKeeper's, set on gm.html and
    # kept retained on the broker; presentation, not play (no command, no journal, no Undo).
    # The service publishes none: no retained message is the overlays' defaults
    Topic(
        "overlay",
        True,
        "overlay.schema.json",
        type="OverlaySettings",
        title="Rhuna table overlay switches (the retained rhuna/<table>/overlay topic)",
        writer="worldkeeper",
    ),
    Topic("status", True, "text"),
    Topic("command", None, "commands.schema.json"),
    Topic("command/<name>", None, "commands.schema.json"),
)
_SUFFIXES = frozenset(t.suffix for t in CATALOGUE)

#: the topics a public login (a viewer of the table: overlay, display …; the wall) may read,
#: as topic filters under a table's root (``<id>``: any one level): every published topic
#: whose audience is ``public``. Mosquitto's ACLs only allow, so these are granted by name
#: and whatever is not here (``…/error``, ``…/reply``, ``…/gm_events``, a topic added later)
#: stays the gm's and the service's.
PUBLIC_FILTERS: tuple[str, ...] = tuple(
    re.sub(r"<[a-z]+>", "+", t.suffix)
    for t in CATALOGUE
    if t.audience == "public" and t.retained is not None
)

#: the topics the table's gm login may publish besides the commands: its own settings (the
#: catalogue's ``writer="worldkeeper"`` entries), as topic filters under the table's root
GM_WRITES: tuple[str, ...] = tuple(
    re.sub(r"<[a-z]+>", "+", t.suffix) for t in CATALOGUE if t.writer == "worldkeeper"
)


def catalogue_json() -> dict[str, object]:
    """docs/topics.json: the catalogue for the pages' type generator and for people."""
    return {
        "$comment": "Generated by `rhuna-table schema --write docs` from companion/mqtt/topics.py"
        " (CATALOGUE): every topic under <base_topic>/<table id>/ (docs/mqtt.md).",
        "topics": [
            {
                "suffix": t.suffix,
                "retained": t.retained,
                "qos": t.qos,
                "payload": t.payload,
                "pages": t.pages,
                "type": t.type,
                "section": t.section,
                "in_state": t.in_state,
                "audience": t.audience,
                "writer": t.writer,
            }
            for t in CATALOGUE
        ],
    }


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

    def _of(self, suffix: str) -> str:
        """The table's topic for a catalogue entry (a builder naming one it lacks fails)."""
        if suffix not in _SUFFIXES:
            raise ValueError(f"{suffix!r} is not in the topic catalogue (CATALOGUE)")
        return f"{self.root}/{suffix}"

    @property
    def status(self) -> str:
        """``online`` / ``offline``, retained; ``offline`` is also the last will."""
        return self._of("status")

    @property
    def vocabulary(self) -> str:
        """The command vocabulary's JSON Schema (docs/commands.schema.json), retained: a remote
        builds its forms from the commands this service takes."""
        return self._of("vocabulary")

    @property
    def info(self) -> str:
        """Who publishes this table (instance id, host, pid, start, version), retained: a second
        service with the same table id sees it and says so (docs/mqtt.md)."""
        return self._of("info")

    @property
    def state(self) -> str:
        """The whole table view, retained."""
        return self._of("state")

    def section(self, name: str) -> str:
        """One retained part of the view: ``performance``, ``time``, ``combat``, ``odds``, ``costs``."""
        return self._of(name)

    @property
    def history(self) -> str:
        """The last narrated journal entries, retained (``rhuna-table history --json``'s shape)."""
        return self._of("history")

    @property
    def board(self) -> str:
        """The board in sync or not: each unsync well or token in words, retained."""
        return self._of("board")

    @property
    def panel(self) -> str:
        """Whether the table's panel answers its refreshes, in words when not, retained."""
        return self._of("panel")

    @property
    def audit(self) -> str:
        """The bag audit that runs, or the last one's answer, retained (the gm's)."""
        return self._of("audit")

    @property
    def overlay(self) -> str:
        """The stream overlays' switches, retained: the WorldKeeper's (gm.html writes it)."""
        return self._of("overlay")

    @property
    def heroes(self) -> str:
        """Filter matching every hero topic (to find retained heroes no longer at the table)."""
        return self._of("heroes/<id>").replace("<id>", "+")

    def hero(self, hero_id: str) -> str:
        return self._of("heroes/<id>").replace("<id>", level(hero_id))

    @property
    def events(self) -> str:
        """One non-retained message per engine event, with a sequence number."""
        return self._of("events")

    @property
    def gm_events(self) -> str:
        """The events withheld from ``…/events``, whole: the gm's and the service's only."""
        return self._of("gm_events")

    @property
    def gm(self) -> str:
        """What of the table is the gm's alone (the whole roster), retained."""
        return self._of("gm")

    @property
    def error(self) -> str:
        """Refused commands and unknown tags (non-retained)."""
        return self._of("error")

    @property
    def command(self) -> str:
        """``{"cmd": …}`` in; ``…/command/<name>`` takes the fields alone."""
        return self._of("command")

    @property
    def command_filter(self) -> str:
        return f"{self.command}/+"

    @property
    def reply(self) -> str:
        """Replies to commands (not under ``command/`` so they are never read as one)."""
        return self._of("reply")

    def command_name(self, topic: str) -> str | None:
        """``''`` for the command topic, the name for ``command/<name>``, None otherwise."""
        if topic == self.command:
            return ""
        prefix = self.command + "/"
        if topic.startswith(prefix) and "/" not in topic[len(prefix) :]:
            return topic[len(prefix) :]
        return None
