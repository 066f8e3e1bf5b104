"""The ``[mqtt]`` table of the service config: which broker, which topics, how to log in.

Every key has a default that suits a Pi running its own Mosquitto, so a table
writes only what differs. A broken key raises :class:`ConfigError` naming the
file, the key and the fix — never a traceback.

>>> cfg = load_mqtt_config({"host": "broker.lan", "homeassistant": True}, "rhuna.toml")
>>> cfg.host, cfg.broker_port, cfg.homeassistant.enabled, cfg.homeassistant.discovery_topic
('broker.lan', 1883, True, 'homeassistant')
>>> load_mqtt_config({"port": "1883", "enabeld": True}, "rhuna.toml")
Traceback (most recent call last):
    ...
settings.checker.ConfigErrors: rhuna.toml: mqtt.enabeld: unknown key — did you mean enabled? [mqtt] takes: enabled, host, port, client_id, username, password, password_file, keepalive, tls, base_topic, table_id, max_queued, reconnect_min_delay, reconnect_max_delay, homeassistant
rhuna.toml: mqtt.port: '1883' is not a port number — write a whole number from 1 to 65535, without quotes

Every problem of the section is listed (:mod:`settings.checker`), not only the first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from settings.checker import Key, Problems, Section
from settings.checker import show as _show
from settings.errors import ConfigError
from settings.textfile import read_text

#: one MQTT topic level we build topics from: no wildcards, no separators, no '$' at the start
_LEVEL = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """TLS to the broker; with no ``ca`` the system's certificate authorities are trusted."""

    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    #: skip the broker hostname check (a self-signed test broker); the chain is still checked
    insecure: bool = False


@dataclass(frozen=True, slots=True)
class HomeAssistantConfig:
    """Home Assistant MQTT discovery (off unless asked for)."""

    enabled: bool = False
    #: HA's discovery prefix (its ``discovery_prefix`` setting)
    discovery_topic: str = "homeassistant"
    #: where HA says ``online`` after it restarts: discovery and state are sent again then
    status_topic: str = "homeassistant/status"


@dataclass(frozen=True, slots=True)
class MqttConfig:
    """Broker, identity, topics and queueing of the MQTT bridge (see docs/mqtt.md)."""

    enabled: bool = True
    host: str = "localhost"
    #: None: 1883, or 8883 with TLS
    port: int | None = None
    #: None: ``rhuna-<table id>``; two services on one broker need two ids
    client_id: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    keepalive: int = 60
    tls: TlsConfig | None = None
    #: topics are ``<base_topic>/<table id>/…``
    base_topic: str = "rhuna"
    #: None: the table file's id
    table_id: str | None = None
    #: messages kept while the broker is away (and in flight while it is there); past it the
    #: oldest waiting events/replies are dropped (retained state is republished whole anyway)
    max_queued: int = 1000
    #: seconds before the first reconnect attempt; doubles up to ``reconnect_max_delay``
    reconnect_min_delay: int = 1
    reconnect_max_delay: int = 60
    homeassistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)

    @property
    def broker_port(self) -> int:
        if self.port is not None:
            return self.port
        return 8883 if self.tls is not None else 1883


def load_mqtt_config(data: Any, source: str = "<config>") -> MqttConfig:
    """Check the ``[mqtt]`` table (parsed TOML) key by key; ``source`` is the file's name.

    Relative TLS and password-file paths are read beside ``source`` when it is a file.
    """
    return _Reader(source).config(data)


#: every key, in the order the example config documents them (suggestions follow it)
_ORDER = (
    "enabled",
    "host",
    "port",
    "client_id",
    "username",
    "password",
    "password_file",
    "keepalive",
    "tls",
    "base_topic",
    "table_id",
    "max_queued",
    "reconnect_min_delay",
    "reconnect_max_delay",
    "homeassistant",
    "ca",
    "cert",
    "key",
    "insecure",
    "discovery_topic",
    "status_topic",
)
_TLS = {"ca", "cert", "key", "insecure"}
_HA = {"enabled", "discovery_topic", "status_topic"}
#: the [mqtt] table's own keys: _ORDER up to the sub-tables' keys
_TOP = set(_ORDER[: _ORDER.index("ca")])


class _Reader:
    """Reads one ``[mqtt]`` table, naming each key in its errors."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems = Problems(source)
        here = Path(source)
        self.base = here.parent if here.suffix and not source.startswith("<") else Path.cwd()

    def fail(self, key: str, problem: str, fix: str) -> ConfigError:
        return ConfigError(f"{self.source}: mqtt.{key}: {problem} — {fix}")

    def known(self, data: dict[str, Any], known: set[str], where: str) -> None:
        order = [k for k in _ORDER if k in known] or sorted(known)
        section = Section(f"mqtt.{where}".rstrip("."), {k: Key("any", k) for k in order})
        for name in data:
            if name not in known:
                self.problems.add(f"mqtt.{where}{name}", *section.unknown(name))

    def each(self, read: Any, default: Any) -> Any:
        """One key's value, or (its problem kept) the default: every problem is listed."""
        try:
            return read()
        except ConfigError as e:
            self.problems.absorb(e)
            return default

    def config(self, data: Any) -> MqttConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"{self.source}: [mqtt] must be a table — write [mqtt] and its keys")
        self.problems = Problems(self.source)
        self.known(data, _TOP, "")
        d = MqttConfig()
        config = self.each(lambda: self._config(data, d), d)
        self.problems.raise_if_any()
        return config  # type: ignore[no-any-return]

    def _config(self, data: dict[str, Any], d: MqttConfig) -> MqttConfig:
        each = self.each
        password = each(lambda: self.optional_text(data, "password"), None)
        if "password_file" in data:
            if password is not None:
                self.problems.add(
                    "mqtt.password_file", "given together with password", "keep only one of the two"
                )
            password = each(lambda: self.read_secret(data["password_file"]), None)
        username = each(lambda: self.optional_text(data, "username"), None)
        if password is not None and username is None:
            self.problems.add("mqtt.password", "a password without a username", "add username = …")
        low = each(
            lambda: self.whole(data, "reconnect_min_delay", d.reconnect_min_delay, 1, 3600), 1
        )
        high = each(
            lambda: self.whole(data, "reconnect_max_delay", d.reconnect_max_delay, 1, 86400), 86400
        )
        if high < low:
            self.problems.add(
                "mqtt.reconnect_max_delay",
                f"{high} s is shorter than reconnect_min_delay ({low} s)",
                "make it at least reconnect_min_delay",
            )
        return MqttConfig(
            enabled=each(lambda: self.flag(data, "enabled", d.enabled), d.enabled),
            host=each(lambda: self.text(data, "host", d.host), d.host),
            port=each(lambda: self.port(data), None),
            client_id=each(lambda: self.client_id(data), None),
            username=username,
            password=password,
            keepalive=each(lambda: self.whole(data, "keepalive", d.keepalive, 5, 65535), 60),
            tls=each(lambda: self.tls(data.get("tls")), None),
            base_topic=each(lambda: self.topic_level(data, "base_topic", d.base_topic), "rhuna"),
            table_id=each(lambda: self.topic_level(data, "table_id", None), None),
            max_queued=each(
                lambda: self.whole(data, "max_queued", d.max_queued, 10, 1_000_000), 1000
            ),
            reconnect_min_delay=low,
            reconnect_max_delay=high,
            homeassistant=each(
                lambda: self.homeassistant(data.get("homeassistant")), d.homeassistant
            ),
        )

    # --- one key each -----------------------------------------------------------

    def flag(self, data: dict[str, Any], key: str, default: bool, where: str = "") -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(
                f"{where}{key}", f"{_show(value)} is not true or false", "write true or false"
            )
        return value

    def text(self, data: dict[str, Any], key: str, default: str) -> str:
        value = data.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"{_show(value)} is not a name", f'write {key} = "…"')
        return value

    def optional_text(self, data: dict[str, Any], key: str) -> str | None:
        return self.text(data, key, "") if key in data else None

    def whole(self, data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(
                key, f"{_show(value)} is not a whole number from {low} to {high}", f"use {default}"
            )
        return value

    def port(self, data: dict[str, Any]) -> int | None:
        if "port" not in data:
            return None
        value = data["port"]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
            raise self.fail(
                "port",
                f"{_show(value)} is not a port number",
                "write a whole number from 1 to 65535, without quotes",
            )
        return value

    def client_id(self, data: dict[str, Any]) -> str | None:
        if "client_id" not in data:
            return None
        value = self.text(data, "client_id", "")
        if len(value.encode()) > 65535:
            raise self.fail("client_id", "too long", "use a short name such as rhuna-kitchen")
        return value

    def topic_level(self, data: dict[str, Any], key: str, default: str | None) -> Any:
        if key not in data:
            return default
        value = data[key]
        if not isinstance(value, str) or not _LEVEL.match(value):
            raise self.fail(
                key,
                f"{_show(value)} cannot be one level of an MQTT topic",
                "use letters, digits, '-', '_' or '.' only (no '/', '+', '#' or spaces)",
            )
        return value

    def path(self, value: Any, key: str) -> Path:
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"{_show(value)} is not a file name", f'write {key} = "/path/…"')
        path = Path(value).expanduser()
        path = path if path.is_absolute() else self.base / path
        if not path.is_file():
            raise self.fail(key, f"{path} does not exist", "give the path of an existing file")
        return path

    def read_secret(self, value: Any) -> str:
        path = self.path(value, "password_file")
        try:
            secret = read_text(path).strip()
        except OSError as e:
            raise self.fail(
                "password_file", f"cannot read {path} ({e.strerror})", "check its permissions"
            ) from None
        except ConfigError as e:  # not UTF-8: the message names the file and says what to do
            problem, _, fix = str(e).partition(" — ")
            raise self.fail("password_file", problem, fix) from None
        if not secret:
            raise self.fail("password_file", f"{path} is empty", "write the password in it")
        return secret

    def tls(self, value: Any) -> TlsConfig | None:
        if value is None or value is False:
            return None
        if value is True:
            return TlsConfig()
        if not isinstance(value, dict):
            raise self.fail(
                "tls", f"expected true or a table, got {_show(value)}", "write [mqtt.tls]"
            )
        self.known(value, _TLS, "tls.")
        cert = self.path(value["cert"], "tls.cert") if "cert" in value else None
        key = self.path(value["key"], "tls.key") if "key" in value else None
        if key is not None and cert is None:
            raise self.fail("tls.key", "a client key without tls.cert", "add tls.cert = …")
        return TlsConfig(
            ca=self.path(value["ca"], "tls.ca") if "ca" in value else None,
            cert=cert,
            key=key,
            insecure=self.flag(value, "insecure", False, "tls."),
        )

    def homeassistant(self, value: Any) -> HomeAssistantConfig:
        if value is None:
            return HomeAssistantConfig()
        if isinstance(value, bool):
            return HomeAssistantConfig(enabled=value)
        if not isinstance(value, dict):
            raise self.fail(
                "homeassistant",
                f"expected true, false or a table, got {_show(value)}",
                "write homeassistant = true or [mqtt.homeassistant]",
            )
        self.known(value, _HA, "homeassistant.")
        d = HomeAssistantConfig()
        prefix = value.get("discovery_topic", d.discovery_topic)
        status = value.get("status_topic", d.status_topic)
        for key, topic in (("discovery_topic", prefix), ("status_topic", status)):
            if not isinstance(topic, str) or not topic or any(c in topic for c in "+#"):
                raise self.fail(
                    f"homeassistant.{key}",
                    f"{_show(topic)} is not a topic",
                    f"write a topic without '+' or '#', such as {getattr(d, key)!r}",
                )
        return HomeAssistantConfig(
            enabled=self.flag(value, "enabled", True, "homeassistant."),
            discovery_topic=prefix.rstrip("/"),
            status_topic=status,
        )
