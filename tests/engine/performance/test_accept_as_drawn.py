"""The WorldKeeper's "accept as drawn" (issue 43 item 1; docs/readers.md): the token lying on an
unsync well counted as laying it counts it (P6 draw for its owner, P18 Favor for the hero
drawing), where the rules allow it now, or refused naming the rule."""

from __future__ import annotations

import pytest

from engine import CommandRejected, apply
from engine.contracts.commands import accept_as_drawn
from engine.errors import RuleViolation
from tests.harness import ARIA, BEGIN, CASS, draw, run


def refused(state, command) -> RuleViolation:
    with pytest.raises(CommandRejected) as e:
        apply(state, command)
    return e.value.violation


def test_a_token_accepted_is_drawn_for_its_owner_as_a_draw_would(example_state):
    state, _ = run(example_state, BEGIN, ARIA)
    accepted, events = apply(state, accept_as_drawn(token="aria.weight.0"))
    drawn, same = apply(state, draw("aria", "aria.weight.0"))
    # the same state but for what Undo will say it takes back (the command's own name)
    assert {**accepted.to_json(), "change": None} == {**drawn.to_json(), "change": None}
    assert accepted.change.cmd == "accept_as_drawn"
    assert [e.type for e in events] == [e.type for e in same] == ["token_drawn"]
    assert accepted.location("aria.weight.0").startswith("board:")


def test_what_the_rules_refuse_is_refused_naming_the_rule(example_state):
    # no Performance runs: P19's refusal, as the draw would say
    assert refused(example_state, accept_as_drawn(token="aria.weight.0")).rule == "P19"
    state, _ = run(example_state, BEGIN, ARIA)
    # Cass has not declared: her token cannot be drawn for her (P23), nor for Aria (P6)
    assert refused(state, accept_as_drawn(token="cass.weight.0")).rule == "P23"
    other = refused(state, accept_as_drawn(token="cass.weight.0", hero="aria"))
    assert (other.rule, other.field) == ("P6", "hero")
    assert "a hero draws from their own bag" in other.message
    # a token counts once: already on the Draw Board
    state, _ = run(state, draw("aria", "aria.weight.0"))
    again = refused(state, accept_as_drawn(token="aria.weight.0"))
    assert (again.rule, again.field) == ("P6", "token")
    assert again.fix == "lay it back on a well, or Undo its draw"
    # set aside after a Redraw until Reset (Aria is Adept)
    state, _ = run(state, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"})
    assert refused(state, accept_as_drawn(token="aria.weight.0")).rule == "I-P11"
    # a Weather token is in no hero's bag: never a Draw Board draw
    weather = refused(state, accept_as_drawn(token="weather.overworld.clear.1"))
    assert weather.rule == "P6"
    assert refused(state, accept_as_drawn(token="nothing.such")).code == "unknown"


def test_a_favor_token_accepted_is_called_for_the_hero_drawing(example_state):
    state, _ = run(example_state, BEGIN, CASS, draw("cass", "cass.weight.0"))
    state, events = apply(state, accept_as_drawn(token="favor.01"))
    assert state.performance.contribution("cass").favor == ("favor.01",)
    assert events[0].type == "favor_called"
    # nobody drawing: which hero calls it is asked for (P18)
    fresh, _ = run(example_state, BEGIN)
    assert refused(fresh, accept_as_drawn(token="favor.01")).rule in ("P18", "P23")
