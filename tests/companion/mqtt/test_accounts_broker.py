"""`rhuna-table accounts` against a real Mosquitto: its password file and ACL decide who may do what.

Each test starts a Mosquitto of its own (free port, own config) with the generated
``passwd`` and ``acl``, and the real table loop + MQTT bridge logged in as the
table's service account. Clients speak MQTT 5, so the broker's refusal comes back
as a reason code (0x87 Not authorized) instead of a silent drop.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.ops import accounts as A
from tests.harness import BEGIN, ROOT, missing_real_part, wait_until
from tests.harness.broker import WAIT, running_broker, table_on_mqtt

NOT_AUTHORIZED = 0x87
#: a second table on the same broker (the example table's loop, under another id)
ANNEX = "annex"


class Client5:
    """An MQTT 5 client that reports the broker's reason code for each publish and subscribe."""

    def __init__(self, port: int, username: str | None, password: str | None) -> None:
        self.connected = threading.Event()
        self.connect_reason: Any = None
        self.acks: dict[int, int] = {}
        self.subacks: dict[int, list[int]] = {}
        self.messages: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if username is not None:
            c.username_pw_set(username, password)
        c.on_connect = self._on_connect
        c.on_publish = self._on_publish
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self.client = c
        c.connect("127.0.0.1", port, keepalive=10)
        c.loop_start()
        assert self.connected.wait(WAIT), "no CONNACK"

    def _on_connect(self, c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connect_reason = reason
        self.connected.set()

    def _on_publish(self, c: Any, u: Any, mid: int, reason: Any, props: Any) -> None:
        with self.cond:
            self.acks[mid] = int(reason.value)
            self.cond.notify_all()

    def _on_subscribe(self, c: Any, u: Any, mid: int, reasons: Any, props: Any) -> None:
        with self.cond:
            self.subacks[mid] = [int(r.value) for r in reasons]
            self.cond.notify_all()

    def _on_message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    @property
    def refused_login(self) -> bool:
        return bool(self.connect_reason.is_failure)

    def publish(self, topic: str, payload: Any, retain: bool = False) -> int:
        """Publish at QoS 1 and return the PUBACK's reason code."""
        props = Properties(PacketTypes.PUBLISH)
        body = json.dumps(payload)
        info = self.client.publish(topic, body, qos=1, retain=retain, properties=props)
        with self.cond:
            assert self.cond.wait_for(lambda: info.mid in self.acks, WAIT), "no PUBACK"
            return self.acks[info.mid]

    def subscribe(self, topic: str) -> int:
        _, mid = self.client.subscribe(topic, qos=1)
        with self.cond:
            assert self.cond.wait_for(lambda: mid in self.subacks, WAIT), "no SUBACK"
            return self.subacks[mid][0]

    def wait_message(self, topic: str, pred: Any = lambda p: True) -> Any:
        """The first message on ``topic`` that ``pred`` accepts: JSON decoded, else text."""

        def decode(payload: bytes) -> Any:
            try:
                return json.loads(payload)
            except ValueError:
                return payload.decode()

        def found() -> Any:
            return next(
                (decode(p) for t, p in self.messages if t == topic and pred(decode(p))), None
            )

        with self.cond:
            assert self.cond.wait_for(found, WAIT), (
                f"nothing on {topic}: {[t for t, _ in self.messages]}"
            )
            return found()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@contextmanager
def client(port: int, username: str | None, password: str | None = None) -> Iterator[Client5]:
    c = Client5(port, username, password)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def accounts(tmp_path: Path) -> tuple[Path, A.Accounts]:
    folder = tmp_path / "mqtt"
    acc = A.add_table(A.add_table(A.Accounts(), "example"), ANNEX)
    A.save(folder, acc)
    return folder, acc


def acl_broker(tmp_path: Path, folder: Path) -> Any:
    extra = f"password_file {folder / A.PASSWD_FILE}\nacl_file {folder / A.ACL_FILE}\nallow_anonymous false"
    return running_broker(tmp_path / "broker", extra=extra)


def service(port: int, folder: Path, table: str, **more: Any) -> Any:
    """The real loop + bridge, logged in as the table's service account with its password file."""
    return table_on_mqtt(
        port,
        username=A.user(table, "service"),
        password_file=str(A.service_password_file(folder, table)),
        table_id=table,
        client_id=f"rhuna-{table}",
        **more,
    )


def test_the_hash_is_the_one_mosquitto_passwd_writes(tmp_path):
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        missing_real_part("mosquitto_passwd (Debian package mosquitto)")
    path = tmp_path / "pw"
    subprocess.run(
        [tool, "-c", "-b", str(path), "alice", "s3cret"], check=True, capture_output=True
    )
    name, stored = path.read_text().strip().split(":", 1)
    _, kind, iterations, salt, _ = stored.split("$")
    assert (name, kind, int(iterations)) == ("alice", "7", A.PBKDF2_ITERATIONS)
    import base64

    again = A.password_hash("s3cret", salt=base64.b64decode(salt), iterations=int(iterations))
    assert again == stored
    assert A.password_hash("s3cret!", salt=base64.b64decode(salt)) != stored


def test_every_account_logs_in_and_nobody_else(tmp_path, accounts):
    folder, acc = accounts
    with acl_broker(tmp_path, folder) as broker:
        for name, password in acc.logins():
            with client(broker.port, name, password) as c:
                assert not c.refused_login, name
        with client(broker.port, "example.gm", "not-the-password") as c:
            assert c.refused_login
        with client(broker.port, None) as c:
            assert c.refused_login  # no anonymous access


def test_a_viewer_cannot_command_the_table_and_the_state_is_unchanged(tmp_path, accounts):
    folder, acc = accounts
    with (
        acl_broker(tmp_path, folder) as broker,
        service(broker.port, folder, "example") as (bridge, run),
    ):
        assert bridge.wait_ready(WAIT)
        before = run.loop.state
        viewer = acc.tables["example"].viewers["overlay"]
        with client(broker.port, "example.overlay", viewer) as v:
            assert v.subscribe("rhuna/example/#") == 1  # it may read: QoS 1 granted
            v.wait_message("rhuna/example/state")
            for topic in ("rhuna/example/command", "rhuna/example/command/begin_performance"):
                assert v.publish(topic, {**BEGIN, "transaction": "v1"}) == NOT_AUTHORIZED
            # nor can it overwrite what the service publishes (a fake retained state)
            assert v.publish("rhuna/example/state", {"fake": True}) == NOT_AUTHORIZED
        # the gm can, so the refusal above was the ACL's and not a broken table
        with client(broker.port, "example.gm", acc.tables["example"].gm) as gm:
            gm.subscribe("rhuna/example/reply")
            assert gm.publish("rhuna/example/command", {**BEGIN, "transaction": "g1"}) == 0
            reply = gm.wait_message("rhuna/example/reply", lambda p: p.get("transaction") == "g1")
            assert reply["status"] == "ok"
        assert before.performance is None  # the viewer's begin_performance never reached the table
        wait_until(lambda: run.loop.state.performance is not None, "the gm's Performance (P19)")


def test_the_gm_alone_writes_the_overlays_switches_and_every_login_reads_them(tmp_path, accounts):
    """issue 42 item 1: ``…/overlay`` (the catalogue's GM_WRITES) is the WorldKeeper's setting,
    kept retained on the broker: the table's gm login may publish it, no viewer, no wall and
    no other table's gm may, and the table's viewers read what the gm set."""
    folder, acc = accounts
    topic = "rhuna/example/overlay"
    mine = {"card": "off", "hold": True, "skip": 0}
    with acl_broker(tmp_path, folder) as broker:
        t = acc.tables["example"]
        others = [(A.user("example", v), pw) for v, pw in sorted(t.viewers.items())]
        others += [(A.WALL, acc.wall), ("annex.gm", acc.tables[ANNEX].gm)]
        for name, password in others:
            with client(broker.port, name, password) as c:
                refused = c.publish(topic, {"card": "on", "hold": False, "skip": 9}, retain=True)
                assert refused == NOT_AUTHORIZED, name
        with client(broker.port, "example.gm", t.gm) as gm:
            gm.subscribe(topic)  # it reads back what it set, as gm.html shows it
            assert gm.publish(topic, mine, retain=True) == 0
            assert gm.wait_message(topic) == mine
        for name, password in others[:2]:  # the table's viewers: overlay, display
            with client(broker.port, name, password) as viewer:
                viewer.subscribe(topic)
                assert viewer.wait_message(topic) == mine, name
        # what the viewers tried never landed: the one retained copy is still the gm's
        with client(broker.port, "example.display", t.viewers["display"]) as again:
            again.subscribe(topic)
            assert again.wait_message(topic) == mine
            assert [p for tp, p in again.messages if tp == topic] == [json.dumps(mine).encode()]


def test_one_tables_gm_cannot_command_another_table(tmp_path, accounts):
    folder, acc = accounts
    with (
        acl_broker(tmp_path, folder) as broker,
        service(broker.port, folder, "example") as (b1, example),
        service(broker.port, folder, ANNEX) as (b2, annex),
    ):
        assert b1.wait_ready(WAIT) and b2.wait_ready(WAIT)
        with client(broker.port, "annex.gm", acc.tables[ANNEX].gm) as gm:
            assert gm.publish("rhuna/example/command", BEGIN) == NOT_AUTHORIZED
            assert gm.publish("rhuna/example/command/undo", {}) == NOT_AUTHORIZED
            # it cannot even watch it: Mosquitto 2.0 grants the SUBACK but checks read access on
            # every delivery, so example's retained status never arrives, annex's (asked after) does
            gm.subscribe("rhuna/example/status")
            gm.subscribe(f"rhuna/{ANNEX}/status")
            gm.wait_message(f"rhuna/{ANNEX}/status")
            assert [t for t, _ in gm.messages if t.startswith("rhuna/example/")] == []
            gm.subscribe(f"rhuna/{ANNEX}/reply")
            assert gm.publish(f"rhuna/{ANNEX}/command", {**BEGIN, "transaction": 7}) == 0
            assert gm.wait_message(f"rhuna/{ANNEX}/reply")["status"] == "ok"
        wait_until(lambda: annex.loop.state.performance is not None, "annex's Performance (P19)")
        assert example.loop.state.performance is None
        # a table's service cannot write another table's topics either
        with client(broker.port, "annex.service", acc.tables[ANNEX].service) as s:
            assert s.publish("rhuna/example/state", {"fake": True}) == NOT_AUTHORIZED
            assert s.publish("rhuna/example/command", BEGIN) == NOT_AUTHORIZED
        assert example.loop.state.performance is None


def test_the_wall_reads_every_table_and_writes_nothing(tmp_path, accounts):
    folder, acc = accounts
    with (
        acl_broker(tmp_path, folder) as broker,
        service(broker.port, folder, "example") as (b1, _),
        service(broker.port, folder, ANNEX) as (b2, _),
    ):
        assert b1.wait_ready(WAIT) and b2.wait_ready(WAIT)
        with client(broker.port, A.WALL, acc.wall) as wall:
            assert wall.subscribe("rhuna/+/status") == 1
            for table in ("example", ANNEX):
                assert wall.wait_message(f"rhuna/{table}/status") is not None
            assert wall.publish("rhuna/example/command", BEGIN) == NOT_AUTHORIZED


def test_home_assistant_discovery_still_works_under_the_acl(tmp_path, accounts):
    folder, acc = accounts
    with (
        acl_broker(tmp_path, folder) as broker,
        service(broker.port, folder, "example", homeassistant=True) as (bridge, _),
    ):
        assert bridge.wait_ready(WAIT)
        # HA itself is no account here; the example service's own login can read its configs back
        with client(broker.port, "example.service", acc.tables["example"].service) as s:
            assert s.subscribe("homeassistant/sensor/rhuna_example/+/config") == 1
            s.wait_message("homeassistant/sensor/rhuna_example/performance_total/config")


def test_a_rotated_password_locks_the_old_one_out_after_a_reload(tmp_path, accounts):
    folder, acc = accounts
    old = acc.tables["example"].viewers["overlay"]
    with acl_broker(tmp_path, folder) as broker:
        acc2, done = A.rotate(acc, "example", ("overlay",))
        assert done == ["example.overlay"]
        A.save(folder, acc2)
        broker.proc.send_signal(1)  # SIGHUP: Mosquitto re-reads its password file and ACL
        new = acc2.tables["example"].viewers["overlay"]

        def old_refused() -> bool:
            with client(broker.port, "example.overlay", old) as c:
                return c.refused_login

        wait_until(old_refused, "Mosquitto to re-read the password file")
        with client(broker.port, "example.overlay", new) as c:
            assert not c.refused_login
        with client(broker.port, "example.gm", acc.tables["example"].gm) as c:
            assert not c.refused_login  # the others keep theirs


def test_a_retained_command_is_never_run_and_is_cleared(tmp_path, accounts):
    """The ACL lets the gm publish commands, and MQTT lets any publish be retained: a retained
    command would run again at every reconnect of the service (an `undo` each time). The
    service ignores a command the broker kept, and clears it."""
    folder, acc = accounts
    with acl_broker(tmp_path, folder) as broker:
        with client(broker.port, "example.gm", acc.tables["example"].gm) as gm:
            info = gm.client.publish("rhuna/example/command", json.dumps(BEGIN), qos=1, retain=True)
            info.wait_for_publish(WAIT)
        with service(broker.port, folder, "example") as (bridge, run):
            assert bridge.wait_ready(WAIT)
            # the service has subscribed and been sent the kept command by now; then a live one
            with client(broker.port, "example.gm", acc.tables["example"].gm) as gm:
                gm.subscribe("rhuna/example/reply")
                assert gm.publish("rhuna/example/command", {"cmd": "undo", "transaction": 1}) == 0
                reply = gm.wait_message("rhuna/example/reply", lambda p: p.get("transaction") == 1)
            assert reply["status"] == "error"  # nothing to undo: the kept begin never ran
            assert run.loop.state.performance is None
        # and the broker no longer keeps it
        with client(broker.port, "example.gm", acc.tables["example"].gm) as gm:
            gm.subscribe("rhuna/example/command")
            gm.subscribe("rhuna/example/status")
            gm.wait_message("rhuna/example/status")
            assert [t for t, p in gm.messages if t == "rhuna/example/command" and p] == []


def test_the_service_publishes_its_command_vocabulary_retained(tmp_path, accounts):
    """``…/vocabulary`` is docs/commands.schema.json as the running service has it: the remote
    builds its forms from it, so a command the service gained appears without a new page."""
    folder, acc = accounts
    with acl_broker(tmp_path, folder) as broker, service(broker.port, folder, "example") as (b, _):
        assert b.wait_ready(WAIT)
        with client(broker.port, "example.gm", acc.tables["example"].gm) as gm:
            gm.subscribe("rhuna/example/vocabulary")
            published = gm.wait_message("rhuna/example/vocabulary")
    docs = json.loads((ROOT / "docs" / "commands.schema.json").read_text())
    assert published == docs
    assert {c["title"] for c in published["oneOf"]} >= {"add_combatant", "join_combat", "undo"}
