"""A real Mosquitto for the MQTT tests, a paho client that watches like an overlay, a running loop.

Each broker runs on a free port on 127.0.0.1 with its own config file, so the
tests never touch (or depend on) a system broker on 1883. Waits are
event-driven: every helper wakes as soon as what it waits for arrives.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

import engine
from companion.mqtt import MqttBridge, load_mqtt_config
from companion.ops import accounts as A
from companion.table.loop import TableLoop
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE, ROOT, WAIT, missing_real_part, wait_until

#: the example table's topics, and the commands most tests start a Performance with (P19, P1–P4)
R = "rhuna/example"


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None
    )
    if found is None:
        missing_real_part("Mosquitto (Debian package mosquitto)")
    assert found is not None
    return found


#: every port :func:`free_port` has handed out in this process
_HANDED: set[int] = set()


def free_port() -> int:
    """A free port of 127.0.0.1 that this process has not been given before.

    The kernel may give a bind to port 0 the port that the previous one just closed, so two
    calls in a row (a broker's plain and websockets listeners) could get the same port, and the
    second listener then is the first: that failed a fresh-clone CI run (a websockets login
    reached the plain listener). A port handed out once is never handed out again here.
    """
    for _ in range(1000):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _HANDED:
            _HANDED.add(port)
            return port
    raise RuntimeError("no free port of 127.0.0.1 left that this process was not given before")


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a socket listening on ``port`` (Linux's /proc/net/tcp
    and tcp6, state 0A, whose inode is one of the process's descriptors). tcp6 too: Debian's
    Mosquitto 2.0 binds a websockets listener through libwebsockets on ``*`` (IPv6, dual
    stack), whatever address its ``listener`` line names."""
    inodes = set()
    rows: list[str] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            rows += Path(table).read_text().splitlines()[1:]
    for row in rows:
        f = row.split()
        local, state, inode = f[1], f[3], f[9]
        if state == "0A" and int(local.rpartition(":")[2], 16) == port:
            inodes.add(f"socket:[{inode}]")
    if not inodes:
        return False
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(fd) in inodes:
                return True
    return False


class Broker:
    """A Mosquitto 2.x of the test's own: ``start``/``stop`` keep the port and the data dir."""

    def __init__(self, workdir: Path, *, port: int | None = None, extra: str = "") -> None:
        self.binary = mosquitto_binary()
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self._port_given = port is not None
        self.port = port or free_port()
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.conf = self.dir / "mosquitto.conf"

    def config_text(self) -> str:
        lines = [
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous true" if "password_file" not in self.extra else "",
            "persistence true",  # sessions and retained messages survive a restart
            f"persistence_location {self.dir}/",
            f"log_dest file {self.dir}/mosquitto.log",
            "log_type error",
            "log_type warning",
            "log_type notice",
            self.extra,
        ]
        if os.getuid() == 0:
            lines.append("user root")  # else it drops to 'mosquitto', who cannot read tmp_path
        return "\n".join(lines) + "\n"

    def ports(self) -> list[int]:
        """Every port this broker listens on: its configuration's ``listener`` lines."""
        return [int(p) for p in re.findall(r"^listener (\d+)", self.config_text(), re.M)]

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> Broker:
        """Start it and return once *this* Mosquitto listens on its port. A port that answers
        is not proof: between ``free_port`` closing its probe and Mosquitto's bind, a test on
        another xdist worker may take the same port for its own broker, and a test that then
        talked to that one saw nothing of its own (``got []``). A broker whose first port was
        taken so is started again on another (a port given by the caller is kept)."""
        if self.running:
            # a second Mosquitto on this config would be refused the ports (or, on a new
            # plain port, serve beside the first): the first then ran on, orphaned, and a
            # page a test meant to see "offline" stayed live (stop 49's CI run)
            pytest.fail(f"mosquitto on port {self.port} is running already: stop it first")
        for attempt in range(5):
            taken = self._start_once()
            if not taken:
                return self
            if self._port_given or attempt == 4:
                pytest.fail(f"mosquitto: port {self.port} is another process's: {taken}")
            self.port = free_port()
        raise AssertionError("unreachable")

    def _start_once(self) -> str:
        """'' once this process listens on the port; why not, when another one holds it."""
        self.conf.write_text(self.config_text())
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                log = self.dir / "mosquitto.log"
                said = err + (log.read_text() if log.exists() else "")
                self.proc = None
                if "Address already in use" in said:
                    return said.strip().splitlines()[-1]
                pytest.fail(f"mosquitto exited: {said}")
            if all(listens(self.proc.pid, port) for port in self.ports()):
                return ""  # every listener, not the first alone: the websockets one (the
                # pages' server) is bound after it, and a page opened in between was refused
            time.sleep(0.02)  # the poll of a wait for its listener (a deadline above)
        self.stop()  # not left running behind the failure
        pytest.fail(f"mosquitto did not listen on port {self.port}")

    def stop(self) -> None:
        """A clean stop (SIGTERM): Mosquitto saves its persistence file. Returns once the
        process is reaped, so its port is closed (the next start may bind it again)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None


@contextmanager
def running_broker(workdir: Path, **kw: Any) -> Iterator[Broker]:
    broker = Broker(workdir, **kw).start()
    try:
        yield broker
    finally:
        broker.stop()


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)


class Watcher:
    """A paho client that records everything on its subscriptions (an overlay, or HA)."""

    def __init__(
        self,
        port: int,
        topics: list[str],
        *,
        client_id: str = "",
        persistent: bool = False,
        **login: Any,
    ) -> None:
        self.messages: list[Message] = []
        self.cond = threading.Condition()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=not persistent,
        )
        if login.get("username"):
            self.client.username_pw_set(login["username"], login.get("password"))
        if login.get("tls_ca"):
            self.client.tls_set(ca_certs=login["tls_ca"])
        self.client.reconnect_delay_set(1, 1)
        self.topics = topics

        def on_connect(client: mqtt.Client, u: Any, f: Any, rc: Any, p: Any) -> None:
            client.subscribe([(t, 1) for t in self.topics])

        def on_subscribe(client: mqtt.Client, u: Any, mid: Any, rcs: Any, p: Any) -> None:
            self.subscribed.set()

        def on_message(client: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
            with self.cond:
                self.messages.append(Message(msg.topic, bytes(msg.payload), bool(msg.retain)))
                self.cond.notify_all()

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        assert self.subscribed.wait(WAIT), "the watcher could not subscribe"

    def wait(
        self, predicate: Callable[[list[Message]], Any], what: str, timeout: float = WAIT
    ) -> Any:
        """Wait until ``predicate(messages)`` is truthy; return its value."""
        with self.cond:
            result = self.cond.wait_for(lambda: predicate(self.messages), timeout)
            assert result, f"timed out waiting for {what}; got {[m.topic for m in self.messages]}"
            return result

    def on(self, topic: str) -> list[Message]:
        with self.cond:
            return [m for m in self.messages if m.topic == topic]

    def first(self, topic: str, timeout: float = WAIT) -> Message:
        found = self.wait(lambda ms: [m for m in ms if m.topic == topic], topic, timeout)
        return found[0]  # type: ignore[no-any-return]

    def last(self, topic: str, timeout: float = WAIT) -> Message:
        found = self.wait(lambda ms: [m for m in ms if m.topic == topic], topic, timeout)
        return found[-1]  # type: ignore[no-any-return]

    def json_on(self, topic: str) -> list[Any]:
        return [m.json() for m in self.on(topic)]

    def send(self, topic: str, payload: Any) -> None:
        """Publish as this client (QoS 1); JSON-encodes anything but bytes and str."""
        body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        self.client.publish(topic, body, qos=1).wait_for_publish(WAIT)

    def reply(self, topic: str, transaction: Any) -> Any:
        """The reply (JSON) that echoes ``transaction``."""

        def found(ms: list[Message]) -> Any:
            for m in ms:
                if m.topic == topic and m.json().get("transaction") == transaction:
                    return m.json()
            return None

        return self.wait(found, f"the reply to {transaction!r}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def example_loop(table: Path = EXAMPLE_TABLE) -> TableLoop:
    state = engine.load_table(table)
    return TableLoop(state, TagRegistry.synthetic(state.tokens))


class RunningLoop:
    """The table loop stepped on a test thread, as the service runs it."""

    def __init__(self, loop: TableLoop) -> None:
        self.loop = loop
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=loop.run, args=(self.stop_flag, 0.02), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop_flag.set()
        self.thread.join(WAIT)


def bridge_config(port: int, **more: Any) -> Any:
    """The bridge's config for a test broker: fast reconnects, the table's own id."""
    data = {"host": "127.0.0.1", "port": port, "reconnect_min_delay": 1, "reconnect_max_delay": 2}
    data.update(more)
    return load_mqtt_config(data, "test-config.toml")


@contextmanager
def table_on_mqtt(
    port: int, seq: int = 0, table: Path = EXAMPLE_TABLE, **config: Any
) -> Iterator[tuple[MqttBridge, RunningLoop]]:
    """The example table's loop (or ``table``'s) running with a started bridge, torn down in
    order."""
    running = RunningLoop(example_loop(table))
    bridge = MqttBridge(bridge_config(port, **config), seq=seq)
    bridge.start(running.loop)
    try:
        yield bridge, running
    finally:
        bridge.stop()
        running.close()


def send(port: int, topic: str, payload: Any, *, retain: bool = False) -> None:
    """Publish one message as a separate client would (QoS 1, waits for the broker's ack)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", port)
    client.loop_start()
    body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    client.publish(topic, body, qos=1, retain=retain).wait_for_publish(WAIT)
    client.disconnect()
    client.loop_stop()


def retained_on(port: int, topics: list[str]) -> list[Message]:
    """Every retained message a new subscriber to ``topics`` is handed (an empty list: none),
    known to be all of them without a wait: the broker queues a subscription's retained
    messages before any message published after it, so they all come before a marker this
    subscriber publishes once subscribed (on a topic of its own)."""
    marker = f"rhuna-test/marker/{uuid.uuid4().hex}"
    late = Watcher(port, [*topics, marker])
    try:
        late.send(marker, "after the retained")
        late.first(marker)
        return [m for m in late.messages if m.topic != marker and m.retain]
    finally:
        late.close()


# --- the Pi's broker ------------------------------------------------------------------

#: the Mosquitto snippet the Pi runs (install.sh installs it)
PI_SNIPPET = ROOT / "systemd" / "mosquitto-rhuna.conf"


def pi_config(tmp_path: Path, folder: Path, web: Path, plain: int, ws: int) -> Path:
    """The Pi's snippet with its paths moved to ``folder`` (accounts) and ``web`` (http_dir), as
    install.sh moves them, and its listeners to ``plain`` and ``ws`` on 127.0.0.1."""
    text = PI_SNIPPET.read_text()
    text = text.replace("/etc/rhuna-table/mqtt", str(folder)).replace(
        "/opt/rhuna-table/web", str(web)
    )
    text = text.replace("listener 1883", f"listener {plain} 127.0.0.1")
    text = text.replace("listener 9001", f"listener {ws} 127.0.0.1")
    text += f"log_dest file {tmp_path}/mosquitto.log\n"
    if os.getuid() == 0:
        text += "user root\n"
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(text)
    return conf


@contextmanager
def running_pi_broker(tmp_path: Path) -> Iterator[tuple[A.Accounts, int, int]]:
    """The Pi's Mosquitto (systemd/mosquitto-rhuna.conf, :func:`pi_config`) with the generated
    accounts of one table, ``example``, and a stand-in overlay.html in ``tmp_path/web``; yields
    (the accounts, the plain port, the websockets port)."""
    folder, web = tmp_path / "mqtt", tmp_path / "web"
    web.mkdir()
    (web / "overlay.html").write_text("<!doctype html><title>overlay</title>")
    acc = A.add_table(A.Accounts(), "example")
    A.save(folder, acc)
    plain, ws = free_port(), free_port()
    conf = pi_config(tmp_path, folder, web, plain, ws)
    proc = subprocess.Popen([mosquitto_binary(), "-c", str(conf)], stderr=subprocess.PIPE)

    def listening(port: int) -> bool:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            return False
        return True

    try:
        for port in (plain, ws):
            wait_until(lambda p=port: listening(p), f"mosquitto to listen on {port}", poll=0.02)
        yield acc, plain, ws
    finally:  # reaped (its ports closed) before the next test, also when it never listened
        proc.terminate()
        try:
            proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
