"""The ``[mqtt]`` extension's factory: the MQTT bridge for the table the service restored.

It is handed :class:`companion.service.Collaborators` (read through :class:`BridgeHost`:
only what it uses), never the service itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from companion.mqtt.bridge import MqttBridge
    from engine.state import TableState

log = logging.getLogger("rhuna.service")


class BridgeSettings(Protocol):
    """What the bridge's factory reads of the checked config: ``[mqtt]`` and the recaps'."""

    @property
    def mqtt(self) -> Mapping[str, Any]: ...
    @property
    def source(self) -> Path: ...
    @property
    def recaps_dir(self) -> Path | None: ...
    @property
    def recap_url(self) -> str | None: ...


class BoardLookup(Protocol):
    """What the bridge reads of the service's board (companion.table.board.Board)."""

    def lying(self, key: str) -> str | None: ...


class BridgeHost(Protocol):
    """The collaborators the bridge's factory uses: the config, the journal (its file, for
    …/history, and its last event number, for the event stream to go on from), the restored
    state, the table's alert (a second service on the same table id) and its board (the
    token an unsync well holds, for ``…/board``)."""

    @property
    def config(self) -> BridgeSettings: ...
    @property
    def journal(self) -> Path: ...
    @property
    def last_event_seq(self) -> int: ...
    @property
    def state(self) -> TableState: ...
    @property
    def alert(self) -> Callable[[str, str | None], None]: ...
    @property
    def board(self) -> BoardLookup | None: ...


def mqtt_bridge(host: BridgeHost) -> MqttBridge | None:
    """The MQTT bridge (companion/mqtt, docs/mqtt.md) for ``[mqtt]``; on unless
    ``enabled = false``. Its event numbers go on from the journal's."""
    from companion.mqtt import MqttBridge, load_mqtt_config

    config = load_mqtt_config(host.config.mqtt, str(host.config.source))
    if not config.enabled:
        return None
    from companion.mqtt.bridge import HISTORY
    from companion.record.journal import JournalError, open_journal
    from companion.record.narrate import HistoryEntry, recent

    history: list[HistoryEntry] = []
    try:
        with open_journal(host.journal) as journal:
            history = recent(journal, host.state, HISTORY)
    except JournalError as e:  # the table runs; …/history starts empty
        log.warning("MQTT history: %s", e)
    from companion.record.session import latest_recap

    recaps = host.config.recaps_dir
    recap = latest_recap(recaps, host.config.recap_url) if recaps is not None else None
    bridge = MqttBridge(config, seq=host.last_event_seq, history=history, recap=recap)
    bridge.on_alert = host.alert
    if host.board is not None:
        bridge.lying = host.board.lying
    return bridge
