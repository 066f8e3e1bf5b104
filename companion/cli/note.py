"""``rhuna-table note TEXT``: a WorldKeeper's note (I-T13) to the running table, over MQTT.

The note is the vocabulary's ``note`` command, sent as gm.html sends it: published on
``<base>/<table>/command`` with a request id, and the service's answer read back on
``…/reply``. It is journaled with the night (``history``, ``export``, the recap) and is
worldkeeper-only unless ``--audience table`` or ``public``. The login is the config's
``[mqtt]`` one unless ``--username``/``--password`` give another (a gm account of
``rhuna-table accounts``). Exit codes: 0 taken, 1 refused (the refusal is printed), 2 no
answer or no broker (the note may or may not have been taken: ``history`` says).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import uuid
from typing import Any

from companion.cli.run import DEFAULT_CONFIG
from engine.contracts import commands
from engine.contracts.commands import NoteCommand
from settings.errors import ConfigError

#: seconds to wait for the broker, then for the service's answer
WAIT = 10.0
#: how long the retained ``…/status`` may take to follow the subscription
STATUS_WAIT = 0.5


def register(sub: Any) -> None:
    p = sub.add_parser(
        "note",
        help="keep a WorldKeeper's note with the night (journaled; worldkeeper-only by default)",
    )
    p.add_argument("text", help="the note's words (at most 200 characters, I-T13)")
    p.add_argument(
        "--audience",
        choices=("worldkeeper", "table", "public"),
        default="worldkeeper",
        help="who may read it: worldkeeper (default: the remote, the CLI, the recap), table"
        " (the table display too), public (the overlay and the wall as well)",
    )
    p.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"the service config (default {DEFAULT_CONFIG})"
    )
    p.add_argument("--table", help="the table id (default: the config's)")
    p.add_argument("--username", help="the broker login (default: the config's [mqtt])")
    p.add_argument("--password", help="its password (one starting with '-' as --password=-…)")
    p.set_defaults(func=run)


def _table_id(config: Any, mqtt: Any) -> str:
    from engine import load_table

    return str(mqtt.table_id or load_table(config.table_file).table_id)


def run(args: argparse.Namespace) -> int:
    from companion.config import load_config
    from companion.mqtt.config import load_mqtt_config

    try:
        config = load_config(args.config)
        mqtt = load_mqtt_config(config.mqtt, str(args.config))
        table = args.table or _table_id(config, mqtt)
    except ConfigError as e:
        print(f"rhuna-table note: {e}", file=sys.stderr)
        return 2
    username = args.username if args.username is not None else mqtt.username
    password = args.password if args.password is not None else mqtt.password
    return send_note(
        mqtt.host,
        mqtt.broker_port,
        f"{mqtt.base_topic}/{table}",
        commands.note(text=args.text, audience=args.audience),
        username,
        password,
    )


def send_note(
    host: str,
    port: int,
    base: str,
    command: NoteCommand,
    username: str | None,
    password: str | None,
) -> int:
    """Publish ``command`` on ``base/command`` and print the service's answer."""
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    request = f"note-{uuid.uuid4().hex[:12]}"
    subscribed, answered, status = threading.Event(), threading.Event(), threading.Event()
    reply: list[dict[str, Any]] = []

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            reply.append({"ok": False, "broker": str(reason)})
            answered.set()
            return
        # the retained status too: a table whose service is offline is said at once
        client.subscribe([(f"{base}/reply", 1), (f"{base}/status", 1)])

    def on_subscribe(client: Any, userdata: Any, mid: Any, reasons: Any, props: Any) -> None:
        subscribed.set()

    def on_message(client: Any, userdata: Any, message: Any) -> None:
        if message.topic == f"{base}/status":
            status.set()
            if message.payload == b"offline" and not reply:
                reply.append({"offline": True})
                answered.set()
            return
        try:
            data = json.loads(message.payload)
        except ValueError:
            return
        # the reply echoes the request id as its transaction (docs/mqtt.md)
        if isinstance(data, dict) and data.get("transaction") == request:
            reply.append(data)
            answered.set()

    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    if username is not None:
        client.username_pw_set(username, password)
    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    try:
        client.connect(host, port, keepalive=30)
    except OSError as e:
        print(f"rhuna-table note: no broker at {host}:{port} ({e})", file=sys.stderr)
        return 2
    client.loop_start()
    try:
        if not subscribed.wait(WAIT) and not reply:
            print(f"rhuna-table note: the broker at {host}:{port} did not answer", file=sys.stderr)
            return 2
        if not reply:
            # the retained status comes just after the subscription (none: a table that
            # never started): an offline table is said at once, the note never sent to it
            status.wait(STATUS_WAIT)
        if not reply:
            body = json.dumps({**command, "id": request, "source": "cli"})
            client.publish(f"{base}/command", body, qos=1)
            answered.wait(WAIT)
    finally:
        client.loop_stop()
        client.disconnect()
    return _said(reply, base)


def _said(reply: list[dict[str, Any]], base: str) -> int:
    if not reply:
        print(
            f"rhuna-table note: no answer from the table on {base}/reply within {WAIT:.0f} s:"
            " the note may or may not have been kept (rhuna-table history says)",
            file=sys.stderr,
        )
        return 2
    answer = reply[0]
    if "offline" in answer:
        print(
            f"rhuna-table note: the table's service is offline ({base}/status says so): the"
            " note was not kept — start it (rhuna-table run) and send the note again",
            file=sys.stderr,
        )
        return 2
    if "broker" in answer:
        print(
            f"rhuna-table note: the broker refused the login ({answer['broker']}): check the"
            " password from `rhuna-table accounts urls`",
            file=sys.stderr,
        )
        return 2
    if answer.get("status") == "ok":
        said = [e.get("text", "") for e in (answer.get("data") or {}).get("events", [])]
        print(f"kept: {' · '.join(x for x in said if x) or 'the note'}")
        return 0
    error = answer.get("error") or {}
    rule = f" [{error['rule']}]" if error.get("rule") else ""
    fix = f" — fix: {error['fix']}" if error.get("fix") else ""
    print(f"note refused{rule}: {error.get('message', answer)}{fix}", file=sys.stderr)
    return 1
