"""Issue 39 / 45: the claim on a table id, at the moments CI met under load, held open.

The claim is decided on a connection without the last will, then the holder connects again
with it (companion.mqtt.identity). Each test holds that reconnection open (its
``connect_async`` waits on an event the test sets) at the moment a loaded machine once hit
by chance, so each is deterministic:

- the holder's own reconnection read a standby's claim, retained over its own, first, and
  stood by for it: both stood by, nobody ran the table (CI, stop 48);
- a command sent while the holder was between its two connections had no subscriber
  and was dropped (``pi_budget``'s first command, under ``make test-loaded``);
- two that took over together both ran a command sent while neither had read the claims
  (the take-over test, under load, this session);
- a claim read as a gone service's (the old ``offline`` beside it) made two holders.

A real Mosquitto of the test's own; each "service" a bridge on its own loop.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import paho.mqtt.client as mqtt
import pytest

from companion.mqtt import MqttBridge
from companion.mqtt.client import Client
from companion.mqtt.intake import Intake
from tests.harness import BEGIN, wait_until
from tests.harness.broker import (
    WAIT,
    RunningLoop,
    Watcher,
    bridge_config,
    example_loop,
    retained_on,
    send,
)

R = "rhuna/example"


class Gate:
    """Holds a bridge's reconnections (the claim's own, with or without the will) until
    :meth:`open`: its ``connect_async`` once it has been connected waits here."""

    def __init__(self, bridge: MqttBridge) -> None:
        self.bridge = bridge
        self.reached = threading.Event()
        self._open = threading.Event()

    def open(self) -> None:
        self._open.set()


@contextmanager
def gated(monkeypatch: pytest.MonkeyPatch, *bridges: MqttBridge) -> Iterator[list[Gate]]:
    """A :class:`Gate` per bridge, in ``bridges``' order; every gate opened at the end."""
    gates = {id(b): Gate(b) for b in bridges}
    real = Client.connect_async

    def connect_async(self: Client, *args: object, **kwargs: object) -> None:
        gate = next((g for g in gates.values() if g.bridge.link.client is self), None)
        if gate is not None and gate.bridge.link.generation > 0:  # connected before: again
            gate.reached.set()
            assert gate._open.wait(WAIT), "the gate was never opened"
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Client, "connect_async", connect_async)
    try:
        yield [gates[id(b)] for b in bridges]
    finally:
        for g in gates.values():
            g.open()


def _holds(bridge: MqttBridge) -> bool:
    return bridge.identity.acting and not bridge.identity.undecided()


def _stop(bridges: list[MqttBridge], loops: list[RunningLoop]) -> None:
    for b in bridges:
        b.stop()
    for r in loops:
        r.close()


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_the_holders_own_reconnection_keeps_its_claim(broker, monkeypatch):
    """A holds (its claim read first) and connects again with the will; meanwhile B reads
    A's claim first, stands by, and its own claim is now the retained one. A's second
    connection reads B's claim first — and keeps the table: B stood by for it by the same
    order. Before: A stood by for B, and neither ran the table."""
    loops = [RunningLoop(example_loop()) for _ in range(2)]
    a, b = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    try:
        with gated(monkeypatch, a) as (gate,):
            a.start(loops[0].loop)
            assert gate.reached.wait(WAIT), "A never connected again with its will"
            b.start(loops[1].loop)
            wait_until(lambda: b.duplicate is not None, "B stands by for A")
            assert b.duplicate is not None and b.duplicate["instance"] == a.instance
            infos = retained_on(broker.port, [f"{R}/info"])
            assert [m.json()["instance"] for m in infos] == [b.instance]  # B's, over A's
            gate.open()
            assert a.wait_ready(WAIT)
        wait_until(lambda: a.link.will, "A connected again with its will")
        watcher = Watcher(broker.port, [f"{R}/reply"])
        try:
            watcher.send(f"{R}/command", {**BEGIN, "transaction": "who"})
            assert watcher.reply(f"{R}/reply", "who")["status"] == "ok"
            wait_until(lambda: loops[0].loop.state.performance is not None, "A ran it")
        finally:
            watcher.close()
        assert _holds(a) and not b.identity.acting
        assert loops[1].loop.state.performance is None
    finally:
        _stop([a, b], loops)


def test_a_command_sent_between_the_holders_two_connections_is_answered(broker, monkeypatch):
    """The holder is between its will-less connection and the one with the will (its
    session kept, SESSION_EXPIRY): a command sent then waits at the broker and is
    answered once. Before: no subscriber at that moment, and the command was dropped."""
    running = RunningLoop(example_loop())
    bridge = MqttBridge(bridge_config(broker.port))
    watcher = Watcher(broker.port, [f"{R}/reply"])
    try:
        with gated(monkeypatch, bridge) as (gate,):
            bridge.start(running.loop)
            assert gate.reached.wait(WAIT), "the holder never connected again with its will"
            watcher.send(f"{R}/command", {**BEGIN, "transaction": "between"})
            gate.open()
            assert watcher.reply(f"{R}/reply", "between")["status"] == "ok"
        assert bridge.wait_ready(WAIT)
        assert [r["transaction"] for r in watcher.json_on(f"{R}/reply")] == ["between"]
    finally:
        watcher.close()
        _stop([bridge], [running])


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_two_taking_over_never_both_run_a_command(broker, monkeypatch):
    """The holder stops; both standbys take over and are between their connections when a
    command comes. The first to read the claims holds and runs it; the other, reading the
    first's claim first, stands by and drops it: one reply, one table that ran it. Before:
    each ran it while it acted, undecided."""
    loops = [RunningLoop(example_loop()) for _ in range(3)]
    holder, s1, s2 = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    watcher = Watcher(broker.port, [f"{R}/reply"])
    try:
        holder.start(loops[0].loop)
        assert holder.wait_ready(WAIT)
        for bridge, running in ((s1, loops[1]), (s2, loops[2])):
            bridge.start(running.loop)
            wait_until(lambda b=bridge: b.duplicate is not None, "a newcomer stands by")
        with gated(monkeypatch, s1, s2) as (g1, g2):
            holder.stop()
            assert g1.reached.wait(WAIT) and g2.reached.wait(WAIT), "both took over"
            assert s1.identity.undecided() and s2.identity.undecided()
            watcher.send(f"{R}/command", {**BEGIN, "transaction": "both"})
            g1.open()
            wait_until(lambda: _holds(s1), "the first to connect again holds")
            g2.open()
            wait_until(
                lambda: (
                    not s2.identity.acting
                    and s2.duplicate is not None
                    and s2.duplicate["instance"] == s1.instance
                ),
                "the second stands by for the first",
            )
        assert watcher.reply(f"{R}/reply", "both")["status"] == "ok"
        wait_until(lambda: loops[1].loop.state.performance is not None, "the holder ran it")
        assert loops[2].loop.state.performance is None
        assert [r["transaction"] for r in watcher.json_on(f"{R}/reply")] == ["both"]
    finally:
        watcher.close()
        _stop([holder, s1, s2], loops)


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_two_holders_settle_on_the_lower_instance(broker, monkeypatch):
    """An old ``offline`` is retained (a run that stopped). A claims and holds, and is
    between its connections when B comes: B reads A's claim beside that ``offline``, takes
    it for a gone service's, and holds too. Both then read the other's ``holding`` claim and
    settle without a clock: the lower instance keeps the table, the other stands by."""
    send(broker.port, f"{R}/status", "offline", retain=True)
    loops = [RunningLoop(example_loop()) for _ in range(2)]
    a, b = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    a.identity.instance, b.identity.instance = "0" * 8, "f" * 8
    try:
        with gated(monkeypatch, a) as (gate,):
            a.start(loops[0].loop)
            assert gate.reached.wait(WAIT), "A never connected again with its will"
            b.start(loops[1].loop)
            assert b.wait_ready(WAIT)
            wait_until(lambda: _holds(b), "B holds: A's claim read as a gone service's")
            gate.open()
            assert a.wait_ready(WAIT)
        wait_until(
            lambda: (
                _holds(a)
                and not b.identity.acting
                and b.duplicate is not None
                and b.duplicate["instance"] == a.instance
            ),
            lambda: f"A acting {a.identity.acting}, B acting {b.identity.acting}",
        )
        watcher = Watcher(broker.port, [f"{R}/reply"])
        try:
            transaction = uuid.uuid4().hex
            watcher.send(f"{R}/command", {**BEGIN, "transaction": transaction})
            assert watcher.reply(f"{R}/reply", transaction)["status"] == "ok"
            wait_until(lambda: loops[0].loop.state.performance is not None, "A ran it")
        finally:
            watcher.close()
        assert loops[1].loop.state.performance is None
    finally:
        _stop([a, b], loops)


def test_a_command_the_broker_sends_again_runs_once():
    """A QoS 1 command sent again (DUP) with the packet id and payload of one taken is not
    taken twice; the same words under a new packet id (sent twice on purpose) are."""
    from companion.mqtt.identity import Identity
    from companion.mqtt.link import BridgeStats, Link
    from companion.mqtt.topics import Topics

    link = Link(bridge_config(1), BridgeStats())  # no connection: only the topics are read
    link.topics = Topics("rhuna", "example")
    intake = Intake(link, Identity(link, lambda item: None), lambda item: None)

    def message(mid: int, dup: bool) -> mqtt.MQTTMessage:
        m = mqtt.MQTTMessage(mid, f"{R}/command".encode())
        m.payload, m.qos, m.dup = b'{"cmd": "undo"}', 1, dup
        return m

    assert not intake._again(message(7, dup=False))
    assert intake._again(message(7, dup=True))  # its PUBACK lost: the broker's second send
    assert not intake._again(message(8, dup=False))  # "undo" again, on purpose
    assert not intake._again(message(9, dup=True))  # a first delivery may carry DUP


def test_its_own_standby_word_echoed_after_a_take_over_is_no_claim():
    """A standby says so on ``…/info`` every CLASH_EVERY s; one such word still on its way
    back when the holder goes offline reached the new taker after its take-over, read as
    its own claim come back first: it held, undecided no more, before any claim was read
    (``make test-loaded``, the take-over test above). Its word is no claim."""
    from companion.mqtt.identity import Identity
    from companion.mqtt.link import BridgeStats, Link
    from companion.mqtt.messages import encode
    from companion.mqtt.topics import Topics

    link = Link(bridge_config(1), BridgeStats())  # no connection: nothing is published
    link.topics = Topics("rhuna", "example")
    told: list[object] = []
    identity = Identity(link, told.append)
    identity.acting = False  # it stood by for another, then that one went offline:
    identity.acting = True  # taken over, this connection's claims not yet read
    assert identity.undecided()
    word = encode(identity.standby_word("0123abcd"))
    identity.claim(None, word, False)  # type: ignore[arg-type]  # (no client: nothing to put)
    assert identity.undecided() and not told
    identity.claim(None, encode(identity.info()), False)  # type: ignore[arg-type]
    assert not identity.undecided()  # its own claim, come back first: it holds
