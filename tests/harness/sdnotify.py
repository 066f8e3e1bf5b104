"""The receiving end of systemd's notify socket ($NOTIFY_SOCKET), for the service's tests."""

from __future__ import annotations

import socket


class Systemd:
    """The receiving end of $NOTIFY_SOCKET, as systemd binds it."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(("\0" + address[1:]) if address.startswith("@") else address)
        self.sock.settimeout(10)
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

    def close(self) -> None:
        self.sock.close()
