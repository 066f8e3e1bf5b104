"""The MQTT bridge as one of the service's extensions, on a real Mosquitto of the test's own.

A command over MQTT is committed to the journal before its reply goes out; after
a restart the event stream's ``seq`` goes on from the journal's, with no gap and
no repeat (docs/mqtt.md).
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.service import Service
from tests.harness import ARIA, BEGIN
from tests.harness.broker import WAIT, Watcher
from tests.harness.service import write_config

R = "rhuna/example"


def serve(config):
    service = Service(config)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    return service, stop, thread


def events(watcher: Watcher) -> list[dict]:
    return watcher.json_on(f"{R}/events")


@pytest.mark.error_log  # the restarted service sees its predecessor's retained identity and says so
def test_an_mqtt_command_is_committed_before_its_reply_and_seq_survives_a_restart(tmp_path, broker):
    config = load_config(
        write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    )
    watcher = Watcher(broker.port, [f"{R}/events", f"{R}/reply"])
    try:
        service, stop, thread = serve(config)
        [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
        assert bridge.wait_ready(WAIT)
        watcher.send(f"{R}/command", {**BEGIN, "transaction": "t-1"})
        reply = watcher.reply(f"{R}/reply", "t-1")
        assert reply["status"] == "ok"
        db = sqlite3.connect(service.store.path)  # the reply came after the commit
        assert db.execute("SELECT source, command FROM journal").fetchall() == [
            (reply["data"]["events"][0]["source"], '{"cmd":"begin_performance","difficulty":5}')
        ]
        db.close()
        watcher.send(f"{R}/command", {**ARIA, "transaction": "t-2"})
        watcher.reply(f"{R}/reply", "t-2")
        before = [e["seq"] for e in events(watcher)]
        stop.set()
        thread.join(WAIT)

        service, stop, thread = serve(config)
        [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
        assert bridge.wait_ready(WAIT) and bridge.seq == service.store.last_event_seq
        watcher.send(f"{R}/command", {"cmd": "undo", "transaction": "t-3"})
        watcher.reply(f"{R}/reply", "t-3")
        watcher.wait(lambda ms: len(events(watcher)) > len(before), "the undo's event")
        seqs = [e["seq"] for e in events(watcher)]
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) == len(before) + 1
        stop.set()
        thread.join(WAIT)
    finally:
        watcher.close()
