"""The ``[mqtt]`` table of the service config: which broker, which topics, how to log in.

Every key has a default that suits a Pi running its own Mosquitto, so a table
writes only what differs. The table is declared with :mod:`settings.checker`
(:data:`MQTT`, :data:`TLS`, :data:`HOMEASSISTANT`): a broken key raises
:class:`ConfigError` naming the file, the key and the fix — never a traceback.

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

from settings.checker import Key, Problems, Refused, Section, only
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
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: [mqtt] must be a table — write [mqtt] and its keys")
    problems = Problems(source)
    config = read_mqtt(data, problems)
    problems.raise_if_any()
    return config


# --- the table, declared --------------------------------------------------------------------

_D = MqttConfig()


_NAME = only(lambda v: isinstance(v, str) and v.strip())


def _client_id(value: Any) -> str:
    if len(_NAME(value).encode()) > 65535:
        raise Refused("too long", "use a short name such as rhuna-kitchen")
    return str(value)


def _text(key: str, what: str, default: str | None = None, parse: Any = _NAME) -> Key:
    fix = f'write {key} = "…"'
    return Key("any", what, default, problem="{value} is not a name", fix=fix, parse=parse)


def _whole(what: str, default: int, low: int, high: int) -> Key:
    return Key(
        "integer",
        what,
        default,
        minimum=low,
        maximum=high,
        problem=f"{{value}} is not a whole number from {low} to {high}",
        fix=f"use {default}",
    )


def _level_key(what: str, default: str | None) -> Key:
    return Key(
        "any",
        what,
        default,
        problem="{value} cannot be one level of an MQTT topic",
        fix="use letters, digits, '-', '_' or '.' only (no '/', '+', '#' or spaces)",
        parse=only(lambda v: isinstance(v, str) and _LEVEL.match(v)),
    )


def _file(key: str, what: str) -> Key:
    fix, parse = f'write {key} = "/path/…"', only(lambda v: isinstance(v, str) and v)
    return Key("any", what, problem="{value} is not a file name", fix=fix, parse=parse)


def _ha_topic(what: str, default: str) -> Key:
    fix = f"write a topic without '+' or '#', such as {default!r}"
    parse = only(lambda v: isinstance(v, str) and v and not any(c in v for c in "+#"))
    return Key("any", what, default, problem="{value} is not a topic", fix=fix, parse=parse)


#: ``[mqtt]``, in the order the example config documents it (an unknown key's listing)
MQTT = Section(
    "mqtt",
    {
        "enabled": Key("boolean", "whether the bridge runs", _D.enabled),
        "host": _text("host", "the broker's host", _D.host),
        "port": Key(
            "integer",
            "the broker's port",
            minimum=1,
            maximum=65535,
            problem="{value} is not a port number",
            fix="write a whole number from 1 to 65535, without quotes",
        ),
        "client_id": _text("client_id", "the client id", parse=_client_id),
        "username": _text("username", "the broker account"),
        "password": _text("password", "its password"),
        "password_file": _file("password_file", "a file holding the password"),
        "keepalive": _whole("seconds between keepalive pings", _D.keepalive, 5, 65535),
        "tls": Key(
            "any",
            "TLS to the broker",
            off=True,
            problem="expected true or a table, got {value}",
            fix="write [mqtt.tls]",
            parse=only(lambda v: isinstance(v, bool | dict)),
        ),
        "base_topic": _level_key("the topics' first level", _D.base_topic),
        "table_id": _level_key("the table's level of the topics", _D.table_id),
        "max_queued": _whole(
            "messages kept while the broker is away", _D.max_queued, 10, 1_000_000
        ),
        "reconnect_min_delay": _whole(
            "seconds before reconnecting", _D.reconnect_min_delay, 1, 3600
        ),
        "reconnect_max_delay": _whole(
            "seconds at most between attempts", _D.reconnect_max_delay, 1, 86400
        ),
        "homeassistant": Key(
            "any",
            "Home Assistant discovery",
            problem="expected true, false or a table, got {value}",
            fix="write homeassistant = true or [mqtt.homeassistant]",
            parse=only(lambda v: isinstance(v, bool | dict)),
        ),
    },
)
#: ``[mqtt.tls]``
TLS = Section(
    "mqtt.tls",
    {
        "ca": _file("tls.ca", "the certificate authority's certificate"),
        "cert": _file("tls.cert", "the client certificate"),
        "key": _file("tls.key", "the client certificate's key"),
        "insecure": Key("boolean", "skip the broker's hostname check", False),
    },
)
#: ``[mqtt.homeassistant]`` (a table of it is on unless ``enabled = false``)
HOMEASSISTANT = Section(
    "mqtt.homeassistant",
    {
        "enabled": Key("boolean", "Home Assistant discovery on", True),
        "discovery_topic": _ha_topic("HA's discovery prefix", _D.homeassistant.discovery_topic),
        "status_topic": _ha_topic("where HA says online", _D.homeassistant.status_topic),
    },
)


def read_mqtt(data: dict[str, Any], problems: Problems) -> MqttConfig:
    """Check ``[mqtt]`` into ``problems`` (unknown keys first, then the keys in the order the
    bridge needs them); with a problem, the defaults stand in for the wrong keys."""
    source = problems.file
    here = Path(source)
    base = here.parent if here.suffix and not source.startswith("<") else Path.cwd()
    for name in data:
        if name not in MQTT.keys:
            problems.add(f"mqtt.{name}", *MQTT.unknown(name))

    def get(name: str) -> tuple[Any, bool]:
        return MQTT.value(data, name, problems)

    password = get("password")[0]
    if "password_file" in data:
        if password is not None:
            problems.add(
                "mqtt.password_file", "given together with password", "keep only one of the two"
            )
        password = _secret(data, base, problems)
    username = get("username")[0]
    if password is not None and username is None:
        problems.add("mqtt.password", "a password without a username", "add username = …")
    low, low_ok = get("reconnect_min_delay")
    high, high_ok = get("reconnect_max_delay")
    if low_ok and high_ok and high < low:
        problems.add(
            "mqtt.reconnect_max_delay",
            f"{high} s is shorter than reconnect_min_delay ({low} s)",
            "make it at least reconnect_min_delay",
        )
    first = {k: get(k)[0] for k in ("enabled", "host", "port", "client_id", "keepalive")}
    tls = _tls(get("tls")[0], base, problems)
    last = {k: get(k)[0] for k in ("base_topic", "table_id", "max_queued")}
    return MqttConfig(
        **first,
        username=username,
        password=password,
        tls=tls,
        **last,
        reconnect_min_delay=low,
        reconnect_max_delay=high,
        homeassistant=_homeassistant(get("homeassistant")[0], problems),
    )


def _existing(
    section: Section, data: dict[str, Any], name: str, base: Path, problems: Problems
) -> tuple[Path | None, bool]:
    """A file key's path (relative: from ``base``), which must exist; (None, True): not given."""
    value, ok = section.value(data, name, problems)
    if not ok or value is None:
        return None, ok
    path = Path(value).expanduser()
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        problems.add(
            f"{section.name}.{name}", f"{path} does not exist", "give the path of an existing file"
        )
        return None, False
    return path, True


def _secret(data: dict[str, Any], base: Path, problems: Problems) -> str | None:
    path, _ = _existing(MQTT, data, "password_file", base, problems)
    if path is None:
        return None
    try:
        secret = read_text(path).strip()
    except OSError as e:
        problems.add(
            "mqtt.password_file", f"cannot read {path} ({e.strerror})", "check its permissions"
        )
        return None
    except ConfigError as e:  # not UTF-8: the message names the file and says what to do
        problem, _, fix = str(e).partition(" — ")
        problems.add("mqtt.password_file", problem, fix)
        return None
    if not secret:
        problems.add("mqtt.password_file", f"{path} is empty", "write the password in it")
        return None
    return secret


def _tls(value: Any, base: Path, problems: Problems) -> TlsConfig | None:
    """``tls = true`` or ``[mqtt.tls]``; its first wrong file stops it (None)."""
    if value is None or value is True:
        return None if value is None else TlsConfig()
    for name in value:
        if name not in TLS.keys:
            problems.add(f"mqtt.tls.{name}", *TLS.unknown(name))
    cert, ok = _existing(TLS, value, "cert", base, problems)
    if not ok:
        return None
    key, ok = _existing(TLS, value, "key", base, problems)
    if not ok:
        return None
    if key is not None and cert is None:
        problems.add("mqtt.tls.key", "a client key without tls.cert", "add tls.cert = …")
        return None
    ca, ok = _existing(TLS, value, "ca", base, problems)
    if not ok:
        return None
    insecure, ok = TLS.value(value, "insecure", problems)
    if not ok:
        return None
    return TlsConfig(ca=ca, cert=cert, key=key, insecure=insecure)


def _homeassistant(value: Any, problems: Problems) -> HomeAssistantConfig:
    """``homeassistant = true|false`` or its table; its first problem stops it (the defaults)."""
    if value is None or isinstance(value, bool):
        return HomeAssistantConfig() if value is None else HomeAssistantConfig(enabled=value)
    for name in value:
        if name not in HOMEASSISTANT.keys:
            problems.add(f"mqtt.homeassistant.{name}", *HOMEASSISTANT.unknown(name))
    read = {}
    for name in ("discovery_topic", "status_topic", "enabled"):
        read[name], ok = HOMEASSISTANT.value(value, name, problems)
        if not ok:
            return HomeAssistantConfig()
    read["discovery_topic"] = read["discovery_topic"].rstrip("/")
    return HomeAssistantConfig(**read)
