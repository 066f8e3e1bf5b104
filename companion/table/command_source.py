"""Commands as JSON lines on a stream (``rhuna-table run --commands -``), acknowledged per line.

Each line is one command of the vocabulary (blank and ``#`` lines skipped). It
goes through the same queue as the readers, the wheel and MQTT; once the
journal has committed it, the source writes ``ack <seq>`` — so a script, a
test harness or a shell pipe knows exactly which commands are safe. A refused
command writes ``refused <error JSON>``; every command line gets exactly one
answer, in order: a line that is not a command (too long, not UTF-8, not JSON,
too deep, a lone surrogate: :mod:`companion.table.inputs`) goes through the queue
too, as a ``malformed`` refusal, so it is answered in its place.

Reading is bounded: a line is read at most ``limits.payload_bytes`` at a time
(the rest of a longer one is skipped), and at most ``max_pending`` commands
are waiting for their answer; past that reading pauses until the table has
caught up (back-pressure on the pipe, not a queue that grows without end).

Writing never holds the table: the answers go to a bounded queue that a thread of the
source's own writes out. A reader of the answers that has stopped reading (a full pipe)
fills it; past :data:`MAX_UNWRITTEN` the answers are dropped, counted (``dropped``) and
logged, and the table turns on (its watchdog fed) instead of blocking in ``write``.

An extension like the MQTT bridge: ``start(loop)`` / ``stop()``. With ``on_end``,
the end of the stream calls it once every command read has been answered (so
``run --commands FILE`` can stop once the journal holds them all).

>>> import io
>>> from engine import load_table
>>> from tags.registry import TagRegistry
>>> from companion.table.loop import TableLoop
>>> loop = TableLoop(load_table("examples/table.toml"), TagRegistry(), journal=lambda o: 7)
>>> out = io.StringIO()
>>> lines = '{"cmd": "begin_performance", "difficulty": 5}\\n[[[[[[[[]]]]]]]]\\n'
>>> source = JsonLinesCommands(io.StringIO(lines), out)
>>> source.start(loop); source.join(5); _ = loop.step(5); _ = loop.step(5)
>>> source.drain(5)
True
>>> print(out.getvalue(), end="")
ack 7
refused {"code": "malformed", "message": "line 2: nested deeper than 6 (limits.depth)", ...}
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import IO, Any, TextIO

from companion.table import inputs
from companion.table.fd_lines import FdLines
from companion.table.loop import Outcome, TableLoop
from engine.codec import dumps

log = logging.getLogger("rhuna.commands")

#: commands read and not yet answered; reading pauses past this many
MAX_PENDING = 256
#: answers waiting to be written; past this many (nobody reads them) they are dropped
MAX_UNWRITTEN = 1024


class JsonLinesCommands:
    """Reads commands from ``stream`` (its own thread) and answers on ``out``."""

    __slots__ = (
        "_lock",
        "_loop",
        "_room",
        "_stopping",
        "_thread",
        "_unwritten",
        "_waiting",
        "_writer",
        "dropped",
        "journal_row",
        "limits",
        "lines",
        "max_pending",
        "on_end",
        "out",
        "refused",
        "source",
        "stream",
        "taken",
    )

    def __init__(
        self,
        stream: IO[Any],
        out: TextIO,
        *,
        source: str = "stdin",
        max_pending: int = MAX_PENDING,
        limits: inputs.Limits = inputs.LIMITS,
        on_end: Callable[[], None] | None = None,
    ) -> None:
        # the bytes under a text stream (a line that is not UTF-8 is refused, not fatal), read
        # from its file descriptor where it has one: a thread blocked in os.read holds no
        # lock of sys.stdin's, so the interpreter can always exit past it
        self.stream: Any = FdLines.of(stream) or stream
        self.out = out
        self.source = source
        self.on_end = on_end
        self.limits = limits
        self.max_pending = max_pending
        self._room = threading.Condition()
        self._waiting = 0  # read and submitted, not answered yet
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._loop: TableLoop | None = None
        #: lines read so far
        self.lines = 0
        #: answers dropped because the reader of ``out`` stopped reading
        self.dropped = 0
        #: commands taken and refused so far (``run`` exits non-zero when none was taken)
        self.taken = 0
        self.refused = 0
        #: the line of the first journal row read (an export's events.jsonl, history --json)
        self.journal_row: int | None = None
        self._unwritten: queue.Queue[str | None] = queue.Queue(MAX_UNWRITTEN)
        self._writer: threading.Thread | None = None

    def start(self, loop: TableLoop) -> None:
        self._loop = loop
        loop.subscribe(self, self._answer, first=True)  # the script waits on its replies
        self._writer = threading.Thread(
            target=self._write_out, name=f"answers:{self.source}", daemon=True
        )
        self._writer.start()
        self._thread = threading.Thread(
            target=self._read, args=(loop,), name=f"commands:{self.source}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        # a blocking readline cannot be interrupted; the thread is a daemon and only enqueues
        self._stopping.set()
        if self._loop is not None:
            self._loop.unsubscribe(self)
        with self._room:
            self._room.notify_all()
        self.drain(2.0)
        with contextlib.suppress(queue.Full):
            self._unwritten.put_nowait(None)

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until every answer queued is written; False if not.

        On the queue's own condition, not a helper thread blocked in ``join()``: such a thread
        outlived a drain that timed out (nobody reading the answers) for good, and even a
        drain that succeeds left one alive for a moment, which the soak counted as a leak."""
        done = self._unwritten.all_tasks_done
        with done:
            return done.wait_for(lambda: self._unwritten.unfinished_tasks == 0, timeout)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the stream has ended (tests, and ``--commands FILE``)."""
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def pending(self) -> int:
        """Commands read and not answered yet (at most ``max_pending``)."""
        with self._room:
            return self._waiting

    def _read(self, loop: TableLoop) -> None:
        limit = self.limits.payload_bytes
        while not self._stopping.is_set():
            try:
                line = _bytes(self.stream.readline(limit + 1))
            except (OSError, ValueError) as e:  # the stream broke or was closed
                log.warning("%s: cannot read the command stream (%s)", self.source, e)
                break
            if not line:
                break
            self.lines += 1
            n = self.lines
            try:
                item = self._item(line, n, limit)
            except Exception:  # never lose the reader: answer it, go on
                log.exception("%s: line %d", self.source, n)
                item = inputs.refusal(f"the service could not read line {n}")
            if item is None:
                continue
            row = item is not None and _journal_row(item)
            if row:  # not a command: said once, and the rest is not read (replay reads it)
                self.journal_row = n
                item = inputs.refusal(
                    f"line {n}: this is a journal row (seq, command, events), as an export's"
                    " events.jsonl or `history --json` writes it, not a command; nothing more"
                    " of this file is read",
                    fix="load a session with `rhuna-table replay TABLE_FILE EVENTS.jsonl`; give"
                    ' --commands one JSON command a line, e.g. {"cmd": "undo"}',
                    field="cmd",
                )
            with self._room:  # back-pressure: reading waits until the table has answered
                self._room.wait_for(
                    lambda: self._waiting < self.max_pending or self._stopping.is_set()
                )
                if self._stopping.is_set():
                    return
                self._waiting += 1
            loop.submit(item, self.source)
            if row:
                break
        log.info("%s: end of the command stream", self.source)
        if self.on_end is not None:
            with self._room:  # every command read is answered first
                self._room.wait_for(lambda: self._waiting == 0 or self._stopping.is_set())
            self.drain(10.0)  # and written out
            self.on_end()

    def _item(self, line: bytes, n: int, limit: int) -> Any:
        """The command a line holds, a Malformed to answer in its place, or None (skip)."""
        if len(line) > limit and not line.endswith(b"\n"):
            skipped = len(line)
            while line and not line.endswith(b"\n"):  # the rest of it, a bounded piece at a time
                line = _bytes(self.stream.readline(limit + 1))
                skipped += len(line)
            return inputs.refusal(
                f"line {n}: more than {limit} bytes (limits.payload_bytes; {skipped} read)"
            )
        text = line.strip()
        if not text or text.startswith(b"#"):
            return None
        command = inputs.parse(text, self.limits, what=f"line {n}")
        if command is None:  # JSON null: answered like any line that is not a command
            return inputs.refusal(
                f"line {n}: null is not a command: a command is a JSON object, e.g."
                ' {"cmd": "undo"}'
            )
        if isinstance(command, inputs.Malformed):
            v = command.violation
            if not v.message.startswith(f"line {n}"):
                command = inputs.Malformed(replace(v, message=f"line {n}: {v.message}"))
        return command

    def _answer(self, outcome: Outcome) -> None:
        if outcome.source != self.source:
            return
        with self._room:
            self._waiting -= 1
            if outcome.error is not None:
                self.refused += 1
            else:
                self.taken += 1
            self._room.notify_all()
        if outcome.error is not None:
            self._write("refused " + dumps(outcome.error.to_json()))
        else:
            self._write(f"ack {outcome.seq if outcome.seq is not None else '-'}")

    def _write(self, line: str) -> None:
        """Queue an answer (the loop's thread: never waits for the reader of ``out``)."""
        try:
            self._unwritten.put_nowait(line)
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning(
                    "%s: nobody reads the answers: %d dropped so far (the table goes on)",
                    self.source,
                    self.dropped,
                )

    def _write_out(self) -> None:
        """The writer's thread: the queued answers out, in order; it may block, the table not."""
        while True:
            line = self._unwritten.get()
            try:
                if line is None:
                    return
                with self._lock:
                    self.out.write(line + "\n")
                    self.out.flush()
            except (OSError, ValueError):  # the reader of our answers went away
                log.warning("%s: cannot write the answer %r", self.source, line)
            finally:
                self._unwritten.task_done()


def _journal_row(item: Any) -> bool:
    """A row of a journal as exported (``events.jsonl``) or told (``history --json``): an
    object with ``seq``, ``command`` and ``events`` and no ``cmd``."""
    return (
        isinstance(item, dict) and "cmd" not in item and {"seq", "command", "events"} <= set(item)
    )


def _bytes(line: bytes | str) -> bytes:
    """A line of a text stream as the bytes it came as (a surrogate stays one: refused)."""
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
