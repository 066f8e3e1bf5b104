"""The service's one config file (``rhuna.toml``): every key has a default, every error a fix.

Sections: ``[table]`` (the table TOML), ``[state]`` (the journal's directory),
``[[readers]]`` (token readers and their channel roles), ``[registry]`` (UID →
token), ``[display]`` (the e-ink panel), ``[gpio]`` (the Performance Wheel,
read by :mod:`hardware.config`), ``[mqtt]`` (handed untouched to the MQTT
bridge) and ``[log]``. ``examples/rhuna.toml`` shows every key with its default.

An error names the file, the key and the fix; an unknown key is refused (a
typo must not silently mean "the default"). Every section is checked, so one
run of ``rhuna-table check-config`` lists every problem at once.

>>> cfg = config_from_text('[table]\\nfile = "examples/table.toml"\\n[gpio]\\nenabled = false',
...                        "rhuna.toml", base=Path("."))
>>> cfg.table_file.name, cfg.display.driver, cfg.gpio is None, cfg.readers
('table.toml', 'png', True, ())
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from companion.tags import ROLES, ReaderRoles
from display.drivers import DRIVERS
from display.panels import COLOURS
from engine.errors import ConfigError
from engine.textfile import read_text
from firmware_bridge.line_reader import UID_FORMATS
from hardware.config import GpioConfig

T = TypeVar("T")

SECTIONS = ("table", "state", "readers", "registry", "display", "gpio", "mqtt", "log")
#: where systemd's StateDirectory= puts it; $STATE_DIRECTORY when systemd says so
DEFAULT_STATE_DIR = "/var/lib/rhuna-table"
#: a snapshot every so many commands: replaying is fast (≈0.04 ms a command here) and loading
#: a snapshot costs ≈0.2 s (65 states with the Undo history), see benchmarks/store.py
DEFAULT_SNAPSHOT_EVERY = 1000
BACKENDS = ("hub", "pn532", "line", "emulated-hub")
DISPLAY_DRIVERS = (*DRIVERS, "none")
LOG_LEVELS = ("debug", "info", "warning", "error")

#: keys each reader backend takes beyond backend, name, role, roles (with their defaults)
BACKEND_KEYS: dict[str, dict[str, Any]] = {
    "hub": {"port": None, "baudrate": 115200},
    "pn532": {"port": None, "baudrate": 115200, "channel": 0},
    "line": {
        "port": None,
        "baudrate": 9600,
        "channel": 0,
        "uid_format": "hex",
        "pattern": None,
        "uid_bytes": None,
        "removal_timeout": 0.5,
    },
    "emulated-hub": {"channels": 6},
}
#: keys each display driver takes beyond driver, panel, colour, full_every
DRIVER_KEYS: dict[str, tuple[str, ...]] = {
    "png": ("out_dir", "keep", "full_refresh_s", "partial_refresh_s"),
    "inky": ("full_refresh_s",),
    "waveshare": ("model", "full_refresh_s", "partial_refresh_s"),
    "none": (),
}


class ConfigErrors(ConfigError):
    """Several problems in one config file; ``errors`` lists each message."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("\n".join(errors))


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """One token reader: its backend, port and what each of its channels is for."""

    name: str
    backend: str
    #: the serial port (a /dev/serial/by-id/… path or a pyserial URL); None for emulated-hub
    port: str | None
    baudrate: int
    #: one role for every channel, or channel → role (channels not listed: board)
    roles: str | Mapping[int, str] = "board"
    #: backend options (pn532/line: channel …; emulated-hub: channels)
    options: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if isinstance(self.roles, str):
            roles = f"every channel {self.roles}"
        else:
            listed = ", ".join(f"{ch} {role}" for ch, role in sorted(self.roles.items()))
            roles = f"channels {listed}; the others board"
        where = (
            f"in-process emulator, {self.options['channels']} channels"
            if self.backend == "emulated-hub"
            else f"{self.port} at {self.baudrate} baud"
        )
        return f"{self.name}: {self.backend} ({where}); {roles}"


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The panel: driver, size, inks, and the driver's own options."""

    driver: str = "png"
    panel: str = "2.13"
    colour: str = "bw"
    #: a full refresh after this many partial ones (against ghosting)
    full_every: int = 5
    #: driver options (png: out_dir, keep …; waveshare: model …)
    options: Mapping[str, Any] = field(default_factory=dict)


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

    @property
    def roles(self) -> ReaderRoles:
        return ReaderRoles({r.name: r.roles for r in self.readers})


def load_config(path: str | Path) -> Config:
    """Read and check a config file; :class:`ConfigError` (all problems) if it has any."""
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
    return _Checker(source, base or Path.cwd(), os.environ if env is None else env).config(data)


class _Checker:
    """Checks one config file section by section, gathering every error."""

    def __init__(self, source: str, base: Path, env: Mapping[str, str]) -> None:
        self.source = source
        self.base = base
        self.env = env
        self.errors: list[str] = []

    def fail(self, key: str, problem: str, fix: str) -> ConfigError:
        return ConfigError(f"{self.source}: {key}: {problem} — {fix}")

    def section(self, make: Callable[[], T], fallback: T) -> T:
        try:
            return make()
        except ConfigError as e:
            self.errors.append(str(e))
            return fallback

    def config(self, data: dict[str, Any]) -> Config:
        for name in data:
            if name not in SECTIONS:
                self.errors.append(
                    str(
                        self.fail(name, "unknown section", f"known sections: {', '.join(SECTIONS)}")
                    )
                )
        table = self.section(lambda: self.table(data.get("table", {})), self.base / "table.toml")
        state_dir, every = self.section(
            lambda: self.state(data.get("state", {})),
            (Path(DEFAULT_STATE_DIR), DEFAULT_SNAPSHOT_EVERY),
        )
        no_readers: tuple[ReaderConfig, ...] = ()
        readers = self.section(lambda: self.readers(data.get("readers", [])), no_readers)
        no_registry: tuple[Path | None, bool] = (None, True)
        registry, synthetic = self.section(
            lambda: self.registry(data.get("registry", {}), state_dir), no_registry
        )
        display = self.section(
            lambda: self.display(data.get("display", {}), state_dir), DisplayConfig()
        )
        gpio = self.section(lambda: self.gpio(data.get("gpio", {})), None)
        no_mqtt: dict[str, Any] = {}
        mqtt = self.section(lambda: self.mqtt(data.get("mqtt", {})), no_mqtt)
        level = self.section(lambda: self.log(data.get("log", {})), "info")
        if self.errors:
            raise ConfigErrors(self.errors)
        return Config(
            source=Path(self.source),
            table_file=table,
            state_dir=state_dir,
            snapshot_every=every,
            readers=readers,
            registry_file=registry,
            synthetic=synthetic,
            display=display,
            gpio=gpio,
            mqtt=mqtt,
            log_level=level,
        )

    # --- sections --------------------------------------------------------------------

    def keys(self, value: Any, key: str, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {_show(value)}", f"write [{key}]")
        for name in value:
            if name not in known:
                raise self.fail(
                    f"{key}.{name}", "unknown key", f"known keys here: {', '.join(known)}"
                )
        return value

    def path(self, value: Any, key: str, base: Path | None = None) -> Path:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"{_show(value)} is not a path", "write a path in quotes")
        p = Path(value).expanduser()
        return p if p.is_absolute() else (base or self.base) / p

    def table(self, value: Any) -> Path:
        t = self.keys(value, "table", ("file",))
        return self.path(t.get("file", "table.toml"), "table.file")

    def state(self, value: Any) -> tuple[Path, int]:
        s = self.keys(value, "state", ("dir", "snapshot_every"))
        default = self.env.get("STATE_DIRECTORY", "").split(":")[0] or DEFAULT_STATE_DIR
        every = s.get("snapshot_every", DEFAULT_SNAPSHOT_EVERY)
        if isinstance(every, bool) or not isinstance(every, int) or every < 0:
            raise self.fail(
                "state.snapshot_every",
                f"{_show(every)} is not a whole number of commands",
                "e.g. 1000 (0: a snapshot only when the service stops)",
            )
        return self.path(s.get("dir", default), "state.dir"), every

    def readers(self, value: Any) -> tuple[ReaderConfig, ...]:
        if isinstance(value, dict):
            raise self.fail("readers", "written as [readers]", "write [[readers]] (one per reader)")
        if not isinstance(value, list):
            raise self.fail(
                "readers", f"expected [[readers]] tables, got {_show(value)}", "write [[readers]]"
            )
        out: list[ReaderConfig] = []
        for i, spec in enumerate(value):
            reader = self.reader(spec, f"readers[{i}]")
            for other in out:
                if other.name == reader.name:
                    raise self.fail(
                        f"readers[{i}].name",
                        f"{reader.name!r} is already the name of another reader",
                        "give every reader its own name (it is how events and roles name it)",
                    )
                if reader.port is not None and other.port == reader.port:
                    raise self.fail(
                        f"readers[{i}].port",
                        f"{reader.port} is already reader {other.name!r}",
                        "one reader per serial port",
                    )
            out.append(reader)
        return tuple(out)

    def reader(self, spec: Any, key: str) -> ReaderConfig:
        if not isinstance(spec, dict):
            raise self.fail(key, f"expected a table, got {_show(spec)}", "write [[readers]]")
        backend = spec.get("backend")
        if backend not in BACKENDS:
            raise self.fail(
                f"{key}.backend",
                "missing" if backend is None else f"{_show(backend)} is not a reader backend",
                f"use one of: {', '.join(BACKENDS)} (docs/readers.md)",
            )
        own = BACKEND_KEYS[backend]
        spec = self.keys(spec, key, ("backend", "name", "role", "roles", *own))
        name = spec.get("name", backend)
        if not isinstance(name, str) or not name.strip():
            raise self.fail(
                f"{key}.name", f"{_show(name)} is not a name", 'e.g. name = "draw-board"'
            )
        options = {k: spec.get(k, default) for k, default in own.items()}
        port = options.pop("port", None)
        baudrate = options.pop("baudrate", 0)
        if backend != "emulated-hub":
            if not isinstance(port, str) or not port.strip():
                raise self.fail(
                    f"{key}.port",
                    "missing" if port is None else f"{_show(port)} is not a port",
                    'e.g. port = "/dev/serial/by-id/usb-…-if00" (ls /dev/serial/by-id)',
                )
            if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate <= 0:
                raise self.fail(
                    f"{key}.baudrate", f"{_show(baudrate)} is not a baud rate", "e.g. 115200"
                )
        self.reader_options(options, key)
        return ReaderConfig(name, backend, port, baudrate, self.roles(spec, key), options)

    def reader_options(self, options: dict[str, Any], key: str) -> None:
        for k in ("channel", "uid_bytes", "channels"):
            v = options.get(k)
            if v is None and k == "uid_bytes":
                continue
            if k in options and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 16):
                raise self.fail(f"{key}.{k}", f"{_show(v)} is not a number from 0 to 16", "e.g. 0")
        if options.get("channels") == 0:
            raise self.fail(f"{key}.channels", "0 channels", "an emulated hub has 1 to 16")
        if "uid_format" in options and options["uid_format"] not in UID_FORMATS:
            raise self.fail(
                f"{key}.uid_format",
                f"{_show(options['uid_format'])} is not a UID format",
                f"use one of: {', '.join(UID_FORMATS)}",
            )
        pattern = options.get("pattern")
        if pattern is not None:
            problem = _pattern_problem(pattern)
            if problem:
                raise self.fail(
                    f"{key}.pattern", problem, r'e.g. pattern = "UID: (?P<uid>[0-9A-F]+)"'
                )
        timeout = options.get("removal_timeout", 0.5)
        if (
            timeout is not None
            and timeout is not False
            and (isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0)
        ):
            raise self.fail(
                f"{key}.removal_timeout",
                f"{_show(timeout)} is not a time in seconds",
                "e.g. 0.5, or false for readers that print a line only on a new tag",
            )
        if timeout is False:
            options["removal_timeout"] = None

    def roles(self, spec: dict[str, Any], key: str) -> str | dict[int, str]:
        if "role" in spec and "roles" in spec:
            raise self.fail(
                key, "both role and roles", "role = one role for every channel; roles = per channel"
            )
        if "roles" not in spec:
            role = spec.get("role", "board")
            if role not in ROLES:
                raise self.fail(
                    f"{key}.role", f"{_show(role)} is not a role", f"use one of: {', '.join(ROLES)}"
                )
            return str(role)
        channels = spec["roles"]
        if not isinstance(channels, dict):
            raise self.fail(
                f"{key}.roles",
                f"expected a table, got {_show(channels)}",
                'e.g. roles = { 4 = "favor", 5 = "time" }',
            )
        out: dict[int, str] = {}
        for ch, role in channels.items():
            if not ch.isdigit() or not 0 <= int(ch) <= 15:
                raise self.fail(f"{key}.roles.{ch}", "not a channel number", "channels are 0 to 15")
            if role not in ROLES:
                raise self.fail(
                    f"{key}.roles.{ch}",
                    f"{_show(role)} is not a role",
                    f"use one of: {', '.join(ROLES)}",
                )
            out[int(ch)] = str(role)
        return out

    def registry(self, value: Any, state_dir: Path) -> tuple[Path | None, bool]:
        r = self.keys(value, "registry", ("file", "synthetic"))
        synthetic = r.get("synthetic", False)
        if not isinstance(synthetic, bool):
            raise self.fail(
                "registry.synthetic",
                f"{_show(synthetic)} is not true or false",
                "write true or false",
            )
        if synthetic:
            if "file" in r:
                raise self.fail(
                    "registry",
                    "both file and synthetic = true",
                    "enrolled tags (file) or made-up ones (synthetic), not both",
                )
            return None, True
        return self.path(r.get("file", "registry.json"), "registry.file", base=state_dir), False

    def display(self, value: Any, state_dir: Path) -> DisplayConfig:
        if not isinstance(value, dict):
            raise self.fail("display", f"expected a table, got {_show(value)}", "write [display]")
        driver = value.get("driver", "png")
        if driver not in DISPLAY_DRIVERS:
            raise self.fail(
                "display.driver",
                f"{_show(driver)} is not a display driver",
                f"use one of: {', '.join(DISPLAY_DRIVERS)}",
            )
        d = self.keys(
            value, "display", ("driver", "panel", "colour", "full_every", *DRIVER_KEYS[driver])
        )
        default = DisplayConfig()
        panel = d.get("panel", default.panel)
        if isinstance(panel, int | float) and not isinstance(panel, bool):
            panel = str(panel)
        if not isinstance(panel, str):
            raise self.fail(
                "display.panel",
                f"{_show(panel)} is not a panel",
                'use "2.13", "2.9", "4.2", "7.5" or "WxH"',
            )
        from display.panels import panel_spec

        try:
            panel_spec(panel)
        except ConfigError as e:
            raise self.fail(
                "display.panel", str(e), 'use "2.13", "2.9", "4.2", "7.5" or "WxH"'
            ) from None
        colour = d.get("colour", default.colour)
        if colour not in COLOURS:
            raise self.fail(
                "display.colour",
                f"{_show(colour)} is not allowed",
                f"use one of: {', '.join(COLOURS)}",
            )
        every = d.get("full_every", default.full_every)
        if isinstance(every, bool) or not isinstance(every, int) or every < 0:
            raise self.fail(
                "display.full_every",
                f"{_show(every)} is not a whole number",
                "e.g. 5 (0: always a full refresh)",
            )
        options = {k: d[k] for k in DRIVER_KEYS[driver] if k in d}
        if driver == "png":
            options["out_dir"] = self.path(
                options.get("out_dir", "panel"), "display.out_dir", base=state_dir
            )
        if driver == "waveshare" and not isinstance(options.get("model"), str):
            raise self.fail(
                "display.model",
                "missing",
                'name the Waveshare model, e.g. model = "epd2in13_V4" (docs/display.md)',
            )
        for k in ("keep", "full_refresh_s", "partial_refresh_s"):
            v = options.get(k)
            if (
                k in options
                and v is not None
                and (isinstance(v, bool) or not isinstance(v, int | float) or v < 0)
            ):
                raise self.fail(
                    f"display.{k}", f"{_show(v)} is not a number", "see docs/display.md"
                )
        return DisplayConfig(driver, panel, str(colour), every, options)

    def gpio(self, value: Any) -> GpioConfig | None:
        if not isinstance(value, dict):
            raise self.fail("gpio", f"expected a table, got {_show(value)}", "write [gpio]")
        rest = dict(value)
        enabled = rest.pop("enabled", True)
        if not isinstance(enabled, bool):
            raise self.fail(
                "gpio.enabled", f"{_show(enabled)} is not true or false", "write true or false"
            )
        config = GpioConfig.from_mapping(rest, self.source, "gpio")  # checked even when off
        return config if enabled else None

    def mqtt(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail("mqtt", f"expected a table, got {_show(value)}", "write [mqtt]")
        return dict(value)

    def log(self, value: Any) -> str:
        level = self.keys(value, "log", ("level",)).get("level", "info")
        if not isinstance(level, str) or level.lower() not in LOG_LEVELS:
            raise self.fail(
                "log.level",
                f"{_show(level)} is not a log level",
                f"use one of: {', '.join(LOG_LEVELS)}",
            )
        return level.lower()


def _pattern_problem(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return f"{_show(pattern)} is not a regular expression"
    try:
        compiled = re.compile(pattern)
    except re.error as e:
        return f"{pattern!r} is not a regular expression ({e})"
    if "uid" not in compiled.groupindex:
        return f"{pattern!r} has no (?P<uid>…) group"
    return None


def _show(value: Any) -> str:
    return "a table" if isinstance(value, dict) else repr(value)
