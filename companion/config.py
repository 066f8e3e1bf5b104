"""The service's one config file (``rhuna.toml``): every key has a default, every error a fix.

Sections: ``[table]`` (the table TOML), ``[state]`` (the journal's directory),
``[[readers]]`` (token readers and their channel roles), ``[registry]`` (UID →
token), ``[display]`` (the e-ink panel), ``[gpio]`` (the Performance Wheel,
read by :mod:`hardware.config`), ``[mqtt]`` (handed untouched to the MQTT
bridge), ``[log]``, ``[record]`` (the recap written when a session ends) and ``[web]`` (the
pages the service serves). ``examples/rhuna.toml`` shows every key with its default.

Each section is declared by its owner with :mod:`settings.checker` (``[display]`` in
:mod:`display.config`, ``[[readers]]`` in :mod:`firmware_bridge.config`, ``[gpio]``
in :mod:`hardware.config`, ``[registry]`` in :mod:`tags.config`, ``[mqtt]`` in
:mod:`companion.mqtt.config`; ``[table]``, ``[state]`` and ``[log]`` here). An
error names the file, the key and the fix; an unknown key is refused (a typo
must not silently mean "the default") with the key probably meant. Every
section is checked, so one run of ``rhuna-table check-config`` lists every
problem at once.

>>> cfg = config_from_text('[table]\\nfile = "examples/table.toml"\\n[gpio]\\nenabled = false',
...                        "rhuna.toml", base=Path("."))
>>> cfg.table_file.name, cfg.display.driver, cfg.gpio is None, cfg.readers
('table.toml', 'png', True, ())
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.mqtt.config import load_mqtt_config
from display.config import DRIVER_KEYS, DisplayConfig, read_display
from firmware_bridge.config import BACKEND_KEYS, ReaderConfig, read_readers
from hardware.config import GpioConfig, read_gpio
from hardware.pins import conflicts, header_uart_wanted
from settings.checker import ConfigErrors, Key, Problems, Section, show
from settings.errors import ConfigError
from settings.textfile import read_text
from tags.commands import ROLES, ReaderRoles
from tags.config import read_registry

__all__ = [
    "BACKEND_KEYS",
    "CONFIG_SECTIONS",
    "DRIVER_KEYS",
    "Config",
    "ConfigErrors",
    "DisplayConfig",
    "ReaderConfig",
    "config_from_text",
    "load_config",
]

CONFIG_SECTIONS = (
    "table",
    "state",
    "readers",
    "registry",
    "display",
    "gpio",
    "mqtt",
    "log",
    "record",
    "web",
)
#: where systemd's StateDirectory= puts it; $STATE_DIRECTORY when systemd says so
DEFAULT_STATE_DIR = "/var/lib/rhuna-table"
#: a snapshot every so many commands: replaying is fast (≈0.04 ms a command here) and loading
#: a snapshot costs ≈0.2 s (65 states with the Undo history), see benchmarks/store.py
DEFAULT_SNAPSHOT_EVERY = 1000
LOG_LEVELS = ("debug", "info", "warning", "error")

TABLE = Section(
    "table",
    {"file": Key("string", "the table file", "table.toml", fix='write file = "table.toml"')},
)
STATE = Section(
    "state",
    {
        "dir": Key("string", "the journal's directory", fix='write dir = "/var/lib/rhuna-table"'),
        "snapshot_every": Key(
            "integer",
            "commands between snapshots",
            DEFAULT_SNAPSHOT_EVERY,
            minimum=0,
            fix="e.g. 1000 (0: a snapshot only when the service stops)",
        ),
    },
)
RECORD = Section(
    "record",
    {
        "recap": Key("boolean", "write the last session's recap when a new session starts", True),
        "recaps": Key("string", "the recaps' folder (relative: in the state directory)", "recaps"),
        "recap_url": Key(
            "string",
            "where that folder is served, for the table display's link",
            off=True,
            fix='e.g. recap_url = "http://rhuna.local:9001/recaps/" (false: no link)',
        ),
    },
)
WEB = Section(
    "web",
    {
        "dir": Key(
            "string",
            "the web pages' folder the service serves (companion/pages/server.py)",
            off=True,
            fix='e.g. dir = "/opt/rhuna-table/web" (false: the service serves no pages)',
        ),
        "port": Key("integer", "the pages' HTTP port", 8080, minimum=1, maximum=65535),
        "host": Key(
            "string",
            'the address to serve on ("": every interface)',
            "",
            nonempty=False,
            fix='e.g. host = "127.0.0.1" (this machine only) or host = "" (every interface)',
        ),
        "recaps": Key(
            "boolean",
            "serve the [record] recaps folder under /recaps/ (off: a recap names the players"
            " and tells the night, and the page server has no login; docs/web.md)",
            False,
        ),
        "max_connections": Key(
            "integer",
            "connections served at once (past it the slowest waiting one is closed)",
            64,
            minimum=1,
            maximum=512,
            fix="e.g. 64",
        ),
        "timeout": Key(
            "number",
            "seconds a connection has to send a whole request",
            10.0,
            minimum=1,
            maximum=300,
            fix="e.g. 10",
        ),
        "first_state": Key(
            "boolean",
            "serve each page with the table's public state in it, so it paints before the broker"
            " answers (off: a page shows nothing until it has logged in to the broker; the page"
            " server has no login, and this state is what every viewer login reads;"
            " docs/service.md, 'What first_state shows without a login')",
            True,
        ),
    },
)
LOG = Section(
    "log",
    {"level": Key("string", "how much to log", "info", fix=f"use one of: {', '.join(LOG_LEVELS)}")},
)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything ``rhuna-table run`` needs, checked."""

    source: Path
    table_file: Path
    state_dir: Path
    #: a snapshot after this many commands (taken when the table is idle); 0: only at stop
    snapshot_every: int
    readers: tuple[ReaderConfig, ...]
    #: the tag registry file; None with ``synthetic = true``
    registry_file: Path | None
    synthetic: bool
    display: DisplayConfig
    #: None when ``[gpio] enabled = false``
    gpio: GpioConfig | None
    #: the ``[mqtt]`` section as written, for the MQTT bridge to check and use
    mqtt: dict[str, Any]
    log_level: str
    #: ``[record]``: a recap of each session that ends (docs/record.md)
    recap: bool = True
    recaps_dir: Path | None = None
    recap_url: str | None = None
    #: ``[web]``: the pages the service serves over HTTP (docs/web.md); None: none
    web_dir: Path | None = None
    web_port: int = 8080
    web_host: str = ""
    web_recaps: bool = False
    web_max_connections: int = 64
    web_timeout: float = 10.0
    #: ``[web] first_state``: the public retained topics inlined in every page served
    web_first_state: bool = True

    @property
    def roles(self) -> ReaderRoles:
        return ReaderRoles({r.name: r.roles for r in self.readers})


def load_config(path: str | Path) -> Config:
    """Read and check a config file; :class:`ConfigErrors` (all problems) if it has any."""
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as e:
        raise ConfigError(
            f"{path}: cannot read the config file ({e.strerror}) — check the path given to"
            " --config (example: examples/rhuna.toml)"
        ) from None
    return config_from_text(text, str(path), base=path.resolve().parent)


def config_from_text(
    text: str,
    source: str = "rhuna.toml",
    base: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Check a config's text; relative paths are taken from ``base`` (the file's folder)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: not valid TOML: {e} — fix the syntax at that line") from None
    return _check(data, source, base or Path.cwd(), os.environ if env is None else env)


def _path(value: str, base: Path) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _check(data: dict[str, Any], source: str, base: Path, env: Mapping[str, str]) -> Config:
    """Every section, each by its owner, every problem collected (one check-config lists all)."""
    problems = Problems(source)
    top = Section("", {name: Key("any", name) for name in CONFIG_SECTIONS}, label="rhuna.toml")
    for name in data:
        if name not in CONFIG_SECTIONS:
            _, fix = top.unknown(name)
            problems.add(name, "unknown section", fix.replace("rhuna.toml takes", "known sections"))
    table = TABLE.read(data.get("table"), problems)
    state = STATE.read(data.get("state"), problems)
    default_dir = env.get("STATE_DIRECTORY", "").split(":")[0] or DEFAULT_STATE_DIR
    state_dir = _path(state["dir"] or default_dir, base)
    readers = read_readers(data.get("readers", []), problems, ROLES)
    registry, synthetic = read_registry(data.get("registry"), problems, state_dir)
    display = read_display(data.get("display", {}), problems, state_dir)
    gpio = read_gpio(data.get("gpio", {}), problems)
    if gpio is not None and display is not None:  # one pin plan (hardware/pins.py)
        for clash in conflicts(gpio, display.driver, header_uart_wanted(readers)):
            problems.add(clash.key, clash.problem, clash.fix)
    mqtt = data.get("mqtt", {})
    if not isinstance(mqtt, dict):
        problems.add("mqtt", f"expected a table, got {show(mqtt)}", "write [mqtt]")
        mqtt = {}
    try:  # checked with the rest, so one check-config lists every problem
        load_mqtt_config(mqtt, source)
    except ConfigError as e:
        problems.absorb(e)
    record = RECORD.read(data.get("record"), problems)
    web = WEB.read(data.get("web"), problems)
    level = LOG.read(data.get("log"), problems)["level"]
    if not isinstance(level, str) or level.lower() not in LOG_LEVELS:
        if isinstance(level, str):
            problems.add(
                "log.level",
                f"{show(level)} is not a log level",
                f"use one of: {', '.join(LOG_LEVELS)}",
            )
        level = "info"
    problems.raise_if_any()
    return Config(
        source=Path(source),
        table_file=_path(table["file"], base),
        state_dir=state_dir,
        snapshot_every=state["snapshot_every"],
        readers=readers,
        registry_file=registry,
        synthetic=synthetic,
        display=display,
        gpio=gpio,
        mqtt=dict(mqtt),
        log_level=level.lower(),
        recap=bool(record["recap"]),
        recaps_dir=_path(record["recaps"], state_dir),
        recap_url=record["recap_url"],
        web_dir=_path(web["dir"], base) if web["dir"] is not None else None,
        web_port=web["port"],
        web_host=web["host"],
        web_recaps=bool(web["recaps"]),
        web_max_connections=web["max_connections"],
        web_timeout=float(web["timeout"]),
        web_first_state=bool(web["first_state"]),
    )
