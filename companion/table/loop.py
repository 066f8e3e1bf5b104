"""The table loop: one queue in, the only code that changes the table's state.

Readers, the wheel, MQTT and scripts run in their own threads and only
``submit`` here. The loop takes one item at a time, turns a tag into a command
(:mod:`tags.commands`), applies it (:func:`engine.apply`), and tells every
subscriber — the display worker, the MQTT publisher, the log — what happened.
A refused command or an unknown tag becomes an :class:`Outcome` with an error
for the panel and MQTT; nothing ever crashes the loop.

*One at a time* is a turn, not a thread. While the service runs (``inline``), an
item submitted when the loop is idle — nothing queued, nothing being processed — is
processed at once on the thread that submitted it (paho's, a reader's, a pin's):
no hand-off to the loop's thread and no wait for it to be scheduled, which was most
of the time between a token laid and the table knowing. Otherwise it waits in the
queue, and the loop's thread takes it in its turn, after everything before it.
Either way one item is processed at a time, in the order submitted, and ``submit``
never waits for another thread.

Subscribers are acknowledgements, so an accepted command is first handed to
the ``journal`` (:meth:`companion.table.store.Store.append`): only once it is
committed is the new state kept and anyone told. A journal that cannot write
(disk full, read-only) leaves the state as it was, and the Outcome carries a
``store`` error instead.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.table import inputs
from companion.table.ponder import Ponder
from engine import CommandRejected, Event, apply
from engine.errors import RuleViolation
from engine.state import TableState
from firmware_bridge.events import TagEvent
from settings import trace
from tags.commands import ReaderRoles, command_for_tag
from tags.registry import TagRegistry

log = logging.getLogger("rhuna.loop")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one input did: the command it became, the events, or the error to show."""

    source: str
    state: TableState
    command: Mapping[str, Any] | None = None
    events: tuple[Event, ...] = ()
    error: RuleViolation | None = None
    tag: TagEvent | None = None
    #: the journal's sequence number of an accepted command (None without a journal)
    seq: int | None = None


Subscriber = Callable[[Outcome], None]
#: told an accepted state before its commit (TableLoop.before_commit)
BeforeCommit = Callable[[TableState], None]
#: commits an accepted Outcome and returns its sequence number; raises if it cannot
Journal = Callable[[Outcome], int]


def _turn_condition() -> threading.Condition:
    return threading.Condition(threading.Lock())


@dataclass(slots=True)
class TableLoop:
    """Owns the state; ``submit`` from any thread, ``step``/``run`` on one."""

    state: TableState
    registry: TagRegistry
    roles: ReaderRoles = field(default_factory=ReaderRoles)
    journal: Journal | None = None
    #: applies the likely next commands while the table waits (:mod:`companion.table.ponder`)
    ponder: Ponder | None = None
    #: process an item submitted while the loop is idle on the submitting thread (the
    #: running service); False: every item waits for ``step`` (scripts, tests, stopping)
    inline: bool = field(default=False, init=False)
    #: items processed (diagnostics, tests)
    processed: int = field(default=0, init=False)
    #: items processed on the thread that submitted them (diagnostics, tests)
    processed_inline: int = field(default=0, init=False)
    _inbox: queue.Queue[tuple[str, Any]] = field(
        default_factory=queue.Queue, init=False, repr=False
    )
    # (owner, fn) in the order they are told: the ``first`` ones in the order they
    # subscribed, then the rest in theirs; replaced whole, never changed in place, so the
    # loop's thread reads a consistent tuple while others subscribe or unsubscribe
    _subscriptions: tuple[tuple[object, Subscriber], ...] = field(
        default=(), init=False, repr=False
    )
    _firsts: int = field(default=0, init=False, repr=False)  # how many ``first`` ones, in front
    _subscribing: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    # whose turn: one item processed at a time; ``_queued`` counts items put in the inbox
    # and not yet begun, so an item submitted behind them never overtakes them
    _turn: threading.Condition = field(default_factory=_turn_condition, init=False, repr=False)
    _busy: bool = field(default=False, init=False, repr=False)
    #: time.monotonic() when the turn now running began
    _busy_since: float = field(default=0.0, init=False, repr=False)
    #: trace.clocks() then (settings.trace)
    _began: tuple[float, float] = field(default=(0.0, 0.0), init=False, repr=False)
    _queued: int = field(default=0, init=False, repr=False)
    _failure: BaseException | None = field(default=None, init=False, repr=False)
    # (owner, fn): told each accepted state just before its commit (before_commit)
    _before_commit: tuple[tuple[object, BeforeCommit], ...] = field(
        default=(), init=False, repr=False
    )

    # --- subscribers (any thread) ----------------------------------------------

    def subscribe(self, owner: object, fn: Subscriber, *, first: bool = False) -> None:
        """Tell ``fn`` every Outcome from now on, on the loop's thread, after the journal
        committed it. ``owner`` (an extension, or a name such as ``"panel"``) is what
        :meth:`unsubscribe` takes them all back by. The same ``fn`` twice for one owner is
        told once.

        Subscribers are told in the order they subscribed, except that the ``first`` ones
        are told before all the others: an output somebody is waiting on (the MQTT bridge,
        whose events the overlay and the remote show; a script's replies) goes ahead of
        those that only record or show at their own pace (the log; the e-ink panel, whose
        refresh takes a second or more and whose worker, once woken, would contend for the
        interpreter in the middle of the turn)."""
        with self._subscribing:
            if any(o == owner and f == fn for o, f in self._subscriptions):
                return
            entry = (owner, fn)
            subs = self._subscriptions
            if first:
                self._subscriptions = (*subs[: self._firsts], entry, *subs[self._firsts :])
                self._firsts += 1
            else:
                self._subscriptions = (*subs, entry)

    def before_commit(self, owner: object, fn: BeforeCommit) -> None:
        """Tell ``fn`` each accepted state on the turn's thread just before the journal
        commits it: a hint to start work the state will need while the disk syncs
        (:mod:`companion.mqtt.ahead`). It is not an acknowledgement: the commit may yet fail
        and the state not be kept, so ``fn`` shows it to no one. It must never wait; one
        that raises is logged and the commit goes on. Only with a journal (nothing to wait
        for without one). :meth:`unsubscribe` takes it back."""
        with self._subscribing:
            if not any(o == owner and f == fn for o, f in self._before_commit):
                self._before_commit = (*self._before_commit, (owner, fn))

    def unsubscribe(self, owner: object) -> int:
        """Remove every subscriber (and :meth:`before_commit` hint) ``owner`` added; return
        how many. An outcome being told right now may still reach them; none after this
        returns and that outcome is done."""
        with self._subscribing:
            firsts = self._subscriptions[: self._firsts]
            kept_firsts = tuple((o, f) for o, f in firsts if o != owner)
            rest = self._subscriptions[self._firsts :]
            kept = (*kept_firsts, *((o, f) for o, f in rest if o != owner))
            removed = len(self._subscriptions) - len(kept)
            self._subscriptions, self._firsts = kept, len(kept_firsts)
            hints = tuple((o, f) for o, f in self._before_commit if o != owner)
            removed += len(self._before_commit) - len(hints)
            self._before_commit = hints
            return removed

    @property
    def subscribers(self) -> tuple[Subscriber, ...]:
        """Every subscriber, in the order they are told (read only: use :meth:`subscribe`)."""
        return tuple(fn for _, fn in self._subscriptions)

    def owners(self) -> tuple[object, ...]:
        """Who has subscribers now, in the order they are told (each once, at its first)."""
        out: list[object] = []
        for o, _ in self._subscriptions:
            if all(o != seen for seen in out):
                out.append(o)
        return tuple(out)

    # --- any thread --------------------------------------------------------

    def submit(self, item: Any, source: str = "script") -> None:
        """Submit a command (a JSON object: from MQTT it may be any JSON, refused if not an
        object) or a TagEvent. Never waits for another thread: with ``inline`` and the loop
        idle it is processed now, on this thread (subscribers told before this returns);
        otherwise it is queued for the loop's thread."""
        with self._turn:
            here = self.inline and not self._busy and self._queued == 0
            if here:
                self._busy, self._busy_since = True, time.monotonic()
                if trace.ON:
                    self._began = trace.clocks()
            else:
                self._queued += 1
                self._inbox.put((source, item))
        if here:
            self._here(item, source)

    def _here(self, item: Any, source: str) -> None:
        try:
            outcome = self.process(item, source)
            self.tell(outcome)
            self.processed_inline += 1
        except BaseException as e:  # a bug in the loop: the loop's thread raises it, as before
            log.exception("%s: the loop failed on an input", source)
            self._failure = e
        finally:
            self._end_turn()

    def _end_turn(self) -> None:
        if trace.ON:
            trace.phase("turn", self._began)  # taken → every subscriber told
        with self._turn:
            self._busy = False
            idle = self._queued == 0
            self._turn.notify_all()
        if idle and self.ponder is not None:
            self.ponder.think(self.state)  # the table waits: what may come next

    def busy_for(self) -> float:
        """Seconds the item being processed now has taken (0.0: the loop is idle). The
        service's watchdog ping asks: a turn stuck on any thread must stop the pings."""
        with self._turn:
            return time.monotonic() - self._busy_since if self._busy else 0.0

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the loop's turn: no item is processed meanwhile, so the state and the
        journal agree (the service's snapshot request, and its stop)."""
        with self._turn:
            self._turn.wait_for(lambda: not self._busy)
            self._busy, self._busy_since = True, time.monotonic()
            if trace.ON:
                self._began = trace.clocks()
        try:
            yield
        finally:
            self._end_turn()

    def tag_sink(self, event: TagEvent) -> None:
        """A reader's sink: a tag event is submitted like any input (processed on the reader's
        thread when the loop is idle, else queued)."""
        self.submit(event, source=f"reader:{event.reader}")

    @property
    def pending(self) -> int:
        """Inputs waiting in the queue (about: other threads may add more meanwhile)."""
        return self._inbox.qsize()

    # --- the loop's thread ---------------------------------------------------

    def step(self, timeout: float | None = None) -> Outcome | None:
        """Process one queued item (waiting up to ``timeout``); None when nothing came."""
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure
        try:
            source, item = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        with self._turn:
            self._turn.wait_for(lambda: not self._busy)  # an item processed where submitted
            self._busy, self._busy_since = True, time.monotonic()
            if trace.ON:
                self._began = trace.clocks()
            self._queued -= 1
        try:
            outcome = self.process(item, source)
            self.tell(outcome)
        finally:
            self._end_turn()
        return outcome

    def tell(self, outcome: Outcome) -> None:
        """Hand ``outcome`` to every subscriber (the loop's thread); one that raises is logged
        and the others are still told."""
        t = trace.clocks() if trace.ON else None
        for owner, fn in self._subscriptions:
            try:
                fn(outcome)
            except Exception:  # a broken output must not stop the table
                log.exception("subscriber %r of %r failed", fn, owner)
            if t is not None:
                t = trace.phase("tell", t, f"{owner!s}:{getattr(fn, '__name__', fn)}")

    def run(self, stop: threading.Event, poll: float = 0.2) -> None:
        while not stop.is_set():
            self.step(timeout=poll)

    def process(self, item: Any, source: str) -> Outcome:
        """One input's turn: what it asks for, the engine's answer, the commit; the state
        changes only once the journal holds the command."""
        self.processed += 1
        meant = self._command_of(item, source)
        if isinstance(meant, Outcome):  # refused before the engine saw it (or no command)
            return meant
        command, tag = meant
        shown = command if isinstance(command, Mapping) else None
        t = trace.clocks() if trace.ON else None
        pondered = self.ponder.recall(self.state, command) if self.ponder is not None else None
        try:
            state, events = pondered if pondered is not None else apply(self.state, command)
        except CommandRejected as e:
            if t is not None:
                trace.phase("apply", t, f"refused {_cmd(command)}")
            log.info("%s: refused %s: %s", source, as_json(command), e.violation)
            return Outcome(source, self.state, shown, error=e.violation, tag=tag)
        if t is not None:
            how = "pondered" if pondered is not None else "applied"
            t = trace.phase("apply", t, f"{how} {_cmd(command)} events={len(events)}")
        outcome = Outcome(source, state, command, tuple(events), tag=tag)
        if self.journal is not None:
            outcome = self._commit(outcome, self.journal, t)
            if outcome.error is not None:
                return outcome
        self.state = state
        return outcome

    def _command_of(self, item: Any, source: str) -> tuple[Any, TagEvent | None] | Outcome:
        """The command an input means (and the tag it came from), or the Outcome that answers
        it without the engine: a source's refusal, a tag nobody enrolled or that means
        nothing now, an input too deep or too long to look at."""
        if isinstance(item, inputs.Malformed):  # a source's refusal, answered in its turn
            return Outcome(source, self.state, error=item.violation)
        if isinstance(item, TagEvent):
            meant = command_for_tag(self.state, self.registry, item, self.roles)
            if meant is None:
                return Outcome(source, self.state, tag=item)
            if isinstance(meant, RuleViolation):
                log.info("%s: %s", source, meant)
                return Outcome(source, self.state, error=meant, tag=item)
            return meant, item
        problem = inputs.check(item)
        if problem is not None:  # too deep, too long, unencodable: refused, never shown
            log.info("%s: refused an input: %s", source, problem.violation)
            return Outcome(source, self.state, error=problem.violation)
        return item, None

    def _commit(self, outcome: Outcome, journal: Journal, t: tuple[float, float] | None) -> Outcome:
        """Tell the before-commit hints, then commit: the outcome with its seq, or the error
        that answers it instead (the command is then not kept: not saved, not done)."""
        for _, hint in self._before_commit:
            try:
                hint(outcome.state)
            except Exception:  # a hint, nothing more: the commit goes on
                log.exception("before-commit hint %r failed", hint)
        if t is not None:
            t = trace.phase("hints", t)
        source, command, tag = outcome.source, outcome.command, outcome.tag
        try:
            outcome = replace(outcome, seq=journal(outcome))
            if t is not None:
                trace.phase("commit", t)
        except Unsavable as e:  # the command itself, not the disk
            log.info("%s: refused %s: %s", source, as_json(command), e)
            error = RuleViolation(str(e), fix=inputs.FIX, code="malformed")
            return Outcome(source, self.state, error=error, tag=tag)
        except Exception as e:  # not committed: not acknowledged, so not kept
            log.error("%s: %s not saved, so not applied: %s", source, as_json(command), e)
            shown = command if isinstance(command, Mapping) else None
            return Outcome(source, self.state, shown, error=not_saved(e), tag=tag)
        return outcome


def _cmd(command: Any) -> str:
    """A command's name for the trace."""
    return str(command.get("cmd")) if isinstance(command, Mapping) else type(command).__name__


class Unsavable(ValueError):
    """The journal cannot store this command as JSON (it is the command's fault, not the
    disk's): refused as ``malformed``, never reported as a ``store`` error."""


def not_saved(error: Exception) -> RuleViolation:
    """The ``store`` error of a command the journal could not commit."""
    return RuleViolation(
        f"not saved, so not done: {error}",
        code="store",
        fix="the state directory's disk may be full or read-only: free space or fix it, then"
        " do it again",
    )


def as_json(command: Any) -> str:
    """A command as the log shows it: the JSON people send (``{"cmd": "draw", …}``), never a
    Python dict's repr; anything else (a tag event) as it prints itself."""
    if isinstance(command, Mapping):
        try:
            return json.dumps(dict(command), ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # a cycle: the loop's input guard refuses those
            pass
    return str(command)
