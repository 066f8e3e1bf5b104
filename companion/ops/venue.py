"""A convention: every table's Pi broker bridged out to one venue Mosquitto (docs/convention.md).

``rhuna-table venue venue.toml --out DIR`` reads a venue file listing the tables and writes:

- ``DIR/venue/mosquitto.conf``: the venue broker (plain MQTT for the bridges, websockets for
  the wall and the director, persistence, a queue per client);
- ``DIR/venue/passwd`` and ``DIR/venue/acl``: the wall and the director read every table;
  each table's bridge user (``<table>.bridge``) writes its own table's topics only, and reads
  its table's command topics only when ``commands_from_venue = true`` for that table (then an
  ``organiser`` account may publish those commands, and nothing else);
- ``DIR/venue/tables.json``: the roster for the wall and the director pages (each table's id,
  name, its game and WorldKeeper when the venue file gives them, whether it takes commands
  from the venue, its uplink topic), no passwords: a table that never connected has no
  retained topic at the venue, so only the roster names it;
- ``DIR/tables/<table>/rhuna-venue.conf``: the table's bridge, to drop into the Pi's
  ``/etc/mosquitto/conf.d``: ``cleansession false``, QoS 1, the notification topic
  ``<base>/uplink/<table>``, outside the table's own tree (retained ``1`` while up, ``0`` by the bridge's will when not).

The venue file::

    [venue]
    host = "venue.local"     # how the tables reach the venue broker
    port = 1883              # the bridges' listener
    websockets_port = 9001   # the wall's and the director's
    # base_topic = "rhuna"; keepalive = 15; max_queued_messages = 100000
    # tls_port = 8883; cafile = "/etc/rhuna-venue/ca.crt"; certfile = …; keyfile = …
    # http_dir = "/srv/rhuna-venue/www"  # the websockets listener serves the wall, the director
    #                                    # page and tables.json from it (web/dist + the roster)

    [wall]
    password_file = "/etc/rhuna-venue/wall.password"   # or password = "…"
    [director]
    password = "…"

    [[table]]
    id = "kitchen"
    name = "The kitchen table"
    game = "Rhuna: The Salt Road"        # optional: the wall's card says it
    worldkeeper = "Ines"                 # optional: who runs the table
    password_file = "kitchen.password"   # the table's bridge login (or password = "…")
    commands_from_venue = false

Relative password files are read from the venue file's folder. Every problem in the file is
listed at once, each naming the key and the fix (the :mod:`settings.checker` shape). A table's
``name``, ``game`` and ``worldkeeper`` are one line of plain text each (:mod:`settings.plain`:
no control character, no bidi override, no newline: they reach the wall's page and the
comments of the files written here), the game and the WorldKeeper at most
:data:`TEXT_MAX` characters.

>>> v = parse({"venue": {"host": "v"}, "wall": {"password": "w"}, "director": {"password": "d"},
...            "table": [{"id": "k", "name": "K", "password": "p"}]}, "venue.toml")
>>> [line for line in acl_text(v).splitlines() if line.startswith("topic write")]
['topic write rhuna/k/#', 'topic write rhuna/uplink/k']
>>> [line for line in bridge_text(v, v.tables[0]).splitlines() if line.startswith("topic ")][:2]
['topic rhuna/k/events out 1', 'topic rhuna/k/info out 1']
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.mqtt.topics import PUBLIC_FILTERS
from companion.ops.account_model import (
    SALT_BYTES,
    WALL,
    check_name,
    password_hash,
    user,
)
from settings.atomic import write_atomic
from settings.checker import Problems
from settings.errors import ConfigError
from settings.plain import WHY, shown, unsafe

DIRECTOR = "director"
ORGANISER = "organiser"
BRIDGE = "bridge"
#: the file each table's Pi gets in /etc/mosquitto/conf.d
BRIDGE_FILE = "rhuna-venue.conf"
#: the notification topics' level: ``rhuna/uplink/<table>`` is "1" or "0", retained
UPLINK = "uplink"

_VENUE_KEYS = {
    "host",
    "port",
    "websockets_port",
    "bind",
    "base_topic",
    "keepalive",
    "restart_timeout",
    "max_queued_messages",
    "persistence_location",
    "tls_port",
    "cafile",
    "certfile",
    "keyfile",
    "http_dir",
}
_TABLE_KEYS = {
    "id",
    "name",
    "game",
    "worldkeeper",
    "password",
    "password_file",
    "commands_from_venue",
}
#: the most characters of a table's ``game`` and ``worldkeeper``: one line of the wall's card
TEXT_MAX = 60


@dataclass(frozen=True)
class VenueTable:
    id: str
    name: str
    password: str
    commands_from_venue: bool = False
    #: the game run at the table and who runs it, for the wall (None: not given)
    game: str | None = None
    worldkeeper: str | None = None


@dataclass(frozen=True)
class Venue:
    host: str
    tables: tuple[VenueTable, ...]
    wall: str
    director: str
    organiser: str | None = None
    port: int = 1883
    websockets_port: int = 9001
    bind: str = ""
    base_topic: str = "rhuna"
    keepalive: int = 15
    restart_timeout: tuple[int, int] = (1, 3)
    max_queued_messages: int = 100_000
    persistence_location: str = "/var/lib/mosquitto/"
    tls_port: int | None = None
    cafile: str | None = None
    certfile: str | None = None
    keyfile: str | None = None
    #: the folder the websockets listener serves (the built pages and tables.json), or none
    http_dir: str | None = None

    def logins(self) -> Iterator[tuple[str, str]]:
        """(user, password) of every venue account: the bridges, then wall, director, organiser."""
        for t in self.tables:
            yield user(t.id, BRIDGE), t.password
        yield WALL, self.wall
        yield DIRECTOR, self.director
        if self.organiser is not None:
            yield ORGANISER, self.organiser


# --- reading the venue file --------------------------------------------------------------------


def load(path: Path) -> Venue:
    """The venue file at ``path``, checked; every problem in one :class:`ConfigErrors`."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such venue file; fix: give the venue TOML's path") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not TOML ({e}); fix: correct the line it names") from None
    return parse(data, str(path), base=path.parent)


def _password(
    section: dict[str, Any], key: str, problems: Problems, base: Path | None, what: str
) -> str:
    pw, pw_file = section.get("password"), section.get("password_file")
    if pw is not None and pw_file is not None:
        problems.add(key, "both password and password_file", "keep one of the two")
        return ""
    if pw_file is not None:
        if not isinstance(pw_file, str):
            problems.add(f"{key}.password_file", f"{pw_file!r} is not text", "give a file's path")
            return ""
        p = Path(pw_file)
        if not p.is_absolute() and base is not None:
            p = base / p
        try:
            text = p.read_text("utf-8").strip()
        except OSError as e:
            problems.add(
                f"{key}.password_file",
                f"{p} cannot be read ({e.strerror or type(e).__name__})",
                f"write {what}'s password in it, one line (or set password instead)",
            )
            return ""
        if not text:
            problems.add(f"{key}.password_file", f"{p} is empty", f"write {what}'s password in it")
        return text
    if pw is None:
        problems.add(
            f"{key}.password",
            f"missing: {what} needs a password",
            f'set password = "…" or password_file = "…" under {key}',
        )
        return ""
    if not isinstance(pw, str) or not pw:
        problems.add(f"{key}.password", "empty or not text", "give the password as text")
        return ""
    if ":" in pw or "\n" in pw:
        problems.add(
            f"{key}.password", "holds ':' or a newline", "pick one without (Mosquitto's files)"
        )
    return pw


def _int(section: dict[str, Any], key: str, default: int, problems: Problems, where: str) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        problems.add(
            f"{where}.{key}", f"{value!r} is not a positive whole number", f"e.g. {default}"
        )
        return default
    return value


def _line(
    value: Any, key: str, problems: Problems, what: str, limit: int | None = None
) -> str | None:
    """``value`` when it is one line of plain text (at most ``limit`` characters), else None
    and the problem named under ``key`` (the :mod:`settings.plain` rule: text is text).

    >>> problems = Problems("venue.toml")
    >>> _line("Ines\u202e", "table[1].worldkeeper", problems, "the WorldKeeper's name")
    >>> print(problems.errors[0])  # doctest: +ELLIPSIS
    venue.toml: table[1].worldkeeper: holds the control character \u202e (a terminal escape, a bell, or a bidi override that reverses the text around it): text is text — write the WorldKeeper's name as plain text, on one line
    """
    if not isinstance(value, str):
        problems.add(key, f"{value!r} is not text", f"give {what} as text")
        return None
    if not value.strip():
        problems.add(key, "is empty", f"give {what}, or leave {key.rpartition('.')[2]} out")
        return None
    bad = unsafe(value)
    if bad is not None:
        problems.add(
            key,
            f"holds the control character {shown(bad)} {WHY}",
            f"write {what} as plain text, on one line",
        )
        return None
    if "\n" in value:  # plain text, but one line: the card's, and a comment of the ACL
        problems.add(key, "holds a newline", f"write {what} on one line")
        return None
    if limit is not None and len(value) > limit:
        problems.add(
            key,
            f"is {len(value)} characters long (at most {limit}: one line of the wall's card)",
            f"shorten {what} to {limit} characters",
        )
        return None
    return value


def parse(data: dict[str, Any], file: str, *, base: Path | None = None) -> Venue:
    """A parsed venue TOML, checked (see the module's docstring for its keys)."""
    problems = Problems(file)
    for key in sorted(set(data) - {"venue", "wall", "director", "organiser", "table"}):
        problems.add(
            key, "unknown section", "use [venue], [wall], [director], [organiser], [[table]]"
        )
    venue = data.get("venue")
    if not isinstance(venue, dict):
        problems.add("venue", "missing", 'add [venue] with host = "the venue broker\'s address"')
        venue = {}
    for key in sorted(set(venue) - _VENUE_KEYS):
        problems.add(
            f"venue.{key}", "unknown key", f"[venue] takes: {', '.join(sorted(_VENUE_KEYS))}"
        )
    host = venue.get("host")
    if not isinstance(host, str) or not host:
        problems.add("venue.host", "missing", 'set host = "venue.local" (how the Pis reach it)')
        host = ""
    base_topic = venue.get("base_topic", "rhuna")
    try:
        check_name(str(base_topic), "base topic")
    except ConfigError as e:
        problems.add("venue.base_topic", str(e), 'use the tables\' base topic, e.g. "rhuna"')
    ports = {
        k: _int(venue, k, d, problems, "venue")
        for k, d in (("port", 1883), ("websockets_port", 9001))
    }
    keepalive = _int(venue, "keepalive", 15, problems, "venue")
    if keepalive < 5:
        problems.add("venue.keepalive", f"{keepalive} s", "at least 5 (Mosquitto's minimum)")
    restart = venue.get("restart_timeout", [1, 3])
    if (
        not isinstance(restart, list)
        or len(restart) != 2
        or not all(isinstance(x, int) and x > 0 for x in restart)
    ):
        problems.add("venue.restart_timeout", f"{restart!r}", "two whole seconds: [base, cap]")
        restart = [1, 3]
    http_dir = venue.get("http_dir")
    if http_dir is not None and (not isinstance(http_dir, str) or not http_dir.startswith("/")):
        problems.add(
            "venue.http_dir",
            f"{http_dir!r} is not an absolute path",
            'give the folder holding web/dist\'s files and tables.json, e.g. "/srv/rhuna-venue/www"',
        )
        http_dir = None
    tls_port = venue.get("tls_port")
    if tls_port is not None and not venue.get("cafile"):
        problems.add(
            "venue.cafile",
            "missing with tls_port",
            "give the CA that signed the venue's certificate",
        )
    if tls_port is not None and not (venue.get("certfile") and venue.get("keyfile")):
        problems.add(
            "venue.certfile", "tls_port needs certfile and keyfile", "give both, or drop tls_port"
        )

    secrets: dict[str, str] = {}
    for name in (WALL, DIRECTOR):
        section = data.get(name)
        if not isinstance(section, dict):
            problems.add(name, "missing", f'add [{name}] with password_file = "…" (or password)')
            continue
        secrets[name] = _password(section, name, problems, base, f"the {name}")

    tables_raw = data.get("table", [])
    if not isinstance(tables_raw, list) or not tables_raw:
        problems.add("table", "no tables", "add one [[table]] per table: id, name, password_file")
        tables_raw = []
    tables: list[VenueTable] = []
    seen: dict[str, int] = {}
    for i, t in enumerate(tables_raw):
        key = f"table[{i + 1}]"
        if not isinstance(t, dict):
            problems.add(key, "not a table", "write it as [[table]] with id, name, password")
            continue
        for k in sorted(set(t) - _TABLE_KEYS):
            problems.add(
                f"{key}.{k}", "unknown key", f"[[table]] takes: {', '.join(sorted(_TABLE_KEYS))}"
            )
        tid = t.get("id")
        if not isinstance(tid, str) or not tid:
            problems.add(f"{key}.id", "missing", "give the table's id (its rhuna.toml table_id)")
            tid = ""
        else:
            try:
                check_name(tid, "table id")
            except ConfigError as e:
                problems.add(f"{key}.id", str(e), "use the id the table's Pi publishes under")
            if tid == UPLINK:
                problems.add(f"{key}.id", f"{UPLINK!r} is the uplink flags' level", "rename it")
            if tid in seen:
                problems.add(
                    f"{key}.id",
                    f"table {tid!r} is listed twice (also table[{seen[tid]}])",
                    "keep one [[table]] per table",
                )
            else:
                seen[tid] = i + 1
        name = tid
        if "name" in t:
            name = _line(t["name"], f"{key}.name", problems, "the table's name") or tid
        game = (
            _line(t["game"], f"{key}.game", problems, "the game's name", TEXT_MAX)
            if "game" in t
            else None
        )
        keeper = (
            _line(
                t["worldkeeper"], f"{key}.worldkeeper", problems, "the WorldKeeper's name", TEXT_MAX
            )
            if "worldkeeper" in t
            else None
        )
        cmds = t.get("commands_from_venue", False)
        if not isinstance(cmds, bool):
            problems.add(f"{key}.commands_from_venue", f"{cmds!r}", "true or false (default false)")
            cmds = False
        pw = _password(t, key, problems, base, f"table {tid or i + 1}'s bridge")
        tables.append(VenueTable(tid, name, pw, cmds, game, keeper))

    organiser = None
    if any(t.commands_from_venue for t in tables):
        section = data.get(ORGANISER)
        if not isinstance(section, dict):
            problems.add(
                ORGANISER,
                "missing: a table takes commands from the venue, so someone must send them",
                '[organiser] with password_file = "…" (or set commands_from_venue = false)',
            )
        else:
            organiser = _password(section, ORGANISER, problems, base, "the organiser")
    problems.raise_if_any()
    return Venue(
        host=host,
        tables=tuple(tables),
        wall=secrets[WALL],
        director=secrets[DIRECTOR],
        organiser=organiser,
        port=ports["port"],
        websockets_port=ports["websockets_port"],
        bind=str(venue.get("bind", "")),
        base_topic=str(base_topic),
        keepalive=keepalive,
        restart_timeout=(int(restart[0]), int(restart[1])),
        max_queued_messages=_int(venue, "max_queued_messages", 100_000, problems, "venue"),
        persistence_location=str(venue.get("persistence_location", "/var/lib/mosquitto/")),
        tls_port=tls_port,
        cafile=venue.get("cafile"),
        certfile=venue.get("certfile"),
        keyfile=venue.get("keyfile"),
        http_dir=http_dir,
    )


# --- what it writes ----------------------------------------------------------------------------


def uplink_topic(venue: Venue, table: str) -> str:
    return f"{venue.base_topic}/{UPLINK}/{table}"


def acl_text(venue: Venue) -> str:
    """The venue's ``acl_file``: each bridge writes its own table; the wall and director read."""
    root = venue.base_topic
    out = [
        "# Written by `rhuna-table venue` from the venue file: edits here are overwritten.",
        "# Each table's bridge writes its own table's topics only; the wall and the director",
        "# read every table and write nothing. No anonymous access.",
    ]
    for t in venue.tables:
        out += ["", f"# table {t.id} ({t.name})", f"user {user(t.id, BRIDGE)}"]
        out += [f"topic write {root}/{t.id}/#", f"topic write {root}/{UPLINK}/{t.id}"]
        if t.commands_from_venue:
            out += [f"topic read {root}/{t.id}/command", f"topic read {root}/{t.id}/command/+"]
    out += ["", "# the wall: every table, read only", f"user {WALL}", f"topic read {root}/#"]
    out += [
        "",
        "# the director (stream) feed: read only",
        f"user {DIRECTOR}",
        f"topic read {root}/#",
    ]
    if venue.organiser is not None:
        out += [
            "",
            "# the organiser: commands, only to the tables that take them",
            f"user {ORGANISER}",
        ]
        out.append(f"topic read {root}/#")
        for t in venue.tables:
            if t.commands_from_venue:
                out += [
                    f"topic write {root}/{t.id}/command",
                    f"topic write {root}/{t.id}/command/+",
                ]
    return "\n".join(out) + "\n"


def passwd_text(venue: Venue, *, salt: Callable[[], bytes] = lambda: os.urandom(SALT_BYTES)) -> str:
    """The venue's ``password_file`` (``user:$7$…``, hashed as ``rhuna-table accounts`` does)."""
    return "".join(f"{name}:{password_hash(pw, salt=salt())}\n" for name, pw in venue.logins())


def venue_conf_text(venue: Venue, folder: Path) -> str:
    """The venue broker's ``mosquitto.conf`` (its passwd and acl in ``folder``)."""
    bind = f" {venue.bind}" if venue.bind else ""
    lines = [
        "# The venue broker: written by `rhuna-table venue` (docs/convention.md).",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl'}",
        "",
        "# retained state and the bridges' sessions survive a restart",
        "persistence true",
        f"persistence_location {venue.persistence_location}",
        "autosave_interval 60",
        f"max_queued_messages {venue.max_queued_messages}",
        "set_tcp_nodelay true",
        "",
        "# the tables' bridges",
        f"listener {venue.port}{bind}",
        "",
        "# the wall and the director (MQTT over WebSockets)",
        f"listener {venue.websockets_port}{bind}",
        "protocol websockets",
    ]
    if venue.http_dir is not None:
        # the pages and the roster, from the listener they talk to (as on a table's Pi)
        lines.append(f"http_dir {venue.http_dir}")
    if venue.tls_port is not None:
        lines += [
            "",
            "# the bridges over TLS",
            f"listener {venue.tls_port}{bind}",
            f"cafile {venue.cafile}",
            f"certfile {venue.certfile}",
            f"keyfile {venue.keyfile}",
        ]
    return "\n".join(lines) + "\n"


def bridge_text(venue: Venue, table: VenueTable) -> str:
    """The table's bridge, for its Pi's ``/etc/mosquitto/conf.d`` (it holds the password)."""
    t = f"{venue.base_topic}/{table.id}"
    tls = venue.tls_port is not None
    lines = [
        f"# Table {table.id} ({table.name}) bridged to the venue: written by `rhuna-table venue`.",
        "# /etc/mosquitto/conf.d/rhuna-venue.conf, mode 0640 root:mosquitto (the password);",
        "# then: sudo systemctl restart mosquitto. docs/convention.md explains each line.",
        "#",
        "# the queue the bridge keeps while the venue is away (global: it also applies to",
        "# this broker's other clients); persistence (the Pi's own config) keeps it on disk",
        f"max_queued_messages {venue.max_queued_messages}",
        "",
        f"connection rhuna-venue-{table.id}",
        f"address {venue.host}:{venue.tls_port if tls else venue.port}",
        f"remote_clientid rhuna-bridge-{table.id}",
        f"remote_username {user(table.id, BRIDGE)}",
        f"remote_password {table.password}",
        "bridge_protocol_version mqttv311",
        "cleansession false",
        "start_type automatic",
        f"restart_timeout {venue.restart_timeout[0]} {venue.restart_timeout[1]}",
        f"keepalive_interval {venue.keepalive}",
        "notifications true",
        f"notification_topic {uplink_topic(venue, table.id)}",
        "# the table's public topics go out, each by name (the WorldKeeper's stay on the Pi:",
        "# docs/mqtt.md, Topics); nothing comes in unless the organiser enables it",
        *(f"topic {t}/{suffix} out 1" for suffix in PUBLIC_FILTERS),
    ]
    if table.commands_from_venue:
        lines += [f"topic {t}/command in 1", f"topic {t}/command/+ in 1"]
    if tls:
        lines.append(f"bridge_cafile {venue.cafile}")
    return "\n".join(lines) + "\n"


def roster(venue: Venue) -> dict[str, Any]:
    """``tables.json``: what the wall and the director read besides the broker (no secrets);
    a table's ``game`` and ``worldkeeper`` only when the venue file gives them.

    >>> roster(parse({"venue": {"host": "v"}, "wall": {"password": "w"},
    ...    "director": {"password": "d"}, "table": [{"id": "k", "name": "K", "password": "p"}]},
    ...    "venue.toml"))["tables"]
    [{'id': 'k', 'name': 'K', 'commands_from_venue': False, 'uplink': 'rhuna/uplink/k'}]
    """
    tables: list[dict[str, Any]] = []
    for t in venue.tables:
        seat: dict[str, Any] = {"id": t.id, "name": t.name}
        if t.game is not None:
            seat["game"] = t.game
        if t.worldkeeper is not None:
            seat["worldkeeper"] = t.worldkeeper
        seat["commands_from_venue"] = t.commands_from_venue
        seat["uplink"] = uplink_topic(venue, t.id)
        tables.append(seat)
    return {
        "version": 1,
        "base_topic": venue.base_topic,
        "websockets_port": venue.websockets_port,
        "tables": tables,
    }


def write(venue: Venue, out: Path, *, venue_dir: Path | None = None) -> list[Path]:
    """Write the venue's four files to ``out/venue`` and each table's bridge file to
    ``out/tables/<id>/``; ``venue_dir`` is where the venue's passwd and acl will live (their
    paths in its mosquitto.conf; default ``out/venue``, resolved)."""
    vdir = out / "venue"
    vdir.mkdir(parents=True, exist_ok=True)
    conf_dir = venue_dir if venue_dir is not None else vdir.resolve()
    written = [vdir / "mosquitto.conf", vdir / "passwd", vdir / "acl", vdir / "tables.json"]
    write_atomic(written[0], venue_conf_text(venue, conf_dir), mode=0o644)
    write_atomic(written[1], passwd_text(venue), mode=0o640)
    write_atomic(written[2], acl_text(venue), mode=0o644)
    write_atomic(written[3], json.dumps(roster(venue), indent=2) + "\n", mode=0o644)
    for t in venue.tables:
        path = out / "tables" / t.id / BRIDGE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, bridge_text(venue, t), mode=0o640)
        written.append(path)
    return written
