"""``online`` is said only once the broker has the commands' subscription (docs/mqtt.md).

A client that sends a command the moment it sees the table's ``online`` must be heard. The
service used to publish ``online`` first on its connection and subscribe to the commands
last, so a command sent at once could reach the broker before that subscription and be
dropped for want of a subscriber: under make test-loaded, ``benchmarks.pi_budget`` waited
60 s for the reply to its first ``begin_performance``. The order is paho's, so it is read
here from the calls the bridge makes on its client (a stand-in that records them, as paho's
``Client`` takes them); the real broker's tests (test_mqtt_claim, test_standby_will) show the
holder still says ``online`` and a standby never does.
"""

from __future__ import annotations

import itertools
from typing import Any

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from companion.mqtt import MqttBridge
from companion.mqtt.topics import Topics
from tests.harness.broker import bridge_config


class _Sent:
    def __init__(self, mid: int) -> None:
        self.mid = mid


class RecordingClient:
    """What the bridge asks of paho's client on a connection: publishes and subscribes, in
    order, each with paho's message id."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, int]] = []
        self._mids = itertools.count(1)

    def publish(self, topic: str, payload: Any, qos: int = 0, retain: bool = False) -> _Sent:
        mid = next(self._mids)
        self.calls.append(("publish", (topic, payload), mid))
        return _Sent(mid)

    def subscribe(self, topics: Any) -> tuple[int, int]:
        mid = next(self._mids)
        self.calls.append(("subscribe", [t for t, _ in topics], mid))
        return 0, mid


def _holder() -> MqttBridge:
    bridge = MqttBridge(bridge_config(1))
    bridge.link.topics = Topics("rhuna", "example")
    bridge.link.will = True  # the holder's connection, with the last will
    return bridge


def _connected(bridge: MqttBridge, client: RecordingClient) -> None:
    ok = ReasonCode(PacketTypes.CONNACK, "Success")
    bridge._on_connect(client, None, None, ok, None)  # type: ignore[arg-type]


def test_online_waits_for_the_commands_suback_on_the_holders_connection() -> None:
    bridge, client = _holder(), RecordingClient()
    _connected(bridge, client)
    topics = bridge.link.topics
    assert topics is not None
    said = [c for c in client.calls if c[0] == "publish" and c[1][0] == topics.status]
    assert said == [], "online before the broker has the commands' subscription"
    [(_, filters, mid)] = [
        c for c in client.calls if c[0] == "subscribe" and topics.command in c[1]
    ]
    assert topics.command_filter in filters
    # another subscription's SUBACK (the claim's topics) says nothing
    other = next(c[2] for c in client.calls if c[0] == "subscribe" and c[2] != mid)
    bridge._on_subscribe(client, None, other, [], None)  # type: ignore[arg-type]
    assert not [c for c in client.calls if c[0] == "publish" and c[1][0] == topics.status]
    # the commands' SUBACK: online, once, and Ready follows its PUBACK
    bridge._on_subscribe(client, None, mid, [], None)  # type: ignore[arg-type]
    bridge._on_subscribe(client, None, mid, [], None)  # type: ignore[arg-type]
    online = [c for c in client.calls if c[0] == "publish" and c[1][0] == topics.status]
    assert [c[1][1] for c in online] == ["online"]
    assert bridge._online_mid == online[0][2]


def test_a_standby_connection_never_says_online() -> None:
    bridge, client = _holder(), RecordingClient()
    bridge.link.will = False  # a standby's connection, or the claim's first one
    _connected(bridge, client)
    topics = bridge.link.topics
    assert topics is not None
    for kind, _, mid in list(client.calls):
        if kind == "subscribe":
            bridge._on_subscribe(client, None, mid, [], None)  # type: ignore[arg-type]
    assert not [c for c in client.calls if c[0] == "publish" and c[1][0] == topics.status]
