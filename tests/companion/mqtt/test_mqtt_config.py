"""The [mqtt] config table: defaults a Pi with its own Mosquitto needs, errors naming file/key/fix."""

from __future__ import annotations

import tomllib

import pytest

from companion.mqtt.config import (
    HOMEASSISTANT,
    MQTT,
    TLS,
    HomeAssistantConfig,
    MqttConfig,
    load_mqtt_config,
)
from settings.checker import ConfigErrors, Section
from settings.errors import ConfigError


def test_an_empty_table_gives_the_defaults_of_a_pi_with_its_own_broker():
    cfg = load_mqtt_config({}, "rhuna.toml")
    assert cfg == MqttConfig()
    assert (cfg.enabled, cfg.host, cfg.broker_port, cfg.base_topic) == (
        True,
        "localhost",
        1883,
        "rhuna",
    )
    assert cfg.table_id is None and cfg.client_id is None and cfg.tls is None
    assert not cfg.homeassistant.enabled


def test_a_whole_table_from_toml(tmp_path):
    (tmp_path / "ca.crt").write_text("x")
    (tmp_path / "secret").write_text("hunter2\n")
    text = """
    [mqtt]
    host = "broker.lan"
    client_id = "rhuna-kitchen"
    username = "table"
    password_file = "secret"
    table_id = "kitchen"
    max_queued = 500
    reconnect_min_delay = 2
    reconnect_max_delay = 30
    [mqtt.tls]
    ca = "ca.crt"
    insecure = true
    [mqtt.homeassistant]
    discovery_topic = "ha"
    """
    source = tmp_path / "rhuna.toml"
    cfg = load_mqtt_config(tomllib.loads(text)["mqtt"], str(source))
    assert cfg.password == "hunter2" and cfg.username == "table"
    assert cfg.tls is not None and cfg.tls.ca == tmp_path / "ca.crt" and cfg.tls.insecure
    assert cfg.broker_port == 8883  # TLS without a port: the TLS port
    assert cfg.homeassistant.enabled and cfg.homeassistant.discovery_topic == "ha"
    assert (cfg.max_queued, cfg.reconnect_min_delay, cfg.reconnect_max_delay) == (500, 2, 30)
    assert "hunter2" not in repr(cfg)  # secrets stay out of logs


@pytest.mark.parametrize(
    ("data", "key", "fix"),
    [
        ({"port": "1883"}, "mqtt.port", "without quotes"),
        ({"port": 70000}, "mqtt.port", "1 to 65535"),
        ({"hostname": "x"}, "mqtt.hostname", "did you mean host? [mqtt] takes: enabled, host"),
        ({"password": "p"}, "mqtt.password", "add username"),
        ({"table_id": "a/b"}, "mqtt.table_id", "no '/'"),
        ({"base_topic": "rhuna/#"}, "mqtt.base_topic", "no '/', '+', '#'"),
        ({"max_queued": 0}, "mqtt.max_queued", "use 1000"),
        (
            {"reconnect_min_delay": 10, "reconnect_max_delay": 5},
            "mqtt.reconnect_max_delay",
            "at least",
        ),
        ({"tls": {"ca": "missing.crt"}}, "mqtt.tls.ca", "existing file"),
        (
            {"tls": {"cafile": "x"}},
            "mqtt.tls.cafile",
            "did you mean ca? [mqtt.tls] takes: ca, cert, key, insecure",
        ),
        ({"tls": "yes"}, "mqtt.tls", "[mqtt.tls]"),
        ({"homeassistant": "on"}, "mqtt.homeassistant", "homeassistant = true"),
        (
            {"homeassistant": {"discovery_topic": "ha/#"}},
            "mqtt.homeassistant.discovery_topic",
            "without '+'",
        ),
        ({"enabled": "yes"}, "mqtt.enabled", "true or false"),
        ({"keepalive": 1}, "mqtt.keepalive", "use 60"),
    ],
)
def test_a_broken_key_names_the_file_the_key_and_the_fix(tmp_path, data, key, fix):
    with pytest.raises(ConfigError) as e:
        load_mqtt_config(data, str(tmp_path / "rhuna.toml"))
    message = str(e.value)
    assert message.startswith(f"{tmp_path / 'rhuna.toml'}: {key}: ")
    assert fix in message.split(" — ", 1)[1]


def test_not_a_table_is_a_clear_error():
    with pytest.raises(ConfigError, match=r"rhuna.toml: \[mqtt\] must be a table"):
        load_mqtt_config(["host"], "rhuna.toml")


def test_password_file_must_exist_and_hold_a_password(tmp_path):
    (tmp_path / "empty").write_text("\n")
    source = str(tmp_path / "rhuna.toml")
    with pytest.raises(ConfigError, match=r"password_file: .*empty is empty"):
        load_mqtt_config({"username": "u", "password_file": "empty"}, source)
    with pytest.raises(ConfigError, match="keep only one"):
        load_mqtt_config({"username": "u", "password": "p", "password_file": "empty"}, source)


def test_the_table_is_declared_with_the_settings_checker_and_its_defaults_are_the_configs():
    d = MqttConfig()
    assert all(isinstance(s, Section) for s in (MQTT, TLS, HOMEASSISTANT))
    plain = [k for k in MQTT.keys if hasattr(d, k) and k not in ("tls", "homeassistant")]
    assert {k: MQTT.keys[k].default for k in plain} == {k: getattr(d, k) for k in plain}
    ha = HomeAssistantConfig()
    assert HOMEASSISTANT.keys["discovery_topic"].default == ha.discovery_topic
    assert HOMEASSISTANT.keys["status_topic"].default == ha.status_topic


def test_a_tls_table_stops_at_its_first_wrong_file(tmp_path):
    with pytest.raises(ConfigErrors) as e:
        load_mqtt_config(
            {"tls": {"cafile": "x", "ca": "missing.crt", "insecure": 3}, "keepalive": 1},
            str(tmp_path / "rhuna.toml"),
        )
    assert [m.split(": ")[1] for m in e.value.errors] == [
        "mqtt.keepalive",
        "mqtt.tls.cafile",
        "mqtt.tls.ca",  # and not its insecure
    ]
