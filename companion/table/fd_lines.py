"""Lines read straight from a file descriptor into one buffer: a command stream's reader.

:class:`FdLines` is what :class:`~companion.table.command_source.JsonLinesCommands` reads a
real stream (stdin, a pipe) with: a thread blocked in ``os.read`` holds no lock of
``sys.stdin``'s, so the interpreter can always exit past it, and a line longer than asked
for comes back cut at ``n`` bytes (refused by the caller, not read whole into memory).

>>> import os
>>> r, w = os.pipe()
>>> _ = os.write(w, b'{"cmd": "undo"}\\nrest'); os.close(w)
>>> lines = FdLines(r)
>>> lines.readline(100), lines.readline(100), lines.readline(100)
(b'{"cmd": "undo"}\\n', b'rest', b'')
>>> os.close(r)
"""

from __future__ import annotations

import io
import os
from typing import Any

__all__ = ["FdLines"]


class FdLines:
    """``readline(n)`` straight from a file descriptor, at most ``n`` bytes a line.

    One buffer, allocated once (``CHUNK``, or twice the longest line asked for) and read
    into in place (``os.readv``); a line is the only new object. Reading into a fresh
    64 KiB ``bytes`` per ``os.read`` and a ``bytearray`` that shrank and grew again as lines
    were taken made this thread's glibc arena grow by ~50 kB per 1,000 commands, for good:
    the loop's thread frees the small blocks this thread's arena hands out and reuses them
    from its own per-thread cache, so they pin the arena between the big buffers, and each
    new 64 KiB extended it (docs/performance.md, "The 100,000-command soak").
    """

    __slots__ = ("_buf", "_end", "_start", "_view", "eof", "fd")

    CHUNK = 65536

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.eof = False
        self._buf = bytearray()
        self._view = memoryview(self._buf)
        self._start = 0  # the unread bytes are _buf[_start:_end]
        self._end = 0

    @classmethod
    def of(cls, stream: Any) -> FdLines | None:
        try:
            return cls(stream.fileno())
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None  # an in-memory stream (tests, doctests): its own readline

    def readline(self, n: int) -> bytes:
        if len(self._buf) < max(self.CHUNK, 2 * n):
            self._resize(max(self.CHUNK, 2 * n))  # once: n is the same on every call
        buf, view = self._buf, self._view
        scanned = self._start  # no newline before here
        while True:
            stop = min(self._end, self._start + n)
            end = buf.find(b"\n", scanned, stop)
            if end >= 0 or stop - self._start >= n or self.eof:
                take = end + 1 if end >= 0 else stop
                line = bytes(view[self._start : take])
                self._start = take
                return line
            scanned = stop
            if self._end == len(buf):  # no room left at the end: the unread bytes to the front
                unread = self._end - self._start
                view[:unread] = view[self._start : self._end]
                scanned -= self._start
                self._start, self._end = 0, unread
            got = os.readv(self.fd, [view[self._end :]])
            if got == 0:
                self.eof = True
            self._end += got

    def _resize(self, size: int) -> None:
        unread = bytes(self._view[self._start : self._end])
        self._view.release()
        self._buf = bytearray(size)
        self._buf[: len(unread)] = unread
        self._view = memoryview(self._buf)
        self._start, self._end = 0, len(unread)
