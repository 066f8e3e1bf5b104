"""Two tokens in one well (issue 30, item 6, the host's side): the panel says "one token per
well" until the extra token is lifted, extensions are told, and the table draws nothing more:
no removal of the first token, no second draw.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore (a crowded reader answers every poll with a collision).
"""

from __future__ import annotations

from firmware_bridge.hub import ONE_TOKEN_PER_WELL
from tests.harness import ARIA, BEGIN, WAIT, wait_until
from tests.harness.service import InProcess, assert_state_is_the_journal_replayed, drawn, uid_of


class Told:
    def __init__(self) -> None:
        self.notices: list = []

    def hub_notice(self, notice) -> None:
        self.notices.append(notice)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_two_tokens_in_one_well_are_a_banner_not_a_removal_then_a_draw(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        told = Told()
        svc.extensions.append(told)  # an extension's hook, as the MQTT bridge may add
        table.submit(BEGIN, ARIA)
        table.settled(2)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        table.hub.crowd(0)
        key = "well draw-board channel 0"
        wait_until(lambda: key in svc.output.alerts, "the one-token-per-well banner")
        assert svc.output.alerts[key] == (
            "one token per well: lift the extra token (draw-board channel 0)"
        )
        wait_until(lambda: len(told.notices) == 1, "the extension told")
        assert (told.notices[0].kind, told.notices[0].active) == (ONE_TOKEN_PER_WELL, True)
        assert table.hub.wait_polls(24, WAIT)  # dozens of polls, every one a collision
        table.hub.crowd(0, False)
        wait_until(lambda: key not in svc.output.alerts, "the banner cleared")
        wait_until(lambda: len(told.notices) == 2, "the end told")
        # a token laid after the end: the reader reports channel 0 before it, the loop takes
        # its inputs in order, so a removal or a second draw of the first would be in by now
        table.hub.lay(1, uid_of(svc, "aria.weight.1"))
        wait_until(lambda: "aria.weight.1" in drawn(svc), "the token laid after the end drawn")
        assert drawn(svc) == ["aria.weight.0", "aria.weight.1"]
        assert svc.store.seq == 4
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)
