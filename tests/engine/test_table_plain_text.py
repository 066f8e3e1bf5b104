"""A table file is input too (issue 45 item 9, text is text): a name with a control character
or a bidi override (an ESC that retitles a terminal, a U+202E that reverses the text around it
on table.html) is refused at load, naming the file, the key and the fix — whether the file
holds the character itself or TOML's escape for it — and the error never carries it."""

from __future__ import annotations

import pytest

from engine import ConfigError, load_table, load_table_text
from settings.plain import unsafe
from tests.harness import EXAMPLE_TABLE, ROOT

GOOD = EXAMPLE_TABLE.read_text("utf-8")
FIGHT = (ROOT / "examples" / "fight.toml").read_text("utf-8")


def broken(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "key", "escape"),
    [
        # the character itself in the file (TOML allows a raw U+202E in a string)
        (broken(GOOD, 'name = "Aria"', 'name = "Ar\u202eia"'), "heroes[0].name", "\\u202e"),
        # TOML's escape for it: the parsed name holds the same character
        (broken(GOOD, 'name = "Aria"', 'name = "Ar\\u202Eia"'), "heroes[0].name", "\\u202e"),
        (
            broken(GOOD, 'name = "Aria"', 'name = "Aria\\u001b]0;pwned\\u0007"'),
            "heroes[0].name",
            "\\x1b",
        ),
        (broken(GOOD, 'name = "Bren"', 'name = "Bren\\t"'), "heroes[1].name", "\\x09"),
        (
            broken(GOOD, 'deity = "The Warden"', 'deity = "The \u2067Warden"'),
            "favor_bag.tokens[0].deity",
            "\\u2067",
        ),
        (
            broken(FIGHT, 'name = "Raider"', 'name = "Rai\u202eder"'),
            "combatants[2].name",
            "\\u202e",
        ),
        (
            broken(FIGHT, 'name = "longbow"', 'name = "long\\u0085bow"'),
            "combatants[0].weapon.name",
            "\\x85",
        ),
        (
            broken(FIGHT, 'name = "The ambush at the ford"', 'name = "The\\u202e ambush"'),
            "table.name",
            "\\u202e",
        ),
        (
            broken(GOOD, "[time]\n", '[time]\n"we\u202eather" = 1\n'),
            "the key time.we\\u202eather",
            "\\u202e",
        ),
    ],
    ids=[
        "raw-rlo",
        "toml-escape",
        "esc-osc",
        "tab",
        "deity-isolate",
        "combatant",
        "weapon-c1",
        "table-name",
        "a-key",
    ],
)
def test_a_name_with_a_control_character_is_refused_naming_the_key(text, key, escape):
    with pytest.raises(ConfigError) as info:
        load_table_text(text, "table.toml")
    message = str(info.value)
    assert message.startswith(f"table.toml: {key}"), message
    assert f"holds the control character {escape}" in message, message
    assert "text is text" in message and "write it as plain text" in message, message
    assert unsafe(message) is None, message  # the refusal itself is text


def test_a_rules_file_is_checked_too(tmp_path):
    (tmp_path / "house.toml").write_text('[weather]\nnote = "rain\\u001b[2J"\n', "utf-8")
    table = tmp_path / "table.toml"
    table.write_text(broken(GOOD, "[table]\n", '[table]\nrules_file = "house.toml"\n'), "utf-8")
    with pytest.raises(ConfigError) as info:
        load_table(table)
    message = str(info.value)
    assert f"{tmp_path / 'house.toml'}: weather.note holds the control character \\x1b" in (
        message
    ), message


def test_plain_names_of_every_script_still_load():
    text = broken(GOOD, 'name = "Aria"', 'name = "Ária Ôlafsdóttir — الراوية 名前"')
    state = load_table_text(text, "table.toml")
    assert state.heroes["aria"].name == "Ária Ôlafsdóttir — الراوية 名前"
