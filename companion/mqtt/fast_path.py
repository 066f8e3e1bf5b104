"""What the bridge does in the table loop's turn: the outcome's events now, then its state.

The **table loop's** turn (on the loop's thread, or on the thread that submitted the
input) calls :meth:`FastPath.on_outcome`, which never waits: it hands the outcome's
events to paho at once when nothing is ahead of them (connected, nothing kept or
queued, room in the window) — one thread hand-off fewer between a command and its
event — and, for a command from MQTT, its reply right after them; then, when no other input waits for the loop and this is not paho's own thread,
the retained ``…/state`` the same way, and enqueues the rest for the publisher
(companion.mqtt.publisher). Nothing of an outcome reaches this before its journal commit.

The ``…/state`` payload may be ready before the turn: pondered while the table waited
(:meth:`FastPath.warm`, companion.table.ponder), or computed by the ahead thread while the
commit synced (companion.mqtt.ahead); otherwise the turn encodes it.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from typing import Any

from companion.mqtt.ahead import StateAhead
from companion.mqtt.identity import Identity
from companion.mqtt.intake import Intake
from companion.mqtt.items import Item, Told
from companion.mqtt.link import Link, now
from companion.mqtt.messages import (
    StateEncoder,
    encode,
    event_message,
    event_publications,
    reply_ok,
    stamped,
)
from companion.table.loop import Outcome, TableLoop
from companion.views.cache import VIEWS, turn_view
from engine.contracts.view import TableView
from engine.state import TableState

log = logging.getLogger("rhuna.mqtt")

#: pondered states' payloads kept at most, the oldest dropped first: a turn's likely next
#: draws (35 for the example table: a Hero Bag and the Favor Bag; companion.table.ponder)
PONDERED = 48


class FastPath:
    """The loop subscriber: what of an outcome goes out in its own turn."""

    def __init__(
        self, link: Link, identity: Identity, intake: Intake, tell: Callable[[Item], None]
    ) -> None:
        self.link = link
        self.identity = identity
        self.intake = intake  # the commands from MQTT waiting for their reply
        self._tell = tell  # the publisher's queue
        self.loop: TableLoop | None = None
        self._told = 0  # outcomes told (the loop's turn)
        #: a reader's turn: ``…/state`` computed during the commit (companion.mqtt.ahead)
        self.ahead: StateAhead | None = None
        #: id → (state, view, payload) of the states pondered (companion.table.ponder); written on
        #: its thread, read in the turns (each of its operations is atomic)
        self.pondered: collections.OrderedDict[int, tuple[TableState, TableView, str]] = (
            collections.OrderedDict()
        )
        self._ponder_encoder = StateEncoder()  # the pondering thread's own

    def on_outcome(self, outcome: Outcome) -> None:
        """Loop subscriber: never waits. The events go out at once when nothing is ahead of
        them (connected, nothing kept or queued, room in paho's window): one thread hand-off
        fewer between a command and its event, and the command's reply right after them;
        then, when no other input waits for the loop and this is not paho's own thread, the
        retained ``…/state`` the same way. All the rest — errors, their replies, the other
        retained topics — and whatever must wait its turn go through the publisher's queue."""
        at = now()
        self._told += 1
        if not self.identity.acting:  # another service holds the table id: nothing goes out
            self._tell(Told(outcome, at, [], self._told))
            return
        sent = self._events_now(outcome, at) if outcome.events else None
        if sent is not None and outcome.error is None:
            self._reply_now(outcome, sent)
        if outcome.command is not None and outcome.error is None:
            self._state_now(outcome.state, self._told, at)
        self._tell(Told(outcome, at, sent, self._told))

    def _reply_now(self, outcome: Outcome, events: list[dict[str, Any]]) -> None:
        """A command from MQTT whose events this turn just sent: its ``…/reply`` (the same
        payload: the transaction, the command, those events) right after them, when the way is
        still clear; taken from the pending ones here, so the publisher sends it only if this
        did not (an error's reply stays the publisher's, after its ``…/error``)."""
        link = self.link
        assert link.topics is not None
        with link.cond:
            if not link.clear_way(1):
                return
        asked, transaction = self.intake.answered(outcome.source)
        if asked:
            reply = reply_ok(transaction, outcome.command, events)
            link.stats.reply_direct += 1  # before: whoever has the reply finds it counted
            link.publish(link.topics.reply, encode(reply), retain=False)

    def ask_ahead(self, state: TableState) -> None:
        """Before-commit hint: ``state``'s ``…/state`` computed while the disk syncs, when the
        turn will publish it itself (see :meth:`_state_now`); never waits."""
        ahead = self.ahead  # read once: stop() may clear it meanwhile
        if (
            ahead is not None
            and self.link.ready
            and self.pondered_for(state) is None
            and self._turn_publishes_state()
        ):
            ahead.ask(state)

    def warm(self, state: TableState) -> None:
        """Ponder's warmer (its thread): ``state``'s view and ``…/state`` payload, kept in
        case a turn comes to it (companion.table.ponder)."""
        view = turn_view(state)
        payload = self._ponder_encoder.encode(view, state)
        self.pondered[id(state)] = (state, view, payload)  # the state kept: its id its own
        while len(self.pondered) > PONDERED:
            self.pondered.popitem(last=False)  # an earlier turn's: it never came

    def pondered_for(self, state: TableState) -> tuple[TableView, str] | None:
        """The view and payload :meth:`warm` prepared for this very state, if it did."""
        kept = self.pondered.get(id(state))
        return (kept[1], kept[2]) if kept is not None and kept[0] is state else None

    def _turn_publishes_state(self) -> bool:
        """Whether this turn publishes ``…/state`` itself: nothing else waits for the loop
        (a burst is coalesced by the publisher), and this is not paho's thread — a command
        from MQTT processed in the loop's turn on paho's own thread leaves the state's
        millisecond of encoding to the publisher, so that thread is back on the network (the
        command's acknowledgement, the next command, the broker's acks) at once."""
        assert self.loop is not None
        return not self.loop.pending and not self.link.on_network_thread()

    def _state_now(self, state: TableState, version: int, changed_at: str) -> None:
        """Publish ``…/state`` for ``state`` from the loop's turn, if nothing is ahead of it and
        the loop has nothing waiting (a burst is coalesced by the publisher instead); stamped
        ``changed_at``: this turn's outcome is the table's last change."""
        link = self.link
        assert link.topics is not None
        if not self._turn_publishes_state():
            return
        with link.cond:
            if not link.clear_way(1):
                return
        if not link.state_lock.acquire(blocking=False):
            return  # the publisher is publishing a state now: it takes this one next
        try:
            kept = self.pondered_for(state)
            if kept is not None:  # pondered (companion.table.ponder)
                view, payload = kept
                VIEWS.keep(state, view)  # for the panel, a moment later
                link.stats.state_pondered += 1
            else:
                ahead = self.ahead  # read once: stop() may clear it meanwhile
                view = VIEWS(state)  # the ahead thread's, unless its answers came since
                taken = ahead.take(state, view) if ahead is not None else None
                payload = taken if taken is not None else link.encoder.encode(view, state)
                if taken is not None:
                    link.stats.state_ahead += 1
            payload = stamped(payload, changed_at)
            if link.published.get(link.topics.state) != payload:
                link.retain(link.topics.state, payload)
            link.state_version = version
            link.direct = (state, view)
            link.stats.state_direct += 1
        except Exception:  # the publisher publishes it, and reports what fails
            log.debug("MQTT: could not publish the state from the loop", exc_info=True)
        finally:
            link.state_lock.release()

    def _events_now(self, outcome: Outcome, at: str) -> list[dict[str, Any]] | None:
        link = self.link
        assert link.topics is not None
        with link.cond:
            if link.unsent != 0 or not link.clear_way(len(outcome.events)):
                link.unsent += 1  # the publisher sends them, in their turn
                return None
            link.fast = True
        try:
            messages = []
            for event in outcome.events:
                link.seq += 1
                message = event_message(link.seq, outcome.state, event, outcome.source, at)
                messages.append(message)
                # a withheld event (the WorldKeeper's words) whole to …/gm_events first
                for topic, payload in event_publications(link.topics, message, outcome.command):
                    link.publish(topic, payload, retain=False)
            return messages
        finally:
            with link.cond:
                link.fast = False
                link.cond.notify_all()
