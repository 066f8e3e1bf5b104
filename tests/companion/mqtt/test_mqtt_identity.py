"""The table's identity on the broker: one client id per instance, a duplicate table id
detected and reported, a forged retained ``…/status`` put back (docs/mqtt.md).

A real Mosquitto of the test's own; the second "service" is a second bridge on its
own loop, exactly what a second ``rhuna-table run`` with the same table id would
connect.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading

from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.service import Service
from tests.harness import wait_until
from tests.harness.broker import (
    WAIT,
    RunningLoop,
    Watcher,
    bridge_config,
    example_loop,
    send,
    table_on_mqtt,
)
from tests.harness.service import write_config

R = "rhuna/example"


def test_a_second_service_on_one_table_id_stands_by_and_says_so_on_the_panel(
    tmp_path, broker, caplog
):
    """The first holder keeps the table; the second (a real Service) stands by, keeps its
    connection, and says why in the log, on …/error and on its panel (issue 29, item 3)."""
    watcher = Watcher(broker.port, [f"{R}/error", f"{R}/info"])
    running = RunningLoop(example_loop())
    first = MqttBridge(bridge_config(broker.port))
    first.start(running.loop)
    assert first.wait_ready(WAIT)
    config = load_config(
        write_config(tmp_path / "a", f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    )
    service = Service(config)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    try:
        with caplog.at_level(logging.ERROR, "rhuna.mqtt"):
            thread.start()
            wait_until(lambda: any(isinstance(e, MqttBridge) for e in service.extensions), "up")
            [second] = [e for e in service.extensions if isinstance(e, MqttBridge)]
            wait_until(lambda: second.duplicate is not None, "the second stands by")
            watcher.wait(lambda ms: watcher.on(f"{R}/error"), "the clash said")
            assert service.output is not None
            wait_until(lambda: "mqtt-duplicate" in service.output.alerts, "the panel's alert")
        assert second.duplicate["instance"] == first.instance and first.duplicate is None
        assert first.link.client._client_id != second.link.client._client_id
        assert f"pid {os.getpid()}" in caplog.text and "[table] id" in caplog.text
        errors = watcher.json_on(f"{R}/error")
        assert {e["code"] for e in errors} == {"duplicate"}
        assert {e["other"]["instance"] for e in errors} == {first.instance}
        assert "is held by another service" in service.output.alerts["mqtt-duplicate"]
        assert "is held by another service" in service.status_line()
        # distinct client ids: nobody is knocked off the broker. Mosquitto closes the older
        # connection of a client id while it handles the newer one's CONNECT, and says so in
        # its log before it logs that client as connected: once the second is connected
        # there, a knock-off would already be said
        ids = (first.link.client._client_id.decode(), second.link.client._client_id.decode())
        log = broker.dir / "mosquitto.log"
        wait_until(
            lambda: all(f" as {i} (" in log.read_text() for i in ids), "both connected, logged"
        )
        assert "already connected, closing old connection" not in log.read_text()
        assert (first.stats.connects, second.stats.connects) == (1, 1)
        assert first.connected and second.connected
    finally:
        stop.set()
        thread.join(15)
        first.stop()
        running.close()
        watcher.close()


def test_a_forged_retained_offline_is_put_back_to_online(broker):
    running = RunningLoop(example_loop())
    bridge = MqttBridge(bridge_config(broker.port))
    bridge.start(running.loop)
    try:
        assert bridge.wait_ready(WAIT)
        early = Watcher(broker.port, [f"{R}/status"])
        try:
            send(broker.port, f"{R}/status", "offline", retain=True)
            wait_until(lambda: bridge.stats.status_restored >= 1, "the status put back")
            # the counter goes up when the bridge hands ``online`` to paho, before the broker
            # has it: wait until a subscriber sees it come after the forgery, so the broker's
            # retained status is the bridge's when the late subscriber asks (not a race)
            early.wait(
                lambda ms: b"online" in _after(b"offline", [m.payload for m in ms]),
                "online published after the forged offline",
            )
        finally:
            early.close()
        late = Watcher(broker.port, [f"{R}/status"])
        try:
            assert late.first(f"{R}/status").payload == b"online"
        finally:
            late.close()
    finally:
        bridge.stop(WAIT)  # its offline is published before it disconnects, however loaded
        running.close()
    # a clean stop's own offline stays: nothing puts it back
    late = Watcher(broker.port, [f"{R}/status"])
    try:
        assert late.first(f"{R}/status").payload == b"offline"
    finally:
        late.close()


def test_info_names_the_instance_host_and_pid(broker):
    import os

    running = RunningLoop(example_loop())
    bridge = MqttBridge(bridge_config(broker.port))
    bridge.start(running.loop)
    try:
        assert bridge.wait_ready(WAIT)
        watcher = Watcher(broker.port, [f"{R}/info"])
        try:
            info = watcher.first(f"{R}/info")
            assert info.retain and info.json()["instance"] == bridge.instance
            assert info.json()["pid"] == os.getpid()
            # the client id is not the instance's: nobody reads it off …/info (issue 29, item 5)
            assert bridge.instance.encode() not in bridge.link.client._client_id
        finally:
            watcher.close()
        assert bridge.duplicate is None
    finally:
        bridge.stop()
        running.close()


def _after(first: bytes, payloads: list[bytes]) -> list[bytes]:
    """The payloads after the first ``first`` (none if it never came)."""
    return payloads[payloads.index(first) + 1 :] if first in payloads else []


def _retained_info(port: int, pid: int) -> None:
    """The ``…/info`` another run of this table left on the broker, from this host."""
    other = {
        "instance": "0123abcd",
        "host": socket.gethostname(),
        "pid": pid,
        "started": "2026-12-01T09:00:00.000+00:00",
        "version": "test",
    }
    send(port, f"{R}/info", other, retain=True)


def test_a_restart_is_not_a_second_service(broker, caplog):
    """The retained ``…/info`` of this table's last run (its process gone: a restart, kill -9,
    a power cut) is not reported as a duplicate; one whose process still runs on this host is."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _retained_info(broker.port, gone.pid)
    caplog.set_level(logging.INFO, "rhuna.mqtt")
    with table_on_mqtt(broker.port) as (bridge, _):
        assert bridge.wait_ready(WAIT)
        wait_until(lambda: "the last run's …/info" in caplog.text, "the last run's info read")
        assert bridge.duplicate is None and bridge.stats.duplicates == 0

    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _retained_info(broker.port, alive.pid)
        send(broker.port, f"{R}/status", "online", retain=True)  # that one is up
        with table_on_mqtt(broker.port) as (bridge, _):
            wait_until(lambda: bridge.stats.duplicates >= 1, "the live one reported")
            assert bridge.duplicate is not None and bridge.duplicate["pid"] == alive.pid
            assert not bridge.identity.acting  # it stands by for the earlier claim
    finally:
        alive.kill()
        alive.wait()
