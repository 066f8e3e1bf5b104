"""``check-config`` is as strict as ``run`` (issue 32, item 11): each config ``run`` refuses,
``check-config`` refuses with the very same line; and the command line around it: ``--config``
as every subcommand takes it, hero ids in any case, plain ``--help`` text, and no warning at a
start after a clean stop.

``run`` is the real command in a subprocess (and on a pty for the restart), the lock is held
by a real service, the broker is the harness's Mosquitto.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from companion.cli import SUBCOMMANDS, build_parser, main
from tests.harness import ROOT
from tests.harness.broker import R, Watcher, running_broker
from tests.harness.service import InProcess, write_config
from tests.harness.terminal import RHUNA_TABLE, Terminal

PREFIX = "rhuna-table: "


def run_refuses(config: Path) -> str:
    """The one line ``rhuna-table run`` refuses ``config`` with (exit status 2)."""
    done = subprocess.run(
        [RHUNA_TABLE, "run", "--config", str(config), "--commands", os.devnull],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(config.parent)},
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith(PREFIX)]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0].removeprefix(PREFIX)


def check_config_refuses(config: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["check-config", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"{config}: {len(err) - 1} problem(s); nothing would run", err
    return err[:-1]


def _replace(config: Path, old: str, new: str) -> Path:
    text = config.read_text("utf-8")
    assert old in text
    config.write_text(text.replace(old, new), "utf-8")
    return config


def test_a_role_on_a_channel_the_hub_does_not_have_is_refused_by_both(tmp_path, capsys):
    config = _replace(write_config(tmp_path), '5 = "time"', '7 = "time"')
    said = run_refuses(config)
    assert said == (
        f"{config}: readers[0].roles.7: channel 7, but the emulated hub has 6 channels, 0 to 5"
        " — use a channel 0 to 5, or give channels = 8"
    )
    assert check_config_refuses(config, capsys) == [said]


def test_a_single_reader_s_role_on_another_channel_is_refused(tmp_path, capsys):
    config = write_config(
        tmp_path,
        readers='[[readers]]\nbackend = "pn532"\nport = "/dev/null"\nchannel = 2\n'
        'roles = { 3 = "favor" }\n',
    )
    (problem,) = check_config_refuses(config, capsys)
    assert "readers[0].roles.3: channel 3, but this reader reports only channel 2" in problem


@pytest.mark.parametrize("where", ["a-file/state", "/proc/rhuna-nope/state"])
def test_a_state_directory_that_cannot_be_created_is_refused_by_both(tmp_path, capsys, where):
    """Under a file, or where even root cannot make folders (os.access says yes there)."""
    (tmp_path / "a-file").write_text("not a folder\n")
    config = _replace(write_config(tmp_path), 'dir = "state"', f'dir = "{where}"')
    said = run_refuses(config)
    assert ": cannot create it (" in said and said.startswith("state.dir "), said
    assert check_config_refuses(config, capsys) == [said]


def test_a_missing_state_directory_is_fine_and_check_config_leaves_none(tmp_path, capsys):
    config = _replace(write_config(tmp_path), 'dir = "state"', 'dir = "new/deep/state"')
    assert main(["check-config", "--config", str(config)]) == 0
    assert not (tmp_path / "new").exists()


def test_a_state_directory_another_service_holds_is_refused_by_both(tmp_path, capsys):
    """The store's lock, as a second ``run`` meets it: same line, the holder's pid named."""
    running = InProcess(tmp_path / "one")
    try:
        config = tmp_path / "one" / "rhuna.toml"
        said = run_refuses(config)
        assert said == (
            f"{tmp_path / 'one' / 'state'}: another rhuna-table (pid {os.getpid()}) is running"
            " on this state directory — stop it first (systemctl stop rhuna-table), or give"
            " this one its own [state] dir"
        )
        assert check_config_refuses(config, capsys) == [said]
    finally:
        running.close()
    capsys.readouterr()
    assert main(["check-config", str(config)]) == 0  # stopped: the lock is free again


def test_check_config_takes_config_as_every_subcommand_does(tmp_path, capsys):
    config = write_config(tmp_path)
    assert main(["check-config", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith(f"{config}: OK")
    assert main(["check-config", str(config), "--config", str(config)]) == 0
    capsys.readouterr()
    assert main(["check-config", str(config), "--config", "other.toml"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"rhuna-table: check-config: two configs ({config} and --config other.toml) — give one"
    )


def test_a_hero_id_is_taken_in_any_case_or_as_its_name(capsys):
    table = str(ROOT / "examples" / "table.toml")
    asked = ["odds", table, "--shade", "control", "--capability", "skill", "--difficulty", "5"]
    assert main([*asked, "--hero", "aria"]) == 0
    want = capsys.readouterr().out
    for given in ("Aria", "ARIA"):
        assert main([*asked, "--hero", given]) == 0
        assert capsys.readouterr().out == want
    assert main([*asked, "--hero", "Zed"]) == 2
    assert "unknown hero 'Zed' [field: hero] — one of: aria, bren, cass" in capsys.readouterr().err


def _helps() -> dict[str, str]:
    """Every subcommand's --help text, and each of their own subcommands' (accounts' verbs)."""
    import argparse

    out: dict[str, str] = {}
    parser = build_parser()
    out["rhuna-table"] = parser.format_help()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, sub in action.choices.items():
            out[name] = sub.format_help()
            for inner in sub._actions:
                if isinstance(inner, argparse._SubParsersAction):
                    for verb, p in inner.choices.items():
                        out[f"{name} {verb}"] = p.format_help()
    return out


def test_every_help_is_plain_text() -> None:
    helps = _helps()
    assert {"accounts", "accounts urls", "check-config"} <= set(helps)
    assert len([h for h in helps if " " not in h]) == len(SUBCOMMANDS) + 2  # + check-config, top
    raw = {name: text for name, text in helps.items() if "``" in text or ":func:" in text}
    assert not raw, raw


def test_a_start_after_a_clean_stop_logs_no_warning(tmp_path):
    """The last stop's retained ``offline`` is the broker's memory of that stop, not a
    forgery: the next start says nothing about it (it publishes online at once anyway)."""
    with running_broker(tmp_path / "broker") as broker:
        config = write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
        for run in range(2):
            watcher = Watcher(broker.port, [f"{R}/status", f"{R}/reply"])
            try:
                with Terminal(
                    [RHUNA_TABLE, "run", "--config", str(config)], env={"TMPDIR": str(tmp_path)}
                ) as t:
                    t.wait_for("MQTT: connected")
                    t.wait_for("draw-board: online")
                    # this run's own online (live, not the last stop's retained offline) comes
                    # after its subscription, so a command sent now reaches it after the
                    # retained …/status and …/info: once it is answered, whatever the service
                    # makes of those (a warning) has been said (one queue: paho's thread, then
                    # the publisher's)
                    watcher.wait(
                        lambda ms: [m for m in ms if m.payload == b"online" and not m.retain],
                        "this run's online",
                    )
                    marker = f"after-the-retained-{run}"
                    watcher.send(f"{R}/command", {"cmd": "fly", "transaction": marker})
                    assert watcher.reply(f"{R}/reply", marker)["status"] == "error"
                    t.ctrl_c()
                    t.wait_exit()
            finally:
                watcher.close()
            warnings = [line for line in t.lines if "WARNING" in line or "ERROR" in line]
            assert not warnings, t.text
        assert "stopped at #0" in t.text


# --- the journal: check-config refuses every journal run refuses (issue 45 item 10) ------


def _night(config: Path, n: int = 40, *, keep_log: bool = False) -> None:
    """A journal of ``n`` commands in ``config``'s state directory. ``keep_log``: as a
    kill -9 leaves it, the night in ``journal.sqlite-wal`` (its files copied while open)."""
    import shutil

    from companion.config import load_config
    from companion.table.loop import TableLoop
    from companion.table.store import JOURNAL, Store
    from engine import load_table
    from tags.registry import TagRegistry
    from tests.harness.service import session

    cfg = load_config(config)
    initial = load_table(cfg.table_file)
    live = cfg.state_dir.parent / "live" if keep_log else cfg.state_dir
    with Store.open(live, snapshot_every=0) as store:
        store.restore(initial, cfg.table_file)
        loop = TableLoop(initial, TagRegistry(), journal=store.append)
        for command in session(initial, n, seed=45, refused=0):
            loop.submit(command, "test")
            loop.step(0)
        if keep_log:
            cfg.state_dir.mkdir(exist_ok=True)
            for suffix in ("", "-wal", "-shm"):
                shutil.copyfile(live / f"{JOURNAL}{suffix}", cfg.state_dir / f"{JOURNAL}{suffix}")


def _sql(config: Path, statement: str) -> None:
    import sqlite3

    from companion.table.store import JOURNAL

    db = sqlite3.connect(config.parent / "state" / JOURNAL, isolation_level=None)
    db.execute(statement)
    db.close()


def _scribble(config: Path) -> None:
    from companion.table.store import JOURNAL

    _sql(config, "PRAGMA wal_checkpoint(TRUNCATE)")
    path = config.parent / "state" / JOURNAL
    data = path.read_bytes()
    path.write_bytes(data[:4096] + b"\xa5" * 4096 + data[8192:])


def _wal(config: Path, how: str) -> None:
    import struct

    from companion.table.store import JOURNAL
    from companion.table.wal import read_scan

    state = config.parent / "state"
    wal = state / f"{JOURNAL}-wal"
    data = bytearray(wal.read_bytes())
    if how == "header":
        data[8:24] = bytes(b ^ 0xFF for b in data[8:24])
    elif how == "salt":  # salt-1 of a frame mid-log one less
        found = read_scan(state / JOURNAL)
        assert found is not None and len(found.frames) > 20
        at = found.frames[len(found.frames) // 2].offset + 8
        (salt,) = struct.unpack(">I", data[at : at + 4])
        data[at : at + 4] = struct.pack(">I", (salt - 1) & 0xFFFFFFFF)
    wal.write_bytes(bytes(data))
    if how == "no-main":
        (state / JOURNAL).unlink()


JOURNALS = {
    "another-format": (False, lambda c: _sql(c, "PRAGMA user_version = 8")),
    "scribbled-page": (False, _scribble),
    "an-entry-no-longer-applies": (
        False,
        lambda c: _sql(c, """UPDATE journal SET command = '{"cmd": "teleport"}' WHERE seq = 3"""),
    ),
    "events-not-utf8": (
        False,
        lambda c: _sql(c, "UPDATE journal SET events = CAST(x'5bff5d' AS TEXT) WHERE seq = 7"),
    ),
    "another-table-file": (
        False,
        lambda c: _replace(c.parent / "table.toml", "favor = 2", "favor = 3"),
    ),
    "damaged-log-header": (True, lambda c: _wal(c, "header")),
    "lowered-salt-mid-log": (True, lambda c: _wal(c, "salt")),
    "log-without-its-journal": (True, lambda c: _wal(c, "no-main")),
}


@pytest.mark.parametrize("kind", list(JOURNALS))
def test_every_journal_run_refuses_check_config_refuses_and_leaves_as_it_was(
    tmp_path, capsys, kind
):
    """Was: a journal of format 8, a scribbled page, a row that no longer applies or is not
    UTF-8: check-config said OK (exit 0) where run exits 2."""
    import hashlib

    config = write_config(tmp_path, state="snapshot_every = 0\n")
    keep_log, damage = JOURNALS[kind]
    _night(config, keep_log=keep_log)
    damage(config)
    state = tmp_path / "state"

    def files() -> dict[str, str]:
        return {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(state.iterdir())
            if p.is_file() and not p.name.endswith("-shm")
        }

    before = files()
    refused = check_config_refuses(config, capsys)
    assert files() == before and not (state / "archive").exists()  # nothing written
    said = run_refuses(config)
    # the same words, but for the copy that run makes (check-config copies nothing)
    assert refused == [
        re.sub(r" A copy of the log as it was is in \S+/ \(kept, never deleted\)\.", "", said)
    ]
