"""The odds in the table view against every ordered draw played through the real engine.

Each oracle here applies the real commands (draw, redraw, call_favor, resolve)
to real states for every token that could come out of the bag, and lets the
engine's own ``resolve`` say who succeeded (P6, P9, P11, I-P11, P15, P16, P18,
P19, I-P10).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import engine
from engine.performance.commands import value_of
from engine.performance.odds import group_numbers, odds_view, percent_text
from engine.state import TableState
from engine.view import table_view
from tests.harness import run
from tests.harness.odds_oracle import engine_best

SMALL = """
[table]
id = "small"

[rules.potential]
per_pathway = {per_pathway}

[rules.favor]
bag_size = 5

[rules.redraw]
set_aside = {set_aside}

[rules.intersect]
mode = "{mode}"

[capabilities]
pathways = ["skill", "lore", "wild"]
presences = ["charm"]

[[heroes]]
id = "aria"
name = "Aria"
pathways = {{ skill = "control", lore = "versatility", wild = "impulse" }}
training = {{ skill = "adept", lore = "trained" }}
favor = 1
redraws = 2
wounds = {wounds}

[[heroes]]
id = "bren"
name = "Bren"
pathways = {{ skill = "impulse", lore = "control", wild = "versatility" }}
training = {{ lore = "trained", skill = "master" }}
favor = 1
redraws = 1

[favor_bag]
tokens = [
    {{ shade = "control", deity = "The Warden", count = 2 }},
    {{ shade = "gray", deity = "The Wanderer" }},
    {{ shade = "xul" }},
    {{ shade = "xantyr" }},
]
"""


def small_table(
    per_pathway: int = 0, set_aside: bool = True, mode: str = "sum", wounds: int = 0
) -> TableState:
    text = SMALL.format(
        per_pathway=per_pathway, set_aside=str(set_aside).lower(), mode=mode, wounds=wounds
    )
    return engine.load_table_text(text, "small.toml")


def declared(state: TableState, difficulty: int, weight: str = "off", **kw: Any) -> TableState:
    decl = {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill"}
    decl.update({"action": "target", **kw})
    state, _ = run(
        state, {"cmd": "begin_performance", "difficulty": difficulty, "weight": weight}, decl
    )
    return state


def only_group(state: TableState) -> dict[str, Any]:
    view = odds_view(state)
    assert view is not None
    (group,) = view["groups"]
    return group


def success(group: dict[str, Any], key: str = "as_drawn") -> Fraction:
    return Fraction(group[key]["num"], group[key]["den"])


def _c(state: TableState, hero: str) -> Any:
    assert state.performance is not None
    c = state.performance.contribution(hero)
    assert c is not None
    return c


def _must_draw(state: TableState) -> list[list[dict[str, object]]]:
    """The draws the rules still require, one hero at a time (P6: until the bag is empty)."""
    assert state.performance is not None
    for c in state.performance.contributions:
        bag = state.bags[state.heroes[c.hero].bag].contents
        if c.checks and (c.draws_left > 0 or c.pending_redraw) and bag:
            return [[{"cmd": "draw", "hero": c.hero, "token": t} for t in bag]]
    return []


def as_drawn(state: TableState) -> Fraction:
    """No memo: literally every ordered draw."""
    counter = iter(range(10**9))
    return engine_best(state, _must_draw, lambda s: next(counter))


# --- as drawn ------------------------------------------------------------------------


@pytest.mark.parametrize("weight", ["off", "mass", "light"])
@pytest.mark.parametrize("difficulty", [3, 4, 5])
def test_p6_p16_p19_odds_equal_every_ordered_draw(weight: str, difficulty: int) -> None:
    """Aria, Adept: 4 of 6 tokens (3 Embers, 3 Weight). The Weight mode changes what the
    Weight tokens are worth (I-P16), and so the odds."""
    state = declared(small_table(), difficulty, weight)
    assert success(only_group(state)) == as_drawn(state)


def test_i_p16_a_drawn_weight_token_is_worth_what_the_mode_says() -> None:
    """Weight 2 on the board: OFF 0, MASS +1, LIGHT −1 (I-P16). Before it is drawn MASS and
    LIGHT are mirror images over the three Weight tokens and give the same odds."""
    odds = {}
    for mode in ("off", "mass", "light"):
        state = declared(small_table(per_pathway=1), 4, mode)
        before = success(only_group(state))
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": "aria.weight.2"})
        odds[mode] = (before, success(only_group(state)))
        assert odds[mode][1] == as_drawn(state)
    assert odds["mass"][0] == odds["light"][0]
    assert odds["light"][1] < odds["off"][1] < odds["mass"][1]


@pytest.mark.parametrize("drawn", [["aria.weight.0"], ["aria.ember.skill", "aria.weight.2"]])
def test_p6_odds_after_a_draw_condition_on_the_draw_board(drawn: list[str]) -> None:
    state = declared(small_table(per_pathway=1), 4, "mass")
    for t in drawn:
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": t})
    group = only_group(state)
    assert success(group) == as_drawn(state)
    # the distribution is of the whole total, the board included
    c = _c(state, "aria")
    board = sum(value_of(state, c, t) for t in c.drawn)
    left = c.draws_left
    assert min(t for t, _ in group["distribution"]) >= board - left  # Weight 0 is −1 in MASS
    assert abs(sum(p for _, p in group["distribution"]) - 1) < 1e-12
    assert sum(p for t, p in group["distribution"] if t >= 4) == pytest.approx(
        float(success(group))
    )


def test_p9_exertion_draws_three_and_costs_fatigue() -> None:
    """Untrained in charm, Exerting: 3 draws (P9); +2 Fatigue after resolution."""
    state = declared(small_table(), 3, capability="charm", exert=True)
    assert _c(state, "aria").allowed == 3
    group = only_group(state)
    assert success(group) == as_drawn(state)
    assert group["expected_fatigue"] == 2.0
    assert group["expected_strain"] == 0.0


def test_p15_p9_a_wound_lowers_the_draw_total_and_doubles_exertion() -> None:
    state = declared(small_table(wounds=1), 3, capability="charm", exert=True)
    assert _c(state, "aria").allowed == 2
    group = only_group(state)
    assert success(group) == as_drawn(state)
    assert group["expected_fatigue"] == 4.0  # P9: 4 with any Wound


def test_p13_p14_exertion_cost_runs_the_cascade() -> None:
    """Fatigue 4 of 5 plus 2 → Strain (P13); with Strain full as well → a Wound (P14)."""
    state = small_table()
    state, _ = engine.apply(state, {"cmd": "adjust_hero", "hero": "aria", "fatigue": 4})
    group = only_group(declared(state, 3, capability="charm", exert=True))
    assert (group["expected_fatigue"], group["expected_strain"], group["expected_wounds"]) == (
        2.0,
        1.0,
        0.0,
    )
    state, _ = engine.apply(state, {"cmd": "adjust_hero", "hero": "aria", "strain": 3})
    group = only_group(declared(state, 3, capability="charm", exert=True))
    assert group["expected_strain"] == 1.0
    assert group["expected_wounds"] == 1.0
    _, events = run(
        declared(state, 3, capability="charm", exert=True),
        *[{"cmd": "draw", "hero": "aria", "seed": i} for i in range(3)],
        {"cmd": "resolve"},
    )
    assert [e.type for e in events].count("wound_gained") == 1


# --- Favor ---------------------------------------------------------------------------


def test_p18_favor_is_advised_only_once_it_is_the_best_move() -> None:
    """Before the draw, drawing on is best (Favor waits until the hero is still short, P18);
    with everything drawn and short, calling it is the best move, worth the engine's own
    game tree over the Favor Bag as it is now."""
    state = declared(small_table(), 5, "mass")
    group = only_group(state)
    assert [a["action"] for a in group["advice"]] == ["draw"]
    for t in ("aria.weight.1", "aria.ember.skill", "aria.ember.lore", "aria.weight.2"):
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": t})
    state, _ = engine.apply(state, {"cmd": "adjust_hero", "hero": "aria", "redraws": -2})
    group = only_group(state)
    assert success(group) == 0  # 0 + 2 + 1 + 1 = 4 < 5
    top = group["advice"][0]
    assert top["action"] == "call_favor" and top["command"] == {"cmd": "call_favor", "hero": "aria"}
    assert success(group, "best_play") == success(top, "best_play") == best_through_engine(state)
    assert success(group, "best_play") == Fraction(4, 5)  # every Favor token but Xantyr
    # after the call, the token is on the board and the odds condition on it
    called, _ = engine.apply(state, {"cmd": "call_favor", "hero": "aria", "token": "favor.04"})
    assert success(only_group(called)) == as_drawn(called)
    assert not [a for a in only_group(called)["advice"] if a["action"] == "call_favor"]


# --- Redraw --------------------------------------------------------------------------


def _choices(s: TableState) -> list[list[dict[str, object]]]:
    """Every move the engine allows now, each a chance node over the token that comes out:
    draw (P6), Redraw any token on a board at any moment (P11; its replacement is the next
    draw), Call Favor at any moment (P18), resolve once every hero has drawn."""
    assert s.performance is not None
    nodes: list[list[dict[str, object]]] = []
    finished = True
    favor_bag = s.bags["favor"].contents
    adept = s.rules["training"]["redraw_minimum"]
    for c in s.performance.contributions:
        if not c.checks:
            continue
        hero = s.heroes[c.hero]
        bag = s.bags[hero.bag].contents
        if (c.draws_left > 0 or c.pending_redraw) and bag:
            finished = False
            nodes.append([{"cmd": "draw", "hero": c.hero, "token": t} for t in bag])
        may_redraw = hero.redraws and c.training.at_least(adept) and c.pending_redraw is None
        if may_redraw and (bag or not s.rules["redraw"]["set_aside"]):
            nodes += [[{"cmd": "redraw", "hero": c.hero, "replace": x}] for x in c.drawn]
        if hero.favor and len(c.favor) < s.rules["favor"]["calls_per_performance"] and favor_bag:
            nodes.append([{"cmd": "call_favor", "hero": c.hero, "token": t} for t in favor_bag])
    return [*nodes, []] if finished else nodes  # [] : resolve now


def _full_key(state: TableState) -> object:
    assert state.performance is not None
    return tuple(
        (
            tuple(sorted(c.drawn)),
            tuple(sorted(c.set_aside)),
            tuple(c.favor),
            c.pending_redraw,
            state.heroes[c.hero].redraws,
            state.heroes[c.hero].favor,
        )
        for c in state.performance.contributions
    )


#: one memo per game: every state of a test's Performance has its own key (_full_key)
_MEMO: dict[object, Fraction] = {}


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    _MEMO.clear()


def best_through_engine(state: TableState) -> Fraction:
    """Best play over the whole game tree, every move applied by the real engine."""
    return engine_best(state, _choices, _full_key, _MEMO)


def move_through_engine(state: TableState, advice: dict[str, Any]) -> Fraction:
    """What an advice entry is worth: its command applied (for every token that could come
    out of the bag, when it draws one), then best play through the real engine."""
    command = dict(advice["command"])
    if command["cmd"] == "resolve":
        after, _ = engine.apply(state, command)
        assert after.performance is not None
        return Fraction(int(all(r.success for r in after.performance.results)))
    if command["cmd"] == "redraw":
        return best_through_engine(engine.apply(state, command)[0])
    hero = state.heroes[str(command["hero"])]
    pool = state.bags["favor" if command["cmd"] == "call_favor" else hero.bag].contents
    total = sum(
        (best_through_engine(engine.apply(state, {**command, "token": t})[0]) for t in pool),
        Fraction(0),
    )
    return total / len(pool)


def assert_advice_like_the_engine(state: TableState) -> dict[str, Any]:
    """The headline and every advice entry against the engine's own game tree; the headline
    equals the top advice and is at least every other entry (issue 13 item 7)."""
    group = only_group(state)
    head = success(group, "best_play")
    assert head == best_through_engine(state)
    assert head >= success(group)
    assert group["advice"] and success(group["advice"][0], "best_play") == head
    for a in group["advice"]:
        assert success(a, "best_play") == move_through_engine(state, a), a["text"]
        assert success(a, "best_play") <= head
        assert a["text"].endswith(f"→ {percent_text(success(a, 'best_play'))}")
    return group


@pytest.mark.parametrize(
    ("per_pathway", "extra_redraws", "weight", "difficulty"),
    [(0, 0, "mass", 3), (0, 0, "mass", 4), (0, 0, "off", 5), (0, 1, "off", 4), (0, 0, "light", 6)],
)
def test_p11_p18_best_play_is_the_whole_game_through_the_engine(
    per_pathway: int, extra_redraws: int, weight: str, difficulty: int
) -> None:
    """Adept Aria with her Redraws and a Favor: the headline equals the engine game tree where
    she may Redraw any token at any moment, Call Favor at any moment or never, or keep (set
    aside, I-P11). With a third Redraw her 6-token bag is too short for 4 draws and 3 Redraws,
    where Redrawing early pays."""
    state = small_table(per_pathway=per_pathway)
    if extra_redraws:
        state, _ = engine.apply(
            state, {"cmd": "adjust_hero", "hero": "aria", "redraws": extra_redraws}
        )
    assert_advice_like_the_engine(declared(state, difficulty, weight))


@pytest.mark.parametrize(
    "drawn",
    [
        ["aria.weight.0", "aria.ember.wild"],
        ["aria.weight.0", "aria.ember.wild", "aria.potential.lore.1"],
        ["aria.weight.0", "aria.ember.wild", "aria.potential.lore.1", "aria.weight.1"],
    ],
)
def test_p11_every_advice_entry_is_worth_what_the_engine_says(drawn: list[str]) -> None:
    """Mid-draw and after it: each entry (draw on, Redraw the lowest, Favor when best,
    resolve) valued with best play after it, through the real engine; its command is real."""
    state = declared(small_table(per_pathway=1), 4, "mass")
    for t in drawn:
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": t})
    group = assert_advice_like_the_engine(state)
    redraws = [a for a in group["advice"] if a["action"] == "redraw"]
    assert redraws and redraws[0]["token"] == "aria.weight.0"  # the lowest token (−1)
    after, _ = engine.apply(state, redraws[0]["command"])
    assert _c(after, "aria").pending_redraw == "aria.weight.0"
    assert redraws[0]["text"].startswith("Redraw Aria's Weight 0")


def test_p11_never_a_bare_zero_while_a_plan_can_win() -> None:
    """All drawn and short (as drawn 0%): the advice says what still wins (issue 13)."""
    state = declared(small_table(per_pathway=1), 5, "mass")
    for t in ("aria.weight.0", "aria.ember.wild", "aria.potential.lore.1", "aria.weight.1"):
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": t})
    group = assert_advice_like_the_engine(state)
    assert success(group) == 0 < success(group, "best_play")
    assert group["advice"][0]["action"] == "redraw"


@pytest.mark.parametrize("set_aside", [True, False])
def test_i_p11_after_a_redraw_the_replaced_token_is_out_of_the_bag(set_aside: bool) -> None:
    """Set aside (I-P11) the replaced token cannot come back; with I-P11 off it can."""
    state = declared(small_table(per_pathway=1, set_aside=set_aside), 4, "mass")
    for t in ("aria.weight.0", "aria.ember.skill", "aria.weight.1", "aria.ember.lore"):
        state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": t})
    state, _ = engine.apply(state, {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"})
    assert ("aria.weight.0" in state.bags["aria"].contents) is not set_aside
    assert success(only_group(state)) == as_drawn(state)
    # best play with the remaining Redraw and the Favor matches the engine game tree
    assert_advice_like_the_engine(state)


def test_p11_no_redraw_advice_below_adept_or_without_redraws() -> None:
    state = declared(small_table(), 3, capability="lore")  # Trained in lore
    state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"})
    group = assert_advice_like_the_engine(state)
    assert not [a for a in group["advice"] if a["action"] == "redraw"]


# --- Intersect -----------------------------------------------------------------------


def _intersect(mode: str) -> TableState:
    state = small_table(mode=mode)
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": 6, "weight": "mass"},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "control",
            "capability": "lore",
            "action": "target",
        },
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "lore",
            "action": "target",
            "intersect": "bren",
        },
    )
    return state


def test_i_p10_intersecting_heroes_sum_against_one_difficulty() -> None:
    state = _intersect("sum")
    group = only_group(state)
    assert sorted(group["heroes"]) == ["aria", "bren"]
    assert success(group) == engine_best(state, _must_draw, _full_key)


def test_i_p10_p23_an_intersect_group_plays_best_together() -> None:
    """Adept Aria Intersecting with Master Bren in skill: either may Redraw, either may Call
    Favor from the one Favor Bag; the headline and the advice match the engine game tree."""
    state = small_table()
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": 7, "weight": "mass"},
        {"cmd": "declare", "hero": "bren", "shade": "impulse", "capability": "skill"}
        | {"action": "target"},
        {"cmd": "declare", "hero": "aria", "shade": "impulse", "capability": "skill"}
        | {"action": "target", "intersect": "bren"},
        {"cmd": "adjust_hero", "hero": "aria", "redraws": -1},
        {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"},
        {"cmd": "draw", "hero": "bren", "token": "bren.ember.skill"},
        {"cmd": "draw", "hero": "bren", "token": "bren.weight.1"},
        {"cmd": "draw", "hero": "bren", "token": "bren.ember.lore"},
        {"cmd": "draw", "hero": "aria", "token": "aria.weight.2"},
        {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"},
        {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"},
    )
    group = assert_advice_like_the_engine(state)
    assert success(group, "best_play") > success(group)


def test_i_p10_separate_mode_gives_one_group_per_hero() -> None:
    state = _intersect("separate")
    view = odds_view(state)
    assert view is not None
    assert [g["heroes"] for g in view["groups"]] == [["bren"], ["aria"]]
    product = Fraction(1)
    for g in view["groups"]:
        product *= success(g)
    assert product == engine_best(state, _must_draw, _full_key)


# --- the view ------------------------------------------------------------------------


def test_p19_odds_only_while_a_performance_is_open() -> None:
    state = small_table()
    assert table_view(state)["odds"] is None
    state = declared(state, 3)
    view = table_view(state)["odds"]
    assert view is not None
    (group,) = view["groups"]
    assert set(group) >= {
        "heroes",
        "difficulty",
        "best_play",
        "as_drawn",
        "advice",
        "distribution",
        "expected_fatigue",
        "expected_strain",
    }
    assert set(group["best_play"]) == set(group["as_drawn"]) == {"num", "den", "percent"}
    state, _ = run(
        state, *({"cmd": "draw", "hero": "aria", "seed": i} for i in range(4)), {"cmd": "resolve"}
    )
    assert table_view(state)["odds"] is None


def test_p7_gain_is_not_in_the_odds() -> None:
    state = small_table()
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": 3},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "gain",
            "reserve": None,
        },
    )
    assert odds_view(state) == {"groups": [], "status": "ready"}


def test_p6_repeated_views_come_from_the_cache() -> None:
    state = declared(small_table(), 4, "mass")
    before = group_numbers.cache_info().hits
    first = table_view(state)["odds"]
    second = table_view(state)["odds"]
    assert first == second
    assert group_numbers.cache_info().hits > before


def test_p19_hero_odds_gives_the_views_two_numbers() -> None:
    """engine.performance.odds.hero_odds: the group's best play and as drawn, as Fractions
    (for the export), None without an open Performance or for a Gain (P7)."""
    from engine.performance.odds import hero_odds

    state = small_table()
    assert hero_odds(state, "aria") is None
    state = declared(state, 4, "mass")
    state, _ = engine.apply(state, {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"})
    found = hero_odds(state, "aria")
    group = only_group(state)
    assert found is not None and found.heroes == ("aria",) and found.difficulty == 4
    assert found.best_play == success(group, "best_play")
    assert found.as_drawn == success(group)
    assert hero_odds(state, "bren") is None  # not declared
