"""One or more tests per Performance rule (P1–P23), named after the rule."""

from __future__ import annotations

import pytest

from engine import CommandRejected, apply
from engine.state import TableState
from tests.harness import BEGIN, run


def declare(hero: str, shade: str, capability: str, action: str = "target", **kw) -> dict:
    return {
        "cmd": "declare",
        "hero": hero,
        "shade": shade,
        "capability": capability,
        "action": action,
        **kw,
    }


def draw(hero: str, token: str) -> dict:
    return {"cmd": "draw", "hero": hero, "token": token}


def total(state: TableState, hero: str) -> int:
    from engine.performance.commands import contribution_total

    assert state.performance is not None
    c = state.performance.contribution(hero)
    assert c is not None
    return contribution_total(state, c)


def values(state: TableState, hero: str) -> list[int]:
    from engine.performance.commands import value_of

    assert state.performance is not None
    c = state.performance.contribution(hero)
    assert c is not None
    return [value_of(state, c, t) for t in c.drawn]


def rejected(state: TableState, cmd: dict) -> CommandRejected:
    with pytest.raises(CommandRejected) as info:
        apply(state, cmd)
    return info.value


# --- P1 Shade --------------------------------------------------------------


def test_p1_versatility_counts_toward_either_declared_shade(example_state):
    for shade in ("control", "impulse"):
        s, _ = run(
            example_state, BEGIN, declare("aria", shade, "skill"), draw("aria", "aria.ember.lore")
        )  # lore Ember is versatility
        assert values(s, "aria") == [1]


def test_p1_opposite_shade_contributes_zero_i_p1(example_state):
    s, _ = run(
        example_state, BEGIN, declare("aria", "impulse", "skill"), draw("aria", "aria.ember.skill")
    )  # a Control Ember
    assert values(s, "aria") == [0]


def test_p1_versatility_cannot_be_declared(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("aria", "versatility", "skill"))
    assert e.violation.field == "shade"


# --- P2 Capability ------------------------------------------------------------


def test_p2_training_of_that_capability_applies(example_state):
    _, ev = run(example_state, BEGIN, declare("aria", "control", "lore"))
    assert ev[-1]["training"] == "trained" and ev[-1]["draws"] == 3
    _, ev = run(example_state, BEGIN, declare("aria", "control", "skill"))
    assert ev[-1]["training"] == "adept" and ev[-1]["draws"] == 4


def test_p2_unknown_capability_is_refused(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("aria", "control", "juggling"))
    assert (e.violation.rule, e.violation.field) == ("P2", "capability")


# --- P3 / P4 / P5 -----------------------------------------------------------------


def test_p3_action_must_be_one_of_the_four_icons(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("aria", "control", "skill", action="dance"))
    assert e.violation.field == "action"


def test_p4_training_comes_from_the_sheet_not_the_command(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, {**declare("aria", "control", "skill"), "training": "master"})
    assert e.violation.field == "training" and e.violation.code == "malformed"


def test_p5_moment_commitment_is_recorded(example_state):
    s, _ = run(example_state, BEGIN, declare("aria", "control", "skill", moment="prepare"))
    assert s.performance.contribution("aria").moment.value == "prepare"


# --- P6 draw totals -------------------------------------------------------------


@pytest.mark.parametrize(
    ("hero", "capability", "exert", "expected"),
    [
        ("cass", "charm", False, 1),  # Untrained 1
        ("cass", "charm", True, 3),  # Untrained + Exert 3
        ("cass", "shadow", False, 3),  # Trained 3
        ("aria", "skill", False, 4),  # Adept 4
        ("bren", "steel", False, 4),  # Master 4
    ],
)
def test_p6_draw_totals_by_training(example_state, hero, capability, exert, expected):
    _, ev = run(example_state, BEGIN, declare(hero, "control", capability, exert=exert))
    assert ev[-1]["draws"] == expected


def test_p6_exemplar_draws_four(example_state):
    s, _ = run(
        example_state,
        {"cmd": "set_training", "hero": "bren", "capability": "steel", "level": "exemplar"},
    )
    _, ev = run(s, BEGIN, declare("bren", "impulse", "steel"))
    assert ev[-1]["draws"] == 4


def test_p6_draw_past_the_total_is_refused(example_state):
    s, _ = run(
        example_state, BEGIN, declare("cass", "control", "charm"), draw("cass", "cass.weight.0")
    )
    e = rejected(s, draw("cass", "cass.weight.1"))
    assert e.violation.rule == "P6"


def test_p6_gain_draws_nothing(example_state):
    s, _ = run(example_state, BEGIN, declare("bren", "control", "faith", action="gain"))
    e = rejected(s, draw("bren", "bren.weight.0"))
    assert e.violation.rule == "P7"


# --- P7 Gain ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "cost"),
    [("untrained", 3), ("trained", 2), ("adept", 1), ("master", 0), ("exemplar", 0)],
)
def test_p7_gain_fatigue_by_training_i_p7(example_state, level, cost):
    s = example_state
    if level != "trained":
        s, _ = run(
            s, {"cmd": "set_training", "hero": "bren", "capability": "faith", "level": level}
        )
    s, ev = run(s, BEGIN, declare("bren", "control", "faith", action="gain"))
    assert s.heroes["bren"].fatigue == cost
    assert next(e for e in ev if e.type == "gain_resolved")["fatigue_cost"] == cost
    assert not any(e.type in ("wear_prompt", "impact_prompt") for e in ev)


def test_p7_gain_is_not_doubled_by_wounds_and_cannot_exert(example_state):
    s, _ = run(
        example_state,
        {"cmd": "adjust_hero", "hero": "bren", "wounds": 2},
        BEGIN,
        declare("bren", "control", "faith", action="gain"),
    )
    assert s.heroes["bren"].fatigue == 2
    s2, _ = run(example_state, BEGIN)
    e = rejected(s2, declare("cass", "control", "charm", action="gain", exert=True))
    assert e.violation.rule == "P7"


def test_p7_gain_uses_ordinary_capacity_and_spill_over(example_state):
    s, _ = run(
        example_state,
        {"cmd": "adjust_hero", "hero": "bren", "fatigue": 4},
        BEGIN,
        declare("bren", "control", "faith", action="gain"),
    )
    assert (s.heroes["bren"].fatigue, s.heroes["bren"].strain) == (0, 1)


def test_p7_gain_cannot_make_an_impossible_reserve(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(
        s, declare("bren", "control", "faith", action="gain", reserve="aria.potential.skill.1")
    )
    assert e.violation.rule == "P17"


# --- P8 Spend -------------------------------------------------------------------


def test_p8_spend_needs_an_existing_reserve(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("bren", "control", "faith", action="spend"))
    assert (e.violation.rule, e.violation.field) == ("P8", "reserve")


def test_p8_spend_returns_the_reserve_to_potential_after_resolution(example_state):
    s, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "bren", "token": "bren.potential.faith.1", "active": True},
        BEGIN,
        declare("bren", "control", "faith", action="spend", reserve="bren.potential.faith.1"),
        *(draw("bren", t) for t in ("bren.weight.0", "bren.weight.1", "bren.weight.2")),
    )
    assert "bren.potential.faith.1" in s.active_reserve
    s, ev = run(s, {"cmd": "resolve"})
    assert "bren.potential.faith.1" not in s.active_reserve
    assert any(e.type == "reserve_returned" for e in ev)


def test_p8_p19_the_spent_reserve_keeps_its_value_on_the_resolved_draw_board(example_state):
    """The Reserve goes back to Potential at resolution (P17), but the resolved draw is not
    altered: the spent token drawn with its own Pathway still shows 2V, the total the result."""
    from engine.view import table_view

    s, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "bren", "token": "bren.potential.steel.1", "active": True},
        BEGIN,
        declare("bren", "impulse", "steel", action="spend", reserve="bren.potential.steel.1"),
        *(draw("bren", t) for t in ("bren.potential.steel.1", "bren.ember.steel")),
        *(draw("bren", t) for t in ("bren.weight.0", "bren.weight.1")),
    )
    assert values(s, "bren") == [2, 3, 0, 0]
    s, _ = run(s, {"cmd": "resolve"})
    assert "bren.potential.steel.1" not in s.active_reserve
    assert values(s, "bren") == [2, 3, 0, 0]
    (result,) = s.performance.results
    view = table_view(s)["performance"]["contributions"][0]
    assert view["total"] == result.total == 5 and result.success


# --- P9 Exertion ------------------------------------------------------------------


def _exert(state: TableState) -> TableState:
    s, _ = run(
        state,
        BEGIN,
        declare("cass", "impulse", "charm", exert=True),
        *(draw("cass", f"cass.weight.{w}") for w in range(3)),
        {"cmd": "resolve"},
    )
    return s


def test_p9_exertion_costs_2_fatigue_after_resolution(example_state):
    s = _exert(example_state)
    assert s.heroes["cass"].fatigue == 3 + 2


def test_p9_any_wound_doubles_exertion_to_4_not_more(example_state):
    for wounds in (1, 3):
        s, _ = run(
            example_state, {"cmd": "adjust_hero", "hero": "cass", "fatigue": -3, "wounds": wounds}
        )
        s, _ = run(
            s,
            BEGIN,
            declare("cass", "impulse", "charm", exert=True),
            draw("cass", "cass.weight.0"),
            *([draw("cass", "cass.weight.1")] if wounds == 1 else []),
            {"cmd": "resolve"},
        )
        assert s.heroes["cass"].fatigue == 4


def test_p9_only_untrained_may_exert(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("aria", "control", "skill", exert=True))
    assert (e.violation.rule, e.violation.field) == ("P9", "exert")


# --- P10 / P23 Intersect, several heroes ---------------------------------------------


def test_p10_intersecting_heroes_sum_against_one_difficulty(example_state):
    s, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 4},
        declare("bren", "impulse", "steel"),
        declare("aria", "impulse", "lore", intersect="bren"),
        *(
            draw("bren", t)
            for t in ("bren.weight.0", "bren.weight.1", "bren.weight.2", "bren.potential.wild.1")
        ),
        *(draw("aria", t) for t in ("aria.ember.wild", "aria.ember.lore", "aria.weight.0")),
        {"cmd": "resolve"},
    )
    (result,) = s.performance.results
    assert set(result.heroes) == {"aria", "bren"} and result.total == 1 + 3
    assert result.success


def test_p10_untrained_cannot_intersect(example_state):
    s, _ = run(example_state, BEGIN, declare("bren", "impulse", "steel"))
    e = rejected(s, declare("cass", "impulse", "charm", intersect="bren"))
    assert e.violation.rule == "P10"


def test_p10_partner_must_be_in_the_performance(example_state):
    s, _ = run(example_state, BEGIN)
    e = rejected(s, declare("aria", "impulse", "lore", intersect="bren"))
    assert e.violation.rule == "P10"


def test_p23_each_hero_resolves_a_contribution(example_state):
    s, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 3},
        declare("cass", "impulse", "charm"),
        draw("cass", "cass.ember.shadow"),
        declare("bren", "control", "faith"),
        *(draw("bren", t) for t in ("bren.weight.0", "bren.weight.1", "bren.weight.2")),
        {"cmd": "resolve"},
    )
    outcomes = {r.heroes: r.success for r in s.performance.results}
    assert outcomes == {("cass",): False, ("bren",): False}


def test_p23_a_hero_declares_once(example_state):
    s, _ = run(example_state, BEGIN, declare("aria", "control", "skill"))
    e = rejected(s, declare("aria", "control", "lore"))
    assert e.violation.rule == "P23"


# --- P11 Refinement ---------------------------------------------------------------


def _aria_drew(state: TableState, *tokens: str) -> TableState:
    s, _ = run(
        state, BEGIN, declare("aria", "control", "skill"), *(draw("aria", t) for t in tokens)
    )
    return s


def test_p11_redraw_replaces_one_token_and_sets_it_aside_i_p11(example_state):
    s = _aria_drew(example_state, "aria.weight.0")
    s, _ = run(
        s,
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0", "token": "aria.ember.skill"},
    )
    c = s.performance.contribution("aria")
    assert c.drawn == ("aria.ember.skill",) and c.set_aside == ("aria.weight.0",)
    assert s.heroes["aria"].redraws == 1
    e = rejected(s, draw("aria", "aria.weight.0"))  # set aside: cannot be drawn again
    assert e.violation.field == "token"


def test_p11_never_more_than_four_draws(example_state):
    s = _aria_drew(
        example_state, "aria.weight.0", "aria.weight.1", "aria.weight.2", "aria.ember.wild"
    )
    s, _ = run(
        s,
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"},
        draw("aria", "aria.ember.skill"),
    )
    assert len(s.performance.contribution("aria").drawn) == 4
    assert rejected(s, draw("aria", "aria.ember.lore")).violation.rule == "P6"


@pytest.mark.parametrize(
    ("override", "expected"), [({"adept": 5}, 4), ({"maximum": 3}, 3), ({"exert_total": 6}, 4)]
)
def test_p11_the_draw_total_never_passes_the_rules_maximum(example_state, override, expected):
    """draws.maximum (P11: never more than 4 draws) caps whatever a table sets elsewhere."""
    from dataclasses import replace

    rules = {**example_state.rules, "draws": {**example_state.rules["draws"], **override}}
    s = replace(example_state, rules=rules)
    hero, cap, exert = (
        ("cass", "charm", True) if "exert_total" in override else ("aria", "skill", False)
    )
    _, ev = run(s, BEGIN, declare(hero, "control", cap, exert=exert))
    assert ev[-1]["draws"] == expected


def test_p11_redraw_needs_adept(example_state):
    s, _ = run(
        example_state, BEGIN, declare("aria", "control", "lore"), draw("aria", "aria.weight.0")
    )
    e = rejected(s, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"})
    assert e.violation.rule == "P11"


def test_p11_redraw_needs_a_redraw_left(example_state):
    s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "aria", "redraws": -2})
    s = _aria_drew(s, "aria.weight.0")
    e = rejected(s, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"})
    assert e.violation.rule == "P11" and "no Redraws" in e.violation.message


def test_p11_i_p11_no_redraw_when_the_bag_cannot_give_a_replacement(example_state):
    """A hero with many Redraws sets aside every token the bag has (I-P11); the next Redraw
    is refused (P11) instead of leaving a slot no draw can fill, and resolve still works."""
    s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "aria", "redraws": 10})
    s = _aria_drew(s, "aria.weight.0", "aria.weight.1", "aria.weight.2", "aria.ember.wild")
    for _ in range(8):  # 12 tokens: 4 on the board, then 8 Redraws empty the bag
        low = s.performance.contribution("aria").drawn[0]
        s, _ = run(s, {"cmd": "redraw", "hero": "aria", "replace": low, "seed": 1})
    assert not s.bags["aria"].contents
    c = s.performance.contribution("aria")
    e = rejected(s, {"cmd": "redraw", "hero": "aria", "replace": c.drawn[0]})
    assert e.violation.rule == "P11" and e.violation.field == "replace"
    assert "empty" in e.violation.message and e.violation.fix == "resolve as drawn"
    s, events = run(s, {"cmd": "resolve"})
    assert s.performance.resolved and events[0].type == "performance_resolved"


# --- P12 Embers -----------------------------------------------------------------


def test_p12_master_ember_with_its_own_pathway(example_state):
    s, _ = run(
        example_state, BEGIN, declare("bren", "impulse", "steel"), draw("bren", "bren.ember.steel")
    )
    assert values(s, "bren") == [3]


def test_p12_master_ember_elsewhere_keeps_normal_value(example_state):
    s, _ = run(
        example_state, BEGIN, declare("bren", "impulse", "wild"), draw("bren", "bren.ember.steel")
    )
    assert values(s, "bren") == [2]


def test_p12_exemplar_swaps_a_potential_for_a_second_mastery_ember(example_state):
    s, _ev = run(
        example_state,
        {"cmd": "set_training", "hero": "bren", "capability": "steel", "level": "exemplar"},
    )
    bag = s.bags["bren"].contents
    assert "bren.ember.steel.2" in bag and "bren.potential.steel.2" not in bag
    assert len(bag) == len(example_state.bags["bren"].contents)
    s, _ = run(
        s,
        BEGIN,
        declare("bren", "impulse", "steel"),
        draw("bren", "bren.ember.steel"),
        draw("bren", "bren.ember.steel.2"),
    )
    assert values(s, "bren") == [4, 4]


EXEMPLAR = {"cmd": "set_training", "hero": "bren", "capability": "steel", "level": "exemplar"}


def test_p12_p17_becoming_exemplar_replaces_a_plain_potential_and_keeps_the_reserve(
    example_state,
):
    """Bren's steel Potential 2 is Active Reserve: the second Ember replaces the plain
    Potential 1 instead, the Reserve stays Active and in the bag, and the narration says which
    Potential left (P12, P17)."""
    from engine.narrate import describe

    s, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "bren", "token": "bren.potential.steel.2", "active": True},
    )
    s, events = run(s, EXEMPLAR)
    bag = s.bags["bren"].contents
    assert "bren.potential.steel.1" not in bag and "bren.ember.steel.2" in bag
    assert "bren.potential.steel.2" in bag and "bren.potential.steel.2" in s.active_reserve
    (swap,) = [e for e in events if e.type == "bag_changed"]
    assert swap["removed"] == "bren.potential.steel.1"
    text = describe(s, swap)
    assert "take Bren's steel Potential 1 out" in text and "second steel Ember" in text
    # leaving Exemplar puts that same Potential back
    s, _ = run(s, {**EXEMPLAR, "level": "master"})
    assert "bren.potential.steel.1" in s.bags["bren"].contents
    assert "bren.ember.steel.2" not in s.bags["bren"].contents


def test_p12_p17_the_replaced_potential_is_out_of_play(example_state):
    """Neither the WorldKeeper (set_reserve) nor a Gain can make it Active Reserve."""
    s, _ = run(example_state, EXEMPLAR)
    gone = "bren.potential.steel.2"
    assert s.location(gone) == "supply"
    e = rejected(s, {"cmd": "set_reserve", "hero": "bren", "token": gone, "active": True})
    assert (e.violation.rule, e.violation.field) == ("P12", "token")
    assert "out of play" in e.violation.message and "P17" in e.violation.message
    s, _ = run(s, {"cmd": "begin_performance", "difficulty": 4})
    gain = {"cmd": "declare", "hero": "bren", "shade": "impulse", "capability": "steel"}
    e = rejected(s, {**gain, "action": "gain", "reserve": gone})
    assert (e.violation.rule, e.violation.field) == ("P12", "reserve")
    s, _ = run(s, {**gain, "action": "gain", "reserve": "bren.potential.steel.1"})
    assert "bren.potential.steel.1" in s.active_reserve


def test_p12_p17_no_plain_potential_left_refuses_exemplar(example_state):
    s, _ = run(
        example_state,
        *(
            {"cmd": "set_reserve", "hero": "bren", "token": f"bren.potential.steel.{n}"}
            | {"active": True}
            for n in (1, 2)
        ),
    )
    e = rejected(s, EXEMPLAR)
    assert e.violation.rule == "P12" and "set_reserve" in (e.violation.fix or "")


def test_p12_p17_a_table_file_cannot_list_the_replaced_potential_as_reserve():
    """The loader's Exemplar swaps out the last Potential of the Pathway (P12): listing it as
    Active Reserve is refused, naming the key and both rules."""
    from engine import ConfigError, load_table_text
    from tests.harness import EXAMPLE_TABLE

    text = EXAMPLE_TABLE.read_text().replace(
        'training = { steel = "master"',
        'active_reserve = ["bren.potential.steel.2"]\ntraining = { steel = "exemplar"',
    )
    assert "bren.potential.steel.2" in text
    with pytest.raises(ConfigError) as caught:
        load_table_text(text, "t.toml")
    message = str(caught.value)
    assert "heroes[1].active_reserve" in message and "bren.potential.steel.2" in message
    assert "P12" in message and "P17" in message
    ok = load_table_text(text.replace("steel.2", "steel.1"), "t.toml")
    assert "bren.potential.steel.1" in ok.active_reserve
    assert "bren.potential.steel.1" in ok.bags["bren"].contents


def test_p12_versatility_master_and_exemplar_values(example_state):
    # Aria's lore Ember is Versatility: 1 normal, 2 as Master, 3 as Exemplar (own Pathway)
    for level, value in (("master", 2), ("exemplar", 3)):
        s, _ = run(
            example_state,
            {"cmd": "set_training", "hero": "aria", "capability": "lore", "level": level},
            BEGIN,
            declare("aria", "impulse", "lore"),
            draw("aria", "aria.ember.lore"),
        )
        assert values(s, "aria") == [value]


# --- P13 / P14 / P15 health ---------------------------------------------------------


def test_p13_fatigue_up_to_capacity_is_kept(example_state):
    s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "cass", "fatigue": 2})
    assert (s.heroes["cass"].fatigue, s.heroes["cass"].strain) == (5, 0)


def test_p13_fatigue_exceeding_capacity_clears_into_one_strain(example_state):
    s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "cass", "fatigue": 3})
    assert (s.heroes["cass"].fatigue, s.heroes["cass"].strain) == (0, 1)


def test_p14_strain_adds_a_strain_token_to_the_bag(example_state):
    s, _ev = run(example_state, {"cmd": "adjust_hero", "hero": "aria", "strain": 2})
    strain = [t for t in s.bags["aria"].contents if ".strain." in t]
    assert len(strain) == 2 and s.heroes["aria"].strain == 2
    s, _ = run(s, BEGIN, declare("aria", "control", "skill"), draw("aria", strain[0]))
    assert values(s, "aria") == [0]


def test_p14_strain_exceeding_capacity_clears_tokens_into_a_wound(example_state):
    s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "aria", "strain": 4})
    h = s.heroes["aria"]
    assert (h.strain, h.wounds) == (0, 1)
    assert not [t for t in s.bags["aria"].contents if ".strain." in t]


def test_p14_a_strain_token_on_the_draw_board_leaves_at_reset(example_state):
    s, _ = run(
        example_state,
        {"cmd": "adjust_hero", "hero": "aria", "strain": 3},
        BEGIN,
        declare("aria", "control", "skill"),
        draw("aria", "aria.strain.1"),
        {"cmd": "adjust_hero", "hero": "aria", "strain": 1},
    )
    assert s.heroes["aria"].strain == 0 and "aria.strain.1" in s.retiring
    s, _ = run(
        s,
        *(draw("aria", f"aria.weight.{w}") for w in range(3)),
        {"cmd": "resolve"},
        {"cmd": "reset"},
    )
    assert "aria.strain.1" not in s.bags["aria"].contents and not s.retiring


def test_p14_every_strain_has_its_token_even_when_one_lies_on_the_draw_board(example_state):
    """Strain cleared while a Strain token is on the Draw Board, then Strain back up to
    capacity before Reset: the token on the board is needed again and goes back at Reset."""
    s, _ = run(
        example_state,
        {"cmd": "adjust_hero", "hero": "aria", "strain": 3},
        BEGIN,
        declare("aria", "control", "skill"),
        draw("aria", "aria.strain.1"),
        {"cmd": "adjust_hero", "hero": "aria", "strain": 1},  # past capacity: a Wound
        {"cmd": "adjust_hero", "hero": "aria", "strain": 3},
    )
    h = s.heroes["aria"]
    assert h.strain == 3 and sorted(h.strain_tokens) == [f"aria.strain.{n}" for n in (1, 2, 3)]
    assert not s.retiring
    s, _ = run(
        s,
        *(draw("aria", f"aria.weight.{w}") for w in range(3)),
        {"cmd": "resolve"},
        {"cmd": "reset"},
    )
    in_bag = [t for t in s.bags["aria"].contents if ".strain." in t]
    assert len(in_bag) == s.heroes["aria"].strain == 3


def test_p15_each_wound_lowers_the_draw_total_minimum_one(example_state):
    for wounds, expected in ((1, 3), (2, 2), (3, 1), (5, 1)):
        s, _ = run(example_state, {"cmd": "adjust_hero", "hero": "aria", "wounds": wounds})
        _, ev = run(s, BEGIN, declare("aria", "control", "skill"))
        assert ev[-1]["draws"] == expected


# --- P16 Weight -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "expected"), [("off", [0, 0, 0]), ("mass", [-1, 0, 1]), ("light", [1, 0, -1])]
)
def test_p16_weight_modes_i_p16(example_state, mode, expected):
    s, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 5, "weight": mode},
        declare("aria", "control", "skill"),
        *(draw("aria", f"aria.weight.{w}") for w in range(3)),
    )
    assert values(s, "aria") == expected


def test_p16_every_hero_has_exactly_three_weight_tokens(example_state):
    for hero in example_state.heroes:
        weights = [t for t in example_state.bags[hero].contents if ".weight." in t]
        assert len(weights) == 3


def test_p16_weight_tokens_with_the_same_printed_weight_are_distinct_tokens():
    """A table whose heroes carry Weight 0, 2, 2 still has three Weight tokens each."""
    from engine import load_table_text
    from tests.harness import EXAMPLE_TABLE

    text = EXAMPLE_TABLE.read_text() + "\n[rules.weight]\ntokens = [0, 2, 2]\n"
    state = load_table_text(text)
    weights = [t for t in state.bags["aria"].contents if ".weight." in t]
    assert weights == ["aria.weight.0", "aria.weight.2", "aria.weight.2.2"]
    s, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": 5, "weight": "mass"},
        declare("aria", "control", "skill"),
        *(draw("aria", t) for t in weights),
    )
    assert values(s, "aria") == [-1, 1, 1]


# --- P17 Potential & Reserve -----------------------------------------------------------


def test_p17_two_potential_per_starting_pathway_worth_1v(example_state):
    bag = example_state.bags["aria"].contents
    assert len([t for t in bag if ".potential." in t]) == 6
    s, _ = run(
        example_state,
        BEGIN,
        declare("aria", "impulse", "skill"),
        draw("aria", "aria.potential.lore.1"),
    )
    assert values(s, "aria") == [1]


def test_p17_active_reserve_is_2v_with_its_pathway(example_state):
    s, _ = run(
        example_state,
        {"cmd": "set_reserve", "hero": "aria", "token": "aria.potential.skill.1", "active": True},
        {"cmd": "set_reserve", "hero": "aria", "token": "aria.potential.lore.1", "active": True},
        BEGIN,
        declare("aria", "control", "skill"),
        draw("aria", "aria.potential.skill.1"),
        draw("aria", "aria.potential.lore.1"),
    )
    assert values(s, "aria") == [2, 1]


def test_p17_gain_makes_active_reserve(example_state):
    s, _ = run(
        example_state,
        BEGIN,
        declare("bren", "control", "faith", action="gain", reserve="bren.potential.faith.2"),
    )
    assert "bren.potential.faith.2" in s.active_reserve


# --- P18 Favor -------------------------------------------------------------------


def _favor(state: TableState, shade: str, favor_token: str) -> int:
    s, _ = run(
        state,
        BEGIN,
        declare("aria", shade, "skill"),
        {"cmd": "call_favor", "hero": "aria", "token": favor_token},
    )
    return total(s, "aria")


def test_p18_favor_values_relative_to_declared_shade(example_state):
    # favor.01 control, favor.10 gray, favor.13 impulse, favor.22 Xul, favor.23 Xantyr
    assert _favor(example_state, "control", "favor.01") == 2
    assert _favor(example_state, "impulse", "favor.01") == 0
    assert _favor(example_state, "impulse", "favor.10") == 1
    assert _favor(example_state, "impulse", "favor.13") == 2
    assert _favor(example_state, "control", "favor.22") == 4
    assert _favor(example_state, "control", "favor.23") == -4


def test_p18_favor_bag_holds_23(example_state):
    assert len(example_state.bags["favor"].contents) == 23


def test_p18_call_favor_spends_favor_and_awakens_the_deity_i_p18(example_state):
    s, ev = run(
        example_state,
        BEGIN,
        declare("aria", "control", "skill"),
        {"cmd": "call_favor", "hero": "aria", "token": "favor.04"},
    )
    assert s.heroes["aria"].favor == 1
    assert "The Scribe" in s.awakened and any(e.type == "deity_awakened" for e in ev)


def test_p18_call_favor_with_no_favor_is_refused(example_state):
    s, _ = run(
        example_state,
        {"cmd": "adjust_hero", "hero": "aria", "favor": -2},
        BEGIN,
        declare("aria", "control", "skill"),
    )
    e = rejected(s, {"cmd": "call_favor", "hero": "aria", "seed": 1})
    assert e.violation.rule == "P18"


def test_p18_favor_never_automatic(example_state):
    s, ev = run(
        example_state,
        BEGIN,
        declare("cass", "impulse", "charm"),
        draw("cass", "cass.weight.1"),
        {"cmd": "resolve"},
    )
    assert s.heroes["cass"].favor == 1 and not any(e.type == "favor_called" for e in ev)


# --- P19 / P20 / P21 resolution ------------------------------------------------------


def test_p19_total_meeting_difficulty_succeeds(example_state):
    s, _ev = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 3},
        declare("cass", "impulse", "shadow"),
        *(draw("cass", t) for t in ("cass.ember.shadow", "cass.potential.lore.1", "cass.weight.0")),
        {"cmd": "resolve"},
    )
    assert s.performance.results[0].total == 3 and s.performance.results[0].success


@pytest.mark.parametrize("difficulty", [2, 9, 0])
def test_p19_difficulty_outside_3_to_8_is_refused(example_state, difficulty):
    e = rejected(example_state, {"cmd": "begin_performance", "difficulty": difficulty})
    assert (e.violation.rule, e.violation.field) == ("P19", "difficulty")


def test_p19_resolve_before_the_last_draw_is_refused(example_state):
    s = _aria_drew(example_state, "aria.weight.0")
    e = rejected(s, {"cmd": "resolve"})
    assert e.violation.rule == "P6" and "1 of 4" in e.violation.message


def test_p20_success_prompts_wear_failure_prompts_impact(example_state):
    _, ev = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 8},
        declare("cass", "impulse", "charm"),
        draw("cass", "cass.weight.0"),
        {"cmd": "resolve"},
    )
    assert "impact_prompt" in [e.type for e in ev]
    _, ev = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 3},
        declare("cass", "control", "charm", exert=True),
        *(
            draw("cass", t)
            for t in ("cass.ember.lore", "cass.ember.skill", "cass.potential.lore.1")
        ),
        {"cmd": "resolve"},
    )
    assert "wear_prompt" in [e.type for e in ev]


def test_p21_moment_outcome_prompts_escalation_and_table_data_shifts_it(example_state):
    from dataclasses import replace

    rules = dict(example_state.rules)
    rules["escalation"] = {
        **rules["escalation"],
        "failure": {"prepare": 0, "advance": 0, "breakthrough": -2},
    }
    s = replace(example_state, rules=rules)
    s, ev = run(
        s,
        {"cmd": "begin_performance", "difficulty": 8},
        declare("cass", "impulse", "charm", moment="breakthrough"),
        draw("cass", "cass.weight.0"),
        {"cmd": "resolve"},
    )
    prompt = next(e for e in ev if e.type == "escalation_prompt")
    assert prompt["shift"] == -2 and s.escalation == -2


# --- P22 Reset -----------------------------------------------------------------------


def test_p22_reset_returns_drawn_set_aside_and_favor_tokens(example_state):
    s = _aria_drew(example_state, "aria.weight.0")
    s, _ = run(
        s,
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0", "token": "aria.weight.1"},
        {"cmd": "call_favor", "hero": "aria", "token": "favor.05"},
        *(draw("aria", t) for t in ("aria.ember.skill", "aria.ember.lore", "aria.weight.2")),
        {"cmd": "resolve"},
        {"cmd": "reset"},
    )
    assert s.performance is None
    assert s.bags["aria"].contents == example_state.bags["aria"].contents
    assert s.bags["favor"].contents == example_state.bags["favor"].contents


def test_p22_reset_before_resolution_is_refused(example_state):
    s = _aria_drew(example_state)
    assert rejected(s, {"cmd": "reset"}).violation.rule == "P22"


def test_i_p11_a_table_that_returns_the_replaced_token_may_draw_it_again(example_state):
    from dataclasses import replace

    rules = {**example_state.rules, "redraw": {**example_state.rules["redraw"], "set_aside": False}}
    s = _aria_drew(replace(example_state, rules=rules), "aria.weight.0")
    one_step, _ = run(
        s, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0", "token": "aria.weight.0"}
    )
    two_step, _ = run(
        s,
        {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"},
        draw("aria", "aria.weight.0"),
    )
    assert one_step.performance == two_step.performance
    assert one_step.performance.contribution("aria").drawn == ("aria.weight.0",)


def test_i_p11_the_narration_says_where_the_replaced_token_goes(example_state):
    from dataclasses import replace

    from engine.narrate import describe

    for set_aside, words in ((True, "is set aside until Reset"), (False, "goes back into")):
        rules = {**example_state.rules, "redraw": {"rule": "I-P11", "set_aside": set_aside}}
        s = _aria_drew(replace(example_state, rules=rules), "aria.weight.0")
        s, ev = run(s, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"})
        assert words in describe(s, ev[0]), describe(s, ev[0])
