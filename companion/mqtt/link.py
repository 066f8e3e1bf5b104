"""The bridge's connection as its three threads share it, and the only way out to paho.

Three threads meet in the MQTT bridge (companion.mqtt.bridge); what they share lives
here, each field with the lock that guards it:

* ``cond`` guards the connection's flags and counts (``connected``, ``ready``,
  ``generation``, ``outstanding``, ``unsent``, ``fast``, ``flushing``, ``stopping``) and
  the offline ``buffer``. It is shared between paho's thread, the loop's turn and the
  publisher, and **never held while calling paho** (paho's own callbacks take it).
* ``state_lock`` guards ``…/state``: it goes out from the loop's turn or from the
  publisher, never older after newer — both publish it under this lock, and only for a
  newer outcome than ``state_version``. ``encoder`` is used under it.
* ``seq`` is the last event sequence number used. Whoever sends an outcome's events
  numbers them: the loop's turn while ``fast`` (under the fast path's rules), otherwise
  the publisher, which waits for ``fast`` to drop first — so the numbers go out in order.

Every publish is QoS 1 and counted in ``outstanding`` until its PUBACK (``max_queued``
bounds it); :meth:`Link.send`, :meth:`Link.retain` and :meth:`Link.publish` are for the
loop's turn and the publisher, :meth:`Link.put` for paho's own thread (which must never
wait).
"""

from __future__ import annotations

import collections
import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata

import paho.mqtt.client as mqtt

from companion.mqtt.client import Client
from companion.mqtt.config import MqttConfig
from companion.mqtt.messages import StateEncoder
from companion.mqtt.topics import Topics
from engine.contracts.view import TableView
from engine.state import TableState

log = logging.getLogger("rhuna.mqtt")


@dataclass
class BridgeStats:
    """Counters for logs, tests and the benchmark."""

    connects: int = 0
    published: int = 0
    #: events/errors/replies dropped because the offline buffer (or paho's queue) was full
    dropped: int = 0
    commands: int = 0
    last_error: str | None = None
    #: times a retained ``…/status`` not ours was put back to ``online``
    status_restored: int = 0
    #: other instances seen publishing the same table id
    duplicates: int = 0
    #: ``…/state`` published in the loop's turn, right after the outcome's events (the
    #: publisher thread sends the other topics, and the state when the loop is busy)
    state_direct: int = 0
    #: of those, the ones whose payload the ahead thread computed during the commit
    state_ahead: int = 0
    #: of those, the ones pondered before their turn came (companion.table.ponder)
    state_pondered: int = 0
    #: replies to commands from MQTT published in the loop's turn, right after their events
    reply_direct: int = 0
    #: commands the broker kept (published with retain): refused and cleared, never run
    retained_refused: int = 0


def now() -> str:
    """ISO 8601 UTC with milliseconds: the ``at`` of events and errors."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def package_version() -> str:
    try:
        return metadata.version("rhuna-table")
    except metadata.PackageNotFoundError:
        return "0"


class Link:
    """The shared connection state (see the module's docstring for who guards what)."""

    def __init__(self, config: MqttConfig, stats: BridgeStats, seq: int = 0) -> None:
        self.config = config
        self.stats = stats
        self.topics: Topics | None = None
        self.client: Client | None = None
        #: the last event sequence number used: the next event is ``seq + 1``
        self.seq = seq
        # shared between paho's thread and the publisher; never held while calling paho
        self.cond = threading.Condition()
        self.connected = False
        self.ready = False
        self.generation = 0
        self.outstanding = 0  # QoS 1 messages handed to paho and not yet acknowledged
        self.unsent = 0  # outcomes whose events wait in the publisher's queue
        self.fast = False  # the loop's thread is publishing events right now
        self.flushing = False  # the publisher is sending what was kept while offline
        self.stopping = False
        #: this connection carries the last will (``offline`` on ``…/status``): only the
        #: holder's does, and only on it is ``online`` published (companion.mqtt.identity);
        #: changed only while paho's thread is stopped (:meth:`reconnect_with_will`)
        self.will = False
        #: the connection being made is the one :meth:`reconnect_with_will` asked for
        self.rewilling = False
        #: events, errors and replies kept while offline (the publisher's; read under cond)
        self.buffer: collections.deque[tuple[str, str]] = collections.deque()
        #: retained topic → payload last published (the publisher's; ``…/state`` also the
        #: turn's, both under ``state_lock``)
        self.published: dict[str, str] = {}
        # ``…/state`` goes out from the loop's turn or from the publisher, never older after
        # newer: both publish it under this lock, and only for a newer outcome than the last
        self.state_lock = threading.Lock()
        self.state_version = 0  # the outcome whose state ``…/state`` last carried
        self.encoder = StateEncoder()  # used under the state lock
        #: the view the loop's turn published as ``…/state``, for the publisher's other topics
        self.direct: tuple[TableState, TableView] | None = None

    def clear_way(self, messages: int) -> bool:
        """Under ``cond``: the loop's turn may publish ``messages`` now — connected, nothing
        kept from offline or being flushed, room in the window."""
        return (
            self.ready
            and not self.flushing
            and not self.buffer
            and self.outstanding + messages <= self.config.max_queued
        )

    # --- the loop's turn and the publisher ---------------------------------------------

    def send(self, topic: str, payload: str) -> None:
        """An event, error or reply: published now, or kept (bounded) until reconnected."""
        with self.cond:
            self.cond.wait_for(
                lambda: not self.ready or self.outstanding < self.config.max_queued, 5.0
            )
            if not self.ready:
                if len(self.buffer) >= self.config.max_queued:
                    self.buffer.popleft()
                    self.dropped()
                self.buffer.append((topic, payload))
                return
        self.publish(topic, payload, retain=False)

    def retain(self, topic: str, payload: str) -> None:
        with self.cond:
            self.cond.wait_for(
                lambda: not self.ready or self.outstanding < self.config.max_queued, 5.0
            )
            if not self.ready:
                return  # republished whole on reconnect
        if self.publish(topic, payload, retain=True):
            self.published[topic] = payload

    def publish(self, topic: str, payload: str, *, retain: bool) -> bool:
        assert self.client is not None
        with self.cond:
            self.outstanding += 1
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            self.stats.published += 1  # NO_CONN: paho keeps it and sends it on reconnect
            if info.rc == mqtt.MQTT_ERR_SUCCESS:
                self.client.write_now()  # on the socket now, not after paho's thread wakes
            return True
        with self.cond:
            self.outstanding -= 1
        self.dropped()
        log.debug("MQTT: paho refused a message on %s: %s", topic, mqtt.error_string(info.rc))
        return False

    def dropped(self) -> None:
        self.stats.dropped += 1
        if self.stats.dropped == 1 or self.stats.dropped % 100 == 0:
            log.warning(
                "MQTT: %d messages dropped so far (more than mqtt.max_queued = %d waiting)",
                self.stats.dropped,
                self.config.max_queued,
            )

    # --- paho's thread ------------------------------------------------------------------

    def put(self, client: mqtt.Client, topic: str, payload: str | bytes) -> int:
        """paho's thread (never waits): a retained QoS 1 message, counted until its PUBACK."""
        with self.cond:
            self.outstanding += 1
        return client.publish(topic, payload, qos=1, retain=True).mid

    def reconnect_with_will(self, will: bool) -> None:
        """The publisher's thread: a new connection with the last will on ``…/status`` (the
        holder's) or without it (a standby's; companion.mqtt.client)."""
        client, topics, cfg = self.client, self.topics, self.config
        assert client is not None and topics is not None

        def stopped() -> None:  # paho's old thread is gone, its new one not started
            with self.cond:
                self.will = will
                self.rewilling = True

        status = topics.status if will else None
        client.reconnect_with_will(status, cfg.host, cfg.broker_port, cfg.keepalive, stopped)

    def on_network_thread(self) -> bool:
        """Whether the caller is paho's own network thread."""
        thread = getattr(self.client, "_thread", None)
        return thread is not None and thread is threading.current_thread()
