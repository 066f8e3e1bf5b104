"""The MQTT bridge: an output and an input of the table loop, started and stopped on its own.

Like a Zigbee2MQTT extension it only listens to the loop (``on_outcome`` is a
loop subscriber) and only talks back through it (``loop.submit``). Three
threads meet here, and each keeps to its lane; each lane is its own module:

* the **table loop's** turn runs the fast path (companion.mqtt.fast_path): the
  outcome's events at once when nothing is ahead of them (a command's reply right after
  them), then — when no other input
  waits and this is not paho's own thread — the retained ``…/state``; it never waits;
* paho's **network** thread runs the callbacks: the connection's here, the messages'
  in the intake (companion.mqtt.intake: a command is checked for shape and submitted
  to the loop) and the identity (companion.mqtt.identity: the claim on the table id,
  stand-by and take-over); it never waits;
* the bridge's **publisher** thread (companion.mqtt.publisher) does the rest in order,
  keeps what comes while the broker is away, and the retained topics up to date.

What they share, and the locks that guard it, is companion.mqtt.link: the
connection's flags under one condition never held while calling paho, and
``…/state`` under one lock with a version number, so never older after newer.
This class is the facade the service, the tests and the benchmarks use.
"""

from __future__ import annotations

import collections
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from companion.mqtt import discovery
from companion.mqtt.ahead import StateAhead
from companion.mqtt.client import ONLINE, make_client
from companion.mqtt.config import MqttConfig
from companion.mqtt.fast_path import FastPath
from companion.mqtt.identity import CLASH_EVERY, Identity
from companion.mqtt.intake import MAX_PENDING, Intake
from companion.mqtt.items import (
    Answered,
    AuditSaid,
    BoardSaid,
    Item,
    PanelSaid,
    Ready,
    Refresh,
    SendNotice,
)
from companion.mqtt.link import BridgeStats, Link, now, package_version
from companion.mqtt.messages import InfoMessage, encode, notice_message
from companion.mqtt.publisher import HISTORY, Publisher
from companion.mqtt.topics import CATALOGUE, Topics
from companion.record.narrate import HistoryEntry
from companion.record.session import Recap
from companion.table.board import CROWDED_KEY
from companion.table.board import KEY as BOARD_KEY
from companion.table.loop import Outcome, TableLoop
from companion.views.cache import VIEWS
from engine.state import TableState
from engine.vocabulary import json_schema
from firmware_bridge.hub import ONE_TOKEN_PER_WELL, HubNotice

log = logging.getLogger("rhuna.mqtt")

__all__ = [
    "CLASH_EVERY",
    "HISTORY",
    "MAX_PENDING",
    "BridgeStats",
    "MqttBridge",
    "now",
    "package_version",
]


class MqttBridge:
    """Publishes the table on MQTT and takes commands from it (see docs/mqtt.md).

    >>> from companion.mqtt.config import load_mqtt_config
    >>> bridge = MqttBridge(load_mqtt_config({"host": "localhost"}))
    >>> bridge.connected  # nothing happens before start
    False
    >>> bridge.start(loop)  # doctest: +SKIP
    >>> bridge.stop()  # doctest: +SKIP

    ``start`` subscribes ``on_outcome`` to the loop and connects in the background;
    ``stop`` publishes ``offline``, then disconnects.

    ``seq`` is the last event sequence number already used (the store's, when
    the service resumes a journal): the next event is ``seq + 1``.
    """

    #: compute a reader's turn's ``…/state`` while its commit syncs (companion.mqtt.ahead);
    #: False for an A/B in benchmarks/hops.py (``HOPS_NO_AHEAD``)
    state_ahead = True

    def __init__(
        self,
        config: MqttConfig,
        *,
        seq: int = 0,
        history: Iterable[HistoryEntry] = (),
        recap: Recap | None = None,
    ) -> None:
        self.config = config
        self.stats = BridgeStats()
        self.link = Link(config, self.stats, seq)
        self._loop: TableLoop | None = None
        self._online_mid: int | None = None
        # the publisher's queue is made first: the other pieces put their items on it
        tell = self._tell
        self.identity = Identity(self.link, tell)
        self.intake = Intake(self.link, self.identity, tell)
        history = list(history)
        # the table's last change: the journal's last command, when the service resumes one
        changed_at = _iso(history[-1]["at"]) if history else None
        self.publisher = Publisher(
            self.link, self.identity, self.intake, history, recap, changed_at
        )
        self.fast = FastPath(self.link, self.identity, self.intake, tell)
        #: the board's lookup (companion.table.board, ``Board.lying``): the token an unsync
        #: key's well holds alone, for ``…/board``'s "accept as drawn" (None: none known)
        self.lying: Callable[[str], str | None] | None = None

    def _tell(self, item: Item) -> None:
        self.publisher.inbox.put(item)

    # --- what the service, the tests and the benchmarks read -----------------------------

    @property
    def topics(self) -> Topics | None:
        return self.link.topics

    def first_state(self) -> dict[str, str]:
        """The retained topics a page's first paint needs, as this bridge last published them
        (topic → payload): every one of :data:`FIRST_STATE` (public: every login of the table
        and the wall may read them on the broker), never a worldkeeper topic. The page server
        inlines them in the pages it serves (companion.pages.server, docs/web.md "How fast a
        page paints"); any thread may ask (a copy)."""
        topics = self.link.topics
        if topics is None:
            return {}
        root = f"{topics.root}/"
        published = dict(self.link.published)  # one C-level copy: safe beside the publisher
        return {
            topic: payload
            for topic, payload in published.items()
            if topic.startswith(root) and _first_state_suffix(topic[len(root) :])
        }

    @property
    def seq(self) -> int:
        """The last event sequence number used."""
        return self.link.seq

    @property
    def history(self) -> collections.deque[HistoryEntry]:
        return self.publisher.history

    @property
    def recap(self) -> Recap | None:
        return self.publisher.recap

    @property
    def instance(self) -> str:
        return self.identity.instance

    @property
    def client_id(self) -> str | None:
        return self.identity.client_id

    @property
    def started_at(self) -> str:
        return self.identity.started_at

    @property
    def duplicate(self) -> dict[str, Any] | None:
        return self.identity.duplicate

    @property
    def on_alert(self) -> Callable[[str, str | None], None] | None:
        return self.identity.on_alert

    @on_alert.setter
    def on_alert(self, alert: Callable[[str, str | None], None] | None) -> None:
        self.identity.on_alert = alert

    def info(self) -> InfoMessage:
        """The retained ``…/info``: which process publishes this table."""
        return self.identity.info()

    def on_outcome(self, outcome: Outcome) -> None:
        """Loop subscriber (companion.mqtt.fast_path): never waits."""
        self.fast.on_outcome(outcome)

    def hub_notice(self, notice: HubNotice) -> None:
        """The service's hook (a reader's thread): two tokens in one well, or one again, as a
        ``notice`` on ``…/events`` — no ``seq``: it is no engine event (docs/mqtt.md)."""
        if notice.kind == ONE_TOKEN_PER_WELL:
            message = notice_message(notice.reader, notice.channel, notice.active, now())
            self._tell(SendNotice(encode(message)))

    def alert(self, key: str, text: str | None) -> None:
        """The service's hook (any thread; never waits): a standing alert said, or over. The
        board's (an unsync well or token, a crowded well: where and what on the board, public
        words) go out on the retained ``…/board``; the others are not the board's: the panel's
        goes out on ``…/panel`` (``panel_health``), a second service's is said on ``…/error``."""
        if key.startswith((BOARD_KEY, CROWDED_KEY)):
            token = self.lying(key) if text is not None and self.lying is not None else None
            self._tell(BoardSaid(key, text, token))

    def panel_health(self, problem: str | None) -> None:
        """The service's hook (the display worker's timer thread, or its own when a late refresh
        returns; never waits): the panel not responding (``problem``, in words) or responding
        again (None), on the retained ``…/panel`` for the pages, the remote and ``doctor``."""
        self._tell(PanelSaid(problem))

    def audit(self, report: Mapping[str, Any]) -> None:
        """The service's hook (any thread; never waits): the bag audit's read or answer, on the
        retained ``…/audit`` (the gm's)."""
        self._tell(AuditSaid(report))

    def busy_for(self) -> float:
        """Seconds the publisher has spent on what it is doing now (0.0: waiting for work)."""
        return self.publisher.busy_for()

    # --- the extension's life -------------------------------------------------------

    def start(self, loop: TableLoop) -> None:
        """Subscribe to the loop, start publishing, connect in the background."""
        if self.link.client is not None:
            raise RuntimeError("the MQTT bridge is already started")
        cfg = self.config
        table_id = cfg.table_id or loop.state.table_id
        topics = self.link.topics = Topics(cfg.base_topic, table_id)
        self._loop = self.intake.loop = self.fast.loop = loop
        self.identity.table_name = loop.state.table_name
        client_id = self.identity.new_client_id(cfg.client_id, table_id)
        client = make_client(cfg, topics, client_id)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self.intake.on_message
        self.link.client = client
        loop.subscribe(self, self.fast.on_outcome, first=True)  # the overlay and remote wait on it
        VIEWS.listen(self._answered)
        if loop.ponder is not None:
            loop.ponder.warm(self, self.fast.warm)
        if self.state_ahead:
            self.fast.ahead = StateAhead()
            self.fast.ahead.start()
            loop.before_commit(self, self.fast.ask_ahead)
        self.publisher.start(loop.state)
        # said before the network thread starts: its "connected" can come at once
        log.info("MQTT: connecting to %s:%d as %s", cfg.host, cfg.broker_port, client_id)
        client.connect_session(cfg.host, cfg.broker_port, cfg.keepalive)
        client.loop_start()

    def stop(self, timeout: float = 5.0) -> None:
        """Publish what is queued and ``offline`` (the will is not sent on a clean
        disconnect), then disconnect. Commands still unanswered get no reply."""
        client, loop = self.link.client, self._loop
        if client is None:
            return
        VIEWS.unlisten(self._answered)
        if loop is not None:
            loop.unsubscribe(self)
            if loop.ponder is not None:
                loop.ponder.unwarm(self)
        if self.fast.ahead is not None:
            self.fast.ahead.stop(timeout)
            self.fast.ahead = None
        self.publisher.stop(timeout)
        client.end()
        client.loop_stop()
        self.link.client = None

    @property
    def connected(self) -> bool:
        with self.link.cond:
            return self.link.ready

    def wait_ready(self, timeout: float, ready: bool = True) -> bool:
        """Wait until connected and publishing the retained state (``ready=False``: until the
        connection is gone). For tests and the demo; True unless it timed out."""
        with self.link.cond:
            return self.link.cond.wait_for(lambda: self.link.ready == ready, timeout)

    def show_recap(self, recap: Recap) -> None:
        """A session's recap is written (any thread): it goes out with ``…/history``."""
        self.publisher.recap = recap
        self._tell(Refresh())

    def _answered(self, state: TableState) -> None:
        """The answers' thread (companion.views.cache): ``state``'s view is whole now."""
        self._tell(Answered(state))

    # --- paho's thread: the connection; never waits, never touches the table ---------------

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        link = self.link
        if reason.is_failure:
            self.stats.last_error = f"the broker refused the connection: {reason}"
            log.warning("MQTT: %s", self.stats.last_error)
            return
        assert link.topics is not None
        t = link.topics
        once = SubscribeOptions(qos=1)
        subscriptions: list[tuple[str, SubscribeOptions]] = [
            (t.heroes, once),
            (t.status, once),
            (t.info, once),
        ]
        ha = self.config.homeassistant
        if ha.enabled:
            subscriptions += [(discovery.config_filter(ha, t), once), (ha.status_topic, once)]
        self.identity.holder_gone = False  # until the retained …/status says so
        client.subscribe(subscriptions)
        with link.cond:
            link.connected = True
            link.generation += 1
            generation, willed, rewilled = link.generation, link.will, link.rewilling
            link.rewilling = False
        self.identity.connected(client, generation, rewilled)
        if not rewilled:  # the claim's own reconnection (with or without the will) is no new one
            self.stats.connects += 1
        self.stats.last_error = None
        # the publisher's retain flag kept: a retained command is refused even live.
        # The commands' subscription before ``online``: the broker handles a connection's
        # packets in order, so a remote that sends a command the instant it reads ``online``
        # finds it in place, also on a session the broker lost (killed, a power cut). Without
        # the retained ones here (RETAIN_DO_NOT_SEND): they come with the second below
        live = SubscribeOptions(
            qos=1, retainAsPublished=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND
        )
        client.subscribe([(t.command, live), (t.command_filter, live)])
        # online only where the last will is, the holder's connection (companion.mqtt.identity):
        # its acknowledgement arrives after paho re-sent whatever was in flight (see Ready);
        # without the will, the claim decides (a standby is ready once it stands by)
        self._online_mid = link.put(client, t.status, ONLINE) if willed else None
        link.put(client, t.info, encode(self.identity.info()))
        self.identity.info_said = time.monotonic()
        link.put(client, t.vocabulary, _vocabulary())
        # the same filters again, now with their retained commands (MQTT 5 §3.8.4: a new
        # subscription to an existing filter replaces it, no message is lost or doubled): the
        # broker queues the claim's echo for this connection before them (a flood of them
        # would fill its queue, and the echo, dropped, would leave the claim undecided)
        commands = SubscribeOptions(qos=1, retainAsPublished=True)
        client.subscribe([(t.command, commands), (t.command_filter, commands)])
        log.info("MQTT: connected to %s:%d", self.config.host, self.config.broker_port)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        first = self.stats.last_error is None
        where = f"{self.config.host}:{self.config.broker_port}"
        if self.config.tls is not None:
            self.stats.last_error = (
                f"cannot connect to the broker at {where} over TLS (down, or a certificate"
                " check failed: see mqtt.tls)"
            )
        else:
            self.stats.last_error = f"cannot reach the broker at {where}"
        (log.warning if first else log.debug)("MQTT: %s; retrying", self.stats.last_error)

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        link = self.link
        with link.cond:
            was = link.connected
            link.connected = link.ready = False
            link.cond.notify_all()
        if was and reason.is_failure:
            log.warning("MQTT: connection lost (%s); reconnecting", reason)
        elif not was and self.stats.last_error is None:
            # e.g. TLS 1.3: the broker checks the client certificate after the handshake
            self.stats.last_error = (
                f"the broker at {self.config.host}:{self.config.broker_port} closed the"
                f" connection before accepting it ({reason})"
                + ("; check mqtt.tls" if self.config.tls is not None else "")
            )
            log.warning("MQTT: %s", self.stats.last_error)

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, properties: Any
    ) -> None:
        link = self.link
        with link.cond:
            link.outstanding -= 1
            generation = link.generation
            link.cond.notify_all()
        if reason.is_failure:  # MQTT 5: e.g. "Not authorized", an ACL that forbids the topic
            log.warning("MQTT: the broker refused a message (%s): check the account's ACL", reason)
        if mid == self._online_mid:
            self._online_mid = None
            self._tell(Ready(generation))


_VOCABULARY: bytes | None = None


def _iso(at: float) -> str:
    """A journal entry's time (seconds since the epoch) as the ``at`` of events."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


def _vocabulary() -> bytes:
    """The commands' JSON Schema as published on ``…/vocabulary`` (made once per process)."""
    global _VOCABULARY
    if _VOCABULARY is None:
        _VOCABULARY = json.dumps(json_schema(), separators=(",", ":")).encode()
    return _VOCABULARY


#: what a page's first paint is given by the page server: the public retained topics the
#: public pages follow (not ``vocabulary`` and ``bags``: the gm's remote's, and the largest)
FIRST_STATE: frozenset[str] = frozenset(
    t.suffix
    for t in CATALOGUE
    if t.retained and t.audience == "public" and t.suffix not in ("vocabulary", "bags")
)


def _first_state_suffix(suffix: str) -> bool:
    """``suffix`` (a topic under the table's root) is one of :data:`FIRST_STATE`'s.

    >>> _first_state_suffix("state"), _first_state_suffix("heroes/aria"), _first_state_suffix("gm")
    (True, True, False)
    >>> _first_state_suffix("heroes/aria/x"), _first_state_suffix("bags")
    (False, False)
    """
    if suffix.startswith("heroes/"):
        return "heroes/<id>" in FIRST_STATE and suffix.count("/") == 1
    return suffix in FIRST_STATE
