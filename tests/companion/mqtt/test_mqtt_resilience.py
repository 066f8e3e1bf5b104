"""The bridge when things go wrong: a killed service, a broker restart, a broker down at boot.

Nothing acknowledged may be lost: events made while the broker is away arrive
after it comes back, in order, and the retained state is the table's newest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

from companion.mqtt.messages import state_payload
from engine.view import table_view
from tests.harness import ARIA, BEGIN, ROOT, wait_until
from tests.harness.broker import WAIT, Broker, R, Watcher, free_port, running_broker, table_on_mqtt

LATER = [
    {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"},
    {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"},
    {"cmd": "call_favor", "hero": "aria", "token": "favor.03"},
]


def _view(state: dict) -> dict:
    """``…/state`` without the service's ``changed_at`` stamp: the engine's view."""
    return {k: v for k, v in state.items() if k != "changed_at"}


def seqs(w: Watcher) -> list[int]:
    return [e["seq"] for e in w.json_on(f"{R}/events")]


def retained(port: int, topic: str) -> bytes:
    late = Watcher(port, [topic])
    try:
        return late.first(topic).payload
    finally:
        late.close()


def test_the_will_says_offline_when_the_service_is_killed(tmp_path):
    """kill -9 (a power cut, an OOM kill): no clean disconnect, so the broker sends the will."""
    script = textwrap.dedent(
        """
        import sys, time
        from companion.mqtt import MqttBridge
        from tests.harness.broker import bridge_config, example_loop
        bridge = MqttBridge(bridge_config(int(sys.argv[1])))
        bridge.start(example_loop())
        assert bridge.wait_ready(10)
        print("ready", flush=True)
        time.sleep(60)
        """
    )
    with running_broker(tmp_path / "broker") as broker:
        watcher = Watcher(broker.port, [f"{R}/status"])
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        service = subprocess.Popen(
            [sys.executable, "-c", script, str(broker.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert service.stdout is not None and service.stdout.readline().strip() == "ready"
            watcher.wait(lambda ms: watcher.last(f"{R}/status").payload == b"online", "online")
            service.send_signal(signal.SIGKILL)
            service.wait(WAIT)
            watcher.wait(lambda ms: watcher.last(f"{R}/status").payload == b"offline", "the will")
            assert retained(broker.port, f"{R}/status") == b"offline"  # the will is retained
        finally:
            service.kill()
            service.wait()
            if service.stdout:
                service.stdout.close()
            watcher.close()


def test_a_broker_restart_loses_nothing_and_the_state_is_republished(tmp_path):
    broker = Broker(tmp_path / "broker").start()
    # the overlay keeps a session (clean_session=False): the broker holds its messages
    overlay = Watcher(broker.port, [f"{R}/#"], client_id="overlay", persistent=True)
    try:
        with table_on_mqtt(broker.port) as (bridge, running):
            assert bridge.wait_ready(WAIT)
            overlay.send(f"{R}/command", {**BEGIN, "transaction": "before"})
            assert overlay.reply(f"{R}/reply", "before")["status"] == "ok"
            running.loop.submit(ARIA, source="script")
            overlay.wait(lambda ms: seqs(overlay) == [1, 2], "the first two events")

            broker.stop()
            assert bridge.wait_ready(WAIT, ready=False)
            for command in LATER:  # the table goes on: the wheel, the readers
                running.loop.submit(command, source="reader:draw-board")
            wait_until(lambda: bridge.seq >= 5, "the events made while the broker is away")
            broker.start()

            assert bridge.wait_ready(WAIT)
            overlay.wait(lambda ms: seqs(overlay)[-1:] == [bridge.seq], "the kept events")
            unique = list(dict.fromkeys(seqs(overlay)))  # QoS 1 may deliver twice, never skip
            assert unique == list(range(1, bridge.seq + 1))
            expected = json.loads(json.dumps(state_payload(table_view(running.loop.state))))
            overlay.wait(
                lambda ms: _view(overlay.last(f"{R}/state").json()) == expected, "the state, again"
            )
            assert _view(json.loads(retained(broker.port, f"{R}/state"))) == expected
            assert retained(broker.port, f"{R}/status") == b"online"
            overlay.send(f"{R}/command/undo", {"transaction": "after"})
            assert overlay.reply(f"{R}/reply", "after")["status"] == "ok"
            assert bridge.stats.connects == 2 and bridge.stats.dropped == 0
    finally:
        overlay.close()
        broker.stop()


def test_a_broker_down_at_boot_is_no_error(tmp_path):
    """The Pi boots before the broker (or the broker's host): the bridge waits and catches up."""
    port = free_port()
    with table_on_mqtt(port, reconnect_max_delay=1) as (bridge, running):
        running.loop.submit(BEGIN, source="script")
        wait_until(lambda: bridge.seq == 1, "the first event")
        wait_until(lambda: bridge.stats.last_error is not None, "the failed connection")
        assert "cannot reach the broker" in bridge.stats.last_error
        assert not bridge.connected
        with running_broker(tmp_path / "broker", port=port):
            assert bridge.wait_ready(WAIT)
            state = json.loads(retained(port, f"{R}/performance"))
            assert state["difficulty"] == 5
            assert retained(port, f"{R}/status") == b"online"


def test_past_max_queued_the_oldest_waiting_events_are_dropped_and_counted(tmp_path):
    """max_queued = 10 and 15 events while the broker is away: the newest 10 arrive."""
    broker = Broker(tmp_path / "broker").start()
    overlay = Watcher(broker.port, [f"{R}/events"], client_id="overlay", persistent=True)
    broker.stop()  # the overlay's session (its subscription) is kept in the broker's file
    cycle = [BEGIN, {"cmd": "cancel_performance"}]
    try:
        with table_on_mqtt(broker.port, max_queued=10, reconnect_max_delay=1) as (bridge, running):
            for i in range(15):
                running.loop.submit(cycle[i % 2], source="script")
            wait_until(lambda: bridge.seq == 15, "fifteen events")
            assert bridge.stats.dropped == 5
            broker.start()
            overlay.wait(lambda ms: seqs(overlay)[-1:] == [15], "the kept events")
            assert list(dict.fromkeys(seqs(overlay))) == list(range(6, 16))
    finally:
        overlay.close()
        broker.stop()
