"""The board as a state (issue 43, item 1): a well whose content the engine does not account
for makes the table unsync, said in words (where, what, how to resolve it) on the panel's
banner and the status line until it is resolved, and nothing is counted from it.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore.
"""

from __future__ import annotations

import threading
from pathlib import Path

from companion.config import load_config
from companion.service import Service
from tests.harness import ARIA, BEGIN, CASS, WAIT, wait_until
from tests.harness.service import InProcess, drawn, uid_of, write_config

UNKNOWN = "04DEADBEEF0001"


def test_an_unknown_tag_and_an_undrawn_token_are_unsync_until_taken_away(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.hub.lay(2, UNKNOWN)
        key = "board draw-board channel 2"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts, "the unknown tag said unsync"
        )
        assert svc.output.alerts[key] == (
            f"unsync: draw-board channel 2 holds an unknown tag ({UNKNOWN}): take it away"
        )
        assert svc.alerts[key] in svc.status_line()
        table.hub.lift(2)
        wait_until(lambda: key not in svc.output.alerts, "resolved: taken away")
        # a token laid while no Performance runs: refused by the engine, so unsync
        table.hub.lay(3, uid_of(svc, "aria.weight.0"))
        key = "board draw-board channel 3"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts, "the undrawn token said unsync"
        )
        assert svc.output.alerts[key].startswith("unsync: draw-board channel 3 holds ")
        assert "not drawn: take it away (it belongs in Aria's Hero Bag)" in svc.output.alerts[key]
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


def board_alerts(svc) -> dict[str, str]:
    """The standing alerts of the board: unsync wells and tokens, crowded wells."""
    return {k: v for k, v in svc.output.alerts.items() if k.startswith(("board ", "well "))}


def lift(table: InProcess, channel: int) -> None:
    """Lift the token off ``channel`` and wait until the board has it empty."""
    table.hub.lift(channel)
    well = ("draw-board", channel)
    wait_until(lambda: well not in table.service.board.wells, f"channel {channel} empty")


def compared(table: InProcess, seq: int) -> None:
    """One more input, committed as ``seq``: the board has been compared with everything
    before it by then (the loop tells an input's subscribers before it takes the next)."""
    table.submit({"cmd": "note", "text": f"a look at the board before #{seq}"})
    table.settled(seq)


def test_a_weather_token_drawn_is_in_sync(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        clear, fog = "weather.overworld.clear.1", "weather.overworld.fog.1"
        table.hub.lay(3, uid_of(svc, clear))  # the Draw Board draws a Weather token too
        table.settled(1)
        assert svc.loop.state.time.weather.token == clear
        assert svc.loop.state.location(clear) == "supply"  # on the Weather space
        compared(table, 2)
        assert board_alerts(svc) == {}
        # channel 5 is the Time reader, where a Weather token is drawn too (tags/commands.py)
        table.hub.lay(5, uid_of(svc, fog))
        table.settled(3)
        assert svc.loop.state.time.weather.token == fog
        # the weather changed: Clear went back to its bag, so on its well it is said, in words
        key = "board draw-board channel 3"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts, "Clear said back in its bag"
        )
        assert svc.output.alerts[key] == (
            "unsync: draw-board channel 3 holds Overworld Weather: Clear, back in its bag now:"
            " put it there"
        )
        table.hub.lift(3)
        wait_until(lambda: board_alerts(svc) == {}, "resolved: put in the bag")
        lift(table, 5)  # onto the Time Board's Weather space: no reader there
        compared(table, 4)
        assert board_alerts(svc) == {}
    finally:
        table.close()


def test_a_time_token_drawn_is_in_sync(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit({"cmd": "draw_weather", "bag": "overworld", "seed": 1})  # T1, by hand
        table.settled(1)
        table.hub.lay(5, uid_of(svc, "time.morning.minor.safe.1"))  # channel 5: Time reader
        table.settled(2)
        assert svc.loop.state.time.last.token == "time.morning.minor.safe.1"
        assert svc.loop.state.location("time.morning.minor.safe.1") == "supply"  # its space
        compared(table, 3)
        assert board_alerts(svc) == {}
        lift(table, 5)  # onto its space on the Time Board: lifting it is no unsync
        compared(table, 4)
        assert board_alerts(svc) == {}
    finally:
        table.close()


def test_a_favor_token_called_is_in_sync_and_lifted_before_resolution_is_not(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, CASS)  # Cass, Trained: three draws
        table.settled(2)
        for channel, token in enumerate(("cass.weight.0", "cass.weight.1", "cass.weight.2")):
            table.hub.lay(channel, uid_of(svc, token))
        table.settled(5)
        table.hub.lay(4, uid_of(svc, "favor.01"))  # channel 4: the Favor reader
        table.settled(6)
        assert svc.loop.state.performance.contribution("cass").favor == ("favor.01",)
        compared(table, 7)
        assert board_alerts(svc) == {}
        # lifted before the Performance is resolved: said until laid back
        lift(table, 4)
        key = "board lifted favor.01"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts, "the lifted Favor token said"
        )
        assert svc.output.alerts[key] == (
            "unsync: Favor: The Warden (control) was called but lies on no well:"
            " put it back, or Undo"
        )
        assert svc.alerts[key] in svc.status_line()
        table.hub.lay(4, uid_of(svc, "favor.01"))
        wait_until(lambda: board_alerts(svc) == {}, "resolved: laid back")
        assert svc.loop.state.performance.contribution("cass").favor == ("favor.01",)
    finally:
        table.close()


def test_a_drawn_token_lifted_before_resolution_is_unsync_until_laid_back_or_undone(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.submit(BEGIN, CASS)
        table.settled(2)
        table.hub.lay(0, uid_of(svc, "cass.weight.0"))
        table.settled(3)
        lift(table, 0)
        key = "board lifted cass.weight.0"
        wait_until(lambda: key in svc.output.alerts and key in svc.alerts, "the lifted token said")
        assert svc.output.alerts[key] == (
            "unsync: Cass's Weight 0 was drawn but lies on no well: put it back, or Undo"
        )
        table.hub.lay(1, uid_of(svc, "cass.weight.0"))  # back, on another well: one draw
        wait_until(lambda: key not in svc.output.alerts, "resolved: laid back")
        assert drawn(svc) == ["cass.weight.0"]
        lift(table, 1)
        wait_until(lambda: key in svc.output.alerts and key in svc.alerts, "lifted again")
        table.submit({"cmd": "undo"})  # the draw taken back: lying on no well is right
        table.settled(4)
        wait_until(lambda: board_alerts(svc) == {}, "resolved: undone")
        assert drawn(svc) == []
        # drawn in full, resolved: lifting is clearing the table, no unsync
        for channel, token in enumerate(("cass.weight.0", "cass.weight.1", "cass.weight.2")):
            table.hub.lay(channel, uid_of(svc, token))
        table.settled(7)
        table.submit({"cmd": "resolve"})
        table.settled(8)
        lift(table, 0)
        compared(table, 9)
        assert board_alerts(svc) == {}
        # Reset with tokens still on their wells: they are back in the bag for the engine
        table.submit({"cmd": "reset"})
        table.settled(10)
        key = "board draw-board channel 1"
        wait_until(
            lambda: key in svc.output.alerts and key in svc.alerts,
            "a token left on its well after Reset",
        )
        assert svc.output.alerts[key] == (
            "unsync: draw-board channel 1 holds Cass's Weight 1, back in its bag now: put it there"
        )
        lift(table, 1)
        lift(table, 2)
        wait_until(lambda: board_alerts(svc) == {}, "resolved: put in the bag")
    finally:
        table.close()


def test_a_crowded_well_is_one_state_of_the_board_until_the_extra_tag_is_lifted(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        table.hub.lay(2, UNKNOWN)
        unknown, crowded = "board draw-board channel 2", "well draw-board channel 2"
        wait_until(lambda: unknown in svc.output.alerts, "the unknown tag said")
        table.hub.crowd(2)
        # one thing said of the well: two or more tags, whatever lies under the extra one (the
        # board says one and unsays the other in turn: waited for whole, never looked between)
        one = {crowded: "one token per well: lift the extra token (draw-board channel 2)"}
        wait_until(lambda: board_alerts(svc) == one, "two or more tags said, and only that")
        table.hub.crowd(2, False)
        wait_until(
            lambda: crowded not in svc.output.alerts and unknown in svc.output.alerts,
            "one tag again: the unknown tag said again",
        )
        lift(table, 2)
        wait_until(lambda: board_alerts(svc) == {}, "resolved: taken away")
    finally:
        table.close()


class Told:
    """An extension with the ``alert`` hook, as the MQTT bridge may add."""

    def __init__(self) -> None:
        self.alerts: list[tuple[str, str | None]] = []

    def alert(self, key: str, text: str | None) -> None:
        self.alerts.append((key, text))

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_an_unsync_is_told_to_the_extensions_and_so_is_its_end(tmp_path):
    table = InProcess(tmp_path)
    try:
        svc = table.service
        told = Told()
        svc.extensions.append(told)
        table.hub.lay(2, UNKNOWN)
        key = "board draw-board channel 2"
        text = f"unsync: draw-board channel 2 holds an unknown tag ({UNKNOWN}): take it away"
        wait_until(lambda: (key, text) in told.alerts, "the unsync told")
        lift(table, 2)
        wait_until(lambda: (key, None) in told.alerts, "its end told")
        assert [a for a in told.alerts if a[0] == key] == [(key, text), (key, None)]
    finally:
        table.close()


class EnrolTable(InProcess):
    """The Service with an enrolment reader: channel 6 of the hub has the ``enroll`` role."""

    def __init__(self, folder: Path) -> None:
        readers = (
            '[[readers]]\nbackend = "emulated-hub"\nname = "draw-board"\nchannels = 7\n'
            'roles = { 4 = "favor", 5 = "time", 6 = "enroll" }\n'
        )
        self.service = Service(load_config(write_config(folder, readers=readers)))
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self.service.run, args=(self.stop_flag,))
        self.thread.start()
        self.hub = self.service.emulators["draw-board"]
        self.reader = self.service.readers[0]
        assert self.reader.wait_online(WAIT)


def test_a_tag_on_an_enrolment_reader_never_reaches_the_board(tmp_path):
    table = EnrolTable(tmp_path)
    try:
        svc = table.service
        table.hub.lay(6, UNKNOWN)  # a new tag, being enrolled
        table.hub.lay(3, uid_of(svc, "aria.weight.0"))  # for comparison: undrawn, unsync
        wait_until(lambda: "board draw-board channel 3" in svc.output.alerts, "channel 3 said")
        # both tags taken in by the loop: the note below is taken after their turns are over
        wait_until(lambda: svc.loop.processed >= 2, "both tags taken in")
        compared(table, 1)
        assert list(board_alerts(svc)) == ["board draw-board channel 3"]
        assert ("draw-board", 6) not in svc.board.wells
    finally:
        table.close()
