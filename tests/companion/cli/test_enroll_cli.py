"""``rhuna-table enroll`` end to end: the real CLI in a subprocess, reading a token hub
emulated on a real pty (firmware_bridge.emulator.HubEmulator, the hub's own firmware
logic) through a ``hub`` reader config, while a "hand" lays tags as the prompts appear.
DESIGN "Tag registry": every token gets its own tag, with progress, duplicates refused,
and the registry file saved after every token so an interrupted enrolment resumes."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.cli.enroll import choose_reader
from companion.config import config_from_text
from companion.table.store import Store, StoreError
from engine import load_table
from firmware_bridge import protocol as p
from firmware_bridge.emulator.hub import HubEmulator
from firmware_bridge.events import Presence, TagEvent
from tags.commands import ReaderRoles, command_for_tag
from tags.enroll import tokens_in
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE, ROOT, WAIT

#: a cold `enroll` process under load (make test-loaded) took over 10 s to its next line
TIMEOUT = WAIT


def uid(n: int) -> str:
    return f"04{n:012X}"


def write_config(folder: Path, reader: str) -> Path:
    """A config on a copy of the example table, its state (and registry) in ``folder``."""
    shutil.copy(EXAMPLE_TABLE, folder / "table.toml")
    config = folder / "rhuna.toml"
    config.write_text(
        '[table]\nfile = "table.toml"\n[state]\ndir = "state"\n'
        f"{reader}"
        '[display]\ndriver = "none"\n[gpio]\nenabled = false\n[mqtt]\nenabled = false\n'
    )
    return config


def hub_reader(hub: HubEmulator, extra: str = "") -> str:
    return f'[[readers]]\nbackend = "hub"\nname = "bench"\nport = "{hub.link}"\n{extra}'


@pytest.fixture
def hub():
    with HubEmulator(channels=2, poll_ms=5.0) as emulated:
        yield emulated


class Hand:
    """Lays one token at a time on a channel of the emulated hub, lifting the last one
    first and waiting until the hub has seen it go (as a person's hand would)."""

    def __init__(self, hub: HubEmulator) -> None:
        self.hub = hub

    def lay(self, tag: str, channel: int = 0) -> None:
        for ch in range(len(self.hub.readers)):
            self.hub.lift(ch)
        assert self.hub.wait_polls(self.hub.remove_misses + 2)
        self.hub.lay(channel, tag)


class Enrolling:
    """One ``rhuna-table enroll`` process and the lines it prints."""

    def __init__(self, config: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "enroll", "--config", str(config), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, start: str) -> str:
        """The next line starting with ``start`` (other lines are kept in ``seen``)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, f"exited before {start!r}: {self.seen} {self.stderr()}"
            self.seen.append(line)
            if line.lstrip().startswith(start):
                return line

    def finish(self) -> int:
        rc = self.proc.wait(TIMEOUT)
        while (line := self.lines.get(timeout=TIMEOUT)) is not None:
            self.seen.append(line)
        return rc

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)


def registry_file(folder: Path) -> dict[str, str]:
    return json.loads((folder / "state" / "registry.json").read_text())["tags"]


def test_enroll_walks_a_bag_refusing_duplicates_and_saves_every_token(tmp_path, hub):
    """Aria's 18 tokens over the pty, one tag each. The tag just taken laid again, and
    another token's tag, are both refused (saying whose it is); the file ends up with
    exactly the 18 tags, and the hub beeped and blinked accordingly."""
    config = write_config(tmp_path, hub_reader(hub))
    tokens = tokens_in(load_table(EXAMPLE_TABLE), ["aria"])
    hand = Hand(hub)
    run = Enrolling(config, "--bag", "aria")
    try:
        run.expect("enrolling 18 of 18 token(s)")
        for i, token in enumerate(tokens):
            prompt = run.expect("now scan:")
            assert prompt.endswith(f"({token}) [{i + 1}/18]")
            if i == 2:
                hand.lay(uid(1))  # the tag just enrolled, laid again
                assert "is the one just enrolled" in run.expect("refused:")
            if i == 4:
                hand.lay(uid(0))  # the first token's tag
                refused = run.expect("refused:")
                assert f"tag {uid(0)} is already" in refused and "(aria.ember.skill)" in refused
            hand.lay(uid(i))
            assert run.expect("ok:") == f"  ok: tag {uid(i)} is {_name(token)} ({token})"
            assert registry_file(tmp_path)[uid(i)] == token  # saved before the next prompt
        assert run.expect("done:").startswith("done: 18 tag(s) enrolled this time; all 18")
        assert run.finish() == 0
    finally:
        run.kill()
    assert registry_file(tmp_path) == {uid(i): t for i, t in enumerate(tokens)}
    assert (0, p.LED_OFF, 60) in hub.feedback_log and (0, p.LED_BLINK, 400) in hub.feedback_log


def test_an_interrupted_enrolment_resumes_where_it_stopped(tmp_path, hub):
    """Ctrl-C at the 4th of the 6 temporary tokens (T12) stops cleanly, with a summary and
    3 tags saved; while it ran, the service could not have started (the state dir's lock).
    The next run starts at [4/6], refuses a tag the first run took, and completes the bag."""
    config = write_config(tmp_path, hub_reader(hub))
    tokens = tokens_in(load_table(EXAMPLE_TABLE), ["temporary"])
    hand = Hand(hub)
    run = Enrolling(config, "--bag", "temporary")
    try:
        for i in range(3):
            run.expect("now scan:")
            hand.lay(uid(i))
            run.expect("ok:")
        assert run.expect("now scan:").endswith("[4/6]")
        with pytest.raises(StoreError, match="another rhuna-table"):
            Store.open(tmp_path / "state")  # what the service does first: refused
        run.proc.send_signal(signal.SIGINT)
        stopped = run.expect("stopped:")
        assert "3 tag(s) enrolled this time; 3 of 6 token(s) have a tag, 3 to go" in stopped
        assert run.finish() == 130
    finally:
        run.kill()
    assert registry_file(tmp_path) == {uid(i): tokens[i] for i in range(3)}

    hub.lift(0)  # the last token taken off the reader before the next run
    assert hub.wait_polls(hub.remove_misses + 2)
    again = Enrolling(config, "--bag", "temporary")
    try:
        assert again.expect("enrolling 3 of 6 token(s)")
        assert again.expect("now scan:").endswith(f"({tokens[3]}) [4/6]")
        hand.lay(uid(1))  # taken in the first run
        refused = again.expect("refused:")
        assert f"tag {uid(1)} is already" in refused and f"({tokens[1]})" in refused
        for i in range(3, 6):
            hand.lay(uid(i))
            again.expect("ok:")
            if i < 5:
                again.expect("now scan:")
        again.expect("done:")
        assert again.finish() == 0
    finally:
        again.kill()
    assert registry_file(tmp_path) == {uid(i): t for i, t in enumerate(tokens)}


def test_redo_on_an_enrolment_channel_replaces_one_tag(tmp_path, hub):
    """A hub whose channel 1 has the enroll role: a tag on channel 0 is not taken (and the
    person is told where to lay it); ``--redo`` gives the token the new tag and frees the
    old one, leaving every other tag as it was."""
    config = write_config(tmp_path, hub_reader(hub, 'roles = { 1 = "enroll" }\n'))
    (tmp_path / "state").mkdir()
    TagRegistry({uid(1): "aria.ember.skill", uid(2): "favor.01"}).save(
        tmp_path / "state" / "registry.json"
    )
    hand = Hand(hub)
    run = Enrolling(config, "--redo", "aria.ember.skill")
    try:
        assert "its tag " + uid(1) + " stays" in run.expect("re-enrolling aria.ember.skill")
        assert run.expect("now scan:").endswith("(aria.ember.skill) [1/1]")
        hand.lay(uid(7), channel=0)
        assert "use channel 1" in run.expect("(channel 0 of bench is not for enrolment")
        hand.lay(uid(7), channel=1)
        assert run.expect("ok:").endswith(f"(aria.ember.skill), replacing {uid(1)}")
        run.expect("done:")
        assert run.finish() == 0
    finally:
        run.kill()
    assert registry_file(tmp_path) == {uid(7): "aria.ember.skill", uid(2): "favor.01"}


def _name(token: str) -> str:
    return load_table(EXAMPLE_TABLE).tokens[token].name


# --- refusals and --list, in-process (no reader is opened) -----------------------------------


def test_enroll_refuses_while_the_service_holds_the_state_dir(tmp_path, hub, capsys):
    """The service holds the reader's port and read the registry when it started: enrolling
    beside it is refused (exit 2) with what to do, and nothing is written."""
    config = write_config(tmp_path, hub_reader(hub))
    with Store.open(tmp_path / "state"):  # the running service's lock
        assert main(["enroll", "--config", str(config), "--bag", "aria"]) == 2
    err = capsys.readouterr().err
    assert f"another rhuna-table (pid {os.getpid()}) is running" in err
    assert "stop it (sudo systemctl stop rhuna-table), enrol, then start it again" in err
    assert not (tmp_path / "state" / "registry.json").exists()


def test_a_synthetic_registry_has_nothing_to_enrol(tmp_path, capsys):
    config = write_config(tmp_path, "[registry]\nsynthetic = true\n")
    assert main(["enroll", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "synthetic = true" in err and "nothing to enrol" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("reader", "args", "message"),
    [
        ("", [], "no [[readers]]: enrolment needs a token reader"),
        ('[[readers]]\nbackend = "emulated-hub"\n', [], "emulated hub: no real token"),
        ('[[readers]]\nbackend = "hub"\nport = "/dev/x"\n', ["--reader", "b"], "no such reader"),
        ('[[readers]]\nbackend = "hub"\nport = "/dev/x"\n', ["--bag", "favour"], "did you mean"),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\n',
            ["--redo", "x", "--bag", "aria"],
            "one",
        ),
    ],
)
def test_enroll_refuses_what_cannot_work_with_a_clear_error(
    tmp_path, capsys, reader, args, message
):
    config = write_config(tmp_path, reader)
    assert main(["enroll", "--config", str(config), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_broken_registry_file_is_named_with_the_fix(tmp_path, hub, capsys):
    config = write_config(tmp_path, hub_reader(hub))
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "registry.json").write_text("{not json")
    assert main(["enroll", "--config", str(config), "--list"]) == 2
    assert "registry.json: not JSON" in capsys.readouterr().err


def test_list_shows_enrolled_and_missing_per_bag(tmp_path, hub, capsys):
    config = write_config(tmp_path, hub_reader(hub))
    (tmp_path / "state").mkdir()
    TagRegistry({uid(1): "favor.01", uid(2): "gone.token"}).save(
        tmp_path / "state" / "registry.json"
    )
    assert (
        main(["enroll", "--config", str(config), "--list", "--bag", "favor", "--bag", "temporary"])
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("registry.json: 1 of 29 token(s) have a tag")
    assert out[1].split() == ["favor", "1/23", "the", "Favor", "Bag:", "22", "missing"]
    assert out[2].split()[:2] == ["missing", "favor.02"]
    assert any("temporary" in line and "0/6" in line for line in out)
    assert "1 tag(s) name tokens this table does not have" in out[-1] and "gone.token" in out[-1]


def test_a_complete_walk_opens_no_reader(tmp_path, capsys):
    """Nothing to scan: say so, without the reader (the port need not even exist)."""
    config = write_config(tmp_path, '[[readers]]\nbackend = "hub"\nport = "/dev/nothing"\n')
    (tmp_path / "state").mkdir()
    tokens = tokens_in(load_table(EXAMPLE_TABLE), ["temporary"])
    TagRegistry({uid(i): t for i, t in enumerate(tokens)}).save(
        tmp_path / "state" / "registry.json"
    )
    assert main(["enroll", "--config", str(config), "--bag", "temporary"]) == 0
    assert "all 6 token(s) already have a tag" in capsys.readouterr().out


# --- the enroll role ---------------------------------------------------------------------------


def test_the_enroll_role_picks_the_reader_and_its_channels(tmp_path):
    text = (
        '[[readers]]\nbackend = "hub"\nname = "board"\nport = "/dev/a"\n'
        '[[readers]]\nbackend = "line"\nname = "desk"\nport = "/dev/b"\nrole = "enroll"\n'
        '[[readers]]\nbackend = "hub"\nname = "bags"\nport = "/dev/c"\nroles = { 5 = "enroll" }\n'
    )
    config = config_from_text(text, "rhuna.toml", base=tmp_path, env={})
    assert choose_reader(config, None)[0].name == "desk"
    assert choose_reader(config, None)[1] is None  # the whole reader: every channel
    assert choose_reader(config, "bags")[1] == frozenset({5})
    assert choose_reader(config, "board") == (config.readers[0], None)
    plain = config_from_text(text.replace("enroll", "time"), base=tmp_path, env={})
    assert choose_reader(plain, None) == (plain.readers[0], None)  # no enroll role: the first


def test_a_tag_on_the_enrolment_reader_is_ignored_by_the_running_table(example_state):
    """During play the enrolment reader does nothing: no command, no unknown-tag banner."""
    roles = ReaderRoles({"desk": "enroll", "board": {3: "enroll"}})
    registry = TagRegistry.synthetic(example_state.tokens)
    known = registry.uid("aria.ember.skill")
    assert known is not None
    for reader, channel, tag in (("desk", 0, known), ("desk", 1, uid(99)), ("board", 3, known)):
        event = TagEvent(reader, channel, tag, Presence.PRESENT, 0.0)
        assert command_for_tag(example_state, registry, event, roles) is None
    on_board = TagEvent("board", 0, known, Presence.PRESENT, 0.0)
    assert command_for_tag(example_state, registry, on_board, roles) == {
        "cmd": "draw",
        "hero": "aria",
        "token": "aria.ember.skill",
    }
