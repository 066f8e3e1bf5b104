"""The one interface every serial token reader shares: a thread that never dies.

A :class:`SerialReader` owns one serial port and one thread. The thread opens
the port (by a stable name such as ``/dev/serial/by-id/…`` or any pyserial
URL), runs the backend's protocol session, and when the device disappears
(unplug: pyserial raises ``SerialException``) or falls silent, closes the port
and tries again with exponential back-off. No exception leaves the thread:
link failures are counted in :class:`~firmware_bridge.stats.ReaderStats`, and
a bug in a backend is logged with its traceback, counted, and followed by a
reconnect. Tag changes go to a *sink*: a callable or a ``queue.Queue``. The
sink is called from the reader's thread, so it should only enqueue.

Backends (``hub``, ``pn532``, ``line_reader``) implement :meth:`_session`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import select
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from types import TracebackType
from typing import Self

import serial

from firmware_bridge.events import Presence, ReaderStatus, TagEvent
from firmware_bridge.stats import ReaderStats
from firmware_bridge.uid import Uid

Sink = Callable[[TagEvent], object] | queue.Queue[TagEvent]
StatusSink = Callable[[ReaderStatus], object]
Clock = Callable[[], float]

log = logging.getLogger(__name__)

#: the most one :func:`read_available` takes at once (a tty's buffer holds 4 KiB)
READ_CHUNK = 4096
#: a read that found nothing this time (pyserial's serialposix.Serial.read ignores the same)
_TRY_AGAIN = (errno.EAGAIN, errno.EALREADY, errno.EWOULDBLOCK, errno.EINPROGRESS, errno.EINTR)


def read_available(port: serial.Serial) -> bytes:
    """What the device has sent: the bytes waiting now, else those that come within the port's
    read timeout (b"" when none do).

    ``port.read(port.in_waiting or 1)`` says the same in pyserial's words, but when nothing
    is waiting (a token laid on a quiet Draw Board) it costs two ``select``, two ``read`` and
    an ``ioctl``, and the reader's thread releases the interpreter at each of them: another
    thread that wants it (the pondering) may then keep it for the service's switch interval
    while the frame waits. On a plain POSIX port this is one ``select`` and one ``read`` of
    what is there, with pyserial's own errors (``serialposix.Serial.read``, pyserial 3.5: a
    port ready with nothing to read is a device gone; EAGAIN and EINTR are no data). Any
    other port (a URL handler, another OS, a subclass with its own reading) is read by
    pyserial as before."""
    # on POSIX serial.Serial is serialposix.Serial; elsewhere it has no fd to select on
    if os.name != "posix" or type(port) is not serial.Serial or port.fd is None:
        return port.read(port.in_waiting or 1)
    try:
        ready, _, _ = select.select([port.fd], [], [], port.timeout)
        if not ready:
            return b""
        data = os.read(port.fd, READ_CHUNK)
    except OSError as e:
        if e.errno in _TRY_AGAIN:
            return b""
        raise serial.SerialException(f"read failed: {e}") from None
    if not data:  # a vanished device is ready to read, with nothing (pyserial says the same)
        raise serial.SerialException(
            "device reports readiness to read but returned no data"
            " (device disconnected or multiple access on port?)"
        )
    return data


class LinkLost(Exception):
    """The device stopped answering (missed heartbeats, no reply): reconnect."""


class HandshakeFailed(Exception):
    """The device did not identify itself as expected: reconnect after back-off."""


class Backoff:
    """Exponential back-off between reconnect attempts: ``initial``, ×``factor``, capped.

    The cap is small (1 s) because a token hub that comes back must be seen
    again within 2 s; :meth:`reset` runs after every successful handshake.

    >>> b = Backoff(0.1, 2.0, 0.5)
    >>> [b.next() for _ in range(4)]
    [0.1, 0.2, 0.4, 0.5]
    """

    def __init__(self, initial: float = 0.05, factor: float = 2.0, maximum: float = 1.0) -> None:
        self.initial = initial
        self.factor = factor
        self.maximum = maximum
        self._next = initial

    def next(self) -> float:
        delay = self._next
        self._next = min(self._next * self.factor, self.maximum)
        return delay

    def reset(self) -> None:
        self._next = self.initial


class SerialReader(ABC):
    """A token reader on one serial port, running in its own thread.

    >>> import queue
    >>> from firmware_bridge.hub import HubReader
    >>> events = queue.Queue()
    >>> reader = HubReader("/dev/serial/by-id/usb-Rhuna_TokenHub-if00", sink=events)
    >>> reader.start()            # doctest: +SKIP
    >>> events.get().to_json()    # doctest: +SKIP
    {'reader': 'hub', 'channel': 2, 'uid': '04A1B2C3', 'presence': 'present', ...}

    ``clock`` stamps the events (``time.monotonic`` by default, injectable so
    tests and replays are deterministic); link timeouts always use real time.
    """

    #: short name used in events and logs when none is given
    kind = "reader"

    def __init__(
        self,
        port: str,
        *,
        sink: Sink,
        name: str | None = None,
        baudrate: int = 115200,
        clock: Clock = time.monotonic,
        backoff: Backoff | None = None,
        on_status: StatusSink | None = None,
        read_timeout: float = 0.02,
    ) -> None:
        self.port = port
        self.name = name or self.kind
        self.baudrate = baudrate
        self.clock = clock
        self.backoff = backoff or Backoff()
        self.read_timeout = read_timeout
        self.stats = ReaderStats()
        self._sink = sink
        self._on_status = on_status
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state_changed = threading.Condition()
        self._state = "stopped"
        self._serial: serial.Serial | None = None
        #: what the host believes lies on each channel (for dedupe and reconciling)
        self.tags: dict[int, bytes] = {}

    # -- life cycle ----------------------------------------------------------

    def start(self) -> Self:
        """Start the reader's thread (idempotent). Returns self, for chaining."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._run, name=f"{self.kind}:{self.name}", daemon=True
            )
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to finish, close the port and wait for it."""
        self._stop.set()
        port = self._serial
        if port is not None:
            with contextlib.suppress(Exception):  # best effort: the port may be gone
                port.cancel_read()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set_state("stopped", "stopped by request")

    close = stop

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def state(self) -> str:
        """``connecting``, ``online``, ``lost``, ``offline`` or ``stopped``."""
        return self._state

    def wait_online(self, timeout: float | None = None) -> bool:
        """Block until the reader is online (handshake done); False on timeout."""
        with self._state_changed:
            return self._state_changed.wait_for(lambda: self._state == "online", timeout)

    # -- for backends --------------------------------------------------------

    @abstractmethod
    def _session(self, port: serial.Serial) -> None:
        """Talk to the device on an open port until stopped; raise to reconnect.

        Raise :class:`LinkLost` or :class:`HandshakeFailed` for protocol-level
        trouble; ``SerialException``/``OSError`` from pyserial mean the device
        went away. Call :meth:`_online` once the device is identified.
        """

    def _open(self) -> serial.Serial:
        port = serial.serial_for_url(
            self.port,
            baudrate=self.baudrate,
            timeout=self.read_timeout,
            write_timeout=1.0,
            exclusive=True,
            do_not_open=True,
        )
        port.open()
        return port

    def _online(self, detail: str) -> None:
        self.backoff.reset()
        self.stats.add("connects")
        self._set_state("online", detail)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _emit(self, channel: int, uid: bytes, presence: Presence) -> None:
        """Record the change in :attr:`tags` and hand a TagEvent to the sink: its UID the
        canonical :class:`~firmware_bridge.uid.Uid`, made here once from the parsed bytes."""
        if presence is Presence.PRESENT:
            self.tags[channel] = uid
        else:
            self.tags.pop(channel, None)
        event = TagEvent(self.name, channel, Uid(uid), presence, self.clock())
        self.stats.add("events")
        try:
            if isinstance(self._sink, queue.Queue):
                self._sink.put_nowait(event)
            else:
                self._sink(event)
        except Exception:
            self.stats.add("sink_errors")
            log.exception("%s: the event consumer raised on %s", self.name, event)

    def _present(self, channel: int, uid: bytes) -> None:
        """A tag is on ``channel``: emit once; a different tag there is removed first."""
        old = self.tags.get(channel)
        if old == uid:
            self.stats.add("duplicates")
            return
        if old is not None:
            self._emit(channel, old, Presence.REMOVED)
        self._emit(channel, uid, Presence.PRESENT)

    def _removed(self, channel: int, uid: bytes | None = None) -> bool:
        """``channel`` is empty. Returns False if the host believed another tag was there."""
        old = self.tags.get(channel)
        if old is None:
            self.stats.add("duplicates")
            return True
        if uid is not None and old != uid:
            return False
        self._emit(channel, old, Presence.REMOVED)
        return True

    def _reconcile(self, channel: int, uid: bytes | None) -> None:
        """Make the host's view of ``channel`` match what the device reports now."""
        old = self.tags.get(channel)
        if uid and uid != old:
            self._present(channel, uid)
        elif not uid and old is not None:
            self._emit(channel, old, Presence.REMOVED)

    def _wait(self, seconds: float) -> bool:
        """Sleep unless stopped; True if stop was requested."""
        return self._stop.wait(seconds)

    # -- the thread ----------------------------------------------------------

    def _set_state(self, state: str, detail: str) -> None:
        with self._state_changed:
            changed = state != self._state
            self._state = state
            self._state_changed.notify_all()
        if not changed:
            return
        if state in ("lost", "offline"):
            log.warning("%s: %s (%s)", self.name, state, detail)
        else:
            log.info("%s: %s (%s)", self.name, state, detail)
        if self._on_status is not None:
            try:
                self._on_status(ReaderStatus(self.name, state, detail, self.clock()))
            except Exception:
                self.stats.add("sink_errors")
                log.exception("%s: the status consumer raised", self.name)

    def _run(self) -> None:
        # Only state *changes* are logged and reported, so a hub left unplugged
        # for an hour costs one warning, not one per back-off step.
        self._set_state("connecting", f"opening {self.port}")
        while not self._stop.is_set():
            try:
                port = self._open()
            except Exception as e:  # SerialException, OSError, ValueError (bad URL)
                self.stats.add("open_failures")
                # pyserial says ValueError for settings no device could fix (an unknown URL
                # scheme, a bad baud rate): asking whether it is plugged in would mislead
                fix = (
                    "check the reader's port and baudrate in the config"
                    if isinstance(e, ValueError)
                    else "is it plugged in?"
                )
                self._set_state("offline", f"cannot open {self.port}: {e}; {fix}")
                self._wait(self.backoff.next())
                continue
            self._serial = port
            try:
                self._session(port)
            except LinkLost as e:
                if not self._stop.is_set():  # a stop cuts an exchange short: not a lost device
                    self.stats.add("lost")
                    self._set_state("lost", str(e))
            except HandshakeFailed as e:
                if not self._stop.is_set():
                    self.stats.add("handshake_failures")
                    self._set_state("offline", f"handshake failed: {e}")
            except (serial.SerialException, OSError) as e:
                if not self._stop.is_set():
                    self.stats.add("disconnects")
                    self._set_state("offline", f"{self.port} went away: {e}")
            except Exception:
                self.stats.add("unexpected_errors")
                log.exception("%s: unexpected error; reconnecting", self.name)
                self._set_state("offline", "internal error (logged); reconnecting")
            finally:
                self._serial = None
                with contextlib.suppress(Exception):  # closing a vanished port can fail
                    port.close()
            if not self._stop.is_set():
                self._wait(self.backoff.next())
