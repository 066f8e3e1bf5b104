"""A hung panel is seen on MQTT (issue 43 item 5): a Waveshare whose BUSY never clears (the
vendor's ``ReadBusy`` loops with no timeout: a loose ribbon) is, past its refresh's deadline,
"The panel is not responding: …" on the retained ``…/panel`` and in ``rhuna-table doctor``,
while ``…/status`` stays the plain ``online`` and the table goes on answering commands; BUSY
clears, and it says the panel answers again. After a reconnection it is published whole; a
service standing by publishes none of it.

Real parts: the Service in process (its display worker driving the Waveshare driver on
tests/harness/epaper.py's stand-in of the vendor's package, in the service's own thread) and its
MQTT bridge on a real Mosquitto of the test's own; doctor's check as ``rhuna-table doctor`` runs
it, against that broker.
"""

from __future__ import annotations

import jsonschema
import pytest

from companion.mqtt import MqttBridge
from companion.mqtt.health import panel_responding
from companion.mqtt.schema import message_schema
from companion.mqtt.topics import PUBLIC_FILTERS
from tests.harness import BEGIN, EXAMPLE_TABLE, wait_until
from tests.harness.broker import (
    WAIT,
    Message,
    RunningLoop,
    Watcher,
    bridge_config,
    example_loop,
    retained_on,
    table_on_mqtt,
)
from tests.harness.epaper import WAVESHARE_PANEL, busy_pin, stand_in_epaper
from tests.harness.service import InProcess

R = "rhuna/example"
PANEL = f"{R}/panel"
STATUS = f"{R}/status"
#: what the display worker says of a refresh past its deadline (display.worker)
STUCK = "panel not responding: a full refresh has taken over 0.5 s; check its ribbon cable and HAT"


def panels(ms: list[Message]) -> list[dict]:
    return [m.json() for m in ms if m.topic == PANEL and m.payload]


def said(responding: bool):
    """The last ``…/panel`` heard, if it says ``responding``."""

    def last(ms: list[Message]) -> dict | None:
        heard = panels(ms)
        return heard[-1] if heard and heard[-1]["responding"] is responding else None

    return last


def doctor_line(port: int) -> tuple[bool, str, str]:
    (check,) = panel_responding({"host": "127.0.0.1", "port": port}, "rhuna.toml", EXAMPLE_TABLE, 5)
    assert check.name == "panel responding"
    return check.ok, check.detail, check.fix


def test_a_busy_that_never_clears_is_said_on_the_panel_topic_and_by_doctor(
    tmp_path, broker, monkeypatch
):
    assert "panel" in PUBLIC_FILTERS  # the pages say it: every login of the table may read it
    validator = jsonschema.Draft202012Validator(message_schema("panel"))
    watcher = Watcher(broker.port, [PANEL, STATUS, f"{R}/reply"])
    with stand_in_epaper(tmp_path / "vendor", monkeypatch):
        table = InProcess(
            tmp_path / "table",
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n',
            display=WAVESHARE_PANEL,
        )
        svc = table.service
        worker = svc.worker
        assert worker is not None
        busy = busy_pin(worker.panel)
        try:
            worker.deadline_floor = 0.5  # 3 × 0.05 s is less: the floor is the deadline
            first = watcher.wait(said(True), "the panel answering")
            assert first == {"responding": True, "text": None}
            assert worker.wait_idle(WAIT)  # the first frame is on the glass
            ok, detail, _ = doctor_line(broker.port)
            assert ok and detail == "the panel of table 'example' answers its refreshes"

            busy[0] = 0  # the ribbon works loose: BUSY never clears, ReadBusy loops for ever
            table.submit(BEGIN)  # a frame the panel never finishes
            hung = watcher.wait(said(False), "the panel not responding")
            assert hung["text"].startswith("The panel is not responding: a ")
            assert hung["text"].endswith("has taken over 0.5 s; check its ribbon cable and HAT")
            validator.validate(hung)
            assert "panel not responding" in svc.status_line()  # STATUS=, as before
            # …/status is the last will's and Home Assistant's: online, byte for byte
            assert [m.payload for m in retained_on(broker.port, [STATUS])] == [b"online"]
            # a late subscriber (a page opened now) finds it retained
            assert [m.json() for m in retained_on(broker.port, [PANEL])] == [hung]
            # the table goes on answering commands while the panel is stuck
            watcher.send(
                f"{R}/command",
                {"cmd": "note", "text": "the panel is stuck", "transaction": "meanwhile"},
            )
            reply = watcher.reply(f"{R}/reply", "meanwhile")
            assert reply["status"] == "ok", reply
            assert worker.not_responding is not None  # still stuck: it answered without it
            # doctor says it, in the service's words, as a failed check
            ok, detail, fix = doctor_line(broker.port)
            assert not ok and detail.startswith(hung["text"]) and f"{PANEL}" in detail
            assert "ribbon cable" in fix

            busy[0] = 1  # mended: the refresh returns
            again = watcher.wait(said(True), "the panel answering again")
            assert again == {"responding": True, "text": None}
            validator.validate(again)
            assert "panel not responding" not in svc.status_line()
            ok, _, _ = doctor_line(broker.port)
            assert ok
            assert [m.payload for m in watcher.on(STATUS)] == [b"online"]
        finally:
            busy[0] = 1
            table.close()
            watcher.close()


def test_the_panel_is_published_whole_after_a_reconnection(broker):
    """Said while the broker is away (retained copies kept: its persistence), it goes out once
    the bridge is back, as every retained topic does."""
    with table_on_mqtt(broker.port) as (bridge, _):
        assert bridge.wait_ready(WAIT)
        wait_until(
            lambda: (
                [m.json() for m in retained_on(broker.port, [PANEL])]
                == [{"responding": True, "text": None}]
            ),
            "the panel answering, retained",
        )
        broker.stop()
        assert bridge.wait_ready(WAIT, ready=False)
        bridge.panel_health(STUCK)  # the display worker's timer, while the broker is away
        broker.start()
        assert bridge.wait_ready(WAIT)
        expected = {
            "responding": False,
            "text": "The panel is not responding: a full refresh has taken over 0.5 s;"
            " check its ribbon cable and HAT",
        }
        wait_until(
            lambda: [m.json() for m in retained_on(broker.port, [PANEL])] == [expected],
            "the panel not responding, republished",
        )
        bridge.panel_health(None)
        wait_until(
            lambda: (
                [m.json() for m in retained_on(broker.port, [PANEL])]
                == [{"responding": True, "text": None}]
            ),
            "the panel answering again",
        )


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_a_service_standing_by_publishes_nothing_of_its_panel(broker):
    loops = [RunningLoop(example_loop()), RunningLoop(example_loop())]
    holder, standby = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    try:
        holder.start(loops[0].loop)
        assert holder.wait_ready(WAIT)
        wait_until(lambda: retained_on(broker.port, [PANEL]), "the holder's …/panel")
        standby.start(loops[1].loop)
        wait_until(lambda: standby.duplicate is not None, "the newcomer stands by")
        standby.panel_health(STUCK)
        # its publisher took it and finished that batch (then waits for the next)
        wait_until(
            lambda: standby.publisher.panel["responding"] is False and standby.busy_for() == 0.0,
            "the standby's publisher to take the panel's word",
        )
        assert PANEL not in standby.link.published  # it published no …/panel at all
        assert [m.json() for m in retained_on(broker.port, [PANEL])] == [
            {"responding": True, "text": None}
        ]
    finally:
        for b in (holder, standby):
            b.stop()
        for r in loops:
            r.close()
