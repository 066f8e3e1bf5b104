"""A token lifted and laid again is one draw (issue 43, item 3; P6, P22: a drawn token lies on
the Draw Board until Reset, so laying it again draws nothing): on the same well, on another
well, and after a bounce the hub never reported.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore.
"""

from __future__ import annotations

from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.service import InProcess, drawn, uid_of


def test_a_token_lifted_and_laid_again_is_one_draw(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        first = uid_of(svc, "aria.weight.0")
        table.hub.lay(0, first)
        table.settled(3)
        for well in (0, 1):  # lifted, the lift seen by the host, laid again: here, then beside
            table.hub.lift(well if well == 0 else 0)
            wait_until(lambda: 0 not in table.reader.tags, "the lift seen")
            table.hub.lay(well, first)
            wait_until(lambda w=well: w in table.reader.tags, "laid again, seen")
            if well == 1:
                table.hub.lift(1)
                wait_until(lambda: 1 not in table.reader.tags, "the lift seen")
                table.hub.lay(0, first)
                wait_until(lambda: 0 in table.reader.tags, "laid again, seen")
        # the marker: the next token laid is drawn; a second draw of the first would be in by now
        table.hub.lay(2, uid_of(svc, "aria.weight.1"))
        wait_until(lambda: "aria.weight.1" in drawn(svc), "the next token drawn")
        assert drawn(svc) == ["aria.weight.0", "aria.weight.1"]
        assert svc.store.seq == 4
    finally:
        table.close()
