"""A pseudo-terminal that stands in for a USB serial device, reachable by a stable name.

Real token hubs appear as ``/dev/serial/by-id/usb-…-if00``, a symlink udev
points at ``/dev/ttyACM0`` (or ``ttyACM1`` after a replug). A
:class:`VirtualPort` does the same with a pty: :meth:`plug` opens a fresh pty
(raw mode) and points the symlink at its slave; :meth:`unplug` removes the
link and closes the pty, so the host's next read raises ``SerialException``
exactly as it does when a cable is pulled. The host always opens the link,
never the ``/dev/pts/N`` path, which changes on every replug.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import shutil
import tempfile
import threading
import time
import tty
from pathlib import Path

log = logging.getLogger(__name__)


class VirtualPort:
    """The device end of an emulated serial link.

    >>> port = VirtualPort(name="usb-Rhuna_TokenHub_EMU-if00")
    >>> port.plug()
    >>> str(port.link).endswith("serial/by-id/usb-Rhuna_TokenHub_EMU-if00")
    True
    >>> port.close()
    """

    def __init__(
        self, link: str | os.PathLike[str] | None = None, *, name: str = "usb-Rhuna_Emulated-if00"
    ) -> None:
        self._tmpdir: str | None = None
        if link is None:
            self._tmpdir = tempfile.mkdtemp(prefix="rhuna-serial-")
            link = Path(self._tmpdir, "serial", "by-id", name)
        self.link = Path(link)
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self.tty_path: str | None = None
        self.plugs = 0

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        """Appear: a new pty, raw mode, the stable link pointed at it."""
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.tty_path = os.ttyname(slave)
            self.link.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.link.with_name(self.link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.tty_path)
            os.replace(tmp, self.link)  # atomic, like udev re-pointing by-id
            self.plugs += 1

    def unplug(self) -> None:
        """Vanish: the link goes, the pty closes; the host's reads fail. A link that cannot
        be removed (its disk remounted read-only, say) is one logged line: the pty closes all
        the same, and a stop goes on (the service's next start clears its links' folder)."""
        with self._lock:
            try:
                self.link.unlink()
            except FileNotFoundError:
                pass
            except OSError as e:
                log.warning(
                    "%s: cannot remove the emulated port's link (%s); closing its pty anyway",
                    self.link,
                    e.strerror,
                )
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None
            self.tty_path = None

    def close(self) -> None:
        self.unplug()
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def wait_readable(self, timeout: float) -> None:
        """Block until the host has written something, or ``timeout`` passes."""
        fd = self._master
        if fd is None:
            time.sleep(timeout)
            return
        with contextlib.suppress(OSError, ValueError):
            select.select([fd], [], [], timeout)

    def read(self) -> bytes:
        """What the host has written since the last call (b"" if nothing or unplugged)."""
        with self._lock:
            if self._master is None:
                return b""
            try:
                return os.read(self._master, 4096)
            except (BlockingIOError, OSError):
                return b""

    def write(self, data: bytes, timeout: float = 0.5) -> int:
        """Send bytes to the host; returns how many went out (0 when unplugged).

        A host that stops reading fills the pty's buffer; after ``timeout`` the
        rest is dropped, as a real USB device's would be.
        """
        sent = 0
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while sent < len(data):
            with self._lock:
                if self._master is None:
                    return sent
                try:
                    sent += os.write(self._master, view[sent:])
                    continue
                except BlockingIOError:
                    pass
                except OSError:
                    return sent
            if time.monotonic() > deadline:
                return sent
            time.sleep(0.001)
        return sent
