"""``rhuna-table play``: your own table on a laptop, with the pages and gm.html on a private
broker kept across runs (issue 41, item 14).

Each test runs the command itself on a real terminal (tests.harness.terminal), as a user
does: its own Mosquitto on free ports (never the machine's 127.0.0.1:1883: each test reads
the broker's config and the service's log to say so), the real service, Ctrl-C as a
terminal sends it. And ``examples/rhuna-emulated.toml`` talks to no broker it did not start.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.request
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from companion.config import load_config
from companion.mqtt import load_mqtt_config
from companion.table.journal_file import inspect
from tests.harness import ROOT, WAIT, wait_until
from tests.harness.broker import Watcher, mosquitto_binary
from tests.harness.terminal import RHUNA_TABLE, Terminal
from tests.harness.web import built_pages

#: the machine's own broker: no test may publish there
SYSTEM_BROKER = 1883
#: what no line may say: a traceback (from any process), an error, a warning
NOT_CLEAN = re.compile(r"Traceback|KeyboardInterrupt|Error|ERROR|WARNING|error|⚠")
EXAMPLE = ROOT / "examples" / "table.toml"
EMULATED = ROOT / "examples" / "rhuna-emulated.toml"


def _play(tmp_path: Path, *args: str) -> Terminal:
    mosquitto_binary()  # the command's own broker: missing in CI fails
    built_pages()
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}
    return Terminal([RHUNA_TABLE, "play", *args], env={**env, "TMPDIR": str(tmp_path)})


def _ready(t: Terminal) -> dict[str, object]:
    """Once the table serves: its ports, its page URLs by name, and the gm's login."""
    t.wait_for("Ctrl-C to stop")
    t.wait_for("ready: table")
    port = int(re.search(r"private Mosquitto on 127\.0\.0\.1:(\d+)", t.text).group(1))  # type: ignore[union-attr]
    ws = int(re.search(r"WebSockets and the web pages on port (\d+)", t.text).group(1))  # type: ignore[union-attr]
    t.wait_for(f"MQTT: connected to 127.0.0.1:{port}")  # the service on the private broker
    urls = dict(re.findall(r"^\s+(.+?): (http://127\.0\.0\.1:\d+/\S+)$", t.text, re.MULTILINE))
    gm = dict(parse_qsl(urlsplit(urls["WorldKeeper remote (secret!)"]).fragment))
    return {"port": port, "ws": ws, "urls": urls, "gm": gm}


def _logins(urls: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each page's (user, password), from its URL's fragment."""
    logins = {}
    for what, url in urls.items():
        fragment = dict(parse_qsl(urlsplit(url).fragment))
        logins[what] = (fragment["username"], fragment["password"])
    return logins


def _only_its_own_broker(state: Path, seen: dict[str, object]) -> None:
    """The broker's config listens on the printed free ports, none of them 1883, and the
    service's log names no other broker."""
    conf = (state / "broker" / "mosquitto.conf").read_text()
    listeners = re.findall(r"^listener (\d+) 127\.0\.0\.1$", conf, re.MULTILINE)
    assert sorted(map(int, listeners)) == sorted([seen["port"], seen["ws"]]), conf
    assert SYSTEM_BROKER not in (seen["port"], seen["ws"])
    assert "allow_anonymous false" in conf and "acl_file" in conf


def _mosquittos(state: Path) -> list[int]:
    """The pids of the Mosquitto processes running this table's broker config."""
    conf = str(state / "broker" / "mosquitto.conf").encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"mosquitto" in cmdline and conf in cmdline:
            found.append(int(pid))
    return found


def _stop(t: Terminal, state: Path) -> None:
    """Ctrl-C: exit 130, nothing that reads as a fault, the broker gone with it."""
    t.ctrl_c()
    assert t.wait_exit() == 130, t.text
    bad = [line for line in t.lines if "Traceback" in line or "KeyboardInterrupt" in line]
    bad += [line for line in t.after_ctrl_c if NOT_CLEAN.search(line)]
    assert not bad, "\n".join(bad) + "\n--- all it printed:\n" + t.text
    assert "Stopped: the table and its broker" in t.lines[-1], t.text
    assert _mosquittos(state) == [], "the private broker outlived play"


def test_play_serves_the_pages_and_gm_on_its_own_broker_and_the_night_goes_on(tmp_path):
    state = tmp_path / "xdg" / "rhuna" / "example"  # $XDG_STATE_HOME/rhuna/<table id>
    with _play(tmp_path, str(EXAMPLE)) as t:
        seen = _ready(t)
        assert "a new night" in t.text, t.text
        _only_its_own_broker(state, seen)
        urls = seen["urls"]
        assert set(urls) >= {"overlay (OBS)", "table display", "WorldKeeper remote (secret!)"}
        with urllib.request.urlopen(urls["WorldKeeper remote (secret!)"], timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        gm = seen["gm"]
        assert gm["username"] == "example.gm" and gm["broker"] == f"ws://127.0.0.1:{seen['ws']}/"
        watcher = Watcher(
            seen["port"], ["rhuna/example/#"], username=gm["username"], password=gm["password"]
        )
        try:
            # "MQTT: connected" comes before the service's first state: the watcher may take it
            # live; a client that subscribes after it gets the retained copy first
            watcher.first("rhuna/example/state")
            later = Watcher(
                seen["port"], ["rhuna/example/state"], username=gm["username"],
                password=gm["password"],
            )  # fmt: skip
            try:
                retained = later.first("rhuna/example/state")
            finally:
                later.close()
            assert retained.retain and retained.json()["table"] == "example"
            command = {"cmd": "begin_performance", "difficulty": 5, "transaction": "laptop-1"}
            watcher.send("rhuna/example/command", command)
            assert watcher.reply("rhuna/example/reply", "laptop-1")["status"] == "ok"
        finally:
            watcher.close()
        wait_until(lambda: (inspect(state) or {}).get("seq") == 1, "the command in the journal")
        # the same table played twice at once: refused before a second broker starts
        second = subprocess.run(
            [RHUNA_TABLE, "play", str(EXAMPLE)],
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg")},
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert second.returncode == 2 and "is being played already" in second.stderr
        assert "Traceback" not in second.stderr and len(_mosquittos(state)) == 1
        _stop(t, state)
    # the next run goes on with the same night, with the same logins (a bookmarked gm.html
    # still logs in; the ports too, unless another process took one meanwhile)
    with _play(tmp_path, str(EXAMPLE)) as again:
        seen_again = _ready(again)
        assert "1 command so far: the night goes on" in again.text, again.text
        assert "ready: table 'example': #1 commands" in again.text, again.text
        assert _logins(seen_again["urls"]) == _logins(urls)
        _only_its_own_broker(state, seen_again)
        _stop(again, state)


def test_a_killed_play_leaves_no_broker_and_starts_again(tmp_path):
    """kill -9 gives play no chance to stop its broker: Mosquitto goes with it all the same
    (its parent-death signal), and the next play starts on the same folder."""
    state = tmp_path / "xdg" / "rhuna" / "example"
    with _play(tmp_path, str(EXAMPLE)) as t:
        _ready(t)
        assert len(_mosquittos(state)) == 1
        os.kill(t.proc.pid, signal.SIGKILL)
        t.wait_exit()
        wait_until(lambda: _mosquittos(state) == [], "the broker gone with play")
    with _play(tmp_path, str(EXAMPLE)) as again:
        _ready(again)
        _stop(again, state)


def test_the_emulated_example_talks_to_no_broker_it_did_not_start(tmp_path):
    """Its MQTT is off, its journal in the user's state folder (not a /tmp folder shared by
    every user), and `run` says where the pages are: `play --config` it, which publishes on
    a private broker of its own."""
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp_path)}
    config = load_config(EMULATED)
    assert not load_mqtt_config(config.mqtt, str(config.source)).enabled
    assert not str(config.state_dir).startswith("/tmp/")
    commands = tmp_path / "commands.jsonl"
    commands.write_text(json.dumps({"cmd": "begin_performance", "difficulty": 5}) + "\n")
    done = subprocess.run(
        [RHUNA_TABLE, "run", "--config", str(EMULATED), "--commands", str(commands)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * WAIT,
    )
    assert done.returncode == 0 and done.stdout == "ack 1\n", done.stderr
    assert (
        f"MQTT off ([mqtt] enabled = false): no web pages, no gm.html. For them, on a private"
        f" broker of this table's own: rhuna-table play --config {EMULATED}" in done.stderr
    ), done.stderr
    assert "MQTT: connect" not in done.stderr
    kept = home / ".local" / "state" / "rhuna" / "example"
    assert (inspect(kept) or {}).get("seq") == 1
    # played with the pages: the private broker, and the same night
    with _play(tmp_path, "--config", str(EMULATED)) as t:
        seen = _ready(t)
        assert "1 command so far: the night goes on" in t.text, t.text
        _only_its_own_broker(kept, seen)
        _stop(t, kept)
