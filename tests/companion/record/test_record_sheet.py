"""``rhuna-table sheet``: the heroes as a session left them, as a table file that loads to the
same heroes (P4, P11–P18), with the Time Board's day and weather (T1–T3)."""

from __future__ import annotations

from pathlib import Path

from companion.cli import main
from companion.record.journal import open_journal
from companion.record.sheet import sheet_text
from engine import apply, load_table, load_table_text
from engine.state import TableState
from tests.harness import EXAMPLE_TABLE
from tests.harness.record import Night, a_bloody_night, roster_sheets


def same_heroes(a: TableState, b: TableState) -> None:
    assert a.heroes == b.heroes
    for hero in a.heroes.values():
        assert a.bags[hero.bag].contents == b.bags[hero.bag].contents, hero.id
    assert a.active_reserve == b.active_reserve


def test_the_sheet_of_a_night_loads_to_the_same_heroes(
    night: Night, tmp_path: Path, capsys
) -> None:
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        last = journal.final_state()
    out = tmp_path / "next.toml"
    assert main(["sheet", str(night.state_dir), "--to", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    loaded = load_table(out)
    same_heroes(loaded, last)
    assert (
        last.heroes["aria"].wounds == 1
        and last.heroes["cass"].training_in("shadow").value == "adept"
    )
    assert loaded.time is not None and last.time is not None
    assert (loaded.time.day, loaded.time.band, loaded.time.minor_done) == (
        last.time.day,
        last.time.band,
        last.time.minor_done,
    )
    assert loaded.time.weather == last.time.weather
    text = out.read_text("utf-8")
    assert "# An example table" in text  # the table file's comments are kept
    # the fight wore the armour down and earned renown (I-C8, C11): the next table has them
    assert last.combat is not None and loaded.combat is not None
    table = load_table(night.table)
    assert table.combat is not None
    worn = [
        c
        for c in last.combat.roster
        if last.combat.roster[c].armour != table.combat.roster[c].armour
    ]
    assert worn  # the night did wear some armour
    for cid, c in last.combat.roster.items():
        assert loaded.combat.roster[cid].armour == c.armour
        assert loaded.combat.roster[cid].renown == c.renown


def test_strain_tokens_and_active_reserve_round_trip_p14_p17(example_state: TableState) -> None:
    state = example_state
    for cmd in [
        {"cmd": "adjust_hero", "hero": "aria", "strain": 2},
        {"cmd": "set_strain_tokens", "hero": "aria", "tokens": ["aria.strain.3", "aria.strain.1"]},
        {"cmd": "set_reserve", "hero": "bren", "token": "bren.potential.steel.2", "active": True},
        {"cmd": "set_training", "hero": "aria", "capability": "skill", "level": "exemplar"},
    ]:
        state, _ = apply(state, cmd)
    loaded = load_table_text(sheet_text(EXAMPLE_TABLE.read_text("utf-8"), state), "sheet.toml")
    same_heroes(loaded, state)


def test_the_sheet_refuses_to_overwrite_the_sessions_own_table_file(night: Night, capsys) -> None:
    assert main(["sheet", str(night.state_dir), "--to", str(night.table)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "the table file the journal was started with" in err


def test_the_sheet_never_replaces_a_file_silently(night: Night, tmp_path: Path, capsys) -> None:
    """A hand-edited table file at --to is refused, saying what is there, and left as it was;
    --force replaces it (issue 32); a folder is refused even with --force."""
    mine = tmp_path / "mytable.toml"
    mine.write_text("# my own edits\n", "utf-8")
    assert main(["sheet", str(night.state_dir), "--to", str(mine)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"--to {mine}: {mine} exists (15 bytes, changed " in err, err
    assert "nothing written" in err and "--force" in err
    assert mine.read_text("utf-8") == "# my own edits\n"
    assert main(["sheet", str(night.state_dir), "--to", str(mine), "--force"]) == 0
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        same_heroes(load_table(mine), journal.final_state())
    assert "[[heroes]]" in mine.read_text("utf-8")
    capsys.readouterr()
    assert main(["sheet", str(night.state_dir), "--to", str(tmp_path), "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{tmp_path} is a folder" in err and "give a new file name" in err, err


def test_the_sheet_keeps_death_injuries_conditions_and_worn_armour_c8_c10(
    tmp_path: Path,
) -> None:
    text, last = a_bloody_night()
    sheets = roster_sheets(last)
    assert sheets["raider"][0] and sheets["captain"][0] and not sheets["aria"][0]
    assert sheets["aria"][1] and sheets["aria"][2] and sheets["captain"][2]
    table = load_table_text(text, "table.toml")
    assert table.combat is not None
    assert sheets["aria"][3] != table.combat.roster["aria"].armour  # worn (I-C8)
    nxt = sheet_text(text, last)
    assert "dead = true" in nxt and 'cause = "fire"' in nxt
    loaded = load_table_text(nxt, "next.toml")  # the next session, from the sheet
    assert roster_sheets(loaded) == sheets
    # the dead stay dead: the next fight starts without them (C9)
    _, events = apply(loaded, {"cmd": "start_combat", "seed": 3})
    assert events[0]["combatants"] == ["aria", "bren"]
    # a healed combatant's keys go: the sheet of the next night is unhurt again
    healed, _ = apply(loaded, {"cmd": "heal_injuries", "combatant": "aria", "hits": 6})
    healed, _ = apply(
        healed, {"cmd": "remove_combat_condition", "combatant": "aria", "condition": "fatigued"}
    )
    again = load_table_text(sheet_text(nxt, healed), "again.toml")
    assert again.combat is not None
    assert again.combat.roster["aria"].injuries == () == again.combat.roster["aria"].conditions
