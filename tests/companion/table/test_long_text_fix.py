"""A string longer than ``limits.string_length`` (a 201-character note) is refused with the fix
for that string, not the generic "send one JSON object such as undo" (issue 41 item 13)."""

from __future__ import annotations

from companion.table import inputs


def test_a_201_character_note_is_refused_with_a_fix_about_its_length() -> None:
    n = inputs.LIMITS.string_length
    got = inputs.parse(f'{{"cmd": "note", "text": "{"a" * (n + 1)}"}}')
    assert isinstance(got, inputs.Malformed)
    v = got.violation
    assert f"{n + 1} characters" in v.message and v.field == "text"
    assert v.fix is not None and f"at most {n} characters" in v.fix and "two notes" in v.fix
    assert "JSON object" not in v.fix
