"""The config is input too (issue 45 item 9, text is text): a string key of ``rhuna.toml``
whose value holds a control character or a bidi override is refused by the checker, naming
the file, the key and the fix, in the one shape of every config problem — and the error
never carries the character to the terminal that prints it."""

from __future__ import annotations

import pytest

from companion.config import config_from_text
from settings.checker import ConfigErrors, Key, Problems, Section
from settings.plain import unsafe


def test_a_string_key_with_an_escape_is_a_problem_naming_it():
    section = Section("log", {"level": Key("string", "how much to log", "info")})
    problems = Problems("rhuna.toml")
    assert section.read({"level": "info\x1b]0;pwned\x07"}, problems) == {"level": "info"}
    [problem] = problems.errors
    assert problem.startswith("rhuna.toml: log.level: holds the control character \\x1b"), problem
    assert "text is text" in problem and unsafe(problem) is None, problem


@pytest.mark.parametrize("value", ["table\\u202e.toml", "table\\u001b.toml", "ta\\tble.toml"])
def test_the_config_refuses_a_path_with_a_control_character(tmp_path, value):
    with pytest.raises(ConfigErrors) as info:
        config_from_text(f'[table]\nfile = "{value}"\n', "rhuna.toml", base=tmp_path)
    message = str(info.value)
    assert "rhuna.toml: table.file: holds the control character \\" in message, message
    assert 'write file = "table.toml"' in message, message
    assert unsafe(message) is None, message
