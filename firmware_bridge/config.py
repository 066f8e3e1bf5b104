"""The ``[[readers]]`` section of the service config: each token reader, its port and its channels.

Declared with :mod:`settings.checker` (one error shape for the whole config).
What a channel is *for* (board, favor, time …) is the service's business: the
caller passes the roles it knows.

>>> from settings.checker import Problems
>>> p = Problems("rhuna.toml")
>>> read_readers([{"backend": "hub", "port": "/dev/ttyACM0", "baudrat": 9600}], p, ("board",))
()
>>> print(p.errors[0])
rhuna.toml: readers[0].baudrat: unknown key — did you mean baudrate? [[readers]] with backend = "hub" takes: backend, name, role, roles, port, baudrate
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.line_reader import UID_FORMATS
from settings.checker import Key, Problems, Section, show

BACKENDS = ("hub", "pn532", "line", "emulated-hub")

_PORT = Key(
    "string",
    "the serial port",
    required=True,
    fix='e.g. port = "/dev/serial/by-id/usb-…-if00" (ls /dev/serial/by-id)',
)
_CHANNEL = Key("integer", "the hub channel it reports as", 0, minimum=0, maximum=16, fix="e.g. 0")


def _baud(default: int) -> Key:
    return Key("integer", "the baud rate", default, minimum=1, fix="e.g. 115200")


#: keys each reader backend takes beyond backend, name, role, roles
BACKEND_KEYS: dict[str, dict[str, Key]] = {
    "hub": {"port": _PORT, "baudrate": _baud(115200)},
    "pn532": {"port": _PORT, "baudrate": _baud(115200), "channel": _CHANNEL},
    "line": {
        "port": _PORT,
        "baudrate": _baud(9600),
        "channel": _CHANNEL,
        "uid_format": Key("string", "how the reader prints a UID", "hex", enum=UID_FORMATS),
        "pattern": Key(
            "string",
            "a regular expression with a uid group",
            fix=r'e.g. pattern = "UID: (?P<uid>[0-9A-F]+)"',
        ),
        "uid_bytes": Key("integer", "UID length in bytes", minimum=0, maximum=16, fix="e.g. 7"),
        "removal_timeout": Key(
            "number",
            "seconds without a line before the tag counts as removed",
            0.5,
            minimum=0.001,
            off=True,
            fix="e.g. 0.5, or false for readers that print a line only on a new tag",
        ),
    },
    "emulated-hub": {
        "channels": Key(
            "integer",
            "channels of the emulated hub",
            6,
            minimum=1,
            maximum=16,
            fix="an emulated hub has 1 to 16",
        )
    },
}
_COMMON = {
    "backend": Key(
        "string",
        "the reader backend",
        enum=BACKENDS,
        required=True,
        fix=f"use one of: {', '.join(BACKENDS)} (docs/readers.md)",
    ),
    "name": Key("string", "the reader's name", fix='e.g. name = "draw-board"'),
    "role": Key("string", "one role for every channel", "board"),
    "roles": Key("table", "channel → role", fix='e.g. roles = { 4 = "favor", 5 = "time" }'),
}


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


def read_readers(
    value: Any, problems: Problems, roles: tuple[str, ...]
) -> tuple[ReaderConfig, ...]:
    """Check every ``[[readers]]`` table; a reader with a problem is left out."""
    if isinstance(value, dict):
        problems.add("readers", "written as [readers]", "write [[readers]] (one per reader)")
        return ()
    if not isinstance(value, list):
        problems.add(
            "readers", f"expected [[readers]] tables, got {show(value)}", "write [[readers]]"
        )
        return ()
    out: list[ReaderConfig] = []
    for i, spec in enumerate(value):
        key = f"readers[{i}]"
        before = len(problems)
        reader = _reader(spec, key, problems, roles)
        if reader is None or len(problems) > before:
            continue
        for other in out:
            if other.name == reader.name:
                problems.add(
                    f"{key}.name",
                    f"{reader.name!r} is already the name of another reader",
                    "give every reader its own name (it is how events and roles name it)",
                )
            elif reader.port is not None and other.port == reader.port:
                problems.add(
                    f"{key}.port",
                    f"{reader.port} is already reader {other.name!r}",
                    "one reader per serial port",
                )
        out.append(reader)
    return tuple(out)


def _reader(spec: Any, key: str, problems: Problems, roles: tuple[str, ...]) -> ReaderConfig | None:
    if not isinstance(spec, dict):
        problems.add(key, f"expected a table, got {show(spec)}", "write [[readers]]")
        return None
    backend = spec.get("backend")
    if backend not in BACKENDS:
        problems.add(
            f"{key}.backend",
            "missing" if backend is None else f"{show(backend)} is not a reader backend",
            f"use one of: {', '.join(BACKENDS)} (docs/readers.md)",
        )
        return None
    own = BACKEND_KEYS[backend]
    label = f'[[readers]] with backend = "{backend}"'
    r = Section(key, {**_COMMON, **own}, label=label).read(spec, problems)
    name = r["name"] if r["name"] is not None else backend
    options = {k: r[k] for k in own}
    port = options.pop("port", None)
    baudrate = options.pop("baudrate", 0)
    pattern = options.get("pattern")
    if pattern is not None:
        why = _pattern_problem(pattern)
        if why:
            problems.add(f"{key}.pattern", why, r'e.g. pattern = "UID: (?P<uid>[0-9A-F]+)"')
    channel_roles = _roles(spec, key, problems, roles)
    _roles_on_channels(channel_roles, options, key, problems)
    return ReaderConfig(str(name), backend, port, int(baudrate or 0), channel_roles, options)


def _roles_on_channels(
    roles: str | dict[int, str], options: Mapping[str, Any], key: str, problems: Problems
) -> None:
    """A role on a channel the reader does not have would never be served: refused (an
    emulated hub's ``channels``, a single reader's ``channel``; a real hub says its count only
    when it answers). ``roles = {}`` lists none: every channel is the board's."""
    if isinstance(roles, str) or not roles:
        return
    if "channels" in options:
        have = range(int(options["channels"]))
        where = f"the emulated hub has {len(have)} channels, 0 to {len(have) - 1}"
        fix = f"use a channel 0 to {len(have) - 1}, or give channels = {max(roles) + 1}"
    elif "channel" in options:
        have = range(int(options["channel"]), int(options["channel"]) + 1)
        where = f"this reader reports only channel {options['channel']}"
        fix = 'use role = "…" for it, or roles = { ' + str(options["channel"]) + ' = "…" }'
    else:
        return
    for ch in sorted(roles):
        if ch not in have:
            problems.add(f"{key}.roles.{ch}", f"channel {ch}, but {where}", fix)


def _roles(
    spec: dict[str, Any], key: str, problems: Problems, roles: tuple[str, ...]
) -> str | dict[int, str]:
    if "role" in spec and "roles" in spec:
        problems.add(
            key, "both role and roles", "role = one role for every channel; roles = per channel"
        )
        return "board"
    if "roles" not in spec:
        role = spec.get("role", "board")
        if role not in roles:
            problems.add(
                f"{key}.role", f"{show(role)} is not a role", f"use one of: {', '.join(roles)}"
            )
            return "board"
        return str(role)
    channels = spec["roles"]
    out: dict[int, str] = {}
    if not isinstance(channels, dict):
        return out  # the Section already said so
    for ch, role in channels.items():
        if not ch.isdigit() or not 0 <= int(ch) <= 15:
            problems.add(f"{key}.roles.{ch}", "not a channel number", "channels are 0 to 15")
        elif role not in roles:
            problems.add(
                f"{key}.roles.{ch}",
                f"{show(role)} is not a role",
                f"use one of: {', '.join(roles)}",
            )
        else:
            out[int(ch)] = str(role)
    return out


def _pattern_problem(pattern: str) -> str | None:
    try:
        compiled = re.compile(pattern)
    except re.error as e:
        return f"{pattern!r} is not a regular expression ({e})"
    if "uid" not in compiled.groupindex:
        return f"{pattern!r} has no (?P<uid>…) group"
    return None
