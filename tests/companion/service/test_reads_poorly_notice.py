"""A token that reads poorly (issue 43, the soak's detuned tag; docs/readers.md, "A token that
reads poorly"): read by the hub on one poll in three, it is never counted, and it is no longer
silent either: the board is unsync for that well, in words that name the token, until it reads
steadily (then it is drawn, once) or is taken away.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore (``HubEmulator.detune``).
"""

from __future__ import annotations

from firmware_bridge.firmware.hubcore import POOR_WINDOW
from firmware_bridge.hub import READS_POORLY
from tests.harness import ARIA, BEGIN, WAIT, wait_until
from tests.harness.service import InProcess, assert_state_is_the_journal_replayed, drawn, uid_of

KEY = "board poorly draw-board channel 0"


class Told:
    def __init__(self) -> None:
        self.notices: list = []

    def hub_notice(self, notice) -> None:
        self.notices.append(notice)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_a_detuned_token_is_an_unsync_in_words_never_counted_then_drawn_once_tuned(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        told = Told()
        svc.extensions.append(told)
        table.submit(BEGIN, ARIA)
        table.settled(2)
        seq = svc.store.seq
        name = svc.loop.state.tokens["aria.weight.0"].name
        table.hub.detune(0, 3)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        # the reader's thread says it in turn: the panel (output.alert), the status line
        # (svc.alerts), then the extensions' hub_notice; a look between two of them saw the
        # panel's and not yet the notice (a quiet fresh-clone run, Q1 of stop 54)
        wait_until(
            lambda: KEY in svc.output.alerts and KEY in svc.alerts and told.notices,
            "the reads-poorly unsync on the panel, the status line and the extensions",
        )
        assert svc.output.alerts[KEY] == (
            f"unsync: draw-board channel 0: a token reads poorly ({name}?):"
            " lay it flat in the middle of the well"
        )
        assert KEY in svc.alerts  # and in the status line (sd_notify STATUS=)
        assert [(n.kind, n.active) for n in told.notices] == [(READS_POORLY, True)]
        assert table.hub.wait_polls(3 * POOR_WINDOW, WAIT)  # a long while detuned
        assert svc.store.seq == seq and drawn(svc) == [], "nothing counted from it"
        table.hub.detune(0, 1)  # laid flat in the middle: it reads steadily, and counts
        wait_until(lambda: "aria.weight.0" in drawn(svc), "the token drawn once it reads well")
        wait_until(lambda: KEY not in svc.output.alerts, "the unsync cleared")
        assert drawn(svc) == ["aria.weight.0"]
        assert svc.store.seq == seq + 1
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)


def test_a_detuned_token_taken_away_clears_the_unsync_and_nothing_is_counted(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        seq = svc.store.seq
        table.hub.detune(0, 3)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        wait_until(lambda: KEY in svc.output.alerts, "the reads-poorly unsync")
        table.hub.lift(0)
        wait_until(lambda: KEY not in svc.output.alerts, "the unsync cleared once taken away")
        assert table.hub.wait_polls(POOR_WINDOW, WAIT)
        assert svc.store.seq == seq and drawn(svc) == []
    finally:
        table.close()
