"""The example day replays clean and walks every part of the Time rules (T1–T12)."""

from __future__ import annotations

from companion.cli import main
from companion.cli.replay import read_session
from engine import apply
from engine.contracts import events as ev
from engine.narrate import NARRATORS, describe
from tests.harness import ROOT

DAY = ROOT / "examples" / "session.jsonl"  # the day follows the Performances
TABLE = ROOT / "examples" / "table.toml"


def test_rhuna_table_replay_walks_a_whole_day(capsys):
    assert main(["replay", str(TABLE), str(DAY)]) == 0
    out = capsys.readouterr().out
    assert "refused" not in out
    for line in (
        "Weather (Overworld, session start): Fog",  # T1
        "Time draw cancelled",  # T12
        "VIGOR 1 (Aria) expires",  # T12, before the Fatigue
        "Link 1 (Cass) expires",  # T12
        "Day begins",  # T3
        "Night begins",  # T3
        "does this Minor Event interrupt the Rest?",  # I-T10
        "Full Rest complete: Aria fatigue, Cass strain (default)",  # T8, I-T8
        "Purity 1 (Bren) expires and is on the Draw Board: it leaves at Reset",  # T12
        "A new day dawns: day 2",  # T3
        "Reset: 3 tokens back to their bags, Purity 1 leaves the game",  # T12 at Reset, by name
    ):
        assert line in out, line


def test_the_day_covers_bands_majors_and_a_full_rest(example_state):
    state, events = example_state, []
    for _, cmd in read_session(DAY):
        state, more = apply(state, cmd)
        events += more
    resolved = [e for e in events if e.type == "time_resolved"]
    assert [e["size"] for e in resolved] == ["minor", "minor", "minor", "major"] * 3
    assert {e["band"] for e in resolved} == {"morning", "day", "night"}
    assert state.time.day == 2 and state.time.band.value == "morning"
    assert state.time.timers == () and state.time.rest is None and state.time.prompts == ()
    assert [e.type for e in events].count("full_rest_completed") == 1
    unnarrated = {e.type for e in events} - set(NARRATORS)
    assert not unnarrated


def test_a_time_draw_names_the_day_and_the_band_apart(capsys):
    """Issue 41 item 13: `Day 1 Day, Minor draw 1` read as a stutter; the band is named as one (T3)."""
    assert main(["replay", str(TABLE), str(DAY)]) == 0
    out = capsys.readouterr().out
    assert "Day 1, Day band, Minor draw 1:" in out
    assert "Day 1, Morning band, Minor draw 1:" in out
    assert "Day 1 Day" not in out


def test_an_acknowledged_prompt_is_named_by_number_and_kind(capsys, example_state):
    """The table display read "WorldKeeper dealt with prompt(s) 2" (T4, T5)."""
    assert main(["replay", str(TABLE), str(DAY)]) == 0
    out = capsys.readouterr().out
    assert "The WorldKeeper dealt with prompt 2 (Opportunity)" in out
    assert "prompt(s)" not in out
    several = ev.prompt_acknowledged({"prompts": [3, 4], "kinds": ["event", "full_rest"]})
    assert describe(example_state, several) == (
        "The WorldKeeper dealt with prompts 3 (Event) and 4 (Full Rest)"
    )
