"""The Pi's shipped Mosquitto config (systemd/mosquitto-rhuna.conf) with the generated accounts.

The snippet runs in a real Mosquitto with only its ports and paths moved into the
test's folder (as install.sh moves the paths), so what the Pi runs is what is tested:
both listeners refuse anonymous clients, the websockets one serves the pages and
enforces the ACL, and install.sh sets the accounts up.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import urllib.request

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.config import load_config
from companion.mqtt import load_mqtt_config
from companion.ops import accounts as A
from tests.harness import ROOT
from tests.harness.broker import WAIT

INSTALL = ROOT / "systemd" / "install.sh"


def login(
    port: int, user: str | None, password: str | None, *, ws: bool
) -> tuple[mqtt.Client, bool]:
    """Connect (MQTT 5); returns the client and whether the broker accepted the login."""
    done, result = threading.Event(), {}
    c = mqtt.Client(
        CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, transport="websockets" if ws else "tcp"
    )
    if user is not None:
        c.username_pw_set(user, password)

    def on_connect(client, u, flags, reason, props):
        result["ok"] = not reason.is_failure
        done.set()

    c.on_connect = on_connect
    c.connect("127.0.0.1", port, keepalive=10)
    c.loop_start()
    assert done.wait(WAIT), "no CONNACK"
    return c, result["ok"]


def close(c: mqtt.Client) -> None:
    c.disconnect()
    c.loop_stop()


@pytest.mark.parametrize("ws", [False, True], ids=["plain", "websockets"])
def test_both_listeners_refuse_anonymous_and_accept_the_accounts(pi_broker, ws):
    acc, plain, wsport = pi_broker
    port = wsport if ws else plain
    c, ok = login(port, None, None, ws=ws)
    close(c)
    assert not ok
    c, ok = login(port, "example.overlay", acc.tables["example"].viewers["overlay"], ws=ws)
    close(c)
    assert ok


def test_over_websockets_a_viewer_is_refused_the_command_topic(pi_broker):
    acc, _, ws = pi_broker
    c, ok = login(ws, "example.overlay", acc.tables["example"].viewers["overlay"], ws=True)
    assert ok
    acks, cond = {}, threading.Condition()

    def on_publish(client, u, mid, reason, props):
        with cond:
            acks[mid] = int(reason.value)
            cond.notify_all()

    c.on_publish = on_publish
    info = c.publish("rhuna/example/command", json.dumps({"cmd": "undo"}), qos=1)
    with cond:
        assert cond.wait_for(lambda: info.mid in acks, WAIT)
    close(c)
    assert acks[info.mid] == 0x87  # Not authorized


def test_the_websockets_listener_serves_the_pages(pi_broker):
    _, _, ws = pi_broker
    with urllib.request.urlopen(f"http://127.0.0.1:{ws}/overlay.html", timeout=WAIT) as r:
        assert b"<title>overlay</title>" in r.read()


def test_set_login_gives_a_fresh_config_the_services_account(tmp_path):
    config = tmp_path / "rhuna.toml"
    config.write_text((ROOT / "examples" / "rhuna.toml").read_text())
    (tmp_path / "table.toml").write_text((ROOT / "examples" / "table.toml").read_text())
    folder = tmp_path / "mqtt"
    from companion.cli import main

    assert (
        main(["accounts", "--dir", str(folder), "add", "--config", str(config), "--set-login"]) == 0
    )
    mqtt_cfg = load_mqtt_config(load_config(config).mqtt, str(config))
    acc = A.load(folder)
    assert mqtt_cfg.username == "example.service"
    assert mqtt_cfg.password == acc.tables["example"].service
    # a second run (install.sh on an update) changes nothing
    before = config.read_text()
    assert (
        main(["accounts", "--dir", str(folder), "add", "--config", str(config), "--set-login"]) == 0
    )
    assert config.read_text() == before
    assert A.load(folder).tables["example"].service == acc.tables["example"].service


def test_set_login_leaves_a_config_with_its_own_login_alone(tmp_path):
    config = tmp_path / "rhuna.toml"
    config.write_text('[mqtt]\nusername = "someone"\npassword = "theirs"\n')
    message = A.set_login(config, "example.service", tmp_path / "p")
    assert "left as it is" in message and "example.service" in message
    assert config.read_text() == '[mqtt]\nusername = "someone"\npassword = "theirs"\n'


def test_install_dry_run_sets_up_the_broker_and_its_accounts_also_on_an_update(tmp_path):
    prefix, config = tmp_path / "opt", tmp_path / "etc"
    result = subprocess.run(
        ["sh", str(INSTALL), "--dry-run", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        env={**os.environ, "CONFIG_DIR": str(config), "SERVICE_USER": "rhuna-test-nobody"},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        f"rhuna-table accounts --dir {config}/mqtt add --config {config}/rhuna.toml --set-login"
        in out
    )
    assert (
        "would write: /etc/mosquitto/conf.d/rhuna.conf (systemd/mosquitto-rhuna.conf with: " in out
    )
    assert f"s|/etc/rhuna-table|{config}|g; s|/opt/rhuna-table|{prefix}|g" in out
    assert "would run: systemctl restart mosquitto.service" in out
    assert f"would run: cp -R {ROOT}/web/dist/. {prefix}/web/" in out  # the pages for http_dir
    assert not config.exists()
    # an update (the config exists) also gets the login if it has none: the broker refuses
    # anonymous clients from now on (set_login never changes a login the config has)
    config.mkdir()
    (config / "rhuna.toml").write_text("# mine\n")
    again = subprocess.run(
        ["sh", str(INSTALL), "--dry-run", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        env={**os.environ, "CONFIG_DIR": str(config), "SERVICE_USER": "rhuna-test-nobody"},
        timeout=60,
    )
    assert f"add --config {config}/rhuna.toml --set-login" in again.stdout
    assert (config / "rhuna.toml").read_text() == "# mine\n"
