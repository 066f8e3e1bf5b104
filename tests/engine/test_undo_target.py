"""Undo names what it takes back (issue 41, items 1 and 11): the view's ``undo`` is the very
command the next Undo takes back, a note is skipped (and is never the one named), the
``undone`` event names what went, and a session's start is the floor of Undo."""

from __future__ import annotations

import pytest

from engine import CommandRejected, apply, load_table
from engine.narrate import describe
from engine.view import table_view

FIGHT = "examples/fight.toml"


def test_the_view_names_the_command_undo_takes_back_not_the_note_after_it() -> None:
    state = load_table(FIGHT)
    state, _ = apply(state, {"cmd": "adjust_renown", "combatant": "aria", "change": 1})
    state, _ = apply(state, {"cmd": "note", "text": "another typo: the brdge"})
    state, _ = apply(state, {"cmd": "note", "text": "the bridge", "audience": "table"})
    named = table_view(state)["undo"]
    assert named is not None
    assert named["cmd"] == "adjust_renown"
    assert "renown" in named["text"] and "brdge" not in named["text"]
    after, events = apply(state, {"cmd": "undo"})
    # what went is what was named, in the event and its words
    assert [e.type for e in events] == ["undone"]
    assert events[0].data["cmd"] == "adjust_renown"
    assert events[0].data["what"] == named["text"]
    assert describe(after, events[0]).startswith(f"Undone adjust_renown: {named['text']}")
    assert after.combat is not None and after.combat.roster["aria"].renown == 1
    assert table_view(after)["undo"] is None


def test_after_two_changes_undo_names_each_in_turn() -> None:
    state = load_table(FIGHT)
    state, _ = apply(state, {"cmd": "adjust_renown", "combatant": "aria", "change": 1})
    state, _ = apply(state, {"cmd": "adjust_hero", "hero": "bren", "fatigue": 1})
    first = table_view(state)["undo"]
    assert first is not None and first["cmd"] == "adjust_hero"
    state, _ = apply(state, {"cmd": "undo"})
    second = table_view(state)["undo"]
    assert second is not None and second["cmd"] == "adjust_renown"


def test_undo_at_a_session_s_start_refuses_instead_of_unwinding_the_carry() -> None:
    state = load_table(FIGHT)
    # what companion/record/carry.py journals first: carried values, then start_session
    state, _ = apply(state, {"cmd": "adjust_hero", "hero": "aria", "favor": 1, "cause": "carried"})
    state, _ = apply(state, {"cmd": "injure", "combatant": "aria", "type": "bleeding", "hits": 2})
    state, _ = apply(state, {"cmd": "start_session", "number": 2})
    assert table_view(state)["can_undo"] == 0
    assert table_view(state)["undo"] is None
    with pytest.raises(CommandRejected) as refused:
        apply(state, {"cmd": "undo"})
    v = refused.value.violation
    assert v.rule == "T1" and "floor of Undo" in str(v) and "--reset" in str(v)
    # a change made in the session is undone as ever, back to the floor and no further
    state, _ = apply(state, {"cmd": "adjust_renown", "combatant": "aria", "change": 1})
    named = table_view(state)["undo"]
    assert named is not None and named["cmd"] == "adjust_renown"
    state, _ = apply(state, {"cmd": "undo"})
    assert state.hero("aria").favor == load_table(FIGHT).hero("aria").favor + 1
    with pytest.raises(CommandRejected):
        apply(state, {"cmd": "undo"})
