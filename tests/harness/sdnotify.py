"""The receiving end of systemd's notify socket ($NOTIFY_SOCKET), for the service's tests."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from tests.harness import WAIT, wait_until


class Systemd:
    """The receiving end of $NOTIFY_SOCKET, as systemd binds it."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._bound = ("\0" + address[1:]) if address.startswith("@") else address
        self.sock.bind(self._bound)
        # a service's start under load (its imports, the display's fork server) took longer
        # than the 10 s this was: the harness's WAIT, like every other wait
        self.sock.settimeout(WAIT)
        self.address = address
        self.messages: list[dict[str, str]] = []

    def receive(self) -> dict[str, str]:
        data = self.sock.recv(4096).decode()
        message = dict(line.split("=", 1) for line in data.split("\n"))
        self.messages.append(message)
        return message

    def until(self, key: str) -> dict[str, str]:
        while True:
            message = self.receive()
            if key in message:
                return message

    def mark(self, name: str) -> None:
        """Put ``MARK=name`` in the socket's queue after everything sent to it so far: a
        datagram socket keeps its senders' datagrams in the order they came, so what the
        service sends before this call is read before the mark, and what it sends after,
        after it."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.sendto(f"MARK={name}".encode(), self._bound)

    def until_mark(self, name: str) -> list[dict[str, str]]:
        """Every message before the mark ``name`` (see :meth:`mark`), which is read too."""
        before: list[dict[str, str]] = []
        while (message := self.receive()).get("MARK") != name:
            before.append(message)
        return before

    def close(self) -> None:
        self.sock.close()


class Decisions:
    """An extension the loop asks, before each watchdog ping, whether it is stuck
    (``busy_for``, as it asks the MQTT publisher): counts the loop's decisions to ping."""

    def __init__(self) -> None:
        self.asked = 0

    def start(self, loop: Any) -> None:
        pass

    def stop(self) -> None:
        pass

    def busy_for(self) -> float:
        self.asked += 1
        return 0.0


def no_ping_while_stuck(
    systemd: Systemd, decisions: Decisions, stuck: Callable[[], bool]
) -> list[dict[str, str]]:
    """Once ``stuck()`` holds, no WATCHDOG=1 while the loop decides three more times (in the
    socket between two marks); the messages between them. A decision begun before ``stuck()``
    held may still ping: it has sent its ping before the next decision is counted."""
    wait_until(stuck, "the turn stuck for more than a ping's interval")
    asked = decisions.asked
    wait_until(lambda: decisions.asked >= asked + 2, "the loop's next decision")
    systemd.mark("stuck")
    asked = decisions.asked
    wait_until(lambda: decisions.asked >= asked + 3, "three decisions while it is stuck")
    systemd.mark("still stuck")
    systemd.until_mark("stuck")  # what was sent before: drained, not judged
    between = systemd.until_mark("still stuck")
    assert not [m for m in between if "WATCHDOG" in m], between
    return between
