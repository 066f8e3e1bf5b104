"""Commands arriving from MQTT: checked for shape, refused when retained, handed to the loop.

Everything here runs on paho's **network** thread, which never waits and never touches
the table: a command is checked for shape and submitted to the loop (which may process
it right there), anything else is handed to the publisher's queue or to the identity
(companion.mqtt.identity). A command submitted is remembered in ``pending`` (its loop
source → the transaction to echo) until its reply is sent.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from companion.mqtt.commands import BadRequest, parse_request
from companion.mqtt.identity import Identity
from companion.mqtt.items import Item, Refresh, Seen, SendReply
from companion.mqtt.link import Link
from companion.mqtt.messages import reply_error
from companion.table.loop import TableLoop
from engine.errors import RuleViolation

log = logging.getLogger("rhuna.mqtt")

#: commands submitted and not yet answered; past it a command is refused as "busy"
MAX_PENDING = 1000


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
            self._take(message.topic, bytes(message.payload))
        except Exception:  # paho's thread must survive any payload
            log.exception("MQTT: could not handle a message on %s", message.topic)

    def _retained_command(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> bool:
        """A command the broker kept (published with retain) is never run: it would run again at
        every reconnect. It is cleared (an empty retained message on its topic) and logged."""
        assert self.link.topics is not None
        name = self.link.topics.command_name(message.topic)
        if name is None:
            return False
        if message.payload and self.identity.acting:  # the holder answers it (one reply)
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
            self._tell(SendReply(reply_error(request.transaction, refusal)))
            self.link.put(client, message.topic, b"")
        return True

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
            self._tell(SendReply(reply_error(request.transaction, refusal)))
            return
        self.link.stats.commands += 1
        loop.submit(request.command, source=source)
