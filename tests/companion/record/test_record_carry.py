"""``rhuna-table run --new-session --carry``: the next session starts where the last one ended.

The carried parts are journaled as ordinary commands (source ``carry``), so the
new session's first state is the last one's, except what the rules leave with
a session (an open Performance P22, Escalation P21, the fight on the wheel, Time
prompts and draws in progress, the Undo history); worn armour is carried as worn (I-C8,
``set_armour``); the session number goes on (T1, T11).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.record.carry import PARTS, carry
from companion.record.journal import open_journal
from companion.record.narrate import recent
from engine import apply, load_table
from engine.immutable import replace
from engine.state import TableState
from tests.harness.record import Night, a_bloody_night, play_night, roster_sheets, start


def last_state(night: Night) -> TableState:
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        return journal.final_state()


def what_the_rules_reset(state: TableState) -> dict[str, Any]:
    """The state as JSON with the parts a new session does not carry set to neutral values:
    the Time tokens on the band's spaces back in their bags, prompts, the last draw and the
    counters of this session's draws and Performances; the fight on the wheel. The roster,
    its worn armour included (I-C8), is compared as it is."""
    b = state.time
    assert b is not None
    for token in b.spaces:
        state = state.put_in_bag(token)
    board = replace(b, spaces=(), prompts=(), prompt_seq=0, last=None, draws=0, pending=None)
    combat = state.combat
    if combat is not None:
        combat = replace(combat, fight=None, fights=0)
    state = replace(
        state,
        time=board,
        combat=combat,
        performances=0,
        performance=None,
        escalation=0,
        retiring=frozenset(),
        history=(),
        change=None,  # the command Undo would take back: the floor, start_session, in both
    )
    return state.to_json()


def carried_first_state(config: Path, **kwargs: Any) -> TableState:
    running = start(config, new_session=True, **kwargs)
    try:
        return running.service.loop.state
    finally:
        running.close()


def test_a_carried_session_starts_from_the_last_state_t1_t11(night: Night) -> None:
    last = last_state(night)
    first = carried_first_state(night.config, carry=frozenset())
    table = load_table(night.table)
    assert first.time is not None and last.time is not None
    assert first.time.session == last.time.session + 1
    # the night changed what carry must carry: not a comparison of two starting states
    assert last.heroes["cass"].strain >= 1 and last.heroes["aria"].wounds == 1
    assert last.heroes["cass"].training_in("shadow").value == "adept"
    assert last.time.weather is not None and last.time.band.value != "morning"
    assert last.combat is not None and last.combat.roster["aria"].injuries
    # the fight killed the raider and wore armour (I-C8): the carried roster keeps both
    assert last.combat.roster["raider"].dead
    assert table.combat is not None
    assert last.combat.roster["bren"].armour != table.combat.roster["bren"].armour
    want = what_the_rules_reset(replace(last, time=replace(last.time, session=first.time.session)))
    got = what_the_rules_reset(first)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    # the archive keeps the last session whole; the new journal replays to the carried state
    [archived] = (night.state_dir / "archive").glob("journal-*.sqlite")
    session = archived.name.removeprefix("journal-").removesuffix(".sqlite")
    with open_journal(archived) as old:
        assert old.session_id == session and old.final_state().to_json() == last.to_json()
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        rows = list(journal.entries())
        assert {r.source for r in rows} == {"carry"}
        assert rows[-1].command["cmd"] == "start_session"
        assert (
            journal.final_state().without_history().to_json() == first.without_history().to_json()
        )


def test_strain_is_carried_with_its_very_tokens_p14(example_state: TableState) -> None:
    """Strain tokens have tags of their own: Aria's Strain 2 was drawn, Strain 1 recovered
    from the bag, so Strain 2 is the one in play — and the carried session says so."""
    state = example_state
    for cmd in [
        {"cmd": "adjust_hero", "hero": "aria", "strain": 2},
        {"cmd": "begin_performance", "difficulty": 3},
        {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill"},
        {"cmd": "draw", "hero": "aria", "token": "aria.strain.2"},
        {"cmd": "adjust_hero", "hero": "aria", "strain": -1},
        {"cmd": "cancel_performance"},
    ]:
        cmd.setdefault("action", "target") if cmd["cmd"] == "declare" else None
        state, _ = apply(state, cmd)
    assert state.heroes["aria"].strain_tokens == ("aria.strain.2",)
    first = example_state
    for cmd in carry(example_state, state).commands:
        first, _ = apply(first, cmd)
    assert first.heroes["aria"] == state.heroes["aria"]
    assert first.bags["aria"].contents == state.bags["aria"].contents


def test_the_worldkeeper_resets_what_should_not_carry(tmp_path: Path) -> None:
    night = play_night(tmp_path)
    last = last_state(night)
    table = load_table(night.table)
    first = carried_first_state(night.config, carry=frozenset({"fatigue", "time", "injuries"}))
    assert first.time is not None and table.time is not None and last.time is not None
    for hero in table.heroes:
        assert first.heroes[hero].fatigue == table.heroes[hero].fatigue
        assert first.heroes[hero].wounds == last.heroes[hero].wounds  # not reset: carried
    assert (first.time.day, first.time.band) == (table.time.day, table.time.band)
    assert first.time.weather == last.time.weather
    assert first.combat is not None and table.combat is not None
    assert first.combat.roster["aria"].injuries == table.combat.roster["aria"].injuries == ()
    assert first.combat.roster["aria"].renown == last.combat.roster["aria"].renown  # type: ignore[union-attr]


def test_history_and_export_find_the_archived_session_by_its_id(
    night: Night, tmp_path: Path, capsys
) -> None:
    """Once the new session began, the night is an archived session."""
    if not list((night.state_dir / "archive").glob("journal-*.sqlite")):
        carried_first_state(night.config, carry=frozenset())  # run alone (-k): begin it here
    [archived] = (night.state_dir / "archive").glob("journal-*.sqlite")
    session = archived.name.removeprefix("journal-").removesuffix(".sqlite")
    capsys.readouterr()
    assert main(["history", session, "--state-dir", str(night.state_dir), "--last", "1"]) == 0
    assert "reset" in capsys.readouterr().out  # the night's last command, not the carry's
    args = ["export", session, "--state-dir", str(night.state_dir), "--to", str(tmp_path)]
    assert main([*args, "--format", "md"]) == 0
    assert (
        "Performance 1 (Difficulty 5): Aria 5 vs 5: SUCCESS" in (tmp_path / "recap.md").read_text()
    )
    assert main(["history", "current", "--state-dir", str(night.state_dir)]) == 0
    out = capsys.readouterr().out
    assert "start_session number=" in out
    # a carried value reads as carried, not as tonight's event (issue 32 item 12)
    carried_lines = [x for x in out.splitlines() if x.startswith(" ") and "carried from" in x]
    assert carried_lines and all("carried from session 1: " in x for x in carried_lines), out
    assert any("Wound" in x for x in carried_lines), carried_lines
    # and so in the retained …/history the table display shows (companion.record.narrate.recent)
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        entries = recent(journal, journal.last_state(night.table), 50)
    said = [(e["source"], e["command"], e["events"]) for e in entries]
    assert all(
        x.startswith("carried from session 1: ")
        for source, command, events in said
        if source == "carry" and not command.startswith("start_session")
        for x in events
    ), said
    assert any(source == "carry" and events for source, _, events in said), said


def test_carry_on_the_command_line_and_its_mistakes(night: Night, capsys) -> None:
    assert main(["run", "--config", str(night.config), "--carry"]) == 2
    assert "--carry goes with --new-session" in capsys.readouterr().err
    assert (
        main(["run", "--config", str(night.config), "--new-session", "--carry", "--reset", "luck"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--reset luck" in err and all(p in err for p in PARTS)


NEW_HERO = """
[[heroes]]
id = "dana"
name = "Dana"
pathways = { skill = "control", lore = "versatility", wild = "impulse" }
"""


def test_a_changed_table_file_carries_from_the_services_last_snapshot(tmp_path: Path) -> None:
    """A hero joins the campaign: the table file changes, so the last session cannot be
    replayed from it; the service's snapshot at its last command (taken at stop) is used."""
    night = play_night(tmp_path)
    last = last_state(night)
    text = night.table.read_text("utf-8")
    at = text.index("# The 23-token Favor Bag")
    night.table.write_text(text[:at] + NEW_HERO + "\n" + text[at:], "utf-8")
    first = carried_first_state(night.config, carry=frozenset())
    for hero in last.heroes:
        assert first.heroes[hero] == last.heroes[hero]
    assert first.heroes["dana"] == load_table(night.table).heroes["dana"]


def test_without_a_snapshot_a_changed_table_file_is_one_line(tmp_path: Path, capsys) -> None:
    import sqlite3

    night = play_night(tmp_path)
    db = sqlite3.connect(night.state_dir / "journal.sqlite")
    db.execute("DELETE FROM snapshots")
    db.commit()
    db.close()
    text = night.table.read_text("utf-8")
    at = text.index("# The 23-token Favor Bag")
    night.table.write_text(text[:at] + NEW_HERO + "\n" + text[at:], "utf-8")
    capsys.readouterr()  # the night's own logging
    code = main(["run", "--config", str(night.config), "--new-session", "--carry"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "--carry: the last session's state cannot be read" in err and "without --carry" in err
    assert not (night.state_dir / "archive").exists()  # nothing was archived


def test_carry_and_the_sheet_agree_on_death_injuries_conditions_and_armour_c8_c10() -> None:
    """The same night, carried and written as a sheet: the next session has the same dead,
    the same injuries, the same conditions and the same worn armour either way (a condition on
    one who then died included: it goes on before the injury that killed). Worn armour is
    carried with ``set_armour`` (I-C8), never said under ``not carried`` (issue 41 item 12)."""
    from companion.record.sheet import sheet_text
    from engine import load_table_text

    text, last = a_bloody_night()
    start = load_table_text(text, "table.toml")
    carried = carry(start, last)
    first = start
    for cmd in carried.commands:
        first, _ = apply(first, cmd)
    from_sheet = load_table_text(sheet_text(text, last), "next.toml")
    assert roster_sheets(first) == roster_sheets(last)
    assert roster_sheets(from_sheet) == roster_sheets(last)
    assert last.combat is not None and start.combat is not None
    worn = {
        cid for cid, c in last.combat.roster.items() if c.armour != start.combat.roster[cid].armour
    }
    assert worn == {"aria", "bren", "raider", "captain"}
    assert {cid for cid, c in last.combat.roster.items() if c.dead} == {"raider", "captain"}
    # the dead's armour too: set_armour is not refused on the dead
    armour = [c for c in carried.commands if c["cmd"] == "set_armour"]
    assert {c["combatant"] for c in armour} == worn
    assert not [x for x in carried.skipped if "armour" in x], carried.skipped
    # a sheet already holding it: carried from it, nothing more about armour is journaled
    assert not [c for c in carry(from_sheet, last).commands if c["cmd"] == "set_armour"]


def test_the_worldkeeper_resets_worn_armour_or_the_table_file_s_new_piece_stands() -> None:
    """``--reset armour`` keeps the table file's armour; a piece the table file changed
    (another name or reduction) is the table file's, said once (I-C8)."""
    from engine import load_table_text

    text, last = a_bloody_night()
    start = load_table_text(text, "table.toml")
    assert not [c for c in carry(start, last, {"armour"}).commands if c["cmd"] == "set_armour"]
    mended = text.replace(
        'armour = { name = "mail", reduction = 2, durability = 6 }',
        'armour = { name = "plate", reduction = 3, durability = 8 }',
    )
    assert mended != text
    carried = carry(load_table_text(mended, "table.toml"), last)
    assert "bren" not in {c.get("combatant") for c in carried.commands if c["cmd"] == "set_armour"}
    (line,) = [x for x in carried.skipped if "armour" in x or "plate" in x]
    assert "'bren'" in line and "plate" in line and "mail" in line and "I-C8" in line


def test_a_carried_night_keeps_death_injuries_and_armour_as_the_sheet_does(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the service (issue 41 item 12): a night where armour is worn and the raider
    dies, then ``--carry``. The next session has the sheet's dead, injuries and armour; the
    start says nothing of armour under ``not carried:``; and an Undo right after the carried
    start is refused (the floor of Undo, T1, item 11), naming what it stops at, and takes
    nothing back: the carried armour and death stay."""
    from companion.record.sheet import sheet_text
    from engine import load_table_text

    night = play_night(tmp_path)
    last = last_state(night)
    assert last.combat is not None
    assert last.combat.roster["raider"].dead
    table = load_table(night.table)
    assert table.combat is not None
    worn = {c for c, x in last.combat.roster.items() if x.armour != table.combat.roster[c].armour}
    assert worn, "the night wore no armour"
    from_sheet = load_table_text(sheet_text(night.table.read_text("utf-8"), last), "next.toml")
    caplog.set_level(logging.INFO, "rhuna.service")
    running = start(night.config, new_session=True, carry=frozenset())
    try:
        first = running.service.loop.state
        assert roster_sheets(first) == roster_sheets(last) == roster_sheets(from_sheet)
        not_carried = [r.getMessage() for r in caplog.records if "not carried" in r.getMessage()]
        assert not [x for x in not_carried if "armour" in x], not_carried
        refused = running.submit({"cmd": "undo"})
        assert refused.error is not None
        said = str(refused.error)
        assert "T1" in said and "start_session" in said and "floor of Undo" in said, said
        assert running.service.loop.state.to_json() == first.to_json()
    finally:
        running.close()
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        rows = [r.command for r in journal.entries()]
        assert {r["combatant"] for r in rows if r["cmd"] == "set_armour"} == worn
        assert roster_sheets(journal.final_state()) == roster_sheets(last)
