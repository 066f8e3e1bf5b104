"""A paho-mqtt 2.x client set up from :class:`MqttConfig`: login, TLS, last will, back-off.

The last will (``offline`` on ``…/status``, retained) is the holder's alone: a client is
made without one, and :meth:`Client.reconnect_with_will` sets it (or drops it) once the
claim on the table id is decided (companion.mqtt.identity), so a standby killed with
``kill -9`` leaves nothing on the holder's ``…/status``.

The session outlives a connection by :data:`SESSION_EXPIRY` seconds (MQTT 5's session
expiry; paho starts clean only at the first connection): the claim's own reconnection
keeps the commands' subscription, and the broker keeps the QoS 1 commands sent meanwhile,
so a command sent the moment ``online`` is seen is never dropped for want of a
subscriber. A clean stop ends the session (:meth:`Client.end`).

paho's own network thread (``loop_start``) connects in the background
(``connect_async``), so a broker that is down when the Pi boots is no error:
the client retries, waiting ``reconnect_min_delay`` seconds and doubling up to
``reconnect_max_delay``.

Over plain TCP the thread that publishes may also put the packet on the socket
itself (:meth:`Client.write_now`), instead of waking paho's thread to do it and
waiting for that thread to get the GIL: one thread hand-off fewer between a
commit and its event at a subscriber. A PUBLISH written whole that way does not
wake paho's thread at all (paho writes a byte to its socket pair for every
packet queued, and the thread it wakes takes the GIL from the publisher only to
find nothing left to write).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.mqtt.config import MqttConfig
from companion.mqtt.topics import Topics
from settings.errors import ConfigError

OFFLINE = "offline"
ONLINE = "online"

#: seconds the broker keeps the service's session (its subscriptions, the QoS 1 messages for
#: it) once a connection is gone: across the claim's reconnection and a short drop (a Wi-Fi
#: blip); a command kept longer would run late, after its sender was told nothing came
SESSION_EXPIRY = 60

#: room in paho's queue above ``max_queued`` for the status messages the bridge sends itself
STATUS_HEADROOM = 8
#: the ``qos`` a quiet QoS 0 packet is queued with (:meth:`Client.publish_quiet`): paho calls
#: ``on_publish`` for a written packet whose ``qos`` is 0, and only for those
_QUIET = -1


class Client(mqtt.Client):
    """paho's client; over plain TCP, a publishing thread may write the queued packets itself.

    paho's network thread writes the queue in :meth:`loop_write` and empties it in
    :meth:`reconnect`; both run under one lock here, and :meth:`write_now` only *tries*
    that lock, so a publishing thread never waits for paho's: when paho's thread is
    writing (or reconnecting) it writes this packet too, woken as paho always is. A
    packet the socket takes only in part, or not at all, stays at the head of the
    queue for paho's thread, which also handles every error of the connection. Not
    over TLS (one SSL connection must not be written and read by two threads at once)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writing = threading.RLock()
        #: False: only paho's thread writes (TLS, or turned off)
        self.direct = True
        #: times a publishing thread wrote the queue itself (diagnostics, tests)
        self.written_now = 0
        self._quiet = threading.local()  # .on: this thread is in publish_quiet

    def publish_quiet(self, topic: str, payload: str | bytes, *, retain: bool) -> bool:
        """A QoS 0 message no ``on_publish`` hears of: outside the window of QoS 1 messages
        (``max_queued``, paho's queue, its in-flight limit), so any number go out at once, from
        any thread — paho's own callbacks included (paho would otherwise call ``on_publish``
        for it under the lock its ``on_message`` holds). True if it is on its way; lost with
        the connection, as QoS 0 is."""
        self._quiet.on = True
        try:
            info = self.publish(topic, payload, qos=0, retain=retain)
        finally:
            self._quiet.on = False
        return info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS

    def loop_write(self) -> MQTTErrorCode:
        with self._writing:
            return super().loop_write()

    def reconnect(self) -> MQTTErrorCode:
        with self._writing:
            return super().reconnect()

    def _packet_queue(
        self,
        command: int,
        packet: bytes | bytearray,
        mid: int,
        qos: int,
        info: mqtt.MQTTMessageInfo | None = None,
    ) -> MQTTErrorCode:
        """paho's: queue a packet and wake its thread to write it. A PUBLISH on a connected
        plain-TCP socket is written here instead when paho's thread is not writing; paho's
        thread is woken only if something is left (a full socket buffer, an error)."""
        if qos == 0 and (command & 0xF0) == mqtt.PUBLISH and getattr(self._quiet, "on", False):
            qos = _QUIET  # publish_quiet's: no on_publish when it is written
        if (
            not self.direct
            or (command & 0xF0) != mqtt.PUBLISH
            or self._sock is None
            or not self.is_connected()
            # paho's own thread, in one of its callbacks (it holds paho's callback lock): it
            # writes the queue itself when the callback returns; a write that failed here
            # would call on_disconnect under that same lock, and wait for itself for ever
            or threading.current_thread() is self._thread
            or not self._writing.acquire(blocking=False)
        ):
            return super()._packet_queue(command, packet, mid, qos, info)
        try:
            self._out_packet.append(
                {
                    "command": command,
                    "mid": mid,
                    "qos": qos,
                    "pos": 0,
                    "to_process": len(packet),
                    "packet": packet,
                    "info": info,
                }
            )
            # an error leaves the packet queued; paho's thread meets it too, and reconnects
            with contextlib.suppress(Exception):
                self._packet_write()
                self.written_now += 1
            left = bool(self._out_packet)
        finally:
            self._writing.release()
        if left:
            self._wake()
        return MQTTErrorCode.MQTT_ERR_SUCCESS

    def _wake(self) -> None:
        """paho's own wake-up: a byte on its socket pair breaks its select()."""
        sock = self._sockpairW
        if sock is not None:
            with contextlib.suppress(BlockingIOError):
                sock.send(b"0")

    def reconnect_with_will(
        self,
        status: str | None,
        host: str,
        port: int,
        keepalive: int,
        stopped: Callable[[], None] = lambda: None,
    ) -> None:
        """A new connection whose last will is ``offline`` on ``status`` (None: no will). Not on
        paho's thread, which it stops and starts again: a clean DISCONNECT first (MQTT 5,
        reason 0: the broker discards the old connection's will; paho sends its QoS 1
        messages still in flight again on the new one), then a connection in the background
        as at start. ``stopped`` is called in between, while no thread of paho's runs."""
        self.disconnect()  # the session stays (SESSION_EXPIRY): the commands' subscription too
        self.loop_stop()
        stopped()
        self._reset_sockets(sockpair_only=True)  # loop_start makes a new pair: no leak
        if status is None:
            self.will_clear()
        else:
            self.will_set(status, OFFLINE, qos=1, retain=True)
        self.connect_session(host, port, keepalive)
        self.loop_start()

    def connect_session(self, host: str, port: int, keepalive: int) -> None:
        """Connect in the background with a session the broker keeps :data:`SESSION_EXPIRY` s
        after the connection goes (clean only at the first connection: paho's default)."""
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = SESSION_EXPIRY
        self.connect_async(host, port, keepalive, properties=properties)

    def end(self) -> None:
        """A clean stop: disconnect and end the session (nothing is kept for this client)."""
        properties = Properties(PacketTypes.DISCONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = 0
        self.disconnect(properties=properties)

    def write_now(self) -> bool:
        """Write what is queued from this thread, unless paho's thread is at it (never
        waits). True if this thread wrote."""
        if not self.direct or not self._out_packet or not self._writing.acquire(blocking=False):
            return False
        try:
            if self._sock is None:
                return False
            # an error leaves the packet queued; paho's thread meets it too, and reconnects
            self._packet_write()
            self.written_now += 1
            return True
        except Exception:  # the connection is paho's thread's to mend
            return False
        finally:
            self._writing.release()


def make_client(cfg: MqttConfig, topics: Topics, client_id: str, *, will: bool = False) -> Client:
    """A client set up from ``cfg``. With ``will``, its last will marks the table ``offline``
    (retained) if it vanishes; the bridge makes it without, and sets it once its claim holds
    (:meth:`Client.reconnect_with_will`)."""
    client = Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        # MQTT 5: a command's retain flag reaches the service even live (retainAsPublished),
        # so a command published with retain is refused, not run (docs/mqtt.md)
        protocol=mqtt.MQTTv5,
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
        client.direct = False
    client.on_socket_open = no_delay
    if will:
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
