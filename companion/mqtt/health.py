"""The broker's and the venue bridge's health checks for ``rhuna-table doctor``.

* the broker takes the configured account (``[mqtt]``'s login, TLS included);
* the venue bridge (docs/convention.md): is the Pi's bridge to the venue up, and what did
  its last notification say?

The bridge is the file ``rhuna-table venue`` wrote into ``/etc/mosquitto/conf.d``
(``rhuna-venue.conf``). Without it the table is not at a venue and there is no check. With
it, the check reads the retained notification the Pi's own Mosquitto keeps on the bridge's
``notification_topic`` (``1``: connected to the venue, ``0``: not), logging in to the local
broker as the service does.

>>> parse_bridge("connection rhuna-venue-k\\naddress venue:1883\\nnotification_topic rhuna/uplink/k\\n")
{'connection': 'rhuna-venue-k', 'address': 'venue:1883', 'notification_topic': 'rhuna/uplink/k'}
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from companion.mqtt.config import MqttConfig, load_mqtt_config
from settings.checks import Check, Checks

BRIDGE_CONF = "/etc/mosquitto/conf.d/rhuna-venue.conf"
_KEYS = ("connection", "address", "notification_topic", "remote_clientid")


def broker(mqtt: dict[str, Any], source: str, timeout: float) -> Checks:
    """The broker takes ``[mqtt]``'s login (``mqtt``: the section as read, ``source`` its file)."""
    mqtt_cfg = load_mqtt_config(mqtt, source)
    if not mqtt or not mqtt_cfg.enabled:
        yield Check("broker", True, "not needed (no [mqtt])")
        return
    where = f"{mqtt_cfg.host}:{mqtt_cfg.broker_port}"
    who = f" as {mqtt_cfg.username}" if mqtt_cfg.username else " (anonymous)"
    problem = _mqtt_login(mqtt_cfg, timeout)
    if problem is None:
        yield Check("broker", True, f"{where} takes the login{who}")
    elif "refused" in problem or "not authorised" in problem.lower() or "bad user" in problem:
        yield Check(
            "broker",
            False,
            f"{where} refuses the login{who}: {problem}",
            "check [mqtt] username and password (or password_file) against the broker's"
            " password file (rhuna-table accounts)",
        )
    else:
        yield Check(
            "broker",
            False,
            f"{where} does not answer: {problem}",
            "start Mosquitto (sudo systemctl enable --now mosquitto) or fix [mqtt] host/port",
        )


def _mqtt_login(cfg: MqttConfig, timeout: float) -> str | None:
    """None when the broker accepts the login, else why not (in paho's or the socket's words)."""
    import ssl

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rhuna-doctor-{os.getpid()}")
    if cfg.username is not None:
        client.username_pw_set(cfg.username, cfg.password)
    if cfg.tls is not None:
        client.tls_set(
            ca_certs=str(cfg.tls.ca) if cfg.tls.ca else None,
            certfile=str(cfg.tls.cert) if cfg.tls.cert else None,
            keyfile=str(cfg.tls.key) if cfg.tls.key else None,
            cert_reqs=ssl.CERT_REQUIRED,
        )
        client.tls_insecure_set(cfg.tls.insecure)
    result: list[str | None] = []
    answered = threading.Event()

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.append(None if not reason.is_failure else f"refused: {reason}")
        answered.set()

    client.on_connect = on_connect
    try:
        client.connect(cfg.host, cfg.broker_port, keepalive=10)
    except (TimeoutError, OSError, ssl.SSLError) as e:
        return f"{type(e).__name__}: {e}"
    client.loop_start()
    try:
        if not answered.wait(timeout):
            return f"no CONNACK within {timeout:g} s"
        return result[0]
    finally:
        client.disconnect()
        client.loop_stop()


def bridge(mqtt: dict[str, Any], source: str, bridge_file: Path, timeout: float) -> Checks:
    """The venue bridge's check for ``[mqtt]`` as read; ``bridge_file``: where
    :data:`BRIDGE_CONF` is on this machine."""
    mqtt_cfg = load_mqtt_config(mqtt, source) if mqtt else None
    yield from venue_bridge(bridge_file, mqtt_cfg, timeout)


def parse_bridge(text: str) -> dict[str, str]:
    """The bridge file's connection, address and notification topic (first of each)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        if key in _KEYS and key not in out:
            out[key] = value.strip()
    return out


def last_notification(mqtt_cfg: MqttConfig, topic: str, timeout: float) -> bytes | None:
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


def venue_bridge(path: Path, mqtt_cfg: MqttConfig | None, timeout: float = 2.0) -> Checks:
    """doctor's ``venue bridge`` check: ``path`` is the bridge file (:data:`BRIDGE_CONF`)."""
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
    if mqtt_cfg is None or not mqtt_cfg.enabled:
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
