"""Who may do what on the broker: a Mosquitto password file and ACL for every table.

Roles are enforced by Mosquitto, not by the pages. For each table the accounts
folder holds:

- ``<table>.service``: the service itself; it reads and writes its own topics
  (``rhuna/<table>/#``) and its Home Assistant discovery configs;
- ``<table>.gm``: the WorldKeeper's remote; it reads the whole table, its
  WorldKeeper-only topics too, and may publish only to ``rhuna/<table>/command``,
  ``rhuna/<table>/command/<name>`` and its own settings, retained: the overlays'
  switches, ``rhuna/<table>/overlay`` (the catalogue's GM_WRITES);
- viewers (``<table>.overlay``, ``<table>.display`` by default): read the table's
  public topics, each by name, publish nothing;

and one broker-wide read-only ``wall`` account for the convention wall, which
reads every table's public topics. No account may write another table's topics,
so tables on one broker cannot touch each other.

The public topics are the catalogue's (companion.mqtt.topics.PUBLIC_FILTERS):
Mosquitto's ACLs only allow, so a public login is granted read on each by name,
never on ``rhuna/<table>/#``, and the WorldKeeper's words (``…/gm_events``,
``…/error``, ``…/reply``: notes, P20 prompts, refusals, improvised foes) never
reach it, whatever it subscribes to (issue 42 item 4).

The source of truth is ``accounts.json`` (mode 0600: it holds the passwords in
clear, since the service and the page URLs need them). Every change rewrites,
each atomically:

- ``passwd``: Mosquitto's ``password_file``, PBKDF2-SHA512 hashes only;
- ``acl``: Mosquitto's ``acl_file``;
- ``service-<table>.password``: the service's password alone, for the
  ``[mqtt] password_file`` key.

After a change Mosquitto must re-read them: ``systemctl reload mosquitto``
(SIGHUP). Passwords are generated (``secrets``), rotated on request, and never
written to a log: only ``urls`` prints credentials, on stdout, when asked.

>>> acc = add_table(Accounts(), "kitchen", viewers=("overlay",), secret=lambda: "pw")
>>> sorted(user for user, _ in acc.logins())
['kitchen.gm', 'kitchen.overlay', 'kitchen.service', 'wall']
>>> print(acl_text(acc).split("user kitchen.gm")[1].split("user")[0].strip())
topic read rhuna/kitchen/#
topic write rhuna/kitchen/command
topic write rhuna/kitchen/command/+
topic write rhuna/kitchen/overlay
>>> overlay = acl_text(acc).split("user kitchen.overlay")[1].split("user")[0]
>>> "rhuna/kitchen/events" in overlay, "kitchen/#" in overlay, "reply" in overlay, "gm" in overlay
(True, False, False, False)
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from companion.mqtt.discovery import ha_id
from companion.mqtt.topics import GM_WRITES, PUBLIC_FILTERS
from companion.ops.account_model import (  # the model shared with `rhuna-table venue`
    PBKDF2_ITERATIONS as PBKDF2_ITERATIONS,
)
from companion.ops.account_model import SALT_BYTES as SALT_BYTES
from companion.ops.account_model import WALL as WALL
from companion.ops.account_model import check_name as check_name
from companion.ops.account_model import new_password as new_password
from companion.ops.account_model import password_hash as password_hash
from companion.ops.account_model import user as user
from settings.atomic import write_atomic
from settings.errors import ConfigError

#: the default viewer accounts of a new table: the stream overlay and the table's own screen
DEFAULT_VIEWERS = ("overlay", "display")
ROLES = ("service", "gm")

ACCOUNTS_FILE = "accounts.json"
PASSWD_FILE = "passwd"
ACL_FILE = "acl"


@dataclass(frozen=True)
class TableAccounts:
    """One table's passwords: its service, its gm, and its viewers by name."""

    service: str = field(repr=False)
    gm: str = field(repr=False)
    viewers: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Accounts:
    """Every table on one broker, and the wall's password (``accounts.json``)."""

    base_topic: str = "rhuna"
    ha_prefix: str = "homeassistant"
    tables: dict[str, TableAccounts] = field(default_factory=dict)
    wall: str | None = field(default=None, repr=False)

    def logins(self) -> Iterator[tuple[str, str]]:
        """(user name, password) of every account, tables in name order, the wall last."""
        for table in sorted(self.tables):
            acc = self.tables[table]
            yield user(table, "service"), acc.service
            yield user(table, "gm"), acc.gm
            for name in sorted(acc.viewers):
                yield user(table, name), acc.viewers[name]
        if self.wall is not None:
            yield WALL, self.wall

    def table(self, table: str) -> TableAccounts:
        if table not in self.tables:
            known = ", ".join(sorted(self.tables)) or "none yet"
            raise ConfigError(
                f"no accounts for table {table!r} (tables: {known}); "
                f"fix: rhuna-table accounts add {table}"
            )
        return self.tables[table]


def add_table(
    acc: Accounts,
    table: str,
    *,
    viewers: tuple[str, ...] = DEFAULT_VIEWERS,
    secret: Callable[[], str] = new_password,
) -> Accounts:
    """The accounts with ``table`` added; an existing table keeps its passwords, gains new viewers."""
    check_name(table, "table id")
    for name in viewers:
        check_name(name, "viewer name")
        if name in ROLES:
            raise ConfigError(f"viewer name {name!r} is taken by the {name} account; pick another")
    old = acc.tables.get(table)
    if old is None:
        new = TableAccounts(service=secret(), gm=secret(), viewers={v: secret() for v in viewers})
    else:
        merged = dict(old.viewers)
        for v in viewers:
            merged.setdefault(v, secret())
        new = replace(old, viewers=merged)
    tables = {**acc.tables, table: new}
    return replace(acc, tables=tables, wall=acc.wall if acc.wall is not None else secret())


def remove_table(acc: Accounts, table: str) -> Accounts:
    acc.table(table)
    return replace(acc, tables={k: v for k, v in acc.tables.items() if k != table})


def rotate(
    acc: Accounts,
    table: str | None,
    names: tuple[str, ...] = (),
    *,
    secret: Callable[[], str] = new_password,
) -> tuple[Accounts, list[str]]:
    """New passwords for ``names`` of ``table`` (all of its accounts when empty), or the wall.

    Returns the accounts and the user names rotated.
    """
    if table is None:  # the wall alone
        if acc.wall is None:
            raise ConfigError("there is no wall account yet; fix: rhuna-table accounts add TABLE")
        return replace(acc, wall=secret()), [WALL]
    old = acc.table(table)
    wanted = names or ("service", "gm", *sorted(old.viewers))
    unknown = [n for n in wanted if n not in ROLES and n not in old.viewers]
    if unknown:
        known = ", ".join((*ROLES, *sorted(old.viewers)))
        raise ConfigError(f"table {table!r} has no account {unknown[0]!r} (accounts: {known})")
    new = replace(
        old,
        service=secret() if "service" in wanted else old.service,
        gm=secret() if "gm" in wanted else old.gm,
        viewers={v: (secret() if v in wanted else p) for v, p in old.viewers.items()},
    )
    return replace(acc, tables={**acc.tables, table: new}), [user(table, n) for n in wanted]


def public_reads(table_root: str) -> list[str]:
    """``topic read`` lines for a public login: each public topic of the table by name.

    >>> public_reads("rhuna/+")[:2]
    ['topic read rhuna/+/events', 'topic read rhuna/+/info']
    """
    return [f"topic read {table_root}/{suffix}" for suffix in PUBLIC_FILTERS]


def acl_text(acc: Accounts) -> str:
    """Mosquitto's ``acl_file``: each account may touch its own table only; viewers only read,
    and only the public topics (the WorldKeeper's are the gm's and the service's); the gm
    writes the commands and its own settings (``GM_WRITES``: the overlays' switches)."""
    root = acc.base_topic
    out = [
        "# Written by `rhuna-table accounts` from accounts.json: edits here are overwritten.",
        "# Each table's service reads and writes its own topics; its gm reads them all and may",
        "# only publish commands to it and its own settings (overlay); its viewers and the wall may only read, and only the",
        "# public topics, each by name (the WorldKeeper's words are on the others: gm_events,",
        "# error, reply). No anonymous access.",
    ]
    for table in sorted(acc.tables):
        t = f"{root}/{table}"
        node = f"rhuna_{ha_id(table)}"
        out += [
            "",
            f"# table {table}",
            f"user {user(table, 'service')}",
            f"topic readwrite {t}/#",
            f"topic readwrite {acc.ha_prefix}/+/{node}/#",
            f"topic read {acc.ha_prefix}/status",
            # the venue bridge's online flag (docs/convention.md), read by doctor's bridge check
            f"topic read {root}/uplink/{table}",
            "",
            f"user {user(table, 'gm')}",
            f"topic read {t}/#",
            f"topic write {t}/command",
            f"topic write {t}/command/+",
            # the WorldKeeper's own settings, kept retained (the overlays' switches)
            *(f"topic write {t}/{suffix}" for suffix in GM_WRITES),
        ]
        for name in sorted(acc.tables[table].viewers):
            out += ["", f"user {user(table, name)}", *public_reads(t)]
    if acc.wall is not None:
        out += [
            "",
            "# the convention wall: every table's public topics, read only",
            f"user {WALL}",
            *public_reads(f"{root}/+"),
            # the venue bridge's online flags (docs/convention.md)
            f"topic read {root}/uplink/+",
        ]
    return "\n".join(out) + "\n"


def passwd_text(
    acc: Accounts, *, salt: Callable[[], bytes] = lambda: os.urandom(SALT_BYTES)
) -> str:
    """Mosquitto's ``password_file``: ``user:$7$…`` lines, hashes only."""
    return "".join(f"{name}:{password_hash(pw, salt=salt())}\n" for name, pw in acc.logins())


# --- the folder ---------------------------------------------------------------------------------


def load(folder: Path) -> Accounts:
    """``folder/accounts.json``, or no accounts at all when it does not exist yet."""
    path = folder / ACCOUNTS_FILE
    if not path.exists():
        return Accounts()
    try:
        data = json.loads(path.read_text("utf-8"))
        tables = {
            name: TableAccounts(
                service=t["service"], gm=t["gm"], viewers=dict(t.get("viewers", {}))
            )
            for name, t in data.get("tables", {}).items()
        }
        return Accounts(
            base_topic=str(data.get("base_topic", "rhuna")),
            ha_prefix=str(data.get("ha_prefix", "homeassistant")),
            tables=tables,
            wall=data.get("wall"),
        )
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        # never echo the file's content: it holds passwords
        raise ConfigError(
            f"{path}: not an accounts file ({type(e).__name__}); "
            "fix: restore it from a backup, or move it away and add the tables again"
        ) from None


def _as_json(acc: Accounts) -> str:
    data: dict[str, Any] = {
        "version": 1,
        "base_topic": acc.base_topic,
        "ha_prefix": acc.ha_prefix,
        "tables": {
            name: {"service": t.service, "gm": t.gm, "viewers": dict(sorted(t.viewers.items()))}
            for name, t in sorted(acc.tables.items())
        },
        "wall": acc.wall,
    }
    return json.dumps(data, indent=2) + "\n"


def service_password_file(folder: Path, table: str) -> Path:
    return folder / f"service-{table}.password"


def save(folder: Path, acc: Accounts) -> list[Path]:
    """Write accounts.json, passwd, acl and each service's password file; remove stale ones."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / ACCOUNTS_FILE, folder / PASSWD_FILE, folder / ACL_FILE]
    write_atomic(written[0], _as_json(acc), mode=0o600)
    write_atomic(written[1], passwd_text(acc), mode=0o640)
    write_atomic(written[2], acl_text(acc), mode=0o644)
    for table, t in acc.tables.items():
        path = service_password_file(folder, table)
        write_atomic(path, t.service + "\n", mode=0o640)
        written.append(path)
    for stale in folder.glob("service-*.password"):
        if stale not in written:
            stale.unlink()
    return written


# --- the URLs -----------------------------------------------------------------------------------

PAGES = ("overlay", "table", "tables", "gm")


#: the parameters that go in the URL's fragment (``#…``): a browser never sends a fragment to
#: the server, so no server logs the login and no Referer carries it (docs/web.md)
FRAGMENT = ("broker", "username", "password")


def page_url(base: str, page: str, params: dict[str, str]) -> str:
    """``<base>/<page>.html?table=…#broker=…&username=…&password=…``: the login (and the
    broker) in the fragment, the rest in the query, URL-encoded.

    >>> page_url("http://pi:8080", "overlay", {"broker": "ws://pi:9001", "table": "k",
    ...                                        "username": "k.overlay", "password": "pw"})
    'http://pi:8080/overlay.html?table=k#broker=ws%3A%2F%2Fpi%3A9001&username=k.overlay&password=pw'
    """
    query = {k: v for k, v in params.items() if k not in FRAGMENT}
    fragment = {k: v for k, v in params.items() if k in FRAGMENT}
    url = f"{base.rstrip('/')}/{page}.html"
    if query:
        url += f"?{urlencode(query, quote_via=quote)}"
    if fragment:
        url += f"#{urlencode(fragment, quote_via=quote)}"
    return url


def urls(
    acc: Accounts, table: str, *, http_base: str, ws_url: str, gm: bool = False
) -> list[tuple[str, str]]:
    """(what, URL) for each page of ``table``; viewer credentials in the viewer pages' URLs.

    The gm URL (it can command the table) only when ``gm`` is asked for.
    """
    t = acc.table(table)
    out: list[tuple[str, str]] = []

    def params(name: str, password: str, **extra: str) -> dict[str, str]:
        return {"broker": ws_url, "table": table, "username": name, "password": password, **extra}

    viewers = sorted(t.viewers)
    if "overlay" in t.viewers:
        out.append(
            (
                "overlay (OBS)",
                page_url(
                    http_base, "overlay", params(user(table, "overlay"), t.viewers["overlay"])
                ),
            )
        )
    display = "display" if "display" in t.viewers else (viewers[0] if viewers else None)
    if display is not None:
        out.append(
            (
                "table display",
                page_url(http_base, "table", params(user(table, display), t.viewers[display])),
            )
        )
    for name in viewers:
        if name not in ("overlay", "display"):
            out.append(
                (
                    f"viewer {name}",
                    page_url(http_base, "overlay", params(user(table, name), t.viewers[name])),
                )
            )
    if acc.wall is not None:
        out.append(
            (
                "convention wall",
                page_url(
                    http_base, "tables", {"broker": ws_url, "username": WALL, "password": acc.wall}
                ),
            )
        )
    if gm:
        out.append(
            (
                "WorldKeeper remote (secret!)",
                page_url(http_base, "gm", params(user(table, "gm"), t.gm)),
            )
        )
    return out


# --- the service's own login in rhuna.toml -----------------------------------------------------

_MQTT_HEADER = re.compile(r"^\[mqtt\][ \t]*(#.*)?$", re.MULTILINE)


def config_login(text: str) -> tuple[str | None, bool]:
    """(``[mqtt] username``, whether a password or password_file is set) of a rhuna.toml text."""
    mqtt = tomllib.loads(text).get("mqtt", {})
    return mqtt.get("username"), ("password" in mqtt or "password_file" in mqtt)


def with_login(text: str, username: str, password_file: Path) -> str:
    """``text`` (a rhuna.toml) with ``username`` and ``password_file`` set in ``[mqtt]``.

    Only a config with no login of its own is changed: the two lines go right under the
    ``[mqtt]`` header (a section is added when there is none), everything else is kept.

    >>> print(with_login('[mqtt]\\nhost = "localhost"\\n', "t.service", Path("/etc/p")))
    [mqtt]
    username = "t.service"
    password_file = "/etc/p"
    host = "localhost"
    <BLANKLINE>
    """
    lines = f"username = {json.dumps(username)}\npassword_file = {json.dumps(str(password_file))}\n"
    m = _MQTT_HEADER.search(text)
    if m is None:
        new = text.rstrip("\n") + "\n\n[mqtt]\n" + lines
    else:
        cut = m.end() + 1
        new = text[:cut] + lines + text[cut:]
    config_login(new)  # still TOML, or this raises before anything is written
    return new


def set_login(config: Path, username: str, password_file: Path) -> str:
    """Give ``config`` the service's login unless it has one; say what was done (for people)."""
    text = config.read_text("utf-8")
    current, has_secret = config_login(text)
    if current is not None or has_secret:
        if current == username:
            return f"{config}: [mqtt] already logs in as {username}"
        return (
            f"{config}: [mqtt] logs in as {current!r}, not {username!r}: left as it is; "
            f"fix: set username = {username!r} and password_file = {str(password_file)!r} there"
        )
    write_atomic(config, with_login(text, username, password_file), mode=stat_mode(config))
    return f"{config}: [mqtt] now logs in as {username} (password_file {password_file})"


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
