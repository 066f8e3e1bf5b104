"""``python -m firmware_bridge``: an emulated reader driven by script lines, and ``watch``."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from firmware_bridge import cli
from firmware_bridge.cli import ScriptError, main, run_command
from firmware_bridge.emulator import HubEmulator, PN532Emulator
from tests.harness import WAIT, wait_until


def test_script_lines_drive_the_hub_emulator_and_bad_ones_say_what_works():
    with HubEmulator(channels=2, poll_ms=5) as hub:
        assert run_command(hub, "lay 1 04A1B2C3") == "ok: lay 1 04A1B2C3"
        assert hub.readers[1].uid == bytes.fromhex("04A1B2C3")
        run_command(hub, "lift 1")
        assert hub.readers[1].uid is None
        assert run_command(hub, "# a comment") == ""
        with pytest.raises(ScriptError, match=r"this hub has 0\.\.1"):
            run_command(hub, "lay 5 04A1B2C3")
        with pytest.raises(ScriptError, match="hub commands: lay CHANNEL UID"):
            run_command(hub, "dance")
        with pytest.raises(ScriptError, match="not a hex UID"):
            run_command(hub, "lay 0 zz")
        with pytest.raises(ScriptError, match=r"spray 1\.\.65536 bytes"):
            run_command(hub, "garbage 99999999999")
        with pytest.raises(ScriptError, match="sleep 1e300"):
            run_command(hub, "sleep 1e300")
    with PN532Emulator() as pn, pytest.raises(ScriptError, match="missing argument"):
        run_command(pn, "lay")


def test_watch_prints_events_as_json_lines(capsys, monkeypatch):
    """The watch's ``--seconds`` wait is, here, a wait for what the test looks for: the token is
    laid once the watch says the hub is online, and the watch ends once it has printed the
    event (a token laid after 0.4 s into a 1.2 s watch came too late on a loaded machine)."""
    said: list[str] = []

    with HubEmulator(poll_ms=5) as hub:

        def watched(_seconds: float) -> None:
            def printed_the_event() -> bool:
                said.extend(capsys.readouterr().out.splitlines())
                if any(x.startswith("# hub: online") for x in said) and hub.readers[3].uid is None:
                    hub.lay(3, "04A1B2C3D4E5F6")
                return any(x.startswith("{") for x in said)

            wait_until(printed_the_event, lambda: f"the event printed; the watch said {said}")

        monkeypatch.setattr(cli, "time", SimpleNamespace(sleep=watched))
        assert main(["watch", hub.link, "--kind", "hub", "--seconds", str(3 * WAIT)]) == 0
    lines = said + capsys.readouterr().out.splitlines()
    events = [json.loads(x) for x in lines if x.startswith("{")]
    assert [(e["channel"], e["uid"], e["presence"]) for e in events] == [
        (3, "04A1B2C3D4E5F6", "present")
    ]
    assert any(x.startswith("# hub: online") for x in lines)
    assert lines[-1].startswith("# stats ")


def test_emulate_runs_as_a_program_reading_commands_from_stdin(tmp_path):
    link = tmp_path / "by-id" / "usb-Rhuna_TokenHub_CLI-if00"
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge", "emulate", "hub", "--link", str(link)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == f"hub emulator on {link}"
        proc.stdin.write("lay 0 04A1B2C3\nwobble\nquit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=3 * WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "ok: lay 0 04A1B2C3" in out
    assert "emulate: unknown command 'wobble'" in err and "Traceback" not in err
    assert not link.exists()  # the device took its by-id link with it
