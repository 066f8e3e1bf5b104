"""The board as a state (issue 43, item 1): a well whose content the engine does not account
for makes the table unsync, said in words (where, what, how to resolve it) on the panel's
banner and the status line until it is resolved, and nothing is counted from it.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore.
"""

from __future__ import annotations

from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.service import InProcess, drawn, uid_of

UNKNOWN = "04DEADBEEF0001"


def test_an_unknown_tag_and_an_undrawn_token_are_unsync_until_taken_away(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.hub.lay(2, UNKNOWN)
        key = "board draw-board channel 2"
        wait_until(lambda: key in svc.output.alerts, "the unknown tag said unsync")
        assert svc.output.alerts[key] == (
            f"unsync: draw-board channel 2 holds an unknown tag ({UNKNOWN}): take it away"
        )
        assert svc.alerts[key] in svc.status_line()
        table.hub.lift(2)
        wait_until(lambda: key not in svc.output.alerts, "resolved: taken away")
        # a token laid while no Performance runs: refused by the engine, so unsync
        table.hub.lay(3, uid_of(svc, "aria.weight.0"))
        key = "board draw-board channel 3"
        wait_until(lambda: key in svc.output.alerts, "the undrawn token said unsync")
        assert svc.output.alerts[key].startswith("unsync: draw-board channel 3 holds ")
        assert "not drawn (it belongs in bag" in svc.output.alerts[key]
        table.hub.lift(3)
        wait_until(lambda: key not in svc.output.alerts, "resolved: taken away")
        # in sync: a token drawn lies on its well, no unsync
        table.submit(BEGIN, ARIA)
        table.settled(2)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        assert drawn(svc) == ["aria.weight.0"]
        assert not [k for k in svc.output.alerts if k.startswith("board ")]
    finally:
        table.close()
