"""Issue 45 item 6: a standby never touches the holder's ``…/status``, not even when it is killed.

Two real ``rhuna-table run`` processes with one table id on a Mosquitto of the test's own. The
standby stands by and says so (``…/error`` and its word on ``…/info``); then ``kill -9``. A
watcher subscribed to ``…/status`` from before the standby started sees only the holder's
``online``. Before: the standby said ``online`` there at its connection, and its last will, sent
by the broker at the kill, said ``offline`` until the holder put ``online`` back."""

from __future__ import annotations

import re
import signal
import uuid
from pathlib import Path

from tests.harness import BEGIN, wait_until
from tests.harness.broker import WAIT, Broker, Watcher
from tests.harness.service import ServiceProcess, write_config

R = "rhuna/example"
_ABRUPT = re.compile(r"(?:Client|Socket error on client) (\S+)(?: closed its connection|,)")


def _service(tmp_path: Path, name: str, port: int) -> ServiceProcess:
    mqtt = f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nreconnect_min_delay = 1\n'
    return ServiceProcess(write_config(tmp_path / name, mqtt))


def _gone_abruptly(broker: Broker) -> set[str]:
    """The client ids whose connection the broker saw end without a DISCONNECT (its log: then
    it has sent their will, if they had one)."""
    log = (broker.dir / "mosquitto.log").read_text(errors="replace")
    return {m.group(1).rstrip(",") for m in _ABRUPT.finditer(log)}


def test_a_killed_standby_leaves_the_holders_status_alone(tmp_path, broker):
    marker = f"rhuna-test/marker/{uuid.uuid4().hex}"
    watcher = Watcher(broker.port, [f"{R}/info", f"{R}/error", f"{R}/reply"])
    holder = _service(tmp_path, "holder", broker.port)
    standby = status = None
    try:
        held = watcher.wait(  # a new process's first word: the slowest wait on a loaded machine
            lambda ms: [m.json() for m in ms if m.topic == f"{R}/info"],
            "the holder's info",
            3 * WAIT,
        )[0]
        # from here on, every message on …/status: the holder's online first (retained, or live
        # if its connection with the will is not made yet)
        status = Watcher(broker.port, [f"{R}/status", marker])
        status.wait(lambda ms: [m for m in ms if m.payload == b"online"], "the holder's online")
        watcher.send(f"{R}/command", {**BEGIN, "transaction": "before"})
        assert watcher.reply(f"{R}/reply", "before")["status"] == "ok"

        standby = _service(tmp_path, "standby", broker.port)
        # it stands by, and says so on …/error and on …/info (not retained, no clock)
        said = watcher.wait(
            lambda ms: [m.json() for m in ms if m.topic == f"{R}/error"], "the clash said", 3 * WAIT
        )[0]
        assert said["code"] == "duplicate" and said["other"]["instance"] == held["instance"]
        word = watcher.wait(
            lambda ms: [m for m in ms if m.topic == f"{R}/info" and "standby" in m.json()],
            "the standby's word on …/info",
        )[0]
        assert not word.retain
        assert word.json()["standby"] == held["instance"]
        assert word.json()["pid"] == standby.proc.pid and "now" not in word.json()

        before = _gone_abruptly(broker)
        standby.proc.send_signal(signal.SIGKILL)
        standby.proc.wait(WAIT)
        # the broker saw the standby's connection end (and sent its will, had it one) …
        wait_until(lambda: _gone_abruptly(broker) - before, "the broker to drop the standby")
        # … and whatever it sent reaches the watcher before a message sent after it
        status.send(marker, b"after the kill")
        status.first(marker)
        assert [m.payload for m in status.on(f"{R}/status")] == [b"online"]

        # the holder still holds, and answers
        watcher.send(f"{R}/command", {"cmd": "adjust_hero", "hero": "aria", "favor": 1,
                                      "transaction": "after"})  # fmt: skip
        assert watcher.reply(f"{R}/reply", "after")["status"] == "ok"
        assert [m.payload for m in status.on(f"{R}/status")] == [b"online"]
    finally:
        for service in (holder, standby):
            if service is not None and service.proc.poll() is None:
                service.proc.send_signal(signal.SIGTERM)
                service.proc.wait(30)
            if service is not None:
                service.close()
        for w in (watcher, status):
            if w is not None:
                w.close()
