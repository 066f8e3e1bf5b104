"""Who publishes this table: the client id, the claim in ``…/info``, a clash, stand-by, take-over.

Each service claims its table id with its retained ``…/info`` (``instance`` random per
start, host, pid, started). The holder is the first claim the broker hands a connection
— the retained one of a service that is up, else the first published — never a clock's
answer: an online holder keeps its table, and a newcomer stands by whatever the two
clocks say; two started at once agree (one topic's messages reach every subscriber in
one order). It is decided on paho's thread before any later command on that connection
is taken. One that stands by (``acting`` False) runs no command and publishes nothing
but the clash, again every :data:`CLASH_EVERY` s (on ``…/error``, and its word on
``…/info``: ``standby`` naming the holder, not retained) — never the holder's
``…/status``: a service connects without a last will, and only once its claim holds does
it connect again with the will that says ``offline`` there, and say ``online``; a standby
keeps its connection without one, so neither its clean stop nor a ``kill -9`` touches the
holder's status. When the holder goes offline it takes over (docs/mqtt.md).

Found under load (issue 39), each held open in tests/companion/mqtt/test_claim_races.py:
the claim's own reconnection keeps what the last connection decided (read again, the
retained claim may be the standby's, and both stood by); until a connection's claims are
read a command waits (:meth:`Identity.undecided`: two that took over together both ran
it); and the decided holder's ``…/info`` says ``holding``, so two that both came to hold
settle on the lower instance (:meth:`Identity._settle`).

paho's thread calls :meth:`Identity.claim`, :meth:`Identity.status_retained` and
:meth:`Identity.status_seen` (they never wait); the publisher thread calls the rest.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from companion.mqtt.client import ONLINE
from companion.mqtt.items import InfoSeen, Item, Ready, Rewill, TakeOver
from companion.mqtt.link import Link, now, package_version
from companion.mqtt.messages import InfoMessage, encode, error_message
from companion.mqtt.topics import level
from engine.errors import RuleViolation

log = logging.getLogger("rhuna.mqtt")

#: seconds between two reminders of a service that stands by for another holding its table id
CLASH_EVERY = 10.0
#: seconds between two ``…/info`` of the acting service: its ``now`` is the service's clock,
#: which a page compares with its own (the offset for "changed N s ago", docs/mqtt.md)
CLOCK_EVERY = 15.0


class Identity:
    """This service's claim on its table id, and what it does when another holds it."""

    def __init__(self, link: Link, tell: Callable[[Item], None]) -> None:
        self.link = link
        self._tell = tell  # the publisher's queue
        self.version = package_version()
        #: this process's id in the retained ``…/info`` (its claim on the table id, with
        #: ``started_at``); not in the client id, which has a random part of its own
        self.instance = secrets.token_hex(4)
        #: the client id, drawn at start (never published: a viewer that knew it could knock
        #: the service off the broker by connecting with it)
        self.client_id: str | None = None
        #: the clock of ``started`` and ``now`` (UTC, ISO 8601): the real one; a test gives a
        #: service a skewed one (no claim is decided by it)
        self.clock: Callable[[], str] = now
        self.started_at = self.clock()
        #: called (the publisher's thread) with a key and a text to show, or None to clear it:
        #: the service puts it on the panel and in systemctl status
        self.on_alert: Callable[[str, str | None], None] | None = None
        #: the table file's name (``TableState.table_name``), set at start: ``…/info``'s
        #: ``name``, what the pages show for the table (None: the file has none)
        self.table_name: str | None = None
        #: the other instance publishing this table id, as its ``…/info`` says (None: none)
        self.duplicate: dict[str, Any] | None = None
        #: False while another service holds this table id (an earlier claim in ``…/info``):
        #: then no command is run and nothing but the clash is published (docs/mqtt.md)
        self.acting = True
        #: the retained ``…/status`` at this connection said the last holder is gone
        self.holder_gone = False
        self._clash_said = 0.0  # time.monotonic() of the last reminder of the clash
        #: time.monotonic() of the last ``…/info`` published (paho's thread at connect, then
        #: the publisher's heartbeat)
        self.info_said = 0.0
        self._told_yielded: set[Any] = set()  # instances told they stand by for this one
        #: the connection (``link.generation``) whose first claim on ``…/info`` is ``_first``
        #: (an instance id; None: none seen yet on it): the holder (paho's thread)
        self._generation = -1
        self._first: Any = None
        #: called on paho's thread when this connection's claim is decided: True, this one
        #: holds (the commands held meanwhile run), False, it stands by (they are dropped)
        self.on_decided: Callable[[bool], None] | None = None

    def new_client_id(self, prefix: str | None, table_id: str) -> str:
        """A random part at each start, published nowhere: nobody can guess it and knock the
        service off the broker (MQTT's session takeover), and two services never share it."""
        self.client_id = f"{prefix or f'rhuna-{level(table_id)}'}-{secrets.token_hex(8)}"
        return self.client_id

    def info(self) -> InfoMessage:
        """The retained ``…/info``: which process publishes this table."""
        info: InfoMessage = {
            "instance": self.instance,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": self.started_at,
            "version": self.version,
            "now": self.clock(),
        }
        if self.table_name is not None:
            info["name"] = self.table_name
        if self.holding():
            info["holding"] = True
        return info

    def undecided(self) -> bool:
        """Acting, but this connection's claim not yet read (a start, a take-over): a command
        now waits for the answer — run if this one holds, dropped if it stands by — so two
        that take over together never both run it (paho's thread)."""
        return self.acting and self._first != self.instance

    def _decided(self, holds: bool) -> None:
        if self.on_decided is not None:
            self.on_decided(holds)

    def holding(self) -> bool:
        """Decided: this service holds the table, on a connection with the last will (its
        ``…/info`` says ``holding``; a claim before the decision does not)."""
        with self.link.cond:
            willed = self.link.will
        return self.acting and willed and self._first == self.instance

    def standby_word(self, holder: str) -> InfoMessage:
        """Standing by for ``holder`` (its instance): this service's word on ``…/info``, not
        retained (the retained claim stays the holder's), and without ``now`` (a page reads the
        service's clock from ``…/info``: the holder's, not this one's)."""
        return {
            "instance": self.instance,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": self.started_at,
            "version": self.version,
            "standby": holder,
        }

    # --- paho's thread: never waits ----------------------------------------------------

    def connected(self, client: mqtt.Client, generation: int, rewilled: bool) -> None:
        """A connection is made (before any message on it): its claims decide again — but the
        claim's own reconnection (with the will, or without it) keeps what the last one
        decided. The holder read its claim first, and so did the one standing by for it (one
        topic, one order); read again, the retained claim may be the standby's, published
        after the holder's, and both would stand by (found under load, issue 39)."""
        self._generation = generation
        if not rewilled:
            self._first = None
        elif not self.acting and self._first is not None:
            self._tell(Ready(generation))  # standing by, without a will: no online to wait for

    def status_retained(self, client: mqtt.Client, payload: bytes) -> None:
        """The retained ``…/status`` from before this connection (a clean stop's offline, a
        will): the holder named by the retained ``…/info``, if any, is gone."""
        self.holder_gone = payload != ONLINE.encode()
        log.debug("MQTT: %s: retained status %r (acting %s)", self.instance, payload, self.acting)
        if self.holder_gone and not self.acting:
            self.take_over(client)

    def claim(self, client: mqtt.Client, payload: bytes, retained: bool) -> None:
        """A ``…/info``, ours or another service's on this table id. The first claim the broker
        hands this connection holds the table: a service subscribes to ``…/info`` before it
        publishes its own, and the broker hands every subscriber one topic's messages in one
        order, so two services reach the same answer whatever their clocks say — the one
        already up (its claim retained, or published first) keeps the table, a newcomer
        stands by. Decided here, before any command that follows it on the connection is
        taken."""
        link = self.link
        with link.cond:
            if link.stopping:
                return  # its offline is out: the one that saw it holds the table now
            generation, willed = link.generation, link.will
        if generation != self._generation:  # a new connection: its first claim decides again
            self._generation, self._first = generation, None
        try:
            info = json.loads(payload) if payload else None
        except ValueError:
            info = None
        if not isinstance(info, dict):
            return
        other = info.get("instance")
        log.debug(
            "MQTT: %s (acting %s, first %s, will %s, generation %d): claim of %s%s%s%s",
            self.instance, self.acting, self._first, willed, generation, other,
            " retained" if retained else "", " holding" if info.get("holding") else "",
            " standby" if info.get("standby") else "",
        )  # fmt: skip
        if other == self.instance:  # ours, back from the broker
            if info.get("standby") is not None:
                return  # our word while we stood by, echoed late (after a take-over): no claim
            if self._first is None:
                self._first = self.instance  # no live claim before it: this one holds
                self._decided(self.acting)
                if self.acting and willed:  # decided where the will is: say it holds
                    link.put(client, link.topics.info if link.topics else "", encode(self.info()))
                elif self.acting:
                    self._tell(Rewill(generation))  # with the will, then it says so
            return
        if predecessor(info):
            # the retained info of this table's last run on this machine (a restart, a
            # kill -9, a power cut): its process is gone, so nobody else publishes the table
            log.info(
                "MQTT: the last run's …/info (pid %s) is replaced by this one", info.get("pid")
            )
            return
        if retained and self.holder_gone:
            log.info(
                "MQTT: the retained …/info (host %s, pid %s) is of a service now offline;"
                " this one holds the table",
                info.get("host"),
                info.get("pid"),
            )
            return
        if info.get("standby") is not None or (
            self._first is None and info.get("instance") in self._told_yielded
        ):
            return  # one that stands by (for this one, or says so): it holds nothing
        if self._first is None:
            self._first = other  # another held it first: stand by
            with link.cond:
                ready = link.ready
            if willed:  # its will would be the holder's status: connect again without it
                self._tell(Rewill(generation))
            elif not ready:  # no online to wait for: the clash may go out now
                self._tell(Ready(generation))
        if self._first == self.instance:  # this one holds: its claim stays the retained one
            if info.get("holding") is True and self.acting and willed:
                self._settle(client, info, payload, generation)
            elif self.acting and other not in self._told_yielded:
                link.put(client, link.topics.info if link.topics else "", encode(self.info()))
                self._tell(InfoSeen(payload))
            return
        known = self.duplicate
        if not self.acting and known is not None and known.get("instance") == other:
            self.duplicate = info  # the holder's …/info again (its clock): nothing new to say
            return
        if other != self._first:
            if self.acting or info.get("holding") is not True:
                return  # a third one: this one stands by for the first it saw
            # standing by for a claim read first (perhaps a retained one of a run now gone),
            # while this one says it holds: it is the holder to name, and to wait for
            self._first = other
        self.acting = False
        self._decided(False)
        self.duplicate = info
        self._tell(InfoSeen(payload))

    def _settle(
        self, client: mqtt.Client, info: dict[str, Any], payload: bytes, generation: int
    ) -> None:
        """Two services hold the table, each having read its own claim first (one took the
        other's retained claim, not yet said ``online``, for a gone service's): both read the
        other's ``holding`` and settle on the same one without a clock — the lower instance
        keeps it, the other stands by (connecting again without the will, cleanly)."""
        link = self.link
        assert link.topics is not None
        other = str(info.get("instance"))
        if other < self.instance:
            log.warning(
                "MQTT: table %r was held by two services at once (this one and host %s, pid"
                " %s); that one keeps it, this one stands by",
                link.topics.table_id,
                info.get("host", "?"),
                info.get("pid", "?"),
            )
            self._first = other
            self.acting = False
            self.duplicate = info
            self._decided(False)
            self._tell(Rewill(generation))
            self._tell(InfoSeen(payload))
            return
        link.put(client, link.topics.info, encode(self.info()))  # holding: the other stands by
        self._tell(InfoSeen(payload))

    def take_over(self, client: mqtt.Client) -> None:
        """The holder this service stood by for went offline: act from now on, claiming the
        table id on a connection with the last will (``…/info``, then ``online``, as at a
        start); the publisher republishes everything."""
        link = self.link
        assert link.topics is not None
        log.debug("MQTT: %s takes over", self.instance)
        self.acting = True
        with link.cond:
            # the next claim decides again: two that stood by and took over together both
            # claim; the one whose claim the broker took first holds, the other stands by
            self._generation, self._first = link.generation, None
            willed = link.will
        other, self.duplicate = self.duplicate, None
        if willed:  # (a claim lost on a connection not yet made again without the will)
            link.put(client, link.topics.info, encode(self.info()))
            link.put(client, link.topics.status, ONLINE)
        self._tell(TakeOver(other))
        self._tell(Rewill(self._generation))

    def status_seen(self, client: mqtt.Client | None, payload: bytes) -> None:
        """Someone (a forged message, an old will, a duplicate's will) retained a status that
        is not ours while we are up: put ``online`` back."""
        link = self.link
        with link.cond:
            up = link.connected and not link.stopping
        if payload == ONLINE.encode() or not up or client is None or link.topics is None:
            return
        log.debug("MQTT: %s: status %r (acting %s)", self.instance, payload, self.acting)
        if not self.acting:  # the holder's clean stop or its will: this one takes over
            self.take_over(client)
            return
        log.warning("MQTT: %s says %r while this table is up; republishing online",
                    link.topics.status, payload[:40])  # fmt: skip
        link.put(client, link.topics.status, ONLINE)
        link.stats.status_restored += 1

    # --- the publisher thread ----------------------------------------------------------

    def info_seen(self, payload: bytes) -> None:
        """Another service's ``…/info`` on this table id, the claim already decided on paho's
        thread (:meth:`claim`): standing by, say why; holding, log the one that stands by."""
        assert self.link.topics is not None
        try:
            info = json.loads(payload)
        except ValueError:
            return
        if not self.acting:
            self.say_clash()  # the holder (re)claimed: say so now, then every CLASH_EVERY s
            return
        if info.get("instance") in self._told_yielded:
            return
        self._told_yielded.add(info.get("instance"))
        log.warning(
            "MQTT: another service started on table %r (host %s, pid %s, started %s); this one"
            " holds the table and keeps it: that one stands by",
            self.link.topics.table_id,
            info.get("host", "?"),
            info.get("pid", "?"),
            info.get("started", "?"),
        )

    def taken_over(self, other: dict[str, Any] | None) -> None:
        """The publisher's side of a take-over: say it, and clear the clash's alert."""
        assert self.link.topics is not None
        other = other or {}
        log.warning(
            "MQTT: the service holding table %r (host %s, pid %s) went offline; this one"
            " takes over",
            self.link.topics.table_id,
            other.get("host", "?"),
            other.get("pid", "?"),
        )
        if self.on_alert is not None:
            self.on_alert("mqtt-duplicate", None)

    def heartbeat(self) -> None:
        """Acting and connected: ``…/info`` again every CLOCK_EVERY s, its ``now`` fresh, so a
        page subscribed now gets the service's clock live (the publisher's thread)."""
        link = self.link
        if not self.acting or time.monotonic() - self.info_said < CLOCK_EVERY:
            return
        with link.cond:
            ready = link.ready and not link.stopping
        if ready and link.topics is not None:
            self.info_said = time.monotonic()
            link.publish(link.topics.info, encode(self.info()), retain=True)

    def remind(self) -> None:
        """Standing by: the clash said again, every CLASH_EVERY s, until it is gone."""
        if not self.acting and time.monotonic() - self._clash_said >= CLASH_EVERY:
            self.say_clash()

    def say_clash(self) -> None:
        """Standing by: why, naming the holder's host and pid — in the log, on ``…/error``, on the
        panel and in systemctl status (the service's ``on_alert``); again every CLASH_EVERY s."""
        topics = self.link.topics
        assert topics is not None
        info = self.duplicate
        if info is None or self.acting:
            return
        self._clash_said = time.monotonic()
        self.link.stats.duplicates += 1
        text = (
            f"table {topics.table_id!r} is held by another service on this broker"
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
        self.link.send(topics.error, encode(message))
        self.link.send(topics.info, encode(self.standby_word(str(info.get("instance", "?")))))
        if self.on_alert is not None:
            self.on_alert("mqtt-duplicate", f"MQTT: {text}")


def predecessor(info: dict[str, Any]) -> bool:
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
