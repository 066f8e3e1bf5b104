"""The demo's table is the real service (issue 18 item 3): built from an emulated config as
``rhuna-table run`` builds it, journal included, with a scripting facade (companion/scripted.py).

Real parts only: the emulated hub on a real pty, gpiozero's MockFactory pins, the PNG panel,
SQLite, and the demo's own Mosquitto with its throwaway accounts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.cli import main
from companion.ops import accounts
from companion.ops.demo_broker import DemoBroker
from companion.record.journal import open_journal
from companion.scripted import ScriptedTable, emulated_config
from companion.service import Service
from engine import load_table
from firmware_bridge.uid import UidError
from settings.errors import ConfigError
from tests.harness import ARIA, BEGIN, EXAMPLE_TABLE, missing_real_part
from tests.harness.broker import Watcher


def test_the_demo_journals_what_it_plays_and_each_run_starts_a_fresh_journal(tmp_path, capsys):
    """Every command the demo's hands send is committed to the journal (sources as a real
    table: the wheel, the hub's reader, the WorldKeeper); the journal restores the final
    table (P13: the Morning's Fatigue overflowed into Cass's Strain; C2: the fight ended).
    A second run plays the same script on a fresh journal."""
    out = tmp_path / "out"
    first: dict[str, list] = {}
    for run in (1, 2):
        assert main(["demo", "--no-mqtt", "--out", str(out)]) == 0
        printed = capsys.readouterr().out
        said = dict(
            re.findall(r"journal: \S+/(table|fight)/state/journal.sqlite, (\d+) commands", printed)
        )
        assert set(said) == {"table", "fight"}, printed
        for name, table in (("table", "table.toml"), ("fight", "fight.toml")):
            state = out / name / "state"
            with open_journal(state / "journal.sqlite") as journal:
                entries = list(journal.entries())
                assert len(entries) == journal.last_seq() == int(said[name])
                final = journal.final_state(EXAMPLE_TABLE.parent / table)
            assert not (state / "archive").exists()  # replaced, not archived run after run
            if run == 1:
                first[name] = [(e.source, e.command) for e in entries]
            else:  # the same commands again, not the script played on the first run's end
                assert [(e.source, e.command) for e in entries] == first[name]
            sources = {e.source for e in entries}
            if name == "table":
                assert sources == {"worldkeeper", "wheel", "reader:draw-board"}
                assert final.heroes["cass"].strain == 1
            else:
                assert sources == {"worldkeeper"}
                assert final.combat.fight is None and final.combat.fights == 1
    assert "Aria: 6 vs 6 — SUCCESS" in printed and "Fight 1 ends" in printed


def test_the_facade_drives_the_service_run_builds_from_an_emulated_config(tmp_path):
    """``Service(config, new_session=…)`` as companion/cli/run.py builds it: the emulated hub is
    its ``[[readers]]`` entry, the MockFactory its ``[gpio] pin_factory``, the panel its
    ``[display]``; a restart restores what the hands played (P4: the wheel's declare)."""
    config = emulated_config(EXAMPLE_TABLE, tmp_path / "state", out_dir=tmp_path, panel="2.13")
    with ScriptedTable(config) as t:
        assert isinstance(t.service, Service) and t.service.config is config
        assert t.hub is t.service.emulators["draw-board"]
        assert t.hand is not None and t.hand.factory is t.service.pin_factory
        assert type(t.service.pin_factory).__name__ == "MockFactory"
        t.command(BEGIN)
        declared = t.dial({"hero": "aria", "shade": "control", "capability": "skill"})
        assert declared.source == "wheel" and declared.seq == 2
        drawn = t.lay(0, token="aria.ember.skill")
        assert drawn.events[0]["total"] == 2 and drawn.seq == 3
        played = t.loop.state
    again = Service(config)  # what `rhuna-table run` would restore from that journal
    try:
        assert again.restored.seq == 3
        assert again.loop.state.to_json() == played.to_json()
    finally:
        again.stop()
    assert (tmp_path / "latest.png").exists()


@pytest.mark.parametrize(
    ("section", "says"),
    [
        ('[gpio]\npin_factory = "lgpio"', "gpio.pin_factory: a scripted table turns the wheel"),
        ("", "readers: a scripted table lays its tokens on an emulated hub"),
    ],
)
def test_a_config_the_hands_cannot_play_is_one_clear_error(tmp_path, section, says):
    from companion.config import config_from_text

    readers = (
        ""
        if not section
        else ('[[readers]]\nbackend = "emulated-hub"\nname = "draw-board"\nchannels = 6\n')
    )
    text = (
        f'[table]\nfile = "{EXAMPLE_TABLE}"\n[state]\ndir = "{tmp_path / "state"}"\n{readers}'
        f"[registry]\nsynthetic = true\n[mqtt]\nenabled = false\n{section or '[gpio]'}\n"
    )
    with pytest.raises(ConfigError, match=re.escape(says)):
        ScriptedTable(config_from_text(text, "mine.toml"))
    assert not (tmp_path / "state").exists()  # refused before the service opened anything


def test_served_after_the_script_the_worldkeepers_remote_is_answered(tmp_path):
    """``demo --serve``: after the script the service's own loop takes over, so a command the
    WorldKeeper's remote sends over the demo's Mosquitto (its gm account) is committed and
    answered, and the script's commands are still there before it (P19, P4)."""
    if DemoBroker.binary() is None:
        missing_real_part("Mosquitto (Debian package mosquitto)")
    table = load_table(EXAMPLE_TABLE).table_id
    broker = DemoBroker([table]).start()
    try:
        user, password = broker.login(table)
        mqtt = {"host": "127.0.0.1", "port": broker.port, "username": user, "password": password}
        gm = Watcher(
            broker.port,
            [f"rhuna/{table}/reply"],
            username=accounts.user(table, "gm"),
            password=broker.accounts.table(table).gm,
        )
        try:
            with ScriptedTable.emulated(EXAMPLE_TABLE, tmp_path, mqtt=mqtt) as t:
                t.command(BEGIN)
                t.serve()
                gm.send(f"rhuna/{table}/command", {**ARIA, "transaction": "gm-1"})
                reply = gm.reply(f"rhuna/{table}/reply", "gm-1")
                assert reply["status"] == "ok", reply
                assert t.service.store.seq == 2
        finally:
            gm.close()
    finally:
        broker.stop()
    with open_journal(Path(tmp_path) / "state" / "journal.sqlite") as journal:
        commands = [e.command["cmd"] for e in journal.entries()]
    assert commands == ["begin_performance", "declare"]


def test_a_demo_still_playing_into_the_same_out_is_one_error_before_the_header(tmp_path, capsys):
    """The journal a run replaces is never pulled from under a table still playing there."""
    from companion.table.store import locked

    with locked(tmp_path / "table" / "state"):  # as a running demo's service holds it
        assert main(["demo", "--no-mqtt", "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "Rhuna table companion" not in captured.out
    assert captured.err.startswith("rhuna-table: ") and captured.err.count("\n") == 1
    assert "another rhuna-table" in captured.err and "another --out" in captured.err


def test_a_script_may_spell_a_uid_as_people_write_it(tmp_path):
    """``lay(uid=…)`` goes through the one UID codec (issue 18 item 6): colons and lower case
    are the same tag as the reader's canonical spelling, and a bad UID is one clear error at
    once, not a wait for a tag that never matches (P5: the token drawn is the token laid)."""
    config = emulated_config(EXAMPLE_TABLE, tmp_path / "state", out_dir=tmp_path, panel="2.13")
    with ScriptedTable(config) as t:
        t.command(BEGIN)
        t.dial({"hero": "aria", "shade": "control", "capability": "skill"})
        canonical = t.registry.uid("aria.ember.skill")
        assert canonical is not None
        spelt = ":".join(canonical[i : i + 2] for i in range(0, len(canonical), 2)).lower()
        drawn = t.lay(0, uid=spelt)
        assert drawn.tag is not None and drawn.tag.uid == canonical
        assert drawn.events[0]["total"] == 2
        with pytest.raises(UidError, match="not a hex UID"):
            t.lay(1, uid="04:A1:ZZ:B2:C3")
