"""The enrolment walk (tags/enroll.py), without any reader or file: which bags in which
order, which token is next (so an interrupted walk resumes), what a scanned tag means
(accepted / the same tag again / another token's tag / this token's own tag on --redo), and
the per-bag report. DESIGN "Tag registry": one tag per token, duplicates refused."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.state import TableState
from settings.errors import ConfigError
from tags.enroll import (
    Enrolment,
    Verdict,
    bag_reports,
    select_bags,
    strangers,
    tokens_in,
    walk_bags,
)
from tags.registry import TagRegistry

HERO_BAGS = ["aria", "bren", "cass"]
KIND_BAGS = [
    "favor",
    "time.morning",
    "time.day",
    "time.night",
    "weather.overworld",
    "weather.underworld",
    "temporary",
]


def uid(n: int) -> str:
    """A distinct 7-byte NTAG-style UID."""
    return f"04{n:012X}"


def test_walk_order_is_hero_bags_then_favor_time_weather_temporary(example_state):
    """Every Hero Bag in hero order, then the 23-token Favor Bag (I-P18), the Time Bags in
    band order, the Weather Bags, and the box of temporary tokens (T12)."""
    assert walk_bags(example_state) == HERO_BAGS + KIND_BAGS
    plan = tokens_in(example_state, walk_bags(example_state))
    assert len(plan) == len(set(plan)) == len(example_state.tokens) == 163
    assert plan[:3] == ["aria.ember.skill", "aria.ember.skill.2", "aria.potential.skill.1"]
    assert len(tokens_in(example_state, ["favor"])) == 23


def test_walk_order_goes_by_what_a_bag_holds_not_by_dict_order(example_state):
    """Bags listed backwards (and heroes reversed) still walk heroes first, by the heroes'
    order, then Favor, Time, Weather, temporary."""
    shuffled = dataclasses.replace(
        example_state,
        bags=dict(reversed(list(example_state.bags.items()))),
        heroes=dict(reversed(list(example_state.heroes.items()))),
    )
    assert walk_bags(shuffled) == [
        "cass",
        "bren",
        "aria",
        "favor",
        "time.night",
        "time.day",
        "time.morning",
        "weather.underworld",
        "weather.overworld",
        "temporary",
    ]


def test_a_tokens_home_bag_counts_wherever_it_lies_now(example_state):
    """Strain tokens start outside Aria's bag, but their home is her bag: they need tags."""
    assert "aria.strain.1" not in example_state.bags["aria"].contents
    assert "aria.strain.1" in tokens_in(example_state, ["aria"])
    assert len(tokens_in(example_state, ["aria"])) == 18


def test_bag_names_hero_ids_and_groups(example_state):
    assert select_bags(example_state, []) == HERO_BAGS + KIND_BAGS
    assert select_bags(example_state, ["favor", "aria"]) == ["favor", "aria"]  # as given
    assert select_bags(example_state, ["time"]) == ["time.morning", "time.day", "time.night"]
    assert select_bags(example_state, ["weather", "weather.overworld"]) == [
        "weather.overworld",
        "weather.underworld",
    ]  # named twice, walked once
    assert select_bags(example_state, ["time.night"]) == ["time.night"]


def test_an_unknown_bag_is_refused_with_the_known_ones(example_state):
    with pytest.raises(ConfigError) as e:
        select_bags(example_state, ["favour"])
    assert "--bag favour" in str(e.value) and "did you mean favor?" in str(e.value)
    assert "time.morning" in str(e.value) and "weather" in str(e.value)


def test_prompt_and_progress_count_the_whole_walk(example_state):
    walk = Enrolment.for_bags(example_state, TagRegistry())
    assert walk.prompt() == ("now scan: Aria's skill Ember (control) (aria.ember.skill) [1/163]")
    for n in range(11):
        assert walk.scan(uid(n)).verdict is Verdict.ACCEPTED
    assert (walk.position, walk.done, walk.total) == (12, 11, 163)
    assert walk.prompt().endswith("(aria.potential.wild.2) [12/163]")


def test_an_interrupted_walk_resumes_at_the_first_token_without_a_tag(example_state):
    """A registry saved after 11 tokens: a new walk asks for the 12th, [12/163]; a token
    enrolled out of order (by --bag or --redo) is skipped when the walk gets there."""
    first = Enrolment.for_bags(example_state, TagRegistry())
    for n in range(11):
        first.scan(uid(n))
    saved = TagRegistry(dict(first.registry.items()))
    saved.add(uid(500), first.plan[13])  # the 14th was enrolled on its own
    again = Enrolment.for_bags(example_state, saved)
    assert (again.current, again.position, again.done) == (first.plan[11], 12, 12)
    again.scan(uid(100))
    again.scan(uid(101))
    assert again.current == first.plan[14] and again.position == 15


def test_a_tag_already_enrolled_is_refused_naming_its_token(example_state):
    walk = Enrolment.for_bags(example_state, TagRegistry(), ["aria"])
    walk.scan(uid(1))
    walk.scan(uid(2))
    before = dict(walk.registry.items())
    scan = walk.scan(uid(1))  # the first token's tag, not the one just taken
    assert scan.verdict is Verdict.TAKEN and scan.holder == "aria.ember.skill"
    assert not scan.moves_on and walk.current == "aria.potential.skill.1"
    assert dict(walk.registry.items()) == before
    text = walk.explain(scan)
    assert "refused" in text and "Aria's skill Ember (control) (aria.ember.skill)" in text
    assert "lay Aria's skill Potential 1 (aria.potential.skill.1)" in text


def test_the_tag_just_enrolled_laid_again_is_a_repeat(example_state):
    walk = Enrolment.for_bags(example_state, TagRegistry(), ["aria"])
    walk.scan("04a1b2c3d4e5f6")
    scan = walk.scan("04:A1:B2:C3:D4:E5:F6")  # the same UID, however it is written
    assert scan.verdict is Verdict.REPEAT and scan.holder == "aria.ember.skill"
    assert "just enrolled" in walk.explain(scan) and "lift it" in walk.explain(scan)
    assert walk.current == "aria.ember.skill.2" and len(walk.registry) == 1


def test_a_tag_from_another_table_is_refused_and_said_so(example_state):
    registry = TagRegistry({uid(9): "ghost.ember.skill"})
    walk = Enrolment.for_bags(example_state, registry, ["aria"])
    scan = walk.scan(uid(9))
    assert scan.verdict is Verdict.TAKEN
    assert "a token this table does not have" in walk.explain(scan)
    assert strangers(example_state, registry) == [(uid(9), "ghost.ember.skill")]


@pytest.mark.parametrize("bad", ["04A1B2", "04A1B2C3D4E5F6A7", "not a uid!", ""])
def test_something_that_is_not_a_uid_is_refused(example_state, bad):
    walk = Enrolment.for_bags(example_state, TagRegistry(), ["aria"])
    scan = walk.scan(bad)
    assert scan.verdict is Verdict.INVALID and len(walk.registry) == 0
    assert "uid_format" in walk.explain(scan)


def test_redo_replaces_one_tokens_tag_and_frees_the_old_one(example_state):
    registry = TagRegistry({uid(1): "aria.ember.skill", uid(2): "favor.01"})
    walk = Enrolment.for_redo(example_state, registry, "aria.ember.skill")
    assert walk.current == "aria.ember.skill" and walk.prompt().endswith("[1/1]")
    assert walk.scan(uid(2)).verdict is Verdict.TAKEN  # favor.01's tag: refused
    scan = walk.scan(uid(3))
    assert scan.verdict is Verdict.ACCEPTED and scan.replaced == uid(1)
    assert "replacing " + uid(1) in walk.explain(scan)
    assert walk.finished and registry.uid("aria.ember.skill") == uid(3)
    assert registry.token_id(uid(1)) is None  # the old tag is free for another token
    assert walk.summary().startswith("1 tag(s) enrolled this time; all 1 token(s)")


def test_redo_with_the_tokens_own_tag_changes_nothing(example_state):
    registry = TagRegistry({uid(1): "aria.ember.skill"})
    walk = Enrolment.for_redo(example_state, registry, "aria.ember.skill")
    scan = walk.scan(uid(1))
    assert scan.verdict is Verdict.UNCHANGED and scan.moves_on and walk.finished
    assert dict(registry.items()) == {uid(1): "aria.ember.skill"} and walk.accepted == []


def test_redo_of_a_token_the_table_lacks_suggests_close_ids(example_state):
    with pytest.raises(ConfigError) as e:
        Enrolment.for_redo(example_state, TagRegistry(), "aria.ember.skil")
    assert "did you mean aria.ember.skill" in str(e.value)


def test_scanning_after_the_walk_is_finished_is_a_programming_error(example_state):
    walk = Enrolment.for_bags(example_state, TagRegistry(), ["temporary"])
    for n in range(walk.total):
        walk.scan(uid(n))
    assert walk.finished and walk.position == walk.total + 1
    with pytest.raises(ValueError):
        walk.scan(uid(99))


def test_bag_reports_list_enrolled_and_missing(example_state):
    registry = TagRegistry({uid(1): "favor.01", uid(2): "favor.23"})
    favor, temporary = bag_reports(example_state, registry, ["favor", "temporary"])
    assert favor.name == "the Favor Bag" and favor.enrolled == ("favor.01", "favor.23")
    assert len(favor.missing) == 21 and favor.missing[0] == "favor.02"
    assert temporary.enrolled == () and len(temporary.missing) == 6


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=80), st.data())
def test_no_scan_sequence_gives_two_tokens_one_tag(example_state: TableState, scans, data):
    """Whatever is laid, in whatever order (repeats, other tokens' tags, redos): the registry
    stays one tag per token and one token per tag, the walk only moves on when the current
    token got a tag, and every accepted tag is in the registry under its token."""
    bags = data.draw(st.sampled_from([["aria"], ["temporary", "favor"], ["time.night"]]))
    registry = TagRegistry()
    walk = Enrolment.for_bags(example_state, registry, bags)
    for n in scans:
        if walk.finished:
            break
        asked, done = walk.current, walk.done
        scan = walk.scan(uid(n))
        if scan.moves_on:
            assert registry.uid(asked) == uid(n) and walk.done == done + 1
        else:
            assert walk.current == asked and walk.done == done
            assert registry.token_id(uid(n)) not in (None, asked)
    pairs = list(registry.items())
    assert len({u for u, _ in pairs}) == len({t for _, t in pairs}) == len(pairs)
    assert [(t, u) for t, u in walk.accepted] == [(t, registry.uid(t)) for t, _ in walk.accepted]
    assert walk.done == len(walk.accepted) <= walk.total
