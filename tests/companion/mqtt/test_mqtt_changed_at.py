"""``…/state``'s ``changed_at`` and ``…/info``'s ``now`` (issue 31 item 3, the service's side).

``changed_at`` is when the table last changed: the ``at`` of the last accepted command's
events, and after a restart the journal's last command's time (not the restart's).
``…/info`` carries the service's clock (``now``) and goes out again every CLOCK_EVERY s,
so a page can learn the offset of its own clock. Real Mosquitto; the Service in process
with its journal on disk and its MQTT bridge, restarted on the same state directory.
"""

from __future__ import annotations

from datetime import datetime

import pytest

import companion.mqtt.identity as identity_mod
import companion.mqtt.publisher as publisher_mod
from tests.harness import ARIA, BEGIN
from tests.harness.broker import Watcher, table_on_mqtt
from tests.harness.service import InProcess

R = "rhuna/example"
REFUSED = {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"}  # P23: bren not declared


def _mqtt(port: int) -> str:
    return f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\n'


def test_the_state_says_when_the_table_last_changed_and_a_restart_keeps_it(tmp_path, broker):
    watcher = Watcher(broker.port, [f"{R}/state", f"{R}/events"])
    try:
        table = InProcess(tmp_path, _mqtt(broker.port))
        try:
            watcher.wait(lambda ms: watcher.on(f"{R}/state"), "the first state")
            assert watcher.on(f"{R}/state")[0].json()["changed_at"] is None  # a new journal
            table.submit(BEGIN, ARIA)
            table.settled(2)
            watcher.wait(lambda ms: len(watcher.on(f"{R}/events")) >= 2, "the two events")
            last = watcher.json_on(f"{R}/events")[-1]["at"]
            watcher.wait(
                lambda ms: watcher.on(f"{R}/state")[-1].json()["changed_at"] == last,
                "the declaration's state, stamped with its events' time",
            )
            table.submit(REFUSED)  # refused: the table did not change
            watcher.wait(lambda ms: watcher.on(f"{R}/state")[-1].json()["answers"] == {}, "")
        finally:
            table.close()
        stamps = {m.json()["changed_at"] for m in watcher.on(f"{R}/state")}
        assert stamps <= {None, watcher.json_on(f"{R}/events")[0]["at"], last}
        late = Watcher(broker.port, [f"{R}/state"])  # the retained state of the stopped table
        try:
            assert late.first(f"{R}/state").json()["changed_at"] == last
        finally:
            late.close()
        seen = len(watcher.on(f"{R}/state"))
        table = InProcess(tmp_path, _mqtt(broker.port))  # resumes the journal
        try:
            watcher.wait(lambda ms: len(watcher.on(f"{R}/state")) > seen, "the resumed state")
            resumed = watcher.on(f"{R}/state")[-1].json()["changed_at"]
            # the journal's time of the declaration's commit, not the restart's; the commit's
            # clock is read a moment before the turn's ``at``, both to the millisecond
            assert resumed is not None and resumed <= last
            assert (datetime.fromisoformat(last) - datetime.fromisoformat(resumed)).seconds == 0
        finally:
            table.close()
    finally:
        watcher.close()


def test_info_carries_the_services_clock_again_and_again(broker, monkeypatch):
    monkeypatch.setattr(identity_mod, "CLOCK_EVERY", 0.2)
    monkeypatch.setattr(publisher_mod, "CLOCK_EVERY", 0.2)
    watcher = Watcher(broker.port, [f"{R}/info"])
    try:
        with table_on_mqtt(broker.port) as (bridge, _running):
            assert bridge.wait_ready(10)
            watcher.wait(lambda ms: len(ms) >= 3, "…/info three times")
            infos = [m.json() for m in watcher.messages]
        clocks = [datetime.fromisoformat(i["now"]) for i in infos]
        assert clocks == sorted(clocks) and len(set(clocks)) == len(clocks)
        assert all(c.utcoffset() is not None and c.utcoffset().total_seconds() == 0 for c in clocks)
        assert {i["instance"] for i in infos} == {bridge.instance}
    finally:
        watcher.close()


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_a_service_standing_by_is_not_told_the_clash_again_by_the_holders_clock(
    broker, monkeypatch
):
    """The holder's …/info every CLOCK_EVERY s is no new claim: the one standing by keeps its
    own CLASH_EVERY rhythm (one reminder now, none per …/info)."""
    from companion.mqtt import MqttBridge
    from tests.harness.broker import RunningLoop, bridge_config, example_loop

    monkeypatch.setattr(identity_mod, "CLOCK_EVERY", 0.2)
    monkeypatch.setattr(publisher_mod, "CLOCK_EVERY", 0.2)
    with table_on_mqtt(broker.port) as (holder, _running):
        assert holder.wait_ready(10)
        running = RunningLoop(example_loop())
        second = MqttBridge(bridge_config(broker.port))
        second.start(running.loop)
        try:
            watcher = Watcher(broker.port, [f"{R}/info"])
            try:
                watcher.wait(lambda ms: len(ms) >= 6, "the holder's …/info, again and again")
            finally:
                watcher.close()
            assert second.duplicate is not None and not second.identity.acting
            assert second.stats.duplicates == 1  # said once, not once per …/info
        finally:
            second.stop()
            running.close()
