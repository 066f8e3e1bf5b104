"""``rhuna-table accounts``: the broker accounts and ACL of each table (docs/web.md, *Accounts*).

    rhuna-table accounts add kitchen            # service, gm, overlay, display (+ the wall)
    rhuna-table accounts add --config /etc/rhuna-table/rhuna.toml   # the table that config runs
    rhuna-table accounts rotate kitchen overlay  # a new password for one account (or all)
    rhuna-table accounts urls kitchen --host rhuna.local   # the page URLs, viewer logins in them
    rhuna-table accounts list                    # who exists (never a password)

Passwords are never printed except by ``urls``. After a change, Mosquitto must
re-read its files: ``systemctl reload mosquitto``; after rotating a service's
password, restart that service too.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from companion.cli import plain
from companion.ops import accounts as A
from settings.errors import ConfigError

DEFAULT_DIR = "/etc/rhuna-table/mqtt"
RELOAD = "reload Mosquitto so it reads them: systemctl reload mosquitto"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "accounts",
        help="write the broker's password file and ACL: service, gm and viewer accounts per table",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--dir", default=DEFAULT_DIR, help=f"the accounts folder (default {DEFAULT_DIR})"
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    add = verbs.add_parser(
        "add", help="create a table's accounts (an existing one keeps its passwords)"
    )
    add.add_argument("table", nargs="?", help="the table id (or --config)")
    add.add_argument("--config", help="take the table id and base topic from this rhuna.toml")
    add.add_argument(
        "--viewer",
        action="append",
        metavar="NAME",
        help=f"a viewer account to create (repeatable; default {', '.join(A.DEFAULT_VIEWERS)})",
    )
    add.add_argument(
        "--base-topic", help="the topics' first level (default rhuna, or the config's)"
    )
    add.add_argument(
        "--set-login",
        action="store_true",
        help="with --config: put the service's username and password_file in its [mqtt] (if none)",
    )
    add.set_defaults(func=run_add)

    rot = verbs.add_parser(
        "rotate", help="new passwords for a table's accounts (all, or those named)"
    )
    rot.add_argument("table", nargs="?", help="the table id")
    rot.add_argument("names", nargs="*", metavar="ACCOUNT", help="service, gm or a viewer name")
    rot.add_argument("--wall", action="store_true", help="rotate the wall account's password")
    rot.set_defaults(func=run_rotate)

    rm = verbs.add_parser("remove", help="remove a table's accounts")
    rm.add_argument("table")
    rm.set_defaults(func=run_remove)

    ls = verbs.add_parser("list", help="the accounts and what each may do (no passwords)")
    ls.set_defaults(func=run_list)

    url = verbs.add_parser("urls", help="the pages' URLs with the viewer accounts' logins in them")
    url.add_argument("table")
    url.add_argument(
        "--host", default="localhost", help="the Pi's name or address as a browser reaches it"
    )
    url.add_argument(
        "--ws-port", type=int, default=9001, help="Mosquitto's websockets listener (9001)"
    )
    url.add_argument(
        "--web-port",
        type=int,
        default=8080,
        help="the service's page server ([web] port, 8080) for the table display, the wall and"
        " gm.html (the overlays, for OBS, always from Mosquitto's http_dir on WS_PORT: they"
        " load while the service is down); 0: every page from WS_PORT (docs/web.md)",
    )
    url.add_argument("--http", help="where the pages are served (default http://HOST:WEB_PORT)")
    url.add_argument(
        "--gm", action="store_true", help="also the WorldKeeper's remote (it can command the table)"
    )
    url.set_defaults(func=run_urls)


def _folder(args: argparse.Namespace) -> Path:
    return Path(args.dir)


def _save(folder: Path, acc: A.Accounts) -> None:
    try:
        written = A.save(folder, acc)
    except PermissionError as e:
        raise ConfigError(
            f"{e.filename}: permission denied; fix: run as root (sudo) or pick --dir"
        ) from None
    print(f"wrote {', '.join(p.name for p in written)} in {folder}")
    print(RELOAD)


def _table_from_config(path: str) -> tuple[str, str]:
    from companion.config import load_config
    from engine.table import load_table

    config = load_config(path)
    table = config.mqtt.get("table_id") or load_table(config.table_file).table_id
    return str(table), str(config.mqtt.get("base_topic", "rhuna"))


def run_add(args: argparse.Namespace) -> int:
    folder = _folder(args)
    acc = A.load(folder)
    table, base = args.table, args.base_topic
    if args.config:
        table_c, base_c = _table_from_config(args.config)
        if table and table != table_c:
            raise ConfigError(
                f"{args.config} runs table {table_c!r}, not {table!r}; give one of the two"
            )
        table, base = table_c, base or base_c
    if not table:
        raise ConfigError(
            "accounts add: name the table (rhuna-table accounts add kitchen) or give --config"
        )
    if base and base != acc.base_topic:
        if acc.tables:
            raise ConfigError(
                f"{folder / A.ACCOUNTS_FILE}: its tables use base topic {acc.base_topic!r}, not {base!r}; "
                "one broker's accounts share one base topic"
            )
        acc = A.Accounts(base_topic=A.check_name(base, "base topic"), ha_prefix=acc.ha_prefix)
    existed = table in acc.tables
    viewers = tuple(args.viewer) if args.viewer else (() if existed else A.DEFAULT_VIEWERS)
    acc = A.add_table(acc, table, viewers=viewers)
    _save(folder, acc)
    names = ", ".join(u for u, _ in acc.logins() if u.startswith(f"{table}."))
    print(f"table {table}: {'kept' if existed else 'created'} accounts {names}")
    login = A.user(table, "service"), A.service_password_file(folder, table).resolve()
    if args.set_login:
        if not args.config:
            raise ConfigError(
                "accounts add --set-login needs --config (the rhuna.toml to set it in)"
            )
        print(A.set_login(Path(args.config), *login))
    else:
        print(
            f"the service logs in with: username = {login[0]!r}, "
            f"password_file = {str(login[1])!r}  ([mqtt] in rhuna.toml)"
        )
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    folder = _folder(args)
    acc = A.load(folder)
    if args.wall:
        if args.table:
            raise ConfigError("accounts rotate: give a table or --wall, not both")
        acc, done = A.rotate(acc, None)
    else:
        if not args.table:
            raise ConfigError("accounts rotate: name the table (or --wall)")
        acc, done = A.rotate(acc, args.table, tuple(args.names))
    _save(folder, acc)
    print(f"new passwords for {', '.join(done)}")
    if any(u.endswith(".service") for u in done):
        print("restart the table's service after the reload: systemctl restart rhuna-table")
    print(
        "pages logged in with an old password must be given their new URL (rhuna-table accounts urls)"
    )
    return 0


def run_remove(args: argparse.Namespace) -> int:
    folder = _folder(args)
    acc = A.remove_table(A.load(folder), args.table)
    _save(folder, acc)
    print(f"removed the accounts of table {args.table}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    acc = A.load(_folder(args))
    if not acc.tables:
        print(f"no accounts in {_folder(args)} (rhuna-table accounts add TABLE)")
        return 0
    for table in sorted(acc.tables):
        t = acc.tables[table]
        print(f"table {table} ({acc.base_topic}/{table}/#)")
        print(f"  {A.user(table, 'service')}: the service (reads and writes its own topics)")
        print(f"  {A.user(table, 'gm')}: the WorldKeeper (reads; publishes commands)")
        for name in sorted(t.viewers):
            print(f"  {A.user(table, name)}: viewer (reads only)")
    if acc.wall is not None:
        print(f"{A.WALL}: the convention wall (reads every table)")
    return 0


def run_urls(args: argparse.Namespace) -> int:
    acc = A.load(_folder(args))
    ws = f"ws://{args.host}:{args.ws_port}"
    http = args.http or f"http://{args.host}:{args.web_port or args.ws_port}"
    # an OBS browser source loads its page once and never retries: an overlay from the page
    # server, loaded while the service is down, stays blank. From Mosquitto's http_dir it loads
    # whenever the broker is up, says offline, and goes live when the service is back
    broker = args.http or f"http://{args.host}:{args.ws_port}"
    from_broker = dict(A.urls(acc, args.table, http_base=broker, ws_url=ws, gm=args.gm))
    moved = False
    for what, url in A.urls(acc, args.table, http_base=http, ws_url=ws, gm=args.gm):
        if urlparse(url).path.endswith("/overlay.html") and from_broker[what] != url:
            url, moved = from_broker[what], True
        print(f"{what}:\n  {url}")
    if moved:
        print(
            f"(the overlays from Mosquitto's own pages on port {args.ws_port}: an OBS browser"
            " source loads them even while the service is down, and they go live when it is"
            " back; docs/web.md)"
        )
    return 0
