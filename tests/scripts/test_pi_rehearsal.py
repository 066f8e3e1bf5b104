"""``make pi-rehearsal``'s own parts that run without an arm64 system (issue 44).

* on a fresh machine the rehearsal's tools are missing: it names their Debian packages (and
  installs them with apt-get), and a binfmt_misc it cannot mount or register is said in words,
  never a FileNotFoundError traceback;
* the first draw, as the rehearsal makes it: the real ``rhuna-table run --commands … --keep-running``
  against the hub emulator on a real pty begins a Performance and declares (the WorldKeeper's
  part), then a token laid on a Draw Board well becomes a ``draw`` in ``history --json``. A
  token laid with no Performance running is refused (P19) and never journaled, and the entries
  before the draw are not it (the old check took any ``#1`` for the first draw).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
from pathlib import Path

from firmware_bridge.emulator.hub import HubEmulator
from scripts import pi_rehearsal as pr
from tests.harness import ROOT, WAIT, wait_until
from tests.harness.terminal import RHUNA_TABLE


def test_the_missing_tools_are_named_by_their_debian_packages(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    assert pr.missing_packages(path=str(empty)) == [
        "mmdebstrap",
        "qemu-user-static",
        "binfmt-support",
    ]
    (empty / "mmdebstrap").write_text("#!/bin/sh\n")
    (empty / "mmdebstrap").chmod(0o755)
    assert pr.missing_packages(path=str(empty)) == ["qemu-user-static", "binfmt-support"]


def test_a_binfmt_misc_that_cannot_be_mounted_is_said_in_words(tmp_path, monkeypatch):
    """No ``mount`` nor ``update-binfmts`` on the PATH (a fresh machine): a reason, no
    FileNotFoundError. The folder is the test's own, not /proc/sys/fs/binfmt_misc."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    ready, why = pr.binfmt_ready(tmp_path / "binfmt_misc")
    assert not ready
    assert why.startswith(f"binfmt_misc cannot be mounted on {tmp_path / 'binfmt_misc'}"), why


def test_a_registered_binfmt_entry_is_ready(tmp_path):
    where = tmp_path / "binfmt_misc"
    where.mkdir()
    (where / "qemu-aarch64").write_text("enabled\ninterpreter /usr/libexec/qemu-binfmt/x\n")
    assert pr.binfmt_ready(where) == (True, "")


def test_the_drawn_entry_is_a_draw_of_that_token_from_a_reader():
    rows = [
        {"seq": 1, "source": "stdin", "command": "begin_performance difficulty=5"},
        {"seq": 2, "source": "stdin", "command": "declare aria shade=control"},
        {"seq": 3, "source": "stdin", "command": "draw aria token=aria.ember.skill"},
    ]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    assert pr.drawn(text, "aria.ember.skill") is None  # not from a reader
    reader = {
        "seq": 4,
        "source": "reader:draw-board",
        "command": "draw aria token=aria.ember.skill",
    }
    assert pr.drawn(text + json.dumps(reader), "aria.ember.skill") == reader
    assert pr.drawn(text + json.dumps(reader), "aria.ember.lore") is None
    tags = {"04000000000002": "aria.potential.lore.1", "04000000000003": "aria.ember.skill"}
    assert pr.hero_token(tags) == ("04000000000003", "aria.ember.skill")
    assert pr.hero_token({"04000000000001": "favor.07"}) is None


class Service:
    """``rhuna-table run`` in a subprocess, its output read line by line on a thread."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def said(self, text: str) -> bool:
        return any(text in line for line in list(self.lines))

    def tail(self) -> str:
        return "\n".join(self.lines[-15:])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config_for(folder: Path, port: str) -> Path:
    """examples/rhuna.toml as the rehearsal pre-writes it: its hub on ``port``, mock pins, no
    MQTT, a free web port; the state dir and the table in ``folder``."""
    text = (ROOT / "examples" / "rhuna.toml").read_text()
    text = re.sub(r'(?m)^dir = "/var/lib/rhuna-table"$', f'dir = "{folder / "state"}"', text)
    text = re.sub(r'(?m)^port = "/dev/serial/by-id/[^"]*"', f'port = "{port}"', text, count=1)
    text = re.sub(r'(?m)^pin_factory = "lgpio"', 'pin_factory = "mock"', text)
    text = re.sub(r"(?m)^(\[mqtt\]\nenabled = )true", r"\1false", text)
    text = re.sub(r"(?m)^port = 8080", f"port = {free_port()}", text)
    shutil.copy(ROOT / "examples" / "table.toml", folder / "table.toml")
    (folder / "rhuna.toml").write_text(text)
    return folder / "rhuna.toml"


def test_the_first_draw_follows_a_begun_performance_and_is_found_in_history(tmp_path):
    from engine import load_table
    from tags.enroll import tokens_in

    first = tokens_in(load_table(ROOT / "examples" / "table.toml"), [pr.FIRST_DRAW_HERO])[0]
    tags = {"04A1B2C3D4E5F6": first, "04000000000009": "favor.07"}
    found = pr.hero_token(tags)
    assert found is not None
    uid, token = found
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "registry.json").write_text(json.dumps({"tags": tags}))
    commands = tmp_path / "commands.jsonl"
    commands.write_text("".join(json.dumps(c) + "\n" for c in pr.FIRST_DRAW_COMMANDS))
    with HubEmulator(tmp_path / "by-id" / "usb-MicroPython_Board-if00") as hub:
        config = config_for(tmp_path, str(hub.link))

        def history() -> str:
            done = subprocess.run(
                [RHUNA_TABLE, "history", "--config", str(config), "--json"],
                capture_output=True,
                text=True,
                timeout=WAIT,
            )
            return done.stdout

        # a token laid with no Performance running: refused (P19), never in the journal
        alone = Service([RHUNA_TABLE, "run", "--config", str(config)])
        try:
            wait_until(lambda: alone.said("ready: table"), alone.tail)
            hub.lay(1, uid)
            wait_until(lambda: alone.said("no Performance is running [P19]"), alone.tail)
        finally:
            alone.stop()
            hub.lift(1)
            hub.wait_polls(hub.remove_misses + 2)
        assert alone.proc.returncode == 0, alone.tail()
        assert pr.drawn(history(), token) is None

        # as the rehearsal does it: the WorldKeeper's commands first, then the token
        served = Service(
            [
                RHUNA_TABLE,
                "run",
                "--config",
                str(config),
                "--commands",
                str(commands),
                "--keep-running",
            ]
        )
        try:
            wait_until(lambda: served.said("ack 2") or served.said("refused"), served.tail)
            assert served.said("ack 2"), served.tail()
            before = history()
            assert before.count("\n") == 2 and pr.drawn(before, token) is None, before
            hub.lay(1, uid)
            wait_until(lambda: pr.drawn(history(), token) is not None, f"a draw of {token}")
        finally:
            served.stop()
    assert served.proc.returncode == 0, served.tail()


def test_the_guide_flashes_the_hub_before_asking_its_port_and_stops_the_service_first():
    """D9: a Pico has no serial port until MicroPython is on it, so the guide asks for the hub's
    port only after that (or says it comes later); the first-flash block stops the service
    (install.sh started it, and it would hold the port) before its first mpremote."""
    from tests.harness.doc_commands import blocks

    text = pr.GUIDE.read_text("utf-8")
    ported = text.index("only **now** has its serial port")
    for found in re.finditer(r"`port`", text):
        start = max(text.rfind(". ", 0, found.start()), text.rfind("\n\n", 0, found.start()))
        sentence = text[start : text.find(".", found.end())]
        assert found.start() > ported or "later" in sentence, sentence
    flash = next(
        b
        for b in blocks(text, "docs/hardware.md")
        if any("mpremote connect $HUB cp" in line for line in b.lines)
    )
    commands = [x.strip() for x in flash.lines[1:] if x.strip() and not x.strip().startswith("#")]
    assert commands[0] == "sudo systemctl stop rhuna-table", commands[:3]


def test_the_systems_hosts_names_the_host_so_sudo_resolves_it():
    """The chroot has the host's name but its own /etc/hosts: without a line naming it, every
    ``sudo`` row's first line was "sudo: unable to resolve host vm" (the note of stop 46)."""
    bare = "127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n"
    named = pr.hosts_naming(bare, "vm")
    assert named == bare + "127.0.1.1\tvm\n"
    assert pr.hosts_naming(named, "vm") == named  # once only
    assert pr.hosts_naming("127.0.0.1 localhost", "vm") == "127.0.0.1 localhost\n127.0.1.1\tvm\n"
    assert pr.hosts_naming("127.0.0.1 vmx # vm\n", "vm").endswith("127.0.1.1\tvm\n")
    assert pr.hosts_naming("", "pi") == "127.0.1.1\tpi\n"


def test_the_system_has_useradd_and_a_cached_one_without_it_is_completed(tmp_path):
    """Trixie's minimal system (mmdebstrap --variant=apt) has no passwd, so no useradd, and the
    rehearsal's first stand-in (the Imager's user pi) failed unseen: the next step died with a
    FileNotFoundError for /home/pi. passwd is now in the system, and a system cached before
    it was is completed rather than taken as it is."""
    assert "passwd" in pr.PACKAGES.split(",")
    status = tmp_path / "var" / "lib" / "dpkg" / "status"
    status.parent.mkdir(parents=True)
    have = [p for p in pr.PACKAGES.split(",") if p != "passwd"]
    status.write_text(
        "".join(
            f"Package: {p}\nStatus: install ok installed\nVersion: 1\n Description line\n\n"
            for p in have
        )
        + "Package: passwd\nStatus: deinstall ok config-files\n"
    )
    assert pr.installed(status.read_text()) == set(have)
    assert pr.lacking(tmp_path) == ["passwd"]
