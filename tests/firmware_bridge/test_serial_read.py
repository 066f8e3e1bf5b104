"""firmware_bridge.reader.read_available: what a device sent, in one read, on real ptys.

Every reader backend (hub, PN532, line reader) reads through it. On a plain POSIX port it is
one ``select`` and one ``read`` of what is there, instead of pyserial's ``read(1)`` followed
by ``read(in_waiting)`` (issue 17 item 3: each extra call gave the interpreter to another
thread in the middle of a token's frame); a vanished device is pyserial's
``SerialException`` as before, so the reader's unplug handling is unchanged.
"""

from __future__ import annotations

import contextlib
import os
import pty
import threading
import time
import tty
from pathlib import Path

import pytest
import serial

from firmware_bridge.reader import read_available
from tests.harness import WAIT, wait_until

FRAME = bytes(range(1, 16)) + b"\x00"  # a hub frame's size: COBS bytes and the 0 delimiter


@pytest.fixture
def link():
    """(master fd, an open pyserial port on the pty's slave, 0.5 s read timeout)."""
    master, slave = pty.openpty()
    tty.setraw(master)
    port = serial.Serial(os.ttyname(slave), 115200, timeout=0.5)
    os.close(slave)  # the port has its own descriptor
    yield master, port
    port.close()
    with contextlib.suppress(OSError):  # a test closed it already
        os.close(master)


def asleep_in_select(thread: threading.Thread) -> bool:
    """The kernel's word (``/proc/self/task/TID/wchan``): the thread sleeps in select or poll,
    not on the interpreter's lock (``futex_wait_queue``) nor running."""
    wchan = Path(f"/proc/self/task/{thread.native_id}/wchan").read_text()
    return "poll_schedule_timeout" in wchan or "select" in wchan


def test_a_frame_that_comes_while_it_waits_is_taken_whole(link):
    """Nothing is waiting when it is called (a token laid on a quiet Draw Board): the frame
    that then arrives comes back in one call, where read(in_waiting or 1) gave one byte.

    The frame is written once the reading thread sleeps in select (the kernel says so), not
    after a fixed 20 ms that a loaded machine may spend before the call even starts."""
    master, port = link
    port.timeout = WAIT  # a wait for the frame, which returns as soon as it comes
    assert port.in_waiting == 0
    got: list[bytes] = []
    reading = threading.Thread(target=lambda: got.append(read_available(port)))
    reading.start()
    try:
        wait_until(lambda: asleep_in_select(reading), "the read to wait in select")
        os.write(master, FRAME)
    finally:
        reading.join(2 * WAIT)
    assert got == [FRAME]


def test_what_is_waiting_comes_back_at_once_and_nothing_after_the_timeout(link):
    master, port = link
    os.write(master, FRAME * 3)
    wait_until(lambda: port.in_waiting >= len(FRAME) * 3, "the three frames on the slave side")
    assert read_available(port) == FRAME * 3
    t0 = time.monotonic()
    assert read_available(port) == b""  # nothing comes: b"" once the port's timeout is out
    # it waited for it (0.5 s), not returned at once: a lower bound the select() must honour,
    # which a slow machine only lengthens (no upper bound; 0.05 s for the clocks' rounding)
    assert time.monotonic() - t0 >= port.timeout - 0.05


def test_a_device_that_goes_away_is_pyserials_serial_exception(link):
    """The pty's other end closed (a reader unplugged): SerialException, which the reader's
    thread counts as a disconnect and reconnects after (firmware_bridge.reader)."""
    master, port = link
    os.close(master)
    with pytest.raises(serial.SerialException):
        read_available(port)


def test_another_kind_of_port_is_read_by_pyserial():
    """A URL handler (loop://) has no descriptor to select on: pyserial reads it, as before."""
    port = serial.serial_for_url("loop://", timeout=0.1)
    try:
        port.write(FRAME)
        port.flush()
        assert read_available(port) == FRAME
        assert read_available(port) == b""
    finally:
        port.close()
