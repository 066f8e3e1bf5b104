"""systemd's notify protocol with the standard library: READY=1, WATCHDOG=1, STATUS=…

With ``Type=notify`` systemd hands the service ``$NOTIFY_SOCKET`` (an AF_UNIX
datagram socket; a leading ``@`` means Linux's abstract namespace) and, with
``WatchdogSec=``, ``$WATCHDOG_USEC``. The service says ``READY=1`` once the
table loop runs, ``WATCHDOG=1`` at half the watchdog interval *from the loop's
own thread* (so a wedged loop stops the pings and systemd restarts it), and
``STATUS=…`` lines that ``systemctl status rhuna-table`` shows.

Outside systemd there is no socket and every call does nothing.

>>> Notifier({}).notify("READY=1")
False
>>> Notifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "20000000"}).watchdog_interval
10.0
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Mapping

log = logging.getLogger("rhuna.sdnotify")


class Notifier:
    """Sends notify messages to ``$NOTIFY_SOCKET`` (thread-safe; never raises)."""

    __slots__ = (
        "_lock",
        "_socket",
        "_warned",
        "address",
        "watchdog_interval",
    )

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address or None
        self.watchdog_interval = _watchdog_interval(env)
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._warned = False

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *lines: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False when not under systemd or it failed."""
        if self.address is None:
            return False
        message = "\n".join(line.replace("\n", " ") for line in lines).encode("utf-8")
        with self._lock:
            try:
                if self._socket is None:
                    self._socket = socket.socket(
                        socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                    )
                self._socket.sendto(message, self.address)
            except OSError as e:
                if not self._warned:  # once: a missing socket would otherwise flood the log
                    log.warning("cannot notify systemd at %s: %s", self.address, e)
                    self._warned = True
                return False
        return True

    def ready(self, status: str) -> bool:
        return self.notify("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str = "stopping") -> bool:
        return self.notify("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        with self._lock:
            if self._socket is not None:
                with contextlib.suppress(OSError):
                    self._socket.close()
                self._socket = None


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """Seconds between pings (half of ``WATCHDOG_USEC``), or None when no watchdog is asked
    for — or it is meant for another process (``WATCHDOG_PID``)."""
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1e6 / 2
