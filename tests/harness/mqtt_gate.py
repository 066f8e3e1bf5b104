"""A TCP relay between one MQTT client and a real broker that can hold the client's stream
right after a chosen PUBLISH: the broker has handled that packet, and nothing the client sent
after it, for as long as the test likes.

It makes an ordering race deterministic. The broker handles one connection's packets in the
order they arrive (MQTT 5.0 §4.6 for PUBLISH; Mosquitto reads each connection's socket
in order for all of them), so "what had the broker been told when it forwarded X?" is
exactly "what came before X on the wire": holding the stream after X lets a test act in
that moment, however fast or slow the machine.

Only the client-to-broker direction is parsed (MQTT 5 fixed header, topic, properties) and
may be held; the broker-to-client direction flows freely.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from types import TracebackType

from tests.harness.broker import WAIT

Match = Callable[[str, bytes], bool]


def _varint(data: bytes, at: int) -> tuple[int, int] | None:
    """MQTT's variable byte integer at ``at``: (value, its length), or None if cut short."""
    value, shift = 0, 0
    for i in range(4):
        if at + i >= len(data):
            return None
        byte = data[at + i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i + 1
        shift += 7
    raise ValueError("malformed MQTT remaining length")


def _publish(packet: bytes, header: int) -> tuple[str, bytes]:
    """An MQTT 5 PUBLISH's topic and payload (``packet`` without its fixed header)."""
    qos = (packet[0] >> 1) & 3
    length = int.from_bytes(packet[header : header + 2], "big")
    at = header + 2
    topic = packet[at : at + length].decode()
    at += length + (2 if qos else 0)
    props = _varint(packet, at)
    assert props is not None
    at += props[1] + props[0]
    return topic, packet[at:]


class MqttGate:
    """Relays ``127.0.0.1:port`` to the broker on ``target``; after the first client PUBLISH
    that ``hold_after(topic, payload)`` accepts, the client's further bytes wait until
    :meth:`release`. ``held`` is set once that PUBLISH is written to the broker."""

    def __init__(self, target: int, hold_after: Match) -> None:
        self.target = target  # a test may point it at a restarted broker's new port
        self.hold_after = hold_after
        self.held = threading.Event()
        self.released = threading.Event()
        self.seen: list[str] = []  # the client's PUBLISH topics, in order, as relayed
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = [self._server]
        self._threads: list[threading.Thread] = []
        self._closing = False
        self._start(self._accept)

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:  # the broker is down (a restart): the client sees a drop, retries
                _shut(client)
                client.close()
                continue
            self._sockets += [client, upstream]
            self._start(self._down, upstream, client)
            self._start(self._up, client, upstream)

    def _down(self, source: socket.socket, sink: socket.socket) -> None:
        """Broker to client: as it comes."""
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            _shut(sink)

    def _up(self, source: socket.socket, sink: socket.socket) -> None:
        """Client to broker, a whole packet at a time, held after the chosen PUBLISH."""
        buffer = b""
        try:
            while data := source.recv(65536):
                buffer += data
                while (split := self._packet(buffer)) is not None:
                    packet, header = buffer[: split[0]], split[1]
                    buffer = buffer[split[0] :]
                    if self.held.is_set() and not self.released.wait(WAIT * 4):
                        raise TimeoutError("the gate was never released")
                    sink.sendall(packet)
                    if packet[0] >> 4 == 3:  # PUBLISH
                        topic, payload = _publish(packet, header)
                        self.seen.append(topic)
                        if not self.held.is_set() and self.hold_after(topic, payload):
                            self.held.set()
        except OSError:
            pass
        finally:
            _shut(sink)

    @staticmethod
    def _packet(buffer: bytes) -> tuple[int, int] | None:
        """(the first whole packet's length, its fixed header's length), or None: not yet."""
        if len(buffer) < 2:
            return None
        remaining = _varint(buffer, 1)
        if remaining is None:
            return None
        header = 1 + remaining[1]
        total = header + remaining[0]
        return (total, header) if len(buffer) >= total else None

    def release(self) -> None:
        self.released.set()

    def close(self) -> None:
        """Everything this gate opened is closed and its threads are gone."""
        self._closing = True
        self.released.set()
        for s in self._sockets:
            _shut(s)
            s.close()
        for thread in self._threads:
            thread.join(WAIT)
            assert not thread.is_alive(), "a gate thread did not stop"

    def __enter__(self) -> MqttGate:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _shut(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
