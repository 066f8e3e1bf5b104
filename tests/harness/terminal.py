"""A command on a real terminal, as a user runs it: a pty that is the process's controlling
terminal (its own session, its process group in the foreground), standard input, output and
error all on it, and Ctrl-C sent as a terminal sends it — SIGINT to the whole foreground
process group (``os.killpg``), children included.

>>> with Terminal([sys.executable, "-c", "print('hi')"]) as t:
...     t.wait_exit()
0
>>> t.lines
['hi']
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import subprocess
import sys
import termios
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.harness import ROOT, WAIT, wait_until

#: the command line, as the README writes it: the venv's own entry point
RHUNA_TABLE = str(Path(sys.executable).with_name("rhuna-table"))


def _controlling_terminal() -> None:  # in the child, after setsid(): the pty becomes its tty
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _controlling_terminal_sigint_ignored() -> None:
    """As a script's background job starts (``cmd &`` without job control): SIGINT ignored,
    which the command inherits and CPython then leaves ignored (no KeyboardInterrupt)."""
    _controlling_terminal()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Terminal:
    """``argv`` on a fresh pty; everything it prints collected in :attr:`text`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | str = ROOT,
        env: dict[str, str] | None = None,
        stdin_tty: bool = True,
        sigint_ignored: bool = False,
    ) -> None:
        self.master, slave = os.openpty()
        # a wide terminal: no wrapping of long lines into two
        fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x00\x01\x00\x04\x00\x00\x00\x00")
        self._chunks: list[bytes] = []
        self.before_ctrl_c = 0
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(
            list(argv),
            stdin=slave if stdin_tty else subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            start_new_session=True,
            preexec_fn=(
                _controlling_terminal_sigint_ignored if sigint_ignored else _controlling_terminal
            )
            if stdin_tty
            else None,
        )
        os.close(slave)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.2)
                if not ready:
                    if self.proc.poll() is not None:
                        # the process is gone; what is still buffered comes in the next read
                        ready, _, _ = select.select([self.master], [], [], 0.2)
                        if not ready:
                            return
                    continue
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every writer of the pty has closed it
                return
            if not data:
                return
            with self._lock:
                self._chunks.append(data)

    @property
    def text(self) -> str:
        """Everything printed so far, the terminal's CR LF read as LF."""
        with self._lock:
            raw = b"".join(self._chunks)
        return raw.decode("utf-8", "replace").replace("\r\n", "\n")

    @property
    def lines(self) -> list[str]:
        return [line.rstrip("\r") for line in self.text.splitlines()]

    def wait_for(self, needle: str, timeout: float = 6 * WAIT) -> None:
        """Until ``needle`` has been printed (fails showing what was, or that it exited)."""

        def seen() -> bool:
            return needle in self.text or (self.proc.poll() is not None and needle in self.text)

        def said() -> str:
            code = self.proc.poll()
            gone = "" if code is None else f" (it exited {code})"
            return f"{needle!r}{gone}; printed:\n{self.text}"

        wait_until(lambda: seen() or self.proc.poll() is not None, said, timeout)
        if needle not in self.text:
            self._reader.join(WAIT)  # it exited: the reader ends with the last of its output
            assert needle in self.text, said()

    def foreground_group(self) -> int:
        """The pty's foreground process group (never the test's own: a terminal whose
        session has ended reports no group worth signalling)."""
        group = os.tcgetpgrp(self.master)
        assert group > 1 and group != os.getpgrp(), (
            f"no foreground group on the terminal ({group}); exit {self.proc.poll()};"
            f" printed:\n{self.text}"
        )
        return group

    def ctrl_c(self) -> None:
        """What a terminal does on Ctrl-C: SIGINT to every process of its foreground group.
        What was printed until then is :attr:`before_ctrl_c` long."""
        group = self.foreground_group()
        self.before_ctrl_c = len(self.text)
        os.killpg(group, signal.SIGINT)

    @property
    def after_ctrl_c(self) -> list[str]:
        """The lines printed since :meth:`ctrl_c` (that one included, if it was half-printed)."""
        text = self.text
        start = text.rfind("\n", 0, self.before_ctrl_c) + 1
        return text[start:].splitlines()

    def wait_exit(self, timeout: float = 3 * WAIT) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"still running {timeout} s later ({self.where()}); printed:\n{self.text}"
            ) from None
        self._reader.join(WAIT)  # all it printed is read: the reader ends once it is
        return code

    def where(self) -> str:
        """What the kernel says of a process that did not exit, for the failure message: each
        thread's state and wait channel, and its signals (pending, blocked, ignored, caught:
        a SIGINT that is ignored or still pending shows there)."""
        pid = self.proc.pid
        try:
            status = dict(
                line.split(":", 1)
                for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if ":" in line
            )
            threads = []
            for task in sorted(os.listdir(f"/proc/{pid}/task")):
                stat = Path(f"/proc/{pid}/task/{task}/stat").read_text()
                state = stat.rsplit(")", 1)[1].split()[0]
                wchan = Path(f"/proc/{pid}/task/{task}/wchan").read_text() or "-"
                threads.append(f"{task} {state} {wchan}")
        except OSError as e:
            return f"/proc/{pid}: {e.strerror}"
        signals = " ".join(
            f"{k}={status[k].strip()}" for k in ("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
            if k in status
        )  # fmt: skip
        return f"threads: {', '.join(threads)}; {signals}"

    def close(self) -> None:
        # the whole group (its own, from the new session): a child left behind must not
        # outlive the test, even once the command itself has exited
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(WAIT)
        # the reader is gone before its descriptor is closed (a number the next open reuses)
        self._reader.join(WAIT)
        assert not self._reader.is_alive(), "the terminal's reader did not end"
        os.close(self.master)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
