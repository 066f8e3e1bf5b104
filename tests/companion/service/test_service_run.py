"""The service end to end, in process: emulated token hub on a real pty → loop → journal → panel.

``Service.run`` runs in a thread here (signals are the main thread's, and the
subprocess tests cover them); everything else is what ``rhuna-table run``
builds from a config: the HubEmulator and HubReader, the SQLite journal, the
PNG panel through the display worker, gpiozero on MockFactory pins.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from PIL import Image

from companion.config import load_config
from companion.service import Service
from companion.table.loop import Outcome, TableLoop
from display.render import Frame, Renderer
from display.screens.banner import Banner
from engine.view import table_view
from firmware_bridge.events import ReaderStatus
from hardware.mock import MockHand
from tests.harness import ARIA, BEGIN, WAIT, wait_until
from tests.harness import record as record_support
from tests.harness.service import as_json, write_config
from tests.harness.views import FAIL_TIRED_CASS, TIRE_CASS


class Running(record_support.Running):
    """The service in a thread (tests/harness/record.py); ``command`` returns refusals too."""

    next = record_support.Running.wait
    command = record_support.Running.submit


@pytest.fixture
def running(tmp_path):
    service = Service(load_config(write_config(tmp_path)))
    r = Running(service)
    yield r
    r.close()


def shown(service: Service) -> Image.Image:
    assert service.worker.wait_idle(10)
    return Image.open(service.config.display.options["out_dir"] / "latest.png")


def expected(service: Service, state, banner: Banner | None = None) -> Image.Image:
    d = service.config.display
    frame = Frame(table_view(state), banner)
    return Renderer(d.panel, d.colour)(frame)


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.mode == b.mode and a.tobytes() == b.tobytes()


def wait_for_the_panel(service: Service, state, banner) -> None:
    """The panel ends up showing ``state`` with ``banner`` (a callable: the banner expected
    now — a reader's link may still be changing, lost → offline)."""
    wait_until(
        lambda: same_pixels(shown(service), expected(service, state, banner())),
        lambda: f"the panel to show the table with the banner {banner()}",
        poll=0.05,
    )


def journal(service: Service) -> list[tuple[int, str, str]]:
    db = sqlite3.connect(service.store.path)  # another connection: only committed rows
    try:
        return db.execute("SELECT seq, source, command FROM journal ORDER BY seq").fetchall()
    finally:
        db.close()


def test_a_token_laid_is_committed_then_shown_p6(running):
    """Lay Aria's Ember on Draw Board slot 0: a draw (P6), journaled, then on the panel."""
    service = running.service
    assert service.readers[0].wait_online(WAIT)
    running.command(BEGIN)
    running.command(ARIA)
    uid = service.registry.uid("aria.ember.skill")
    service.emulators["draw-board"].lay(0, uid)
    outcome = running.next(lambda o: o.tag is not None and o.tag.present)
    assert outcome.command == {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}
    assert outcome.seq == 3 and outcome.error is None
    assert journal(service)[-1][:2] == (3, "reader:draw-board")
    assert same_pixels(shown(service), expected(service, outcome.state))


def test_an_unknown_tag_is_a_banner_not_a_journal_row(running):
    service = running.service
    assert service.readers[0].wait_online(WAIT)
    service.emulators["draw-board"].lay(1, "04DEADBEEF0001")
    outcome = running.next(lambda o: o.tag is not None)
    assert outcome.error.code == "unknown" and outcome.seq is None and journal(service) == []
    banner = Banner(outcome.error.message, "error")
    assert same_pixels(shown(service), expected(service, outcome.state, banner))


def test_a_reader_unplugged_is_a_banner_until_it_is_back(running):
    service = running.service
    hub, reader = service.emulators["draw-board"], service.readers[0]
    assert reader.wait_online(WAIT)
    running.command(BEGIN)
    hub.unplug()
    wait_until(
        lambda: "draw-board" in service.output.readers_down,
        lambda: f"draw-board among the readers down; reader states {service.reader_states}",
    )
    down = service.output._banner()
    assert down.severity == "error"
    # what to do at the table, not errno text (issue 15)
    assert down.text == "Reader draw-board is not answering — check the cable: is it plugged in?"
    assert "Errno" not in down.text and "/dev/" not in down.text
    state = service.loop.state
    wait_for_the_panel(service, state, service.output._banner)
    assert (
        "draw-board offline" in service.status_line() or "draw-board lost" in service.status_line()
    )
    hub.replug()
    assert reader.wait_online(WAIT)
    back = Banner("Reader draw-board back online", "info")
    wait_until(
        lambda: service.output._banner() == back,
        lambda: f"the banner {back}; it is {service.output._banner()}",
    )
    wait_for_the_panel(service, state, lambda: back)
    running.command(ARIA)  # the next accepted command clears the notice
    assert same_pixels(shown(service), expected(service, service.loop.state))


def test_the_wheel_on_mock_pins_declares_through_the_journal_p4(tmp_path):
    """[gpio] pin_factory = "mock": the encoder's push begins a Performance (P4, P19)."""
    config = load_config(write_config(tmp_path, '[gpio]\npin_factory = "mock"\n'))
    running = Running(Service(config))
    try:
        service = running.service
        wait_until(lambda: service.controls is not None, "the service's wheel controls")
        hand = MockHand(service.pin_factory, config.gpio)
        hand.turn(+2)  # Difficulty 3 → 5
        hand.push()
        outcome = running.next(lambda o: o.source == "wheel")
        assert outcome.command["cmd"] == "begin_performance" and outcome.command["difficulty"] == 5
        assert journal(service) == [
            (1, "wheel", '{"cmd":"begin_performance","difficulty":5,"weight":"off"}')
        ]
    finally:
        running.close()


def test_a_restart_shows_the_restored_table_at_once(tmp_path):
    config = load_config(write_config(tmp_path))
    first = Running(Service(config))
    first.command(BEGIN)
    first.command(ARIA)
    before = first.service.loop.state
    first.close()
    second = Service(config)
    try:
        assert as_json(second.loop.state) == as_json(before)
        assert second.restored.seq == 2 and second.loop.state.performance.drawing == "aria"
        second.start()
        assert same_pixels(shown(second), expected(second, before))
    finally:
        second.stop()


#: Cass Exerts twice; the second Performance fails on a full Fatigue track: +2 Fatigue → 1 Strain
#: (P9, P13, P20), the costs the panel shows beside the result
TIRED_CASS = [*TIRE_CASS, *FAIL_TIRED_CASS]


def test_p9_p13_the_costs_come_back_on_the_panel_after_a_restart(tmp_path):
    """The costs of the open Performance are part of the state (issue 18 item 1): journaled,
    restored, and on the panel at once — before, display/costs.py rebuilt them from the
    session's events and a restart lost them."""
    config = load_config(write_config(tmp_path))
    first = Running(Service(config))
    for command in TIRED_CASS:
        assert first.command(command).error is None, command
    before = first.service.loop.state
    first.close()
    assert table_view(before)["costs"]["cass"]["text"] == ["+2 Fatigue → 1 Strain"]
    second = Service(config)
    try:
        assert as_json(second.loop.state) == as_json(before)
        second.start()
        panel = shown(second)
        assert same_pixels(panel, expected(second, before))
        d = second.config.display
        without = Renderer(d.panel, d.colour)(Frame({**table_view(before), "costs": {}}, None))
        assert not same_pixels(panel, without)  # the costs are on it, not only in the state
    finally:
        second.stop()


class Recorder:
    """An extension the way the MQTT bridge is one: start(loop), stop(), reader_status()."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.outcomes: list[Outcome] = []
        self.statuses: list[ReaderStatus] = []

    def start(self, loop: TableLoop) -> None:
        self.calls.append("start")
        loop.subscribe(self, self.outcomes.append)
        loop.submit(BEGIN, "mqtt")  # an extension may submit commands too

    def stop(self) -> None:
        self.calls.append("stop")

    def reader_status(self, status: ReaderStatus) -> None:
        self.statuses.append(status)


class Broken:
    def start(self, loop: TableLoop) -> None:
        raise RuntimeError("no broker library")

    def stop(self) -> None:
        raise AssertionError("an extension that did not start is not stopped")


@pytest.mark.error_log  # it provokes the ERROR it is about
def test_extensions_start_with_the_loop_and_stop_after_it_drained(tmp_path):
    """What is queued when the stop comes is still processed and committed, and the
    extensions (MQTT replies) still hear of it before they stop."""
    recorder = Recorder()
    service = Service(load_config(write_config(tmp_path)), extensions=[Broken(), recorder])
    service.start()  # no loop running: everything below stays queued
    assert service.readers[0].wait_online(WAIT)
    for _ in range(20):
        service.loop.submit({"cmd": "adjust_hero", "hero": "aria", "favor": 1}, "mqtt")
    service.stop()
    assert recorder.calls == ["start", "stop"] and service.extensions == [recorder]
    assert [o.seq for o in recorder.outcomes] == list(range(1, 22))
    assert [s.state for s in recorder.statuses][:2] == ["connecting", "online"]
    assert service.store.seq == 21 and len(journal(service)) == 21


def test_a_token_laid_in_a_performance_was_pondered_and_the_heap_frozen_p6(tmp_path):
    """The running service ponders the likely next draws while the table waits
    (companion.table.ponder) and keeps what its start made out of the collector's sight
    (``gc.freeze``); the token laid is the pondered state, committed and shown like any other.
    Stopping ends the pondering thread and gives the heap back to the collector."""
    import gc

    service = Service(load_config(write_config(tmp_path)))
    ponder = service.loop.ponder
    assert ponder is not None
    running = Running(service)
    try:
        wait_until(lambda: gc.get_freeze_count() > 0, "the heap frozen once started")
        assert service.readers[0].wait_online(WAIT)
        running.command(BEGIN)
        running.command(ARIA)
        state = service.loop.state
        wait_until(lambda: ponder._answers_for is state and ponder.pondered >= 12, "pondered")
        token = state.bags["aria"].contents[0]
        service.emulators["draw-board"].lay(0, service.registry.uid(token))
        outcome = running.next(lambda o: o.tag is not None and o.command is not None)
        assert outcome.error is None and outcome.command["token"] == token
        assert ponder.recalled == 1 and outcome.seq == service.store.seq
        assert json.loads(journal(service)[-1][2])["token"] == token
        wait_for_the_panel(service, outcome.state, lambda: None)  # the pondered view, shown
    finally:
        running.close()
    assert ponder.thread is None and gc.get_freeze_count() == 0
