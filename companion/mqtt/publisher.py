"""The bridge's publisher thread: everything the loop's turn did not send, in order.

It takes its queue (companion.mqtt.items) in order: events with their sequence numbers,
errors, replies, then the retained state of the newest outcome (computed once per
burst, and only topics whose JSON changed). Nothing of an outcome is published before
its journal commit; ``…/state`` goes out under the link's ``state_lock`` with a version
number, so never older after newer (companion.mqtt.link).

While the broker is away it keeps events, errors and replies in a bounded buffer
(``max_queued``; past it the oldest are dropped and counted) and publishes no state.
Once the broker has acknowledged the ``online`` status after a reconnect — which paho
guarantees comes after it re-sent what was in flight — the buffer goes out in order and
the retained state is republished whole, so a stale copy re-sent by paho can never end
up retained.
"""

from __future__ import annotations

import collections
import itertools
import logging
import queue
import threading
import time
from collections.abc import Iterable
from typing import Any

from companion.mqtt import discovery
from companion.mqtt.client import OFFLINE
from companion.mqtt.identity import CLASH_EVERY, CLOCK_EVERY, Identity
from companion.mqtt.intake import Intake
from companion.mqtt.items import (
    Answered,
    AuditSaid,
    BoardSaid,
    InfoSeen,
    Item,
    PanelSaid,
    Ready,
    Refresh,
    Rewill,
    Seen,
    SendNotice,
    SendReply,
    Stop,
    TakeOver,
    Told,
)
from companion.mqtt.link import Link
from companion.mqtt.messages import (
    AuditMessage,
    BoardAlert,
    PanelMessage,
    Reply,
    audit_message,
    board_message,
    encode,
    error_message,
    event_message,
    event_publications,
    gm_message,
    history_message,
    iter_state_messages,
    panel_message,
    reply_error,
    reply_ok,
    stamped,
)
from companion.record.narrate import HistoryEntry, outcome_entry
from companion.record.session import Recap
from companion.table.loop import Outcome
from companion.views.cache import VIEWS
from engine.state import TableState

log = logging.getLogger("rhuna.mqtt")

#: narrated journal entries kept on the retained ``…/history`` topic (docs/mqtt.md)
HISTORY = 20
#: a burst of outcomes handled before the retained state is brought up to date
_BURST = 256


class Publisher:
    """The queue thread (``mqtt-publisher``) and the retained topics it keeps up to date."""

    def __init__(
        self,
        link: Link,
        identity: Identity,
        intake: Intake,
        history: Iterable[HistoryEntry] = (),
        recap: Recap | None = None,
        changed_at: str | None = None,
    ) -> None:
        self.link = link
        self.identity = identity
        self.intake = intake
        #: the last narrated journal entries for ``…/history`` (the journal's, then each new one)
        self.history: collections.deque[HistoryEntry] = collections.deque(history, maxlen=HISTORY)
        #: the last ended session's recap, beside the history (docs/record.md)
        self.recap = recap
        self.inbox: queue.Queue[Item] = queue.Queue()
        #: the board's standing unsync alerts, by key, in the order said (``…/board``)
        self.board: dict[str, BoardAlert] = {}
        #: whether the panel answers its refreshes (``…/panel``; the display worker's word)
        self.panel: PanelMessage = panel_message(None)
        #: the bag audit that runs, or the last one's answer (``…/audit``; None: none yet)
        self.audit: AuditMessage | None = None
        self._worker: threading.Thread | None = None
        # the publisher thread's own
        self._seen: set[str] = set()  # retained topics found on the broker, maybe stale
        self._wanted: set[str] = set()  # the retained topics the newest state has
        self.latest: TableState | None = None
        #: when ``latest`` came: the ``at`` of the last accepted command (the journal's last,
        #: at start), stamped on ``…/state`` as ``changed_at``
        self.changed_at = changed_at
        self._latest_version = 0  # the outcome ``latest`` is the state of
        self.dirty = False
        self._busy_since = 0.0  # time.monotonic() when the publisher took its batch (0: idle)

    def start(self, state: TableState) -> None:
        self.latest = state
        self.dirty = True
        self._worker = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._worker.start()

    def stop(self, timeout: float) -> None:
        """Publish what is queued and ``offline``, then return (at most ``timeout`` s)."""
        self.inbox.put(Stop())
        if self._worker is not None:
            self._worker.join(timeout)

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
            acting = self.identity.acting
            try:  # woken for the clash's reminder, or …/info's clock (companion.mqtt.identity)
                batch = [self.inbox.get(timeout=(CLOCK_EVERY if acting else CLASH_EVERY) / 4)]
            except queue.Empty:
                batch = []
            self._busy_since = time.monotonic()
            while len(batch) < _BURST:
                try:
                    batch.append(self.inbox.get_nowait())
                except queue.Empty:
                    break
            for item in batch:
                if isinstance(item, Stop):
                    stopping = True
                    continue
                try:
                    self._handle(item)
                except Exception:
                    log.exception("MQTT: could not publish %r", type(item).__name__)
            try:
                if self.dirty:
                    self._publish_state()
                self.identity.remind()  # standing by: the clash again, every CLASH_EVERY s
                self.identity.heartbeat()  # acting: …/info again, every CLOCK_EVERY s
            except Exception:
                log.exception("MQTT: could not publish the table state")
        self._finish()

    def _handle(self, item: Item) -> None:
        link = self.link
        assert link.topics is not None
        if isinstance(item, Told):
            self._publish_outcome(item.outcome, item.at, item.sent)
            self._latest_version = item.version
            if item.outcome.command is not None and item.outcome.error is None:
                self.changed_at = item.at  # the turn stamped its …/state with the same
        elif isinstance(item, SendReply):
            link.send(link.topics.reply, encode(item.payload))
        elif isinstance(item, SendNotice):
            if self.identity.acting:  # standing by: nothing of this table goes out
                link.send(link.topics.events, item.payload)
        elif isinstance(item, Ready):
            self._become_ready(item.generation)
        elif isinstance(item, Rewill):
            self._rewill(item.generation)
        elif isinstance(item, Seen):
            if item.empty:
                self._seen.discard(item.topic)
            elif item.topic not in self._wanted:  # not the echo of our own publishing
                self._seen.add(item.topic)
                self.dirty = True
        elif isinstance(item, InfoSeen):
            self.identity.info_seen(item.payload)
        elif isinstance(item, Refresh):
            link.published.clear()
            self.dirty = True
        elif isinstance(item, TakeOver):
            self.identity.taken_over(item.other)
            link.published.clear()
            self.dirty = True
        elif isinstance(item, Answered) and item.state is self.latest:
            self.dirty = True  # VIEWS has its whole view now
        elif isinstance(item, BoardSaid):
            self._board(item)
        elif isinstance(item, AuditSaid):
            self.audit = audit_message(item.report)
            self.dirty = True
        elif isinstance(item, PanelSaid):
            # out with this batch's retained topics (only when it changed; whole again after a
            # reconnection or a take-over), never by a standby (``_publish_state``)
            self.panel = panel_message(item.problem)
            self.dirty = True

    def _board(self, said: BoardSaid) -> None:
        """An unsync said or over: ``…/board`` goes out with this batch's retained topics
        (only when its JSON changed, as they do; whole again after a reconnection)."""
        if said.text is None:
            self.board.pop(said.key, None)
        else:
            self.board[said.key] = {"key": said.key, "text": said.text, "token": said.token}
        self.dirty = True

    def _publish_outcome(
        self, outcome: Outcome, at: str, sent: list[dict[str, Any]] | None = None
    ) -> None:
        link = self.link
        assert link.topics is not None
        t = link.topics
        if not self.identity.acting:  # standing by: the state is kept for a take-over, no more
            if sent is None and outcome.events:
                with link.cond:
                    link.unsent -= 1
            self.intake.answered(outcome.source)
            self.latest = outcome.state
            self.dirty = True
            return
        if sent is not None:
            events = sent
        else:
            events = []
            if outcome.events:
                with link.cond:  # the loop's thread may be sending the events before these
                    link.cond.wait_for(lambda: not link.fast)
            for event in outcome.events:
                link.seq += 1
                message = event_message(link.seq, outcome.state, event, outcome.source, at)
                events.append(message)
                for topic, payload in event_publications(
                    t, message, outcome.command
                ):  # withheld: to the gm
                    link.send(topic, payload)
            if outcome.events:
                with link.cond:
                    link.unsent -= 1
        if outcome.error is not None:
            uid = outcome.tag.uid if outcome.tag is not None else None
            error = error_message(outcome.error, outcome.source, at, outcome.command, uid)
            link.send(t.error, encode(error))
        # a command's reply, unless its turn sent it after its events (companion.mqtt.fast_path)
        asked, transaction = self.intake.answered(outcome.source)
        if asked:
            reply: Reply
            if outcome.error is not None:
                reply = reply_error(transaction, outcome.error)
            else:
                reply = reply_ok(transaction, outcome.command, events)
            link.send(t.reply, encode(reply))
        if outcome.error is None and outcome.command is not None and outcome.seq is not None:
            self.history.append(outcome_entry(outcome, time.time()))
        self.latest = outcome.state
        self.dirty = True

    def _become_ready(self, generation: int) -> None:
        link = self.link
        with link.cond:
            if generation != link.generation or not link.connected:
                return  # that connection is already gone
            link.ready = True
            link.flushing = True  # no event jumps ahead of those kept while offline
            link.cond.notify_all()
        try:
            waiting, link.buffer = link.buffer, collections.deque()
            if waiting:
                log.info("MQTT: sending %d messages kept while offline", len(waiting))
            for topic, payload in waiting:
                link.send(topic, payload)
        finally:
            with link.cond:
                link.flushing = False
        link.published.clear()  # the broker may have lost its retained copies
        self.dirty = True

    def _rewill(self, generation: int) -> None:
        """The claim decided on connection ``generation``: holding, connect again with the last
        will (then ``online``); standing by, without it (companion.mqtt.identity)."""
        link = self.link
        assert link.topics is not None
        holds = self.identity.acting
        with link.cond:
            if link.stopping or generation != link.generation or link.will == holds:
                return  # stopping, or a later connection decides again
            # what this connection sent first acknowledged: nothing is sent again on the next,
            # after it (an older …/info retained over a newer one)
            link.cond.wait_for(lambda: link.outstanding <= 0 or not link.connected, 3.0)
        log.info(
            "MQTT: %s table %r: connecting again %s the last will on %s",
            "holding" if holds else "standing by on",
            link.topics.table_id,
            "with" if holds else "without",
            link.topics.status,
        )
        link.reconnect_with_will(holds)

    def _publish_state(self) -> None:
        """Bring every retained topic up to date with the newest state (changed ones only)."""
        link = self.link
        assert link.topics is not None and self.latest is not None
        with link.cond:
            ready = link.ready and link.will
        if not ready or not self.identity.acting:
            return  # all of it goes out when the connection is back (or this one takes over)
        with link.state_lock:
            if self._latest_version < link.state_version:
                return  # the loop's turn published a newer one; its outcome is next in line
            link.state_version = self._latest_version
            self._publish_topics()
        self.dirty = False

    def _publish_topics(self) -> None:
        link = self.link
        assert link.topics is not None and self.latest is not None
        topics = link.topics
        state_topic = topics.state
        direct, link.direct = link.direct, None
        out = link.published.get(state_topic)
        wanted: dict[str, str] = {}
        messages: Iterable[tuple[str, str]]
        view = VIEWS(self.latest)  # whole once its answers came, though the turn's was not
        if direct is not None and direct[0] is self.latest and direct[1] is view and out:
            # its …/state went out from the loop's turn
            wanted[state_topic] = out
            messages = iter_state_messages(view, topics, whole=False)
        else:
            encoded = link.encoder.encode(view, self.latest)
            whole = (state_topic, stamped(encoded, self.changed_at))
            messages = itertools.chain([whole], iter_state_messages(view, topics, whole=False))
        # the table's own topics first, each published as soon as it is encoded (…/state
        # first): subscribers waiting for the state do not wait for discovery or history
        for topic, payload in messages:
            wanted[topic] = payload
            if link.published.get(topic) != payload:
                link.retain(topic, payload)
        ha = link.config.homeassistant
        if ha.enabled:
            for topic, config in discovery.discovery_messages(
                view, topics, ha, self.identity.version
            ).items():
                wanted[topic] = encode(config)
        wanted[topics.history] = encode(history_message(self.history, self.recap))
        wanted[topics.board] = encode(board_message(self.board.values()))
        wanted[topics.panel] = encode(self.panel)
        if self.audit is not None:
            wanted[topics.audit] = encode(self.audit)  # the gm's alone (the broker's ACL)
        wanted[topics.gm] = encode(gm_message(view))  # the gm's alone (the broker's ACL)
        self._wanted = set(wanted)
        for topic in sorted(self._seen - wanted.keys()):
            link.retain(topic, "")  # a hero (and their HA sensors) no longer at the table
            self._seen.discard(topic)
        for topic, payload in wanted.items():
            if link.published.get(topic) != payload:
                link.retain(topic, payload)

    def _finish(self) -> None:
        """Stopping: ``offline`` (retained) where this service said ``online`` — the holder's
        connection, with the will — and wait a little for the broker's acks. A standby says
        nothing there: ``…/status`` is the holder's (companion.mqtt.identity)."""
        link = self.link
        assert link.topics is not None and link.client is not None
        with link.cond:
            link.stopping = True  # our own offline must not be "restored"
            ready, willed = link.ready, link.will
        if not ready:
            if link.buffer:
                log.warning("MQTT: stopping offline; %d messages not sent", len(link.buffer))
            return
        if willed and self.identity.acting:
            link.put(link.client, link.topics.status, OFFLINE)
        with link.cond:
            link.cond.wait_for(lambda: link.outstanding <= 0 or not link.connected, 3.0)
