"""Hypothesis properties of the Performance engine over random command sequences.

Commands are drawn with the state in view (real heroes and tokens, mostly legal
choices, some nonsense) so that long games happen and refusals are exercised.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CommandRejected, apply
from engine.state import TableState
from engine.tokens import TokenKind

CAPS = ["skill", "lore", "wild", "faith", "steel", "shadow", "charm", "sight", "juggling"]


def next_command(data: st.DataObject, state: TableState) -> dict:
    heroes = [*state.heroes, "nobody"]
    declared = [c.hero for c in state.performance.contributions] if state.performance else []
    hero = data.draw(
        st.sampled_from(declared)
        if declared and data.draw(st.booleans())
        else st.sampled_from(heroes),
        label="hero",
    )
    bag = state.bags.get(hero)
    token_pool = list(bag.contents) if bag and bag.contents else list(state.tokens)
    token = data.draw(
        st.one_of(
            st.sampled_from(token_pool),
            st.sampled_from(list(state.tokens)),
            st.just("no.such.token"),
        ),
        label="token",
    )
    perf = state.performance
    drawn = []
    if perf is not None:
        c = perf.contribution(hero)
        drawn = list(c.drawn) if c else []
    kind = None
    if data.draw(st.integers(0, 4), label="follow the flow") > 0:
        kind = flow(state, perf)
        if kind == "draw":
            hero = data.draw(
                st.sampled_from(
                    [
                        c.hero
                        for c in perf.contributions
                        if c.checks and (c.draws_left > 0 or c.pending_redraw)
                    ]
                )
            )
            bag = state.bags[hero].contents
            token = data.draw(st.sampled_from(bag)) if bag else token
            c = perf.contribution(hero)
            kind = data.draw(
                st.sampled_from(
                    ["draw", "draw", "favor"]
                    + (["redraw"] * 2 if c.drawn and not c.pending_redraw else [])
                )
            )
            if kind == "redraw":
                return {
                    "cmd": "redraw",
                    "hero": hero,
                    "replace": data.draw(st.sampled_from(c.drawn)),
                    **data.draw(st.sampled_from([{}, {"token": token}])),
                }
    kind = kind or data.draw(
        st.sampled_from(
            [
                "begin",
                "declare",
                "draw",
                "draw",
                "draw",
                "draw",
                "redraw",
                "favor",
                "resolve",
                "reset",
                "cancel",
                "undo",
                "adjust",
                "reserve",
                "training",
            ]
        ),
        label="kind",
    )
    if kind == "begin":
        return {
            "cmd": "begin_performance",
            "difficulty": data.draw(st.integers(2, 9)),
            "weight": data.draw(st.sampled_from(["off", "mass", "light"])),
        }
    if kind == "declare":
        return {
            "cmd": "declare",
            "hero": hero,
            "shade": data.draw(st.sampled_from(["control", "impulse"])),
            "capability": data.draw(
                st.sampled_from(
                    [*state.heroes[hero].training, *state.heroes[hero].pathways, *CAPS]
                    if hero in state.heroes
                    else CAPS
                )
            ),
            "action": data.draw(st.sampled_from(["target", "defend", "target", "gain", "spend"])),
            "exert": data.draw(st.sampled_from([False, False, True])),
            "intersect": data.draw(st.sampled_from([None, None, None, *state.heroes])),
            "reserve": data.draw(st.sampled_from([None, None, None, token])),
        }
    if kind == "draw":
        if data.draw(st.booleans()):
            return {"cmd": "draw", "hero": hero, "seed": data.draw(st.integers(0, 10**6))}
        return {"cmd": "draw", "hero": hero, "token": token}
    if kind == "redraw":
        replace = data.draw(st.sampled_from([*drawn, token]))
        return {
            "cmd": "redraw",
            "hero": hero,
            "replace": replace,
            **data.draw(st.sampled_from([{}, {"seed": 7}, {"token": token}])),
        }
    if kind == "favor":
        return {"cmd": "call_favor", "hero": hero, "seed": data.draw(st.integers(0, 99))}
    if kind == "resolve":
        return {"cmd": "resolve"}
    if kind == "reset":
        return {"cmd": "reset"}
    if kind == "cancel":
        return {"cmd": "cancel_performance"}
    if kind == "undo":
        return {"cmd": "undo"}
    if kind == "adjust":
        return {
            "cmd": "adjust_hero",
            "hero": hero,
            "fatigue": data.draw(st.integers(-3, 7)),
            "strain": data.draw(st.integers(-2, 4)),
            "wounds": data.draw(st.integers(-1, 1)),
            "favor": data.draw(st.integers(-1, 1)),
        }
    if kind == "reserve":
        return {
            "cmd": "set_reserve",
            "hero": hero,
            "token": token,
            "active": data.draw(st.booleans()),
        }
    return {
        "cmd": "set_training",
        "hero": hero,
        "capability": data.draw(st.sampled_from(CAPS)),
        "level": data.draw(
            st.sampled_from(["untrained", "trained", "adept", "master", "exemplar"])
        ),
    }


def flow(state: TableState, perf) -> str:
    """What a table would most likely do next."""
    if perf is None:
        return "begin"
    if perf.resolved:
        return "reset"
    if not perf.contributions:
        return "declare"
    if any(c.checks and (c.draws_left > 0 or c.pending_redraw) for c in perf.contributions):
        return "draw"
    return "resolve"


def places(state: TableState) -> dict[str, list[str]]:
    """Every place each token is in right now (should be exactly one)."""
    where: dict[str, list[str]] = {t: [] for t in state.tokens}
    for bag in state.bags.values():
        for t in bag.contents:
            where[t].append(f"bag:{bag.id}")
    if state.performance:
        for c in state.performance.contributions:
            for t in (*c.drawn, *c.favor):
                where[t].append("board")
            for t in c.set_aside:
                where[t].append("aside")
    return where


def check_invariants(state: TableState) -> None:
    where = places(state)
    for token_id, spots in where.items():
        assert len(spots) <= 1, f"{token_id} is in {spots}"
        token = state.tokens[token_id]
        if not spots:  # only Strain and the Exemplar swap may be out of play
            assert (
                token.kind is TokenKind.STRAIN
                or (token.kind is TokenKind.EMBER and token.ordinal == 2)
                or token.kind is TokenKind.POTENTIAL
            ), f"{token_id} vanished"
        if spots and spots[0].startswith("bag:"):
            assert spots[0] == f"bag:{token.bag}", f"{token_id} in another bag"
    for hero in state.heroes.values():
        assert 0 <= hero.fatigue <= hero.fatigue_capacity
        assert 0 <= hero.strain <= hero.strain_capacity
        assert hero.strain == len(hero.strain_tokens)
        assert hero.favor >= 0 and hero.redraws >= 0
    if state.performance:
        for c in state.performance.contributions:
            assert len(c.drawn) + (c.pending_redraw is not None) <= c.allowed <= 4


SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(data=st.data())
def test_properties_over_random_games(example_state, data):
    """P6/P11: never past the total; P22: tokens conserved; undo and JSON are exact;
    a refused command changes nothing."""
    state = example_state
    for _ in range(data.draw(st.integers(5, 60), label="length")):
        cmd = next_command(data, state)
        before = json.dumps(state.without_history().to_json(), sort_keys=True)
        try:
            new, _ = apply(state, cmd)
        except CommandRejected as e:
            assert e.violation.message
            assert json.dumps(state.without_history().to_json(), sort_keys=True) == before
            continue
        check_invariants(new)
        if cmd["cmd"] != "undo" and len(state.history) < state.rulebook.undo_depth:
            undone, _ = apply(new, {"cmd": "undo"})
            assert undone == state
        state = new
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
