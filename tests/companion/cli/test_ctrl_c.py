"""Ctrl-C on a real terminal, for every command that runs until stopped (issue 32, items 3–4).

Each command runs on a pty that is its controlling terminal, and Ctrl-C is sent as a
terminal sends it: SIGINT to the whole foreground process group, the service's children
(the panel's process, the fork server) included. Every line it printed is read: no
traceback from any process, no MQTT or panel error, and exit status 130 (128 + SIGINT, the
status README.md "Stopping" documents for every command).

And the demo on a terminal keeps its pages served after the script until Ctrl-C, saying
so; without a terminal it ends with its script (tests/companion/cli/test_cli_demo.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from firmware_bridge.emulator.hub import HubEmulator
from tests.harness import EXAMPLE_TABLE, wait_until
from tests.harness.answers import INTERSECT
from tests.harness.broker import mosquitto_binary, running_broker
from tests.harness.service import write_config
from tests.harness.terminal import RHUNA_TABLE, Terminal

#: the exit status of every rhuna-table command stopped by Ctrl-C (README.md "Stopping")
INTERRUPTED = 130

#: what no line may say after a Ctrl-C: a traceback (from any process), an error, a warning
NOT_CLEAN = re.compile(r"Traceback|KeyboardInterrupt|Error|ERROR|WARNING|error|⚠")


def assert_clean(t: Terminal) -> None:
    """No traceback anywhere, and nothing after the Ctrl-C that reads as a fault."""
    bad = [line for line in t.lines if "Traceback" in line or "KeyboardInterrupt" in line]
    bad += [line for line in t.after_ctrl_c if NOT_CLEAN.search(line)]
    assert not bad, "after Ctrl-C:\n" + "\n".join(bad) + "\n--- all it printed:\n" + t.text


def test_run_stops_cleanly_on_ctrl_c_panel_child_and_mqtt_included(tmp_path):
    """The panel's child process gets the terminal's SIGINT too: it leaves the stop to the
    service (no ``Process display-panel: Traceback … KeyboardInterrupt``), the bridge says
    offline and disconnects without an error, and the exit status is 130."""
    with running_broker(tmp_path / "broker") as broker:
        config = write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
        with Terminal(
            [RHUNA_TABLE, "run", "--config", str(config)], env={"TMPDIR": str(tmp_path)}
        ) as t:
            t.wait_for("ready:")
            t.wait_for("draw-board: online")
            # the panel's child is up once its first frame is drawn
            wait_until(lambda: (tmp_path / "state" / "panel" / "latest.png").exists(), "a frame")
            t.wait_for("MQTT")  # connected: Ctrl-C must not read as a lost broker
            t.ctrl_c()
            assert t.wait_exit() == INTERRUPTED
    assert_clean(t)
    assert any("SIGINT: stopping" in line for line in t.lines), t.text
    assert "stopped at #0" in t.lines[-1], t.text


def _forked(session: int) -> int:
    """How many of the session's processes multiprocessing's fork server made (and itself)."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) != session:
                continue
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        count += b"multiprocessing.forkserver" in cmdline
    return count


def test_run_stops_cleanly_on_ctrl_c_while_its_answers_child_computes(tmp_path):
    """An Intersect's odds are too big for a turn: a child of the fork server computes them
    (companion/views/answers.py). Ctrl-C as soon as it is there, the panel's child beside it:
    neither prints a traceback, and the service stops at #3 with 130."""
    config = write_config(tmp_path)
    with Terminal(
        [RHUNA_TABLE, "run", "--config", str(config), "--commands", "-", "--keep-running"],
        env={"TMPDIR": str(tmp_path)},
    ) as t:
        t.wait_for("ready:")
        wait_until(lambda: _forked(t.proc.pid) >= 2, "the fork server and the panel's child")
        for command in INTERSECT:
            os.write(t.master, (json.dumps(command) + "\n").encode())
        t.wait_for("ack 3")
        wait_until(lambda: _forked(t.proc.pid) >= 3, "the answers' child")
        t.ctrl_c()
        assert t.wait_exit() == INTERRUPTED
    assert_clean(t)
    assert "stopped at #3" in t.lines[-1], t.text


def _demo(tmp_path: Path, *args: str, stdin_tty: bool = True) -> Terminal:
    mosquitto_binary()  # the demo's own broker: missing in CI fails
    return Terminal(
        [RHUNA_TABLE, "demo", "--out", str(tmp_path / "out"), *args],
        env={"TMPDIR": str(tmp_path)},
        stdin_tty=stdin_tty,
    )


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return int(answer.status)


def test_the_demo_on_a_terminal_keeps_its_pages_up_until_ctrl_c(tmp_path):
    """Item 3: after the script the printed page URLs still answer, the demo says they stay
    up and how to stop; Ctrl-C then stops the tables and the broker cleanly (130), and the
    pages are gone."""
    with _demo(tmp_path) as t:
        t.wait_for("Ctrl-C to stop", timeout=120)
        assert any(
            "the pages above stay up" in line and "Ctrl-C to stop" in line for line in t.lines
        ), t.text
        urls = re.findall(r"(http://127\.0\.0\.1:\d+/\S+\.html\S*)", t.text)
        assert len(urls) == 7, t.text
        assert t.proc.poll() is None, t.text  # still running after the script
        assert all(_get(url) == 200 for url in urls)
        t.ctrl_c()
        assert t.wait_exit() == INTERRUPTED
    assert_clean(t)
    assert t.lines[-1].strip() == "Stopped.", t.text
    with pytest.raises(urllib.error.URLError):
        _get(urls[0])


def test_the_demo_without_a_terminal_ends_with_its_script(tmp_path):
    """Standard input not a terminal (a test, CI, a pipe): the demo ends by itself, as before,
    and says how to keep the pages."""
    with _demo(tmp_path, stdin_tty=False) as t:
        assert t.wait_exit(timeout=120) == 0
    assert "Ctrl-C to stop" not in t.text
    assert "add --serve" in t.text


def test_ctrl_c_in_the_demo_s_script_stops_it_cleanly(tmp_path):
    """In the middle of the script: the table stops, its journal closed, the broker too."""
    with _demo(tmp_path) as t:
        t.wait_for("Aria draws Aria's skill Ember", timeout=60)
        t.ctrl_c()
        assert t.wait_exit() == INTERRUPTED
    assert_clean(t)
    assert "Stopped (Ctrl-C) before the end of the script." in t.lines[-1], t.text
    # nothing left holding the journal: the next demo starts at once on the same --out
    with _demo(tmp_path, "--no-mqtt", stdin_tty=False) as again:
        assert again.wait_exit(timeout=120) == 0, again.text


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["foreground", "sigint-ignored"])
def test_history_follow_stops_cleanly_on_ctrl_c(tmp_path, sigint_ignored):
    """Also when it started with SIGINT ignored, as a script's background job does (and a
    CI run started with `&`: the case that once failed here): `history --follow` runs until
    stopped, so it takes SIGINT back (companion.cli.stopping) rather than wait for a
    KeyboardInterrupt that CPython then never raises."""
    config = write_config(tmp_path)
    commands = tmp_path / "commands.jsonl"
    commands.write_text('{"cmd": "begin_performance", "difficulty": 5}\n')
    subprocess.run(
        [RHUNA_TABLE, "run", "--config", str(config), "--commands", str(commands)],
        check=True,
        capture_output=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    argv = [RHUNA_TABLE, "history", str(tmp_path / "state"), "--follow"]
    with Terminal(argv, sigint_ignored=sigint_ignored) as t:
        t.wait_for("Performance 1 begins")
        t.ctrl_c()
        assert t.wait_exit() == INTERRUPTED
    assert_clean(t)


def test_enroll_stops_cleanly_on_ctrl_c(tmp_path):
    shutil.copy(EXAMPLE_TABLE, tmp_path / "table.toml")
    with HubEmulator(channels=2, poll_ms=5.0) as hub:
        config = tmp_path / "rhuna.toml"
        config.write_text(
            '[table]\nfile = "table.toml"\n[state]\ndir = "state"\n'
            f'[[readers]]\nbackend = "hub"\nname = "bench"\nport = "{hub.link}"\n'
            '[display]\ndriver = "none"\n[gpio]\nenabled = false\n[mqtt]\nenabled = false\n'
        )
        with Terminal([RHUNA_TABLE, "enroll", "--config", str(config), "--bag", "temporary"]) as t:
            t.wait_for("now scan:")
            t.ctrl_c()
            assert t.wait_exit() == INTERRUPTED
    assert_clean(t)
    assert any(line.startswith("stopped:") for line in t.lines), t.text
