"""The broker's, the table id's and the venue bridge's health checks for ``rhuna-table doctor``.

* the broker takes the configured account (``[mqtt]``'s login, TLS included);
* the claim on the table id (companion.mqtt.identity): who holds it on the broker, by its
  retained ``…/info`` and ``…/status`` — free, this machine's service, or another service (then a
  service started here stands by: it runs no command and publishes nothing);
* the panel of the service that runs (issue 43 item 5): its retained ``…/panel`` says whether
  the panel answers its refreshes, in words when not (a Waveshare BUSY that never clears);
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

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.mqtt.client import ONLINE
from companion.mqtt.config import MqttConfig, load_mqtt_config
from companion.mqtt.identity import predecessor
from companion.mqtt.messages import PANEL_SAYS
from companion.mqtt.topics import Topics
from engine import load_table
from settings.checks import Check, Checks
from settings.errors import ConfigError

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


def _client(cfg: MqttConfig, name: str) -> Any:
    """A paho client logged in as ``[mqtt]`` says (TLS included), not connected yet."""
    import ssl

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rhuna-{name}-{os.getpid()}")
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
    return client


def _mqtt_login(cfg: MqttConfig, timeout: float) -> str | None:
    """None when the broker accepts the login, else why not (in paho's or the socket's words)."""
    import ssl

    client = _client(cfg, "doctor")
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


#: seconds doctor listens after its subscription to ``…/info`` and ``…/status`` is acknowledged:
#: the broker sends the retained messages at once; a standby's word, which is not retained,
#: comes only if said meanwhile (every CLASH_EVERY s)
SETTLE = 0.5


def claim(mqtt: dict[str, Any], source: str, table_file: Path, timeout: float) -> Checks:
    """doctor's ``claim`` check: who holds the table id (``mqtt.table_id``, else the table file's)
    on the broker. Nothing when there is no ``[mqtt]``, or the table file or the broker cannot
    be read (the service-start and broker checks say why)."""
    cfg = load_mqtt_config(mqtt, source)
    if not mqtt or not cfg.enabled:
        return
    table_id = cfg.table_id
    if table_id is None:
        try:
            table_id = load_table(table_file).table_id
        except ConfigError:
            return
    topics = Topics(cfg.base_topic, table_id)
    seen = _claims(cfg, topics, timeout)
    if seen is None:
        return
    info, status, words = seen
    name = topics.table_id
    here = socket.gethostname()
    clash_fix = (
        "stop one of them, or give each table its own [table] id (or mqtt.table_id): two"
        " services on one table id would overwrite each other's state"
    )
    if info is None or status != ONLINE.encode():
        last = f"; its last holder (host {info.get('host', '?')}) is offline" if info else ""
        yield Check("claim", True, f"table id {name!r} is free on this broker{last}")
        return
    who = _who(info)
    if info.get("host") != here:
        yield Check(
            "claim",
            False,
            f"table id {name!r} is held by another service on this broker ({who}): a service"
            " started here with this config stands by — it runs no command and publishes"
            " nothing until that one goes offline",
            clash_fix,
        )
        return
    if predecessor(info):
        yield Check("claim", True, f"table id {name!r} is free: its last holder here is gone")
        return
    standing = [w for w in words if w.get("standby") == info.get("instance")]
    if standing:
        yield Check(
            "claim",
            False,
            f"table id {name!r} is held by this machine's service ({who}), and another stands"
            f" by for it ({_who(standing[0])})",
            clash_fix,
        )
        return
    yield Check("claim", True, f"table id {name!r} is held by this machine's service ({who})")


def _who(info: dict[str, Any]) -> str:
    host, pid, started = (info.get(k, "?") for k in ("host", "pid", "started"))
    return f"host {host}, pid {pid}, started {started}"


def _claims(
    cfg: MqttConfig, topics: Topics, timeout: float
) -> tuple[dict[str, Any] | None, bytes | None, list[dict[str, Any]]] | None:
    """The retained ``…/info`` (None: none) and ``…/status``, and the standbys' words heard
    meanwhile; None when the broker could not be read within ``timeout``."""
    words: list[dict[str, Any]] = []

    def live(topic: str, payload: bytes) -> None:
        try:
            word = json.loads(payload)
        except ValueError:
            return
        if topic == topics.info and isinstance(word, dict) and "standby" in word:
            words.append(word)

    retained = _retained(cfg, [topics.info, topics.status], timeout, live, "doctor-claim")
    if retained is None:
        return None
    try:
        info = json.loads(retained[topics.info]) if retained.get(topics.info) else None
    except ValueError:
        info = None
    return (info if isinstance(info, dict) else None), retained.get(topics.status), list(words)


def panel_responding(mqtt: dict[str, Any], source: str, table_file: Path, timeout: float) -> Checks:
    """doctor's ``panel responding`` check: what the running service's retained ``…/panel``
    says (companion.mqtt.messages, ``PanelMessage``): its panel past a refresh's deadline, in
    its words, is a failure; answering, or no service running, is fine. Nothing when there is
    no ``[mqtt]``, or the table file or the broker cannot be read (the service-start and broker
    checks say why)."""
    cfg = load_mqtt_config(mqtt, source)
    if not mqtt or not cfg.enabled:
        return
    table_id = cfg.table_id
    if table_id is None:
        try:
            table_id = load_table(table_file).table_id
        except ConfigError:
            return
    topics = Topics(cfg.base_topic, table_id)
    retained = _retained(cfg, [topics.status, topics.panel], timeout)
    if retained is None:
        return
    name = topics.table_id
    if retained.get(topics.status) != ONLINE.encode():
        yield Check("panel responding", True, f"no service runs table {name!r} on this broker")
        return
    try:
        said = json.loads(retained.get(topics.panel) or b"null")
    except ValueError:
        said = None
    if not isinstance(said, dict):
        yield Check(
            "panel responding",
            True,
            f"the service of table {name!r} says nothing of its panel (no {topics.panel})",
        )
        return
    if said.get("responding") is False:
        yield Check(
            "panel responding",
            False,
            f"{said.get('text') or PANEL_SAYS.rstrip(': ')} (the running service's {topics.panel})",
            "check the panel's ribbon cable and HAT (docs/display.md); it clears itself once a"
            " refresh returns, and the table plays on meanwhile",
        )
        return
    yield Check("panel responding", True, f"the panel of table {name!r} answers its refreshes")


def _retained(
    cfg: MqttConfig,
    wanted: list[str],
    timeout: float,
    live: Callable[[str, bytes], None] | None = None,
    name: str = "doctor-retained",
) -> dict[str, bytes] | None:
    """The retained payload of each of ``wanted`` (a topic without one: absent), or None when
    the broker could not be read within ``timeout``; ``live`` is told each message heard
    meanwhile that is not retained (the standbys' words)."""
    client = _client(cfg, name)
    retained: dict[str, bytes] = {}
    subscribed = threading.Event()

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not reason.is_failure:
            c.subscribe([(topic, 1) for topic in wanted])

    def on_subscribe(c: Any, userdata: Any, mid: Any, reasons: Any, props: Any) -> None:
        subscribed.set()

    def on_message(c: Any, userdata: Any, msg: Any) -> None:
        if msg.retain:
            retained[msg.topic] = bytes(msg.payload)
        elif live is not None:
            live(msg.topic, bytes(msg.payload))

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    try:
        client.connect(cfg.host, cfg.broker_port, keepalive=10)
    except (OSError, ValueError):
        return None
    client.loop_start()
    try:
        if not subscribed.wait(timeout):
            return None
        time.sleep(SETTLE)  # the retained messages follow the acknowledgement at once
    finally:
        client.disconnect()
        client.loop_stop()
    return dict(retained)


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
