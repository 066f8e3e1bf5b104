"""The MQTT bridge: an output and an input of the table loop, started and stopped on its own.

Like a Zigbee2MQTT extension it only listens to the loop (``on_outcome`` is a
loop subscriber) and only talks back through it (``loop.submit``). Three
threads meet here, and each keeps to its lane:

* the **table loop's** turn (on the loop's thread, or on the thread that submitted
  the input) calls :meth:`MqttBridge.on_outcome`, which never waits: it hands the
  outcome's events to paho at once when nothing is ahead of them (connected, nothing
  kept or queued, room in the window), then — when no other input waits and this is
  not paho's own thread — the retained ``…/state``, and enqueues the rest;
* paho's **network** thread runs the callbacks: a command is checked for shape
  and submitted to the loop (which may process it right there), anything else is
  enqueued; it never waits;
* the bridge's **publisher** thread does the rest in order: events with their
  sequence numbers, errors, replies, then the retained state of the newest
  outcome (computed once per burst, and only topics whose JSON changed). Nothing of
  an outcome is published before its journal commit; ``…/state`` goes out under one
  lock with a version number, so never older after newer.

While the broker is away the publisher keeps events, errors and replies in a
bounded buffer (``max_queued``; past it the oldest are dropped and counted) and
publishes no state. Once the broker has acknowledged the ``online`` status
after a reconnect — which paho guarantees comes after it re-sent what was in
flight — the buffer goes out in order and the retained state is republished
whole, so a stale copy re-sent by paho can never end up retained.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from companion.mqtt import discovery
from companion.mqtt.ahead import StateAhead
from companion.mqtt.client import OFFLINE, ONLINE, Client, make_client
from companion.mqtt.commands import BadRequest, parse_request
from companion.mqtt.config import MqttConfig
from companion.mqtt.messages import (
    InfoMessage,
    Reply,
    StateEncoder,
    encode,
    error_message,
    event_message,
    history_message,
    iter_state_messages,
    reply_error,
    reply_ok,
)
from companion.mqtt.topics import Topics, level
from companion.record.narrate import HistoryEntry, outcome_entry
from companion.record.session import Recap
from companion.table.loop import Outcome, TableLoop
from companion.table.views import VIEWS, turn_view
from engine.contracts.view import TableView
from engine.errors import RuleViolation
from engine.state import TableState
from engine.vocabulary import json_schema

log = logging.getLogger("rhuna.mqtt")

#: commands submitted and not yet answered; past it a command is refused as "busy"
MAX_PENDING = 1000
#: narrated journal entries kept on the retained ``…/history`` topic (docs/mqtt.md)
HISTORY = 20
#: a burst of outcomes handled before the retained state is brought up to date
_BURST = 256
#: seconds between two reminders of a service that stands by for another holding its table id
CLASH_EVERY = 10.0
#: pondered states' payloads kept at most, the oldest dropped first: a turn's likely next
#: draws (35 for the example table: a Hero Bag and the Favor Bag; companion.table.ponder)
PONDERED = 48


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


# --- what the publisher thread is asked to do -------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    outcome: Outcome
    at: str
    #: the event messages the loop's thread already published (None: the publisher does)
    sent: list[dict[str, Any]] | None = None
    #: the outcome's number (each outcome one more); a state is never published after a newer
    version: int = 0


@dataclass(frozen=True, slots=True)
class _Reply:
    payload: Reply


@dataclass(frozen=True, slots=True)
class _Ready:
    """The broker acknowledged ``online`` on connection number ``generation``."""

    generation: int


@dataclass(frozen=True, slots=True)
class _Seen:
    """A retained message on a topic the bridge may have to clear (a hero who left)."""

    topic: str
    empty: bool


@dataclass(frozen=True, slots=True)
class _Info:
    """A retained ``…/info`` (ours, or another instance's with the same table id)."""

    payload: bytes


class _Refresh:
    """Home Assistant restarted: send discovery and state again."""


@dataclass(frozen=True, slots=True)
class _TakeOver:
    """The holder of this table id went offline: this service, standing by, now acts."""

    other: dict[str, Any] | None


class _Stop:
    pass


@dataclass(frozen=True, slots=True)
class _Answered:
    """A state's pending answers came (companion.table.answers): publish it whole if still ours."""

    state: TableState


_Item = _Outcome | _Reply | _Ready | _Seen | _Info | _Refresh | _Stop | _Answered | _TakeOver


def now() -> str:
    """ISO 8601 UTC with milliseconds: the ``at`` of events and errors."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def package_version() -> str:
    try:
        return metadata.version("rhuna-table")
    except metadata.PackageNotFoundError:
        return "0"


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
        self.seq = seq
        #: the last narrated journal entries for ``…/history`` (the journal's, then each new one)
        self.history: collections.deque[HistoryEntry] = collections.deque(history, maxlen=HISTORY)
        #: the last ended session's recap, beside the history (docs/record.md)
        self.recap = recap
        self.stats = BridgeStats()
        self.topics: Topics | None = None
        self._loop: TableLoop | None = None
        self._client: Client | None = None
        self._inbox: queue.Queue[_Item] = queue.Queue()
        self._worker: threading.Thread | None = None
        # shared between paho's thread and the publisher; never held while calling paho
        self._cond = threading.Condition()
        self._connected = False
        self._ready = False
        self._generation = 0
        self._outstanding = 0  # QoS 1 messages handed to paho and not yet acknowledged
        self._unsent = 0  # outcomes whose events wait in the publisher's queue
        self._fast = False  # the loop's thread is publishing events right now
        self._flushing = False  # the publisher is sending what was kept while offline
        self._online_mid: int | None = None
        self._pending: dict[str, Any] = {}  # loop source → transaction to echo
        self._pending_lock = threading.Lock()
        self._requests = itertools.count(1)
        # the publisher thread's own
        self._buffer: collections.deque[tuple[str, str]] = collections.deque()
        self._published: dict[str, str] = {}  # retained topic → payload last published
        self._seen: set[str] = set()  # retained topics found on the broker, maybe stale
        self._wanted: set[str] = set()  # the retained topics the newest state has
        self._latest: TableState | None = None
        self._dirty = False
        # ``…/state`` goes out from the loop's turn or from the publisher, never older after
        # newer: both publish it under this lock, and only for a newer outcome than the last
        self._state_lock = threading.Lock()
        self._told = 0  # outcomes told (the loop's turn)
        self._latest_version = 0  # the outcome ``_latest`` is the state of (the publisher)
        self._state_version = 0  # the outcome whose state ``…/state`` last carried
        self._encoder = StateEncoder()  # used under the state lock
        #: a reader's turn: ``…/state`` computed during the commit (companion.mqtt.ahead)
        self._ahead: StateAhead | None = None
        #: id → (state, view, payload) of the states pondered (companion.table.ponder); written on
        #: its thread, read in the turns (each of its operations is atomic)
        self._pondered: collections.OrderedDict[int, tuple[TableState, TableView, str]] = (
            collections.OrderedDict()
        )
        self._ponder_encoder = StateEncoder()  # the pondering thread's own
        #: the view the loop's turn published as ``…/state``, for the publisher's other topics
        self._direct: tuple[TableState, TableView] | None = None
        self._version = package_version()
        #: this process's id in the retained ``…/info`` (its claim on the table id, with
        #: ``started_at``); not in the client id, which has a random part of its own
        self.instance = secrets.token_hex(4)
        #: the client id, drawn at start (never published: a viewer that knew it could knock
        #: the service off the broker by connecting with it)
        self.client_id: str | None = None
        self.started_at = now()
        #: called (the publisher's thread) with a key and a text to show, or None to clear it:
        #: the service puts it on the panel and in systemctl status
        self.on_alert: Callable[[str, str | None], None] | None = None
        #: the other instance publishing this table id, as its ``…/info`` says (None: none)
        self.duplicate: dict[str, Any] | None = None
        #: False while another service holds this table id (an earlier claim in ``…/info``):
        #: then no command is run and nothing but the clash is published (docs/mqtt.md)
        self._acting = True
        #: the retained ``…/status`` at this connection said the last holder is gone
        self._holder_gone = False
        self._clash_said = 0.0  # time.monotonic() of the last reminder of the clash
        self._told_yielded: set[Any] = set()  # instances told they stand by for this one
        self._stopping = False
        self._busy_since = 0.0  # time.monotonic() when the publisher took its batch (0: idle)

    # --- the extension's life -------------------------------------------------------

    def start(self, loop: TableLoop) -> None:
        """Subscribe to the loop, start publishing, connect in the background."""
        if self._client is not None:
            raise RuntimeError("the MQTT bridge is already started")
        cfg = self.config
        table_id = cfg.table_id or loop.state.table_id
        self.topics = Topics(cfg.base_topic, table_id)
        self._loop = loop
        self._latest = loop.state
        self._dirty = True
        # a random part at each start, published nowhere: nobody can guess it and knock the
        # service off the broker (MQTT's session takeover), and two services never share it
        prefix = cfg.client_id or f"rhuna-{level(table_id)}"
        client_id = self.client_id = f"{prefix}-{secrets.token_hex(8)}"
        client = make_client(cfg, self.topics, client_id)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self._client = client
        loop.subscribe(self, self.on_outcome, first=True)  # the overlay and remote wait on it
        VIEWS.listen(self._answered)
        if loop.ponder is not None:
            loop.ponder.warm(self, self._warm)
        if self.state_ahead:
            self._ahead = StateAhead()
            self._ahead.start()
            loop.before_commit(self, self._ask_ahead)
        self._worker = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._worker.start()
        client.connect_async(cfg.host, cfg.broker_port, cfg.keepalive)
        client.loop_start()
        log.info("MQTT: connecting to %s:%d as %s", cfg.host, cfg.broker_port, client_id)

    def stop(self, timeout: float = 5.0) -> None:
        """Publish what is queued and ``offline`` (the will is not sent on a clean
        disconnect), then disconnect. Commands still unanswered get no reply."""
        client, loop = self._client, self._loop
        if client is None:
            return
        VIEWS.unlisten(self._answered)
        if loop is not None:
            loop.unsubscribe(self)
            if loop.ponder is not None:
                loop.ponder.unwarm(self)
        if self._ahead is not None:
            self._ahead.stop(timeout)
            self._ahead = None
        self._inbox.put(_Stop())
        if self._worker is not None:
            self._worker.join(timeout)
        client.disconnect()
        client.loop_stop()
        self._client = None

    @property
    def connected(self) -> bool:
        with self._cond:
            return self._ready

    def wait_ready(self, timeout: float, ready: bool = True) -> bool:
        """Wait until connected and publishing the retained state (``ready=False``: until the
        connection is gone). For tests and the demo; True unless it timed out."""
        with self._cond:
            return self._cond.wait_for(lambda: self._ready == ready, timeout)

    def show_recap(self, recap: Recap) -> None:
        """A session's recap is written (any thread): it goes out with ``…/history``."""
        self.recap = recap
        self._inbox.put(_Refresh())

    # --- the table loop's thread ---------------------------------------------------

    def on_outcome(self, outcome: Outcome) -> None:
        """Loop subscriber: never waits. The events go out at once when nothing is ahead of
        them (connected, nothing kept or queued, room in paho's window): one thread hand-off
        fewer between a command and its event; then, when no other input waits for the loop
        and this is not paho's own thread, the retained ``…/state`` the same way. All the
        rest — errors, replies, the other retained topics — and whatever must wait its turn
        go through the publisher's queue."""
        at = now()
        self._told += 1
        if not self._acting:  # another service holds the table id: nothing of it goes out
            self._inbox.put(_Outcome(outcome, at, [], self._told))
            return
        sent = self._events_now(outcome, at) if outcome.events else None
        if outcome.command is not None and outcome.error is None:
            self._state_now(outcome.state, self._told)
        self._inbox.put(_Outcome(outcome, at, sent, self._told))

    def _ask_ahead(self, state: TableState) -> None:
        """Before-commit hint: ``state``'s ``…/state`` computed while the disk syncs, when the
        turn will publish it itself (see :meth:`_state_now`); never waits."""
        ahead = self._ahead  # read once: stop() may clear it meanwhile
        if (
            ahead is not None
            and self._ready
            and self._pondered_for(state) is None
            and self._turn_publishes_state()
        ):
            ahead.ask(state)

    def _answered(self, state: TableState) -> None:
        """The answers' thread (companion.table.views): ``state``'s view is whole now."""
        self._inbox.put(_Answered(state))

    def _warm(self, state: TableState) -> None:
        """Ponder's warmer (its thread): ``state``'s view and ``…/state`` payload, kept in
        case a turn comes to it (companion.table.ponder)."""
        view = turn_view(state)
        payload = self._ponder_encoder.encode(view, state)
        self._pondered[id(state)] = (state, view, payload)  # the state kept: its id its own
        while len(self._pondered) > PONDERED:
            self._pondered.popitem(last=False)  # an earlier turn's: it never came

    def _pondered_for(self, state: TableState) -> tuple[TableView, str] | None:
        """The view and payload :meth:`_warm` prepared for this very state, if it did."""
        kept = self._pondered.get(id(state))
        return (kept[1], kept[2]) if kept is not None and kept[0] is state else None

    def _turn_publishes_state(self) -> bool:
        """Whether this turn publishes ``…/state`` itself: nothing else waits for the loop
        (a burst is coalesced by the publisher), and this is not paho's thread."""
        assert self._loop is not None
        return not self._loop.pending and not self._on_network_thread()

    def _state_now(self, state: TableState, version: int) -> None:
        """Publish ``…/state`` for ``state`` from the loop's turn, if nothing is ahead of it and
        the loop has nothing waiting (a burst is coalesced by the publisher instead)."""
        assert self.topics is not None
        if not self._turn_publishes_state():
            return
        with self._cond:
            if (
                not self._ready
                or self._flushing
                or self._buffer
                or self._outstanding + 1 > self.config.max_queued
            ):
                return
        if not self._state_lock.acquire(blocking=False):
            return  # the publisher is publishing a state now: it takes this one next
        try:
            kept = self._pondered_for(state)
            if kept is not None:  # pondered (companion.table.ponder)
                view, payload = kept
                VIEWS.keep(state, view)  # for the panel, a moment later
                self.stats.state_pondered += 1
            else:
                ahead = self._ahead  # read once: stop() may clear it meanwhile
                taken = ahead.take(state) if ahead is not None else None
                view = VIEWS(state)  # the ahead thread's, when it computed the payload
                payload = taken if taken is not None else self._encoder.encode(view, state)
                if taken is not None:
                    self.stats.state_ahead += 1
            if self._published.get(self.topics.state) != payload:
                self._retain(self.topics.state, payload)
            self._state_version = version
            self._direct = (state, view)
            self.stats.state_direct += 1
        except Exception:  # the publisher publishes it, and reports what fails
            log.debug("MQTT: could not publish the state from the loop", exc_info=True)
        finally:
            self._state_lock.release()

    def _events_now(self, outcome: Outcome, at: str) -> list[dict[str, Any]] | None:
        assert self.topics is not None
        with self._cond:
            fast = (
                self._unsent == 0
                and self._ready
                and not self._flushing
                and not self._buffer
                and self._outstanding + len(outcome.events) <= self.config.max_queued
            )
            if not fast:
                self._unsent += 1  # the publisher sends them, in their turn
                return None
            self._fast = True
        try:
            messages = []
            for event in outcome.events:
                self.seq += 1
                message = event_message(self.seq, outcome.state, event, outcome.source, at)
                messages.append(message)
                self._publish(self.topics.events, encode(message), retain=False)
            return messages
        finally:
            with self._cond:
                self._fast = False
                self._cond.notify_all()

    def _on_network_thread(self) -> bool:
        """A command from MQTT processed in the loop's turn on paho's own thread: the state's
        millisecond of encoding goes to the publisher, so that thread is back on the network
        (the command's acknowledgement, the next command, the broker's acks) at once."""
        thread = getattr(self._client, "_thread", None)
        return thread is not None and thread is threading.current_thread()

    # --- paho's thread: never waits, never touches the table -------------------------

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        if reason.is_failure:
            self.stats.last_error = f"the broker refused the connection: {reason}"
            log.warning("MQTT: %s", self.stats.last_error)
            return
        assert self.topics is not None
        t = self.topics
        once = SubscribeOptions(qos=1)
        subscriptions: list[tuple[str, SubscribeOptions]] = [
            # the publisher's retain flag kept: a retained command is refused even live
            (t.command, SubscribeOptions(qos=1, retainAsPublished=True)),
            (t.command_filter, SubscribeOptions(qos=1, retainAsPublished=True)),
            (t.heroes, once),
            (t.status, once),
            (t.info, once),
        ]
        ha = self.config.homeassistant
        if ha.enabled:
            subscriptions += [(discovery.config_filter(ha, t), once), (ha.status_topic, once)]
        self._holder_gone = False  # until the retained …/status says so
        client.subscribe(subscriptions)
        with self._cond:
            self._connected = True
            self._generation += 1
            self._outstanding += 1
        self.stats.connects += 1
        self.stats.last_error = None
        # its acknowledgement arrives after paho re-sent whatever was in flight: see _Ready
        self._online_mid = client.publish(t.status, ONLINE, qos=1, retain=True).mid
        with self._cond:
            self._outstanding += 2  # each QoS 1 publish is counted until its PUBACK
        client.publish(t.info, encode(self.info()), qos=1, retain=True)
        client.publish(t.vocabulary, _vocabulary(), qos=1, retain=True)
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
        with self._cond:
            was = self._connected
            self._connected = self._ready = False
            self._cond.notify_all()
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
        with self._cond:
            self._outstanding -= 1
            generation = self._generation
            self._cond.notify_all()
        if reason.is_failure:  # MQTT 5: e.g. "Not authorized", an ACL that forbids the topic
            log.warning("MQTT: the broker refused a message (%s): check the account's ACL", reason)
        if mid == self._online_mid:
            self._online_mid = None
            self._inbox.put(_Ready(generation))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            if message.retain and self._retained_command(client, message):
                return
            if message.retain and self.topics and message.topic == self.topics.status:
                # retained from before this connection (a clean stop's offline, a will): the
                # holder named by the retained …/info, if any, is gone
                self._holder_gone = bytes(message.payload) != ONLINE.encode()
                if self._holder_gone and not self._acting:
                    self._take_over(client)
                return
            if self.topics and message.topic == self.topics.info:
                self._claim(client, bytes(message.payload), message.retain)
                return
            self._take(message.topic, bytes(message.payload))
        except Exception:  # paho's thread must survive any payload
            log.exception("MQTT: could not handle a message on %s", message.topic)

    def _retained_command(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> bool:
        """A command the broker kept (published with retain) is never run: it would run again at
        every reconnect. It is cleared (an empty retained message on its topic) and logged."""
        assert self.topics is not None
        name = self.topics.command_name(message.topic)
        if name is None:
            return False
        if message.payload and self._acting:  # the holder answers it (one reply)
            log.warning(
                "MQTT: refused and cleared a retained command on %s (publish commands without"
                " retain)",
                message.topic,
            )
            refusal = RuleViolation(
                "a retained command is refused: commands published with the retain flag are"
                " never run (the broker would hand it again at every reconnect)",
                fix="publish the command again without the retain flag",
                code="retained",
            )
            request = parse_request(name, bytes(message.payload))
            self._inbox.put(_Reply(reply_error(request.transaction, refusal)))
            with self._cond:
                self._outstanding += 1
            client.publish(message.topic, b"", qos=1, retain=True)
        return True

    def _claim(self, client: mqtt.Client, payload: bytes, retained: bool) -> None:
        """paho's thread: a ``…/info``, ours or another service's on this table id. The first
        holder is kept — the earlier ``started``, then the smaller ``instance`` — so when two
        start at once (both publish, both read the other's back) both reach the same answer.
        Decided here, before any command that follows it on the connection is taken."""
        with self._cond:
            if self._stopping:
                return  # its offline is out: the one that saw it holds the table now
        try:
            info = json.loads(payload) if payload else None
        except ValueError:
            info = None
        if not isinstance(info, dict) or info.get("instance") == self.instance:
            return  # ours
        if _predecessor(info):
            # the retained info of this table's last run on this machine (a restart, a
            # kill -9, a power cut): its process is gone, so nobody else publishes the table
            log.info(
                "MQTT: the last run's …/info (pid %s) is replaced by this one", info.get("pid")
            )
            return
        if retained and self._holder_gone:
            log.info(
                "MQTT: the retained …/info (host %s, pid %s) is of a service now offline;"
                " this one holds the table",
                info.get("host"),
                info.get("pid"),
            )
            return
        if _claim_key(info) < _claim_key(dict(self.info())):
            with self._cond:
                self._acting = False
            self.duplicate = info
        else:  # ours is the earlier claim: it stays the retained one
            with self._cond:
                self._outstanding += 1
            client.publish(self.topics.info if self.topics else "", encode(self.info()), qos=1,
                           retain=True)  # fmt: skip
        self._inbox.put(_Info(payload))

    def _take_over(self, client: mqtt.Client) -> None:
        """paho's thread: the holder this service stood by for went offline: act from now on,
        claiming the table id (``…/info``, ``online``); the publisher republishes everything."""
        assert self.topics is not None
        with self._cond:
            self._acting = True
            self._outstanding += 2
        other, self.duplicate = self.duplicate, None
        client.publish(self.topics.info, encode(self.info()), qos=1, retain=True)
        client.publish(self.topics.status, ONLINE, qos=1, retain=True)
        self._inbox.put(_TakeOver(other))

    def info(self) -> InfoMessage:
        """The retained ``…/info``: which process publishes this table."""
        return {
            "instance": self.instance,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": self.started_at,
            "version": self._version,
        }

    def _take(self, topic: str, payload: bytes) -> None:
        assert self.topics is not None and self._loop is not None
        if topic == self.topics.status:
            self._status_seen(payload)
            return
        name = self.topics.command_name(topic)
        if name is not None and not self._acting:
            log.debug("MQTT: a command on %s left to the table id's holder", topic)
            return
        if name is None:
            if topic == self.config.homeassistant.status_topic:
                if payload.strip() == b"online":
                    self._inbox.put(_Refresh())
            else:
                self._inbox.put(_Seen(topic, not payload))
            return
        request = parse_request(name, payload)
        if isinstance(request, BadRequest):
            log.info("MQTT: bad command on %s: %s", topic, request.violation)
            self._inbox.put(_Reply(reply_error(request.transaction, request.violation)))
            return
        source = f"mqtt:{next(self._requests)}"
        with self._pending_lock:
            busy = len(self._pending) >= MAX_PENDING
            if not busy:
                self._pending[source] = request.transaction
        if busy:
            refusal = RuleViolation(
                f"{MAX_PENDING} commands are already waiting for the table",
                fix="wait for their replies, then send again",
                code="busy",
            )
            self._inbox.put(_Reply(reply_error(request.transaction, refusal)))
            return
        self.stats.commands += 1
        self._loop.submit(request.command, source=source)

    def _status_seen(self, payload: bytes) -> None:
        """Someone (a forged message, an old will, a duplicate's will) retained a status that
        is not ours while we are up: put ``online`` back."""
        client = self._client
        with self._cond:
            up = self._connected and not self._stopping
        if payload == ONLINE.encode() or not up or client is None or self.topics is None:
            return
        if not self._acting:  # the holder's clean stop or its will: this one takes over
            self._take_over(client)
            return
        log.warning("MQTT: %s says %r while this table is up; republishing online",
                    self.topics.status, payload[:40])  # fmt: skip
        with self._cond:
            self._outstanding += 1
        client.publish(self.topics.status, ONLINE, qos=1, retain=True)
        self.stats.status_restored += 1

    # --- the publisher thread ---------------------------------------------------------

    def busy_for(self) -> float:
        """Seconds the publisher has spent on what it is doing now (0.0: waiting for work).
        The service's watchdog asks: a publisher stuck on any item stops the pings, so
        systemd restarts a table whose pages have stopped hearing from it."""
        since = self._busy_since
        return time.monotonic() - since if since else 0.0

    def _run(self) -> None:
        stopping = False
        while not stopping:
            self._busy_since = 0.0
            try:
                batch = [self._inbox.get(timeout=None if self._acting else CLASH_EVERY / 4)]
            except queue.Empty:
                batch = []
            self._busy_since = time.monotonic()
            while len(batch) < _BURST:
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            for item in batch:
                if isinstance(item, _Stop):
                    stopping = True
                    continue
                try:
                    self._handle(item)
                except Exception:
                    log.exception("MQTT: could not publish %r", type(item).__name__)
            try:
                if self._dirty:
                    self._publish_state()
                if not self._acting and time.monotonic() - self._clash_said >= CLASH_EVERY:
                    self._say_clash()  # again, every CLASH_EVERY s, until the clash is gone
            except Exception:
                log.exception("MQTT: could not publish the table state")
        self._finish()

    def _handle(self, item: _Item) -> None:
        assert self.topics is not None
        if isinstance(item, _Outcome):
            self._publish_outcome(item.outcome, item.at, item.sent)
            self._latest_version = item.version
        elif isinstance(item, _Reply):
            self._send(self.topics.reply, encode(item.payload))
        elif isinstance(item, _Ready):
            self._become_ready(item.generation)
        elif isinstance(item, _Seen):
            if item.empty:
                self._seen.discard(item.topic)
            elif item.topic not in self._wanted:  # not the echo of our own publishing
                self._seen.add(item.topic)
                self._dirty = True
        elif isinstance(item, _Info):
            self._info_seen(item.payload)
        elif isinstance(item, _Refresh):
            self._published.clear()
            self._dirty = True
        elif isinstance(item, _TakeOver):
            other = item.other or {}
            log.warning(
                "MQTT: the service holding table %r (host %s, pid %s) went offline; this one"
                " takes over",
                self.topics.table_id,
                other.get("host", "?"),
                other.get("pid", "?"),
            )
            if self.on_alert is not None:
                self.on_alert("mqtt-duplicate", None)
            self._published.clear()
            self._dirty = True
        elif isinstance(item, _Answered) and item.state is self._latest:
            self._dirty = True  # VIEWS has its whole view now

    def _publish_outcome(
        self, outcome: Outcome, at: str, sent: list[dict[str, Any]] | None = None
    ) -> None:
        assert self.topics is not None
        t = self.topics
        if not self._acting:  # standing by: the state is kept for a take-over, nothing sent
            if sent is None and outcome.events:
                with self._cond:
                    self._unsent -= 1
            with self._pending_lock:
                self._pending.pop(outcome.source, None)
            self._latest = outcome.state
            self._dirty = True
            return
        if sent is not None:
            events = sent
        else:
            events = []
            if outcome.events:
                with self._cond:  # the loop's thread may be sending the events before these
                    self._cond.wait_for(lambda: not self._fast)
            for event in outcome.events:
                self.seq += 1
                message = event_message(self.seq, outcome.state, event, outcome.source, at)
                events.append(message)
                self._send(t.events, encode(message))
            if outcome.events:
                with self._cond:
                    self._unsent -= 1
        if outcome.error is not None:
            uid = outcome.tag.uid if outcome.tag is not None else None
            error = error_message(outcome.error, outcome.source, at, outcome.command, uid)
            self._send(t.error, encode(error))
        with self._pending_lock:
            asked = outcome.source in self._pending
            transaction = self._pending.pop(outcome.source, None)
        if asked:
            reply: Reply
            if outcome.error is not None:
                reply = reply_error(transaction, outcome.error)
            else:
                reply = reply_ok(transaction, outcome.command, events)
            self._send(t.reply, encode(reply))
        if outcome.error is None and outcome.command is not None and outcome.seq is not None:
            self.history.append(outcome_entry(outcome, time.time()))
        self._latest = outcome.state
        self._dirty = True

    def _info_seen(self, payload: bytes) -> None:
        """Another service's ``…/info`` on this table id, the claim already decided on paho's
        thread (:meth:`_claim`): standing by, say why; holding, log the one that stands by."""
        assert self.topics is not None
        try:
            info = json.loads(payload)
        except ValueError:
            return
        if not self._acting:
            self._say_clash()  # the holder (re)claimed: say so now, then every CLASH_EVERY s
            return
        if info.get("instance") in self._told_yielded:
            return
        self._told_yielded.add(info.get("instance"))
        log.warning(
            "MQTT: another service started on table %r (host %s, pid %s, started %s); this one"
            " started first and keeps the table: that one stands by",
            self.topics.table_id,
            info.get("host", "?"),
            info.get("pid", "?"),
            info.get("started", "?"),
        )

    def _say_clash(self) -> None:
        """Standing by: why, naming the holder's host and pid — in the log, on ``…/error``, on the
        panel and in systemctl status (the service's ``on_alert``); again every CLASH_EVERY s."""
        assert self.topics is not None
        info = self.duplicate
        if info is None or self._acting:
            return
        self._clash_said = time.monotonic()
        self.stats.duplicates += 1
        text = (
            f"table {self.topics.table_id!r} is held by another service on this broker"
            f" (host {info.get('host', '?')}, pid {info.get('pid', '?')}, started"
            f" {info.get('started', '?')}): this one stands by, running no command and"
            " publishing no state, until that one goes offline"
        )
        fix = (
            "stop one of them, or give each table its own [table] id (or mqtt.table_id):"
            " two services on one table id would overwrite each other's state"
        )
        log.error("MQTT: %s — %s", text, fix)
        violation = RuleViolation(text, fix=fix, code="duplicate")
        message = error_message(violation, "mqtt", now())
        message["other"] = info
        self._send(self.topics.error, encode(message))
        if self.on_alert is not None:
            self.on_alert("mqtt-duplicate", f"MQTT: {text}")

    def _become_ready(self, generation: int) -> None:
        with self._cond:
            if generation != self._generation or not self._connected:
                return  # that connection is already gone
            self._ready = True
            self._flushing = True  # no event jumps ahead of those kept while offline
            self._cond.notify_all()
        try:
            waiting, self._buffer = self._buffer, collections.deque()
            if waiting:
                log.info("MQTT: sending %d messages kept while offline", len(waiting))
            for topic, payload in waiting:
                self._send(topic, payload)
        finally:
            with self._cond:
                self._flushing = False
        self._published.clear()  # the broker may have lost its retained copies
        self._dirty = True

    def _publish_state(self) -> None:
        """Bring every retained topic up to date with the newest state (changed ones only)."""
        assert self.topics is not None and self._latest is not None
        if not self.connected or not self._acting:
            return  # all of it goes out when the connection is back (or this one takes over)
        with self._state_lock:
            if self._latest_version < self._state_version:
                return  # the loop's turn published a newer one; its outcome is next in line
            self._state_version = self._latest_version
            self._publish_topics()
        self._dirty = False

    def _publish_topics(self) -> None:
        assert self.topics is not None and self._latest is not None
        state_topic = self.topics.state
        direct, self._direct = self._direct, None
        out = self._published.get(state_topic)
        wanted: dict[str, str] = {}
        messages: Iterable[tuple[str, str]]
        view = VIEWS(self._latest)  # whole once its answers came, though the turn's was not
        if direct is not None and direct[0] is self._latest and direct[1] is view and out:
            # its …/state went out from the loop's turn
            wanted[state_topic] = out
            messages = iter_state_messages(view, self.topics, whole=False)
        else:
            whole = (state_topic, self._encoder.encode(view, self._latest))
            messages = itertools.chain([whole], iter_state_messages(view, self.topics, whole=False))
        # the table's own topics first, each published as soon as it is encoded (…/state
        # first): subscribers waiting for the state do not wait for discovery or history
        for topic, payload in messages:
            wanted[topic] = payload
            if self._published.get(topic) != payload:
                self._retain(topic, payload)
        ha = self.config.homeassistant
        if ha.enabled:
            for topic, config in discovery.discovery_messages(
                view, self.topics, ha, self._version
            ).items():
                wanted[topic] = encode(config)
        wanted[self.topics.history] = encode(history_message(self.history, self.recap))
        self._wanted = set(wanted)
        for topic in sorted(self._seen - wanted.keys()):
            self._retain(topic, "")  # a hero (and their HA sensors) no longer at the table
            self._seen.discard(topic)
        for topic, payload in wanted.items():
            if self._published.get(topic) != payload:
                self._retain(topic, payload)

    def _finish(self) -> None:
        """Stopping: ``offline`` (retained) and wait a little for the broker's acks."""
        assert self.topics is not None and self._client is not None
        with self._cond:
            self._stopping = True  # our own offline must not be "restored"
        if not self.connected:
            if self._buffer:
                log.warning("MQTT: stopping offline; %d messages not sent", len(self._buffer))
            return
        with self._cond:
            self._outstanding += 1
        self._client.publish(self.topics.status, OFFLINE, qos=1, retain=True)
        with self._cond:
            self._cond.wait_for(lambda: self._outstanding <= 0 or not self._connected, 3.0)

    # --- sending ------------------------------------------------------------------------

    def _send(self, topic: str, payload: str) -> None:
        """An event, error or reply: published now, or kept (bounded) until reconnected."""
        with self._cond:
            self._cond.wait_for(
                lambda: not self._ready or self._outstanding < self.config.max_queued, 5.0
            )
            if not self._ready:
                if len(self._buffer) >= self.config.max_queued:
                    self._buffer.popleft()
                    self._dropped()
                self._buffer.append((topic, payload))
                return
        self._publish(topic, payload, retain=False)

    def _retain(self, topic: str, payload: str) -> None:
        with self._cond:
            self._cond.wait_for(
                lambda: not self._ready or self._outstanding < self.config.max_queued, 5.0
            )
            if not self._ready:
                return  # republished whole on reconnect
        if self._publish(topic, payload, retain=True):
            self._published[topic] = payload

    def _publish(self, topic: str, payload: str, *, retain: bool) -> bool:
        assert self._client is not None
        with self._cond:
            self._outstanding += 1
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            self.stats.published += 1  # NO_CONN: paho keeps it and sends it on reconnect
            if info.rc == mqtt.MQTT_ERR_SUCCESS:
                self._client.write_now()  # on the socket now, not after paho's thread wakes
            return True
        with self._cond:
            self._outstanding -= 1
        self._dropped()
        log.debug("MQTT: paho refused a message on %s: %s", topic, mqtt.error_string(info.rc))
        return False

    def _dropped(self) -> None:
        self.stats.dropped += 1
        if self.stats.dropped == 1 or self.stats.dropped % 100 == 0:
            log.warning(
                "MQTT: %d messages dropped so far (more than mqtt.max_queued = %d waiting)",
                self.stats.dropped,
                self.config.max_queued,
            )


_VOCABULARY: bytes | None = None


def _predecessor(info: dict[str, Any]) -> bool:
    """An ``…/info`` published on this host by a process that no longer runs: this table's
    previous run, not a second service (which is alive, here or on another host)."""
    pid = info.get("pid")
    if info.get("host") != socket.gethostname() or not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


def _claim_key(info: dict[str, Any]) -> tuple[str, str]:
    """Which of two claims on a table id is first: the earlier start (ISO 8601 UTC, the same
    width for every service), then the smaller instance id (the tie of two started at once)."""
    return (str(info.get("started", "")), str(info.get("instance", "")))


def _vocabulary() -> bytes:
    """The commands' JSON Schema as published on ``…/vocabulary`` (made once per process)."""
    global _VOCABULARY
    if _VOCABULARY is None:
        _VOCABULARY = json.dumps(json_schema(), separators=(",", ":")).encode()
    return _VOCABULARY
