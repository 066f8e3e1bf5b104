"""The history on MQTT: the retained ``rhuna/<table>/history`` holds the last narrated journal
entries — what ``rhuna-table history --json`` prints — for the table display (web/table.html).
A real Mosquitto of the test's own; the service with its emulated hub."""

from __future__ import annotations

import json
import threading

import pytest

from companion.cli import main
from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.mqtt.bridge import HISTORY
from companion.service import Service
from tests.harness import ARIA, BEGIN
from tests.harness.broker import WAIT, Watcher
from tests.harness.service import write_config

TOPIC = "rhuna/example/history"


def serve(config):
    service = Service(config)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
    assert bridge.wait_ready(WAIT)
    return service, stop, thread


def latest(watcher: Watcher, seq: int) -> dict:
    """The newest retained history once it reaches journal row ``seq``."""

    def found(ms):
        got = [m.json() for m in ms if m.topic == TOPIC]
        return got and got[-1]["entries"] and got[-1]["entries"][-1]["seq"] == seq and got[-1]

    return watcher.wait(found, f"history up to #{seq}")


def test_the_retained_history_is_the_last_entries_of_the_journal_narrated(
    tmp_path, broker, capsys
) -> None:
    config = load_config(
        write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    )
    service, stop, thread = serve(config)
    try:
        watcher = Watcher(broker.port, [TOPIC, "rhuna/example/reply"])
        watcher.send("rhuna/example/command", {**BEGIN, "transaction": "t-1"})
        watcher.reply("rhuna/example/reply", "t-1")
        service.loop.submit(ARIA, "worldkeeper")
        for seed in range(1, 5):
            service.loop.submit({"cmd": "draw", "hero": "aria", "seed": seed}, "wheel")
        history = latest(watcher, 6)
        watcher.close()
    finally:
        stop.set()
        thread.join(WAIT)
    assert main(["history", str(config.state_dir), "--json"]) == 0
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(printed) == 6
    keys = ("seq", "time", "source", "command", "events")
    assert [{k: e[k] for k in keys if k != "time"} for e in history["entries"]] == [
        {k: e[k] for k in keys if k != "time"} for e in printed
    ]
    # the journal's own source names, as the export writes them (issue 32)
    assert [e["source"] for e in history["entries"]][:3] == ["mqtt:1", "worldkeeper", "wheel"]


@pytest.mark.error_log  # the restarted service sees its predecessor's retained identity and says so
def test_a_restarted_service_publishes_the_journals_last_entries_at_once(tmp_path, broker) -> None:
    config = load_config(
        write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    )
    service, stop, thread = serve(config)
    service.loop.submit(BEGIN, "worldkeeper")
    for _ in range(HISTORY + 5):
        service.loop.submit({"cmd": "adjust_hero", "hero": "aria", "favor": 1}, "worldkeeper")
    stop.set()  # the service drains its queue before it stops
    thread.join(WAIT)
    total = HISTORY + 6
    service, stop, thread = serve(config)
    try:
        watcher = Watcher(broker.port, [TOPIC])
        history = latest(watcher, total)
        watcher.close()
    finally:
        stop.set()
        thread.join(WAIT)
    entries = history["entries"]
    assert [e["seq"] for e in entries] == list(range(total - HISTORY + 1, total + 1))
    assert entries[-1]["events"] == [f"Aria now has {2 + HISTORY + 5} Favor, 2 Redraws"]


@pytest.mark.error_log  # the restarted service sees its predecessor's retained identity and says so
def test_when_a_session_ends_its_recap_is_written_and_linked_beside_the_history(
    tmp_path, broker
) -> None:
    """`run --new-session` ends the last session: its recap goes to recaps/<session>/ in the
    state directory, and `…/history` carries the link the table display shows."""
    extra = (
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
        '[record]\nrecap_url = "http://rhuna.local:9001/recaps/"\n'
    )
    config = load_config(write_config(tmp_path, extra))
    service, stop, thread = serve(config)
    service.loop.submit(BEGIN, "worldkeeper")
    service.loop.submit(ARIA, "worldkeeper")
    stop.set()
    thread.join(WAIT)
    service = Service(config, new_session=True)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    try:
        watcher = Watcher(broker.port, [TOPIC])
        history = watcher.wait(
            lambda ms: next(
                (m.json() for m in reversed(ms) if m.topic == TOPIC and m.json()["recap"]), None
            ),
            "the recap's link",
            timeout=60,
        )
        watcher.close()
    finally:
        stop.set()
        thread.join(WAIT)
    [archived] = (config.state_dir / "archive").glob("journal-*.sqlite")
    session = archived.name.removeprefix("journal-").removesuffix(".sqlite")
    assert history["recap"] == {
        "session": session,
        "file": "recap.html",
        "href": f"http://rhuna.local:9001/recaps/{session}/recap.html",
    }
    recap = config.state_dir / "recaps" / session / "recap.html"
    assert "Aria declares Control · skill" in recap.read_text("utf-8")
    assert (recap.parent / "draws.csv").exists()
    assert "class=frames" in recap.read_text("utf-8")  # the panel's last frames, embedded
    # a restart within the new session still links the last one's recap
    service, stop, thread = serve(config)
    try:
        watcher = Watcher(broker.port, [TOPIC])
        again = watcher.wait(
            lambda ms: next((m.json() for m in ms if m.topic == TOPIC), None), "the history"
        )
        watcher.close()
    finally:
        stop.set()
        thread.join(WAIT)
    assert again["recap"] == history["recap"]
