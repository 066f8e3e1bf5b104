"""Table and rules files: a broken file gets an error naming file, key and fix."""

from __future__ import annotations

import pytest

from engine import ConfigError, load_table, load_table_text
from tests.harness import EXAMPLE_TABLE

GOOD = EXAMPLE_TABLE.read_text()


def broken(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[table\nid=1", "not valid TOML"),
        (GOOD + "\n[dragons]\nx = 1\n", "unknown section 'dragons'"),
        (GOOD + "\n[rules.exertion]\nfatigue = 3\nfatigues = 4\n", "rules.exertion.fatigues"),
        # the config checker's one shape, did-you-mean included (issue 18 item 6; P11)
        (
            GOOD + "\n[rules.draws]\nmaximun = 3\n",
            "rules.draws.maximun: unknown key — did you mean maximum? [rules.draws] takes: adept,",
        ),
        (GOOD + '\n[rules.exertion]\nfatigue = "two"\n', "rules.exertion.fatigue must be int"),
        (
            broken(
                'wild = "impulse" }\ntraining = { skill',
                'wild = "impulse", steel = "control" }\ntraining = { skill',
            ),
            "3 starting Pathways",
        ),
        (
            broken('training = { skill = "adept"', 'training = { skil = "adept"'),
            "unknown capability 'skil'",
        ),
        (broken('skill = "adept"', 'skill = "grandmaster"'), "use one of untrained"),
        (broken('{ shade = "xul", deity = "Xul", count = 1 },', ""), "holds 23 tokens"),
        (broken("favor = 2", "favor = -1"), "heroes[0].favor must be a whole number"),
        (broken('id = "bren"', 'id = "aria"'), "used twice"),
        (
            broken('skill = "control", lore', 'skill = "purple", lore'),
            "control, versatility or impulse",
        ),
        (broken("favor = 2", "favor = 2\nactive_reserve = [[1]]"), "active_reserve must list"),
        (broken('deity = "The Warden"', 'deity = ["The Warden"]'), "deity must be a name"),
        (broken('band = "morning"', 'band = "morning"\nminor_done = true'), "time.minor_done"),
    ],
)
def test_config_errors_name_the_key(text, expected):
    with pytest.raises(ConfigError) as info:
        load_table_text(text, "table.toml")
    assert expected in str(info.value)
    assert str(info.value).startswith("table.toml") or "rules" in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_table(tmp_path / "nope.toml")


def test_rules_override_changes_the_engine():
    """A [rules] override reaches play: a Trained hero now draws 2 (P6), Adept still 4."""
    from engine import apply

    state = load_table_text(GOOD + "\n[rules.draws]\ntrained = 2\n")
    assert state.rules["draws"]["adept"] == 4
    state, _ = apply(state, {"cmd": "begin_performance", "difficulty": 5})
    declare = {"cmd": "declare", "hero": "aria", "shade": "control", "action": "target"}
    _, events = apply(state, {**declare, "capability": "lore"})  # Trained
    assert events[-1]["draws"] == 2
    _, events = apply(state, {**declare, "capability": "skill"})  # Adept
    assert events[-1]["draws"] == 4


def test_rules_file_override(tmp_path):
    (tmp_path / "house.toml").write_text("[exertion]\nfatigue = 3\n")
    (tmp_path / "t.toml").write_text(
        GOOD.replace('id = "example"', 'id = "example"\nrules_file = "house.toml"')
    )
    assert load_table(tmp_path / "t.toml").rules["exertion"]["fatigue"] == 3


def test_a_tables_overrides_leave_the_shipped_rules_as_shipped(tmp_path):
    """The shipped rules are parsed once and shared (engine.rules.shipped_rules): a table's
    [rules] and its rules_file change that table's copy only, so the next table, the command
    schema and the input limits still read the file as shipped."""
    import tomllib
    from pathlib import Path

    import engine.rules

    (tmp_path / "house.toml").write_text("[exertion]\nfatigue = 3\n")
    (tmp_path / "t.toml").write_text(
        GOOD.replace('id = "example"', 'id = "example"\nrules_file = "house.toml"')
        + "\n[rules.draws]\ntrained = 2\n"
    )
    changed = load_table(tmp_path / "t.toml")
    assert changed.rules["exertion"]["fatigue"] == 3 and changed.rules["draws"]["trained"] == 2
    as_shipped = tomllib.loads(
        (Path(engine.rules.__file__).parent / "data" / "rules.toml").read_text("utf-8")
    )
    assert engine.rules.shipped_rules() == as_shipped
    plain = load_table_text(GOOD)
    assert plain.rules["exertion"]["fatigue"] == as_shipped["exertion"]["fatigue"]
    assert plain.rules["draws"]["trained"] == as_shipped["draws"]["trained"]
    assert plain.rules is not changed.rules and plain.rules["draws"] is not as_shipped["draws"]


def test_default_favor_bag_has_23(tmp_path):
    text = GOOD[: GOOD.index("# The 23-token Favor Bag")]
    state = load_table_text(text)
    assert len(state.bags["favor"].contents) == 23
    shades = sorted(state.tokens[t].shade for t in state.bags["favor"].contents)
    assert shades.count("xul") == 1 and shades.count("xantyr") == 1


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ('[rules.intersect]\nmode = "summ"', "rules.intersect.mode = 'summ': use one of sum"),
        ('[rules.training]\nexert_only = "untrianed"', "rules.training.exert_only"),
        ('[rules.health]\nfatigue_overflow = "dicard"', "(I-P13)"),
        ('[rules.time]\ntokens_return = "never"', "rules.time.tokens_return"),
        ('[rules.rest]\ndefault_choice = "wounds"', "(I-T8)"),
        ("[rules.rest]\nfull_rest_draws = 0", "rules.rest.full_rest_draws must be at least 1"),
        ("[rules.draws]\nmaximum = 0", "rules.draws.maximum must be at least 1 (P11)"),
        ("[rules.weight]\ntokens = [0, 1, 3]", "rules.weight.off gives no value for it"),
        ('[rules.temporary.timers]\npurity = { on = "majr", count = 3 }', "timers.purity"),
        ('[rules.temporary.timers]\nlink = { on = "major", count = 0 }', "count at least 1"),
    ],
)
def test_rules_values_the_engine_cannot_play_are_refused_at_load(rules, expected):
    """A misspelt choice used to play silently (I-P10 "summ" as "separate") or fail mid-game
    with a traceback (P9, P16, T12); now the table does not load, and the key is named."""
    with pytest.raises(ConfigError) as info:
        load_table_text(GOOD + "\n" + rules + "\n", "table.toml")
    assert str(info.value).startswith("table.toml: ") and expected in str(info.value)


def test_rules_choices_the_engine_knows_load():
    for rules in (
        '[rules.intersect]\nmode = "separate"',
        '[rules.health]\nfatigue_overflow = "carry"',
        '[rules.training]\nredraw_minimum = "master"',
        "[rules.weight]\ntokens = [0, 2, 2]",
    ):
        load_table_text(GOOD + "\n" + rules + "\n", "table.toml")


def test_p17_the_number_of_starting_pathways_is_rules_data():
    text = GOOD.replace(
        'wild = "impulse" }\ntraining = { skill',
        'wild = "impulse", steel = "control" }\ntraining = { skill',
        1,
    )
    with pytest.raises(ConfigError, match="3 starting Pathways"):
        load_table_text(text, "table.toml")
    with pytest.raises(ConfigError, match=r"heroes\[1\]\.pathways: give the hero's 4 starting"):
        load_table_text(text + "\n[rules.potential]\nstarting_pathways = 4\n", "table.toml")
