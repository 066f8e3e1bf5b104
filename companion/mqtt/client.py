"""A paho-mqtt 2.x client set up from :class:`MqttConfig`: login, TLS, last will, back-off.

paho's own network thread (``loop_start``) connects in the background
(``connect_async``), so a broker that is down when the Pi boots is no error:
the client retries, waiting ``reconnect_min_delay`` seconds and doubling up to
``reconnect_max_delay``.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.mqtt.config import MqttConfig
from companion.mqtt.topics import Topics
from engine.errors import ConfigError

OFFLINE = "offline"
ONLINE = "online"

#: room in paho's queue above ``max_queued`` for the status messages the bridge sends itself
STATUS_HEADROOM = 8


def make_client(cfg: MqttConfig, topics: Topics, client_id: str) -> mqtt.Client:
    """A client whose will marks the table ``offline`` (retained) if it vanishes."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=mqtt.MQTTv311,
        clean_session=True,
    )
    if cfg.username is not None:
        client.username_pw_set(cfg.username, cfg.password)
    if cfg.tls is not None:
        try:
            client.tls_set(
                ca_certs=str(cfg.tls.ca) if cfg.tls.ca else None,
                certfile=str(cfg.tls.cert) if cfg.tls.cert else None,
                keyfile=str(cfg.tls.key) if cfg.tls.key else None,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        except (ssl.SSLError, OSError) as e:
            raise ConfigError(f"mqtt.tls: cannot use the certificate files ({e})") from None
        client.tls_insecure_set(cfg.tls.insecure)
    client.on_socket_open = no_delay
    client.will_set(topics.status, OFFLINE, qos=1, retain=True)
    client.reconnect_delay_set(cfg.reconnect_min_delay, cfg.reconnect_max_delay)
    client.max_queued_messages_set(cfg.max_queued + STATUS_HEADROOM)
    return client


def no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """paho's ``on_socket_open``: send small packets at once. paho leaves TCP_NODELAY off,
    and Nagle's algorithm meeting the broker's delayed ACK adds ~40 ms to a reply."""
    # not a TCP socket (a unix socket, a websocket wrapper): nothing to do
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
