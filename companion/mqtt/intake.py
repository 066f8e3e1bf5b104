"""Commands arriving from MQTT: checked for shape, refused when retained, handed to the loop.

Everything here runs on paho's **network** thread, which never waits and never touches
the table: a command is checked for shape and submitted to the loop (which may process
it right there), anything else is handed to the publisher's queue or to the identity
(companion.mqtt.identity). A command submitted is remembered in ``pending`` (its loop
source → the transaction to echo) until its reply is sent.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from companion.mqtt.commands import BadRequest, parse_request
from companion.mqtt.identity import Identity
from companion.mqtt.items import Item, Refresh, Seen, SendReply
from companion.mqtt.link import Link
from companion.mqtt.messages import encode, reply_error
from companion.table.loop import TableLoop
from engine.errors import RuleViolation

log = logging.getLogger("rhuna.mqtt")

#: commands submitted and not yet answered; past it a command is refused as "busy"
MAX_PENDING = 1000
#: a retained command refused is logged the first time and then every this many
LOG_RETAINED_EVERY = 100
#: seconds without a retained command before the command topics are subscribed again
SWEEP_AFTER = 0.5
#: the QoS 1 commands remembered by packet id, to know one the broker sends again (its DUP
#: flag) after a reconnection that kept the session: far more than its in-flight window
REMEMBERED = 256


#: the senders that sign their commands (the command's ``source`` field, which the engine
#: ignores): gm.html (``gm``) and ``rhuna-table`` (``cli``). Both publish with the gm login, so
#: Mosquitto cannot tell them apart; the word is the sender's own, kept only from this list.
SIGNED = frozenset({"gm", "cli"})


def signed(command: dict[str, Any]) -> str:
    """The history's name for a command's sender: ``gm``, ``cli``, else ``mqtt`` (any client).

    >>> signed({"cmd": "undo", "source": "gm"}), signed({"cmd": "undo", "source": "me"})
    ('gm', 'mqtt')
    """
    said = command.get("source")
    return said if isinstance(said, str) and said in SIGNED else "mqtt"


class Intake:
    """paho's ``on_message``: commands to the loop, the rest to where it belongs."""

    def __init__(self, link: Link, identity: Identity, tell: Callable[[Item], None]) -> None:
        self.link = link
        self.identity = identity
        self._tell = tell  # the publisher's queue
        self.loop: TableLoop | None = None
        self._pending: dict[str, Any] = {}  # loop source → transaction to echo
        self._pending_lock = threading.Lock()
        self._requests = itertools.count(1)
        # the sweep after a flood of retained commands (under the pending lock)
        self._last_retained = 0.0
        self._sweeper: threading.Timer | None = None
        #: commands that came while the claim was undecided (a start, a take-over): run once
        #: this one holds, dropped if it stands by (paho's thread only)
        self._held: list[tuple[str, bytes]] = []
        #: packet id → (topic, payload) of the QoS 1 commands received lately (paho's thread)
        self._received: collections.OrderedDict[int, tuple[str, bytes]] = collections.OrderedDict()
        identity.on_decided = self._decided

    def answered(self, source: str) -> tuple[bool, Any]:
        """Whether the outcome of ``source`` was a command from here (then it is answered now:
        forgotten), and the transaction to echo in its reply. Any thread."""
        with self._pending_lock:
            asked = source in self._pending
            return asked, self._pending.pop(source, None)

    def on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        topics = self.link.topics
        try:
            if message.retain and self._retained_command(client, message):
                return
            if message.retain and topics and message.topic == topics.status:
                self.identity.status_retained(client, bytes(message.payload))
                return
            if topics and message.topic == topics.info:
                self.identity.claim(client, bytes(message.payload), message.retain)
                return
            if self._again(message):
                return
            self._take(message.topic, bytes(message.payload))
        except Exception:  # paho's thread must survive any payload
            log.exception("MQTT: could not handle a message on %s", message.topic)

    def _again(self, message: mqtt.MQTTMessage) -> bool:
        """A QoS 1 command the broker sends again (DUP) with the packet id and payload of one
        already received: its PUBACK was lost with a connection whose session was kept (the
        claim's own reconnection), and it must not run twice. At-least-once made once."""
        topics = self.link.topics
        if not message.qos or topics is None or topics.command_name(message.topic) is None:
            return False
        said = (message.topic, bytes(message.payload))
        if message.dup and self._received.get(message.mid) == said:
            log.debug("MQTT: %s sent again (packet %d): already taken", message.topic, message.mid)
            return True
        self._received[message.mid] = said
        self._received.move_to_end(message.mid)
        while len(self._received) > REMEMBERED:
            self._received.popitem(last=False)
        return False

    def _retained_command(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> bool:
        """A command the broker kept (published with retain) is never run: it would run again at
        every reconnect. It is cleared (an empty retained message on its topic) and refused.

        Both go out here, on paho's thread, at QoS 0 and outside the window of the QoS 1
        messages (``max_queued``): a flood of them never waits behind the replies, nor the
        replies behind it, and never fills paho's queue. A clear the broker did not get is
        harmless: the command comes back at the next connection and is cleared again."""
        topics = self.link.topics
        assert topics is not None
        name = topics.command_name(message.topic)
        if name is None:
            return False
        if message.dup:
            # sent again from the session kept across the claim's reconnection (it was handed
            # on the last connection, which ended before it was read): this connection's own
            # subscription hands it again, and it is refused once, there
            return True
        if message.payload and self.identity.acting:  # the holder answers it (one reply)
            with self.link.cond:
                willed = self.link.will
            if not willed:
                # the claim's first connection, without the last will: a holder connects
                # again with it, and the broker hands this retained command again then. A
                # refusal sent now at QoS 0 could be lost (paho drops what it has not written
                # when it reconnects): the clear got out and the reply did not, once in CI
                return True
            quiet = self.link.client
            assert quiet is not None
            quiet.publish_quiet(message.topic, b"", retain=True)
            refusal = RuleViolation(
                "a retained command is refused: commands published with the retain flag are"
                " never run (the broker would hand it again at every reconnect)",
                fix="publish the command again without the retain flag",
                code="retained",
            )
            request = parse_request(name, bytes(message.payload))
            reply = encode(reply_error(request.transaction, refusal))
            quiet.publish_quiet(topics.reply, reply, retain=False)
            self._retained_refused(message.topic)
        return True

    def _retained_refused(self, topic: str) -> None:
        """Count it, log the first and every :data:`LOG_RETAINED_EVERY`-th (a flood is not
        thousands of lines), and sweep once the flood is over (:meth:`_sweep`)."""
        self.link.stats.retained_refused += 1
        refused = self.link.stats.retained_refused
        if refused == 1 or refused % LOG_RETAINED_EVERY == 0:
            log.warning(
                "MQTT: refused and cleared a retained command on %s (publish commands without"
                " retain)%s",
                topic,
                f"; {refused} so far" if refused > 1 else "",
            )
        with self._pending_lock:
            self._last_retained = time.monotonic()
            if self._sweeper is None:
                self._sweeper = threading.Timer(SWEEP_AFTER, self._sweep)
                self._sweeper.daemon = True
                self._sweeper.start()

    def _sweep(self) -> None:
        """A timer's thread, once no retained command came for :data:`SWEEP_AFTER` s: subscribe
        to the command topics again, so the broker hands the retained commands it kept but did
        not send (past its ``max_queued_messages`` or ``max_queued_bytes`` for this client, it
        drops the rest of a subscription's retained messages). Ours are cleared by now (one
        connection's packets are handled in order): a sweep that finds none ends here."""
        with self._pending_lock:
            quiet = time.monotonic() - self._last_retained
            if quiet < SWEEP_AFTER:
                self._sweeper = threading.Timer(SWEEP_AFTER - quiet, self._sweep)
                self._sweeper.daemon = True
                self._sweeper.start()
                return
            self._sweeper = None
        link, topics = self.link, self.link.topics
        with link.cond:
            up = link.connected and not link.stopping
        client = link.client
        if not up or client is None or topics is None:
            return  # a new connection subscribes anew
        options = SubscribeOptions(qos=1, retainAsPublished=True)
        client.subscribe([(topics.command, options), (topics.command_filter, options)])

    def _decided(self, holds: bool) -> None:
        """paho's thread: the claim decided; the commands held meanwhile run here (this one
        holds) or are left to the holder (it stands by: the holder got them too)."""
        held, self._held = self._held, []
        if held and not holds:
            log.debug("MQTT: %d command(s) left to the table id's holder", len(held))
        for topic, payload in held if holds else ():
            self._take(topic, payload)

    def _take(self, topic: str, payload: bytes) -> None:
        topics, loop = self.link.topics, self.loop
        assert topics is not None and loop is not None
        if topic == topics.status:
            self.identity.status_seen(self.link.client, payload)
            return
        name = topics.command_name(topic)
        if name is not None and not self.identity.acting:
            log.debug("MQTT: a command on %s left to the table id's holder", topic)
            return
        if name is not None and self.identity.undecided() and len(self._held) < MAX_PENDING:
            self._held.append((topic, payload))  # the claim decides whether it runs here
            return
        if name is None:
            if topic == self.link.config.homeassistant.status_topic:
                if payload.strip() == b"online":
                    self._tell(Refresh())
            else:
                self._tell(Seen(topic, not payload))
            return
        request = parse_request(name, payload)
        if isinstance(request, BadRequest):
            log.info("MQTT: bad command on %s: %s", topic, request.violation)
            self._tell(SendReply(reply_error(request.transaction, request.violation)))
            return
        source = f"{signed(request.command)}:{next(self._requests)}"
        with self._pending_lock:
            busy = len(self._pending) >= MAX_PENDING or self.identity.undecided()
            if not busy:
                self._pending[source] = request.transaction
        if busy:
            refusal = RuleViolation(
                f"{MAX_PENDING} commands are already waiting for the table",
                fix="wait for their replies, then send again",
                code="busy",
            )
            self._tell(SendReply(reply_error(request.transaction, refusal)))
            return
        self.link.stats.commands += 1
        log.debug("MQTT: %s: %s submitted as %s", self.identity.instance, topic, source)
        loop.submit(request.command, source=source)
