"""Commands as JSON lines on a stream (``rhuna-table run --commands -``), acknowledged per line.

Each line is one command of the vocabulary (blank and ``#`` lines skipped). It
goes through the same queue as the readers, the wheel and MQTT; once the
journal has committed it, the source writes ``ack <seq>`` — so a script, a
test harness or a shell pipe knows exactly which commands are safe. A refused
command writes ``refused <error JSON>``; every command line gets exactly one
answer, in order. A line that is not JSON is answered ``refused`` at once.

An extension like the MQTT bridge: ``start(loop)`` / ``stop()``.

>>> import io
>>> from engine import load_table
>>> from hardware.registry import TagRegistry
>>> from companion.loop import TableLoop
>>> loop = TableLoop(load_table("examples/table.toml"), TagRegistry(), journal=lambda o: 7)
>>> out = io.StringIO()
>>> source = JsonLinesCommands(io.StringIO('{"cmd": "begin_performance", "difficulty": 5}\\n'), out)
>>> source.start(loop); source.join(5); _ = loop.step(5)
>>> out.getvalue()
'ack 7\\n'
"""

from __future__ import annotations

import json
import logging
import threading
from typing import TextIO

from companion.loop import Outcome, TableLoop

log = logging.getLogger("rhuna.commands")


class JsonLinesCommands:
    """Reads commands from ``stream`` (its own thread) and answers on ``out``."""

    def __init__(self, stream: TextIO, out: TextIO, *, source: str = "stdin") -> None:
        self.stream = stream
        self.out = out
        self.source = source
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._loop: TableLoop | None = None

    def start(self, loop: TableLoop) -> None:
        self._loop = loop
        loop.subscribe(self, self._answer)
        self._thread = threading.Thread(
            target=self._read, args=(loop,), name=f"commands:{self.source}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        # a blocking readline cannot be interrupted; the thread is a daemon and only enqueues
        self._stopping.set()
        if self._loop is not None:
            self._loop.unsubscribe(self)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the stream has ended (tests, and ``--commands FILE``)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _read(self, loop: TableLoop) -> None:
        for n, line in enumerate(self.stream, 1):
            if self._stopping.is_set():
                return
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                command = json.loads(text)
            except json.JSONDecodeError as e:
                self._write(
                    "refused "
                    + json.dumps(
                        {
                            "code": "malformed",
                            "message": f"line {n}: not JSON ({e.msg})",
                            "fix": 'one JSON object per line: {"cmd": "<name>", ...}',
                        }
                    )
                )
                continue
            loop.submit(command, self.source)
        log.info("%s: end of the command stream", self.source)

    def _answer(self, outcome: Outcome) -> None:
        if outcome.source != self.source:
            return
        if outcome.error is not None:
            self._write("refused " + json.dumps(outcome.error.to_json(), ensure_ascii=False))
        else:
            self._write(f"ack {outcome.seq if outcome.seq is not None else '-'}")

    def _write(self, line: str) -> None:
        with self._lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):  # the reader of our answers went away
                log.warning("%s: cannot write the answer %r", self.source, line)
