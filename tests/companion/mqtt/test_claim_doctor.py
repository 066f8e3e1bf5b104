"""Issue 45 item 6: ``doctor`` says who holds the table id on the broker (companion/mqtt/health.py's
``claim``): free, this machine's service, or another service — then a service started with this
config stands by, and doctor says so with the fix. Against a Mosquitto of the test's own."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from companion.mqtt import MqttBridge
from companion.mqtt.health import claim
from tests.harness import EXAMPLE_TABLE, wait_until
from tests.harness.broker import WAIT, RunningLoop, Watcher, bridge_config, example_loop

R = "rhuna/example"


def _claim(port: int, table: Path = EXAMPLE_TABLE) -> tuple[bool, str, str]:
    (check,) = claim({"host": "127.0.0.1", "port": port}, "rhuna.toml", table, 5.0)
    assert check.name == "claim"
    return check.ok, check.detail, check.fix


def _forge(port: int, info: dict, status: bytes) -> None:
    """A holder's retained ``…/info`` and ``…/status`` as another machine's service leaves them."""
    forger = Watcher(port, ["rhuna-test/forger"])
    try:
        for topic, payload in ((f"{R}/info", json.dumps(info)), (f"{R}/status", status)):
            forger.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
    finally:
        forger.close()


def test_a_free_table_id_is_said_free(broker):
    ok, detail, _ = _claim(broker.port)
    assert ok and detail == "table id 'example' is free on this broker"


def test_a_table_id_held_on_another_machine_says_a_service_here_stands_by(broker):
    other = {"instance": "0badcafe", "host": "club-pi-2", "pid": 4242, "started": "2026-12-06T19:00:00.000+00:00",
             "version": "0", "now": "2026-12-06T19:00:01.000+00:00"}  # fmt: skip
    _forge(broker.port, other, b"online")
    ok, detail, fix = _claim(broker.port)
    assert not ok
    assert "held by another service on this broker (host club-pi-2, pid 4242" in detail
    assert "stands by" in detail and "[table] id" in fix and "mqtt.table_id" in fix
    # once it is offline (its clean stop, its will), the table id is free again
    _forge(broker.port, other, b"offline")
    ok, detail, _ = _claim(broker.port)
    assert ok and "free" in detail and "club-pi-2" in detail


@pytest.mark.error_log  # the one standing by says why at ERROR
def test_held_by_this_machines_service_and_a_standby_said_so(broker, monkeypatch):
    from companion.mqtt import health, identity, publisher

    # the standby's word (with its clash) every 0.2 s: some while doctor listens
    monkeypatch.setattr(identity, "CLASH_EVERY", 0.2)
    monkeypatch.setattr(publisher, "CLASH_EVERY", 0.2)
    monkeypatch.setattr(health, "SETTLE", 2.0)
    loops = [RunningLoop(example_loop()), RunningLoop(example_loop())]
    holder, standby = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    try:
        holder.start(loops[0].loop)
        assert holder.wait_ready(WAIT)
        wait_until(lambda: _claim(broker.port)[0], "the holder's claim")
        ok, detail, _ = _claim(broker.port)
        assert ok
        assert detail.startswith(
            f"table id 'example' is held by this machine's service (host {socket.gethostname()},"
            f" pid {os.getpid()}"
        )
        standby.start(loops[1].loop)
        wait_until(lambda: standby.duplicate is not None, "the newcomer stands by")
        ok, detail, fix = _claim(broker.port)
        assert not ok and "another stands by for it" in detail and "[table] id" in fix
    finally:
        for b in (holder, standby):
            b.stop()
        for r in loops:
            r.close()
