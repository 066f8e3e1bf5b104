"""doctor's venue bridge check (docs/convention.md): is the Pi's bridge to the venue up, and
what did its last notification say?

The bridge is the file ``rhuna-table venue`` wrote into ``/etc/mosquitto/conf.d``
(``rhuna-venue.conf``). Without it the table is not at a venue and there is no check. With
it, the check reads the retained notification the Pi's own Mosquitto keeps on the bridge's
``notification_topic`` (``1``: connected to the venue, ``0``: not), logging in to the local
broker as the service does.

>>> parse_bridge("connection rhuna-venue-k\\naddress venue:1883\\nnotification_topic rhuna/uplink/k\\n")
{'connection': 'rhuna-venue-k', 'address': 'venue:1883', 'notification_topic': 'rhuna/uplink/k'}
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BRIDGE_CONF = "/etc/mosquitto/conf.d/rhuna-venue.conf"
_KEYS = ("connection", "address", "notification_topic", "remote_clientid")


def parse_bridge(text: str) -> dict[str, str]:
    """The bridge file's connection, address and notification topic (first of each)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        if key in _KEYS and key not in out:
            out[key] = value.strip()
    return out


def last_notification(mqtt_cfg: Any, topic: str, timeout: float) -> bytes | None:
    """The retained payload on ``topic`` at the local broker (None: none within ``timeout``)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    got: list[bytes] = []
    done = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    if mqtt_cfg.username:
        c.username_pw_set(mqtt_cfg.username, mqtt_cfg.password)
    c.on_connect = lambda cl, u, f, rc, p: cl.subscribe(topic, 1)

    def on_message(cl: Any, u: Any, msg: Any) -> None:
        got.append(bytes(msg.payload))
        done.set()

    c.on_message = on_message
    try:
        c.connect(mqtt_cfg.host, mqtt_cfg.broker_port, keepalive=10)
    except OSError:
        return None
    c.loop_start()
    done.wait(timeout)
    c.disconnect()
    c.loop_stop()
    return got[0] if got else None


def venue_bridge(path: Path, mqtt_cfg: Any, timeout: float = 2.0) -> Iterator[Any]:
    """doctor's ``venue bridge`` check, as :class:`companion.ops.doctor.Check` s."""
    from companion.ops.doctor import Check

    if not path.exists():  # not at a venue: nothing to check, no line (a single table's doctor)
        return
    bridge = parse_bridge(path.read_text("utf-8", errors="replace"))
    topic = bridge.get("notification_topic")
    where = bridge.get("address", "?")
    if topic is None:
        yield Check(
            "venue bridge",
            False,
            f"{path} names no notification_topic",
            "write it again with rhuna-table venue (the wall's uplink flag needs it)",
        )
        return
    if mqtt_cfg is None or not getattr(mqtt_cfg, "enabled", False):
        yield Check("venue bridge", True, f"to {where}; not read (no [mqtt] to log in with)")
        return
    payload = last_notification(mqtt_cfg, topic, timeout)
    if payload == b"1":
        yield Check("venue bridge", True, f"up to {where} (last notification on {topic}: 1)")
    elif payload == b"0":
        yield Check(
            "venue bridge",
            False,
            f"down: the last notification on {topic} says 0 (the venue {where} is not reached)",
            "check the venue broker runs and this Pi reaches it (ping the venue; the bridge "
            "login in the venue's passwd); the table keeps working and the bridge queues",
        )
    else:
        yield Check(
            "venue bridge",
            False,
            f"no notification on {topic} at the local broker",
            "restart Mosquitto so it reads conf.d (sudo systemctl restart mosquitto); if it "
            f"runs, let the service's login read {topic} in the Pi's ACL",
        )
