"""What a start would do (``rhuna-table check-config``'s plan), and everything it would refuse:
the table, the journal, the state directory, the registry, the pins and MQTT, all at once.

Here, below the CLI, because ``doctor`` asks it too (companion/ops/health.py: the unit exits 2
on what a start refuses and is not restarted, so doctor says it first).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from settings.errors import ConfigError

if TYPE_CHECKING:
    from companion.config import Config
    from engine.state import TableState
    from hardware.config import GpioConfig


def plan(config: Config) -> list[str]:
    """What a start would do, line by line; :class:`ConfigErrors` listing everything a start
    would refuse (table, journal, state directory, registry, pins, MQTT) at once."""
    from companion.service import load_registry
    from companion.table.store import JOURNAL, inspect
    from engine import load_table
    from settings.checker import Problems

    problems = Problems(str(config.source))
    out: list[str] = []
    state = None
    if not config.table_file.exists():
        problems.add(
            "table.file",
            f"{config.table_file} does not exist",
            'write [table] file = "…" with the path of your table file (example:'
            " examples/table.toml; relative paths start at the config's folder)",
        )
    else:
        try:
            state = load_table(config.table_file)
        except ConfigError as e:
            problems.note(e)
    if state is not None:
        out.append(
            f"table     {config.table_file}: table {state.table_id!r}, {len(state.heroes)} heroes,"
            f" {len(state.tokens)} tokens"
        )
    journal = config.state_dir / JOURNAL
    refused = _state_dir_refused(config.state_dir)
    if refused is not None:
        problems.note(ConfigError(refused))
    why = None if refused is not None else _unwritable(config.state_dir)
    if why:
        problems.add("state.dir", why, _STATE_FIX.format(dir=config.state_dir))
    try:
        seen = inspect(config.state_dir)
    except ConfigError as e:
        problems.note(e)
        seen = {"error": "damaged"}
    if seen is None:
        out.append(f"journal   {journal}: none yet (created at the first start)")
    elif "error" in seen:
        out.append(f"journal   {journal}: present, not readable here ({seen['error']})")
    elif state is not None:
        meta = seen["meta"]
        try:
            _replays(config, state, bool(meta))
        except ConfigError as e:
            problems.note(e)
        out.append(
            f"journal   {journal}: #{seen['seq']} commands, snapshot #{seen['snapshot_seq']},"
            f" started {meta.get('created', '?')}; snapshots every {config.snapshot_every}"
        )
    if not config.readers:
        out.append("readers   none (commands come from the wheel, MQTT or --commands)")
    for i, reader in enumerate(config.readers):
        out.append(("readers   " if i == 0 else "          ") + reader.describe())
    if config.synthetic:
        tokens = len(state.tokens) if state is not None else "?"
        out.append(f"registry  synthetic: a made-up tag for each of the {tokens} tokens")
    elif state is not None:
        try:
            registry = load_registry(config, state)
            what = (
                f"{len(registry)} enrolled tags" if len(registry) else "none (no readers need it)"
            )
            out.append(f"registry  {config.registry_file}: {what}")
        except ConfigError as e:
            problems.note(e)
    d = config.display
    if d.driver == "none":
        out.append("display   none")
    else:
        where = f" → {d.options['out_dir']}/latest.png" if d.driver == "png" else ""
        extra = "".join(f", {k} {v}" for k, v in d.options.items() if k != "out_dir")
        out.append(
            f'display   {d.driver} {d.panel}" {d.colour}{where}; a full refresh every'
            f" {d.full_every}{extra}"
        )
    from display.config import library_problem

    why = library_problem(d.driver)
    if why:
        problem, _, fix = why.partition(" — ")
        problems.add("display.driver", problem, fix)
    out.append(f"wheel     {_wheel(config.gpio)}")
    if config.gpio is not None:
        from hardware.controls import pin_factory_problem

        why = pin_factory_problem(config.gpio.pin_factory)
        if why:
            problem, _, fix = why.partition(" — ")
            problems.add("gpio.pin_factory", problem, fix)
    try:
        out.append(f"mqtt      {_mqtt(config, state.table_id if state else '?')}")
    except ConfigError as e:
        problems.absorb(e)
    out.append(f"pages     {_pages(config)}")
    out.append(f"log       {config.log_level}")
    if config.recap and config.recaps_dir is not None:
        link = f", linked as {config.recap_url}" if config.recap_url else ""
        out.append(
            f"record    a session's recap when it ends → {config.recaps_dir}/<session>{link}"
        )
    else:
        out.append("record    no recap when a session ends ([record] recap = false)")
    problems.raise_if_any()
    return out


def _replays(config: Config, initial: TableState, bound: bool) -> None:
    """The start's replay, read-only: a StoreError (a ConfigError) for each journal whose
    replay the start refuses (another table file; a row damaged on disk or that no longer
    applies), with the start's words. ``bound``: the journal names its table file (a new
    one is bound at the first start: nothing to replay)."""
    import threading
    import time

    from companion.table import replay
    from companion.table.journal import JOURNAL
    from companion.table.journal_file import reading

    if not bound:
        return
    with reading(config.state_dir) as db:
        if db is not None:
            path = config.state_dir / JOURNAL
            replay.restore(db, threading.RLock(), path, initial, str(config.table_file), time.time)


_STATE_FIX = (
    "create it for the service's user (sudo install -d -o rhuna -g rhuna {dir}), let systemd"
    " make it (StateDirectory=rhuna-table), or give [state] dir = a folder you can write"
)


def _state_dir_refused(folder: Path) -> str | None:
    """What ``run`` would say of its state directory (companion/table/store.py, word for word):
    one it cannot create, or one another service holds (the lock); None if it would start.
    Nothing is left behind: a folder made to find out is removed, and no lock file is made."""
    import fcntl

    from companion.table.store import _BUSY_FIX, LOCK

    made: list[Path] = []
    probe = folder
    while not probe.exists() and probe != probe.parent:
        made.append(probe)
        probe = probe.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return (
            f"state.dir {folder}: cannot create it ({e.strerror}) — create it for the"
            " service's user, or set [state] dir to a writable directory"
        )
    finally:
        for path in made:  # deepest first
            with contextlib.suppress(OSError):
                path.rmdir()
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY)
    except OSError:
        return None  # no lock file: nobody holds it (a start makes it)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        return (
            f"{folder}: another rhuna-table (pid {holder}) is running on this state"
            f" directory — {_BUSY_FIX}"
        )
    finally:
        os.close(fd)  # closing drops the flock, if this took it
    return None


def _unwritable(folder: Path) -> str | None:
    """Why the service could not write its journal in ``folder`` (created if missing), or None."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        who = "this user" if os.geteuid() else "root"
        verb = (
            "cannot be written"
            if probe == folder
            else f"cannot be created ({probe} is not writable)"
        )
        return f"{folder} {verb} by {who}"
    return None


def _mqtt(config: Config, table_id: str) -> str:
    from companion.mqtt import load_mqtt_config

    mqtt = load_mqtt_config(config.mqtt, str(config.source))
    if not mqtt.enabled:
        return "off ([mqtt] enabled = false)"
    tls = " with TLS" if mqtt.tls is not None else ""
    return (
        f"{mqtt.host}:{mqtt.broker_port}{tls}, topics {mqtt.base_topic}/"
        f"{mqtt.table_id or table_id}/…, {_login(config.mqtt, mqtt.username)} (connects in the"
        " background; a broker that is down is retried)"
    )


def _login(section: object, username: str | None) -> str:
    """Who the service logs in as, and where its password comes from: never the password.

    >>> _login({"username": "kitchen.service", "password_file": "service-kitchen.password"},
    ...        "kitchen.service")
    "login 'kitchen.service' (its password from service-kitchen.password)"
    >>> _login({}, None)
    'no login (anonymous: a broker of rhuna-table accounts refuses it)'
    """
    if username is None:
        return "no login (anonymous: a broker of rhuna-table accounts refuses it)"
    raw = section if isinstance(section, dict) else {}
    if raw.get("password_file") is not None:
        return f"login {username!r} (its password from {raw['password_file']})"
    if raw.get("password") is not None:
        return f"login {username!r} (its password in the config)"
    return f"login {username!r} (no password)"


def _pages(config: Config) -> str:
    """The page server ``[web]`` runs (companion/pages/server.py): where, and from which folder.

    The pages' own MQTT login is the page's, in its address (``rhuna-table accounts urls``)."""
    if config.web_dir is None:
        return (
            "none ([web] dir is not set: the service serves no pages; the broker's websockets"
            " listener may)"
        )
    where = (
        f"http://{config.web_host}:{config.web_port}/"
        if config.web_host
        else f"port {config.web_port} on every interface (http://<this machine>:{config.web_port}/)"
    )
    recaps = ", the recaps under /recaps/" if config.web_recaps and config.recaps_dir else ""
    return f"{where} from {config.web_dir}{recaps}"


def _wheel(gpio: GpioConfig | None) -> str:
    if gpio is None:
        return "off ([gpio] enabled = false)"
    push = f", push {gpio.encoder_push}" if gpio.encoder_push is not None else ""
    buttons = ", ".join(f"{name} {b.pin}" for name, b in gpio.buttons.items())
    return (
        f"pins via {gpio.pin_factory or 'gpiozero default'}: encoder {gpio.encoder_a}/"
        f"{gpio.encoder_b}{push}; buttons {buttons}"
    )
