"""What every emulated device can do: run, go silent, spray garbage, be unplugged."""

from __future__ import annotations

import os
import random
import threading
import time
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

from firmware_bridge.emulator.port import VirtualPort


class EmulatedDevice(ABC):
    """A scriptable serial device on a :class:`VirtualPort`, run by its own thread.

    Subclasses implement :meth:`_power_on` (fresh device state, as after a
    power cycle) and :meth:`_tick` (one turn of the device's main loop).
    """

    #: pause between two turns of the device loop, in real seconds
    tick_s = 0.005

    def __init__(self, link: str | os.PathLike[str] | None = None, *, name: str) -> None:
        self.port = VirtualPort(link, name=name)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()  # held while the device loop runs one turn
        self.silent = False
        self.bytes_written = 0

    @property
    def link(self) -> str:
        """The stable path the host opens (like ``/dev/serial/by-id/…``)."""
        return str(self.port.link)

    def start(self) -> Self:
        """Plug in and power on."""
        with self._lock:
            self.port.plug()
            self._power_on()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        self.port.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting ------------------------------------------------------------

    def unplug(self) -> None:
        """Pull the cable: the port vanishes and the device loses power."""
        with self._lock:
            self.port.unplug()

    def replug(self) -> None:
        """Plug the cable back in: a new pty behind the same link, a freshly booted device."""
        with self._lock:
            self.port.unplug()
            self.port.plug()
            self._power_on()

    def go_silent(self) -> None:
        """The device hangs: it stays plugged in but neither answers nor sends."""
        self.silent = True

    def resume(self) -> None:
        self.silent = False

    def send_raw(self, data: bytes) -> int:
        """Write bytes straight to the host, bypassing the device's protocol."""
        n = self.port.write(data)
        self.bytes_written += n
        return n

    def spray_garbage(self, n: int = 256, seed: int = 0) -> bytes:
        """Line noise: ``n`` random bytes (reproducible by ``seed``). Returns them."""
        data = random.Random(seed).randbytes(n)
        self.send_raw(data)
        return data

    # -- for subclasses ----------------------------------------------------------

    def _out(self, data: bytes) -> None:
        """The device's own output: dropped while silent or unplugged."""
        if not self.silent:
            self.bytes_written += self.port.write(data)

    @abstractmethod
    def _power_on(self) -> None: ...

    @abstractmethod
    def _tick(self, incoming: bytes) -> None: ...

    def _run(self) -> None:
        while not self._stop.is_set():
            self.port.wait_readable(self.tick_s)
            with self._lock:
                data = self.port.read()
                if not self.port.plugged:
                    continue
                self._tick(b"" if self.silent else data)
            time.sleep(0)  # let scripting calls take the lock between turns
