"""The bag audit in the running service: while it runs, the readers' tags go to it, not to play.

:mod:`tags.audit` decides what each read means; this is its desk in the service, between the
readers' threads and the table's outputs. ``audit_bag`` (a command of the one vocabulary,
:mod:`engine.audit`: the remote, a button, ``--commands -``) begins an audit once the loop has
accepted it; from then on the service's tag sink hands each tag event to :meth:`AuditDesk.take`
instead of the loop, so nothing is drawn and nothing reaches the journal but the command
itself. Each read is said at once (``on_report``: the running audit, its last read in words),
and the audit ends when every token of the bag has been seen, or by the same command again
(one button starts and ends it), or ``audit_bag`` with no bag; its end is reported the same
way, with the answer (seen, missing, extra, from another bag).

Any thread may call in (a reader's, the loop's turn); one lock keeps the reads in the order the
readers handed them over. A report is told outside the lock, so an output may be slow without
holding up a read; reports of one audit are never told out of order (each carries its count).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from engine.audit import bag_named
from engine.state import TableState
from firmware_bridge.events import TagEvent
from tags.audit import Audit, AuditResult, Read
from tags.registry import TagRegistry

log = logging.getLogger("rhuna.audit")

#: the command that begins and ends an audit (engine/audit.py)
COMMAND = "audit_bag"

#: told each report: the running audit (``running`` true, ``last`` the read in words) or its
#: answer (``running`` false)
Report = Callable[[dict[str, Any]], None]


def report_of(result: AuditResult, *, running: bool, last: Read | None = None) -> dict[str, Any]:
    """A report as the outputs take it: the result's JSON, whether it still runs, the last
    read's words (None at the end, or before the first read)."""
    return {
        "running": running,
        **result.to_json(),
        "last": None if last is None else last.text,
    }


class AuditDesk:
    """At most one audit at a time; ``registry`` says which tag is which token."""

    def __init__(self, registry: TagRegistry, on_report: Report) -> None:
        self.registry = registry
        self.on_report = on_report
        self._lock = threading.Lock()
        self._audit: Audit | None = None
        #: the last audit's answer (None: none ended yet)
        self.last: AuditResult | None = None

    @property
    def running(self) -> bool:
        return self._audit is not None

    def command(self, state: TableState, bag: str | None) -> None:
        """An accepted ``audit_bag``: ``bag`` begins an audit of it (the same bag's audit
        running: ends it instead); None ends the audit that runs (none: nothing)."""
        told: list[dict[str, Any]] = []
        with self._lock:
            running = self._audit
            if running is not None:
                told.append(self._end())
            if bag is not None and (running is None or running.bag != bag_named(state, bag)):
                self._audit = Audit(state, self.registry, bag)
                log.info("audit of %s begun: pass its tokens over a reader", self._audit.bag_name)
                told.append(report_of(self._audit.result(), running=True))
        for report in told:
            self.on_report(report)

    def take(self, event: TagEvent) -> bool:
        """A reader's tag event: True when an audit runs and took it (a present tag is read;
        a removal means nothing to the audit), False when it is play's."""
        with self._lock:
            audit = self._audit
            if audit is None:
                return False
            if not event.present:
                return True
            read = audit.read(event.uid)
            log.info("audit: %s", read.text)
            told = [report_of(audit.result(), running=True, last=read)]
            if audit.finished:
                told.append(self._end())
        for report in told:
            self.on_report(report)
        return True

    def end(self) -> AuditResult | None:
        """End the audit that runs (the service's stop); its answer, or None."""
        with self._lock:
            if self._audit is None:
                return None
            report = self._end()
        self.on_report(report)
        return self.last

    def _end(self) -> dict[str, Any]:
        audit = self._audit
        assert audit is not None
        self._audit = None
        self.last = audit.result()
        for line in self.last.lines():
            log.info("%s", line)
        return report_of(self.last, running=False)
