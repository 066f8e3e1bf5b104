"""Two tokens in one well that do not collide (issue 43, item 2, the host's side): a token
stacked over the drawn one on the hub (found by the firmware's REQA after HLTA), and a second
card on a PN532 (NbTg 2), are each the "one token per well" banner on the panel and the
status line, never a draw, a removal or a replacement.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore, and an emulated PN532 on a real pty.
"""

from __future__ import annotations

from firmware_bridge.emulator import PN532Emulator
from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.service import InProcess, assert_state_is_the_journal_replayed, drawn, uid_of


def test_a_token_stacked_over_the_drawn_one_is_a_banner_not_a_replacement(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.settled(2)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        table.hub.stack(0)  # a second token over it: the stronger read, the REQA answered
        key = "well draw-board channel 0"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts, "the one-token-per-well banner"
        )
        assert "lift the extra token" in svc.output.alerts[key]
        table.hub.stack(0, False)
        wait_until(lambda: key not in svc.output.alerts, "the banner cleared")
        table.hub.lay(1, uid_of(svc, "aria.weight.1"))
        wait_until(lambda: "aria.weight.1" in drawn(svc), "the token laid after the end drawn")
        assert drawn(svc) == ["aria.weight.0", "aria.weight.1"]
        assert svc.store.seq == 4
    finally:
        table.close()
    assert_state_is_the_journal_replayed(tmp_path)


def test_two_cards_on_a_pn532_are_a_banner_and_nothing_is_counted(tmp_path):
    with PN532Emulator() as pn:
        extra = (
            f'[[readers]]\nbackend = "pn532"\nname = "bag"\nport = "{pn.link}"\nrole = "weather"\n'
        )
        table = InProcess(tmp_path, extra)
        try:
            svc = table.service
            assert svc.readers[1].wait_online(60)
            seq = svc.store.seq
            pn.lay_second("922E5832")  # first, so no poll sees one card alone
            pn.lay("04A1B2C3")
            key = "well bag channel 0"
            wait_until(
                lambda: key in svc.output.alerts and key in svc.alerts,
                "the banner for two cards on the PN532",
            )
            assert "lift the extra token" in svc.output.alerts[key]
            assert key in svc.alerts  # and in the status line (sd_notify STATUS=)
            assert svc.loop.tag_sink is not None and svc.store.seq == seq
            pn.lift()
            wait_until(lambda: key not in svc.output.alerts, "the banner cleared")
            assert svc.store.seq == seq, "nothing counted from the crowded well"
        finally:
            table.close()
