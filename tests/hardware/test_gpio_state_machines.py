"""The wheel's small state machines, as values (issue 18 item 1): the encoder's Detents, the
Dial, the Redraw pick, and the whole WheelState each input steps (P4, P11, P19).

Properties straight from what each one is for: Detents count every step and never move on a
jiggle; a ring turns like a printed wheel (turns add up, wrap round, and a turn back undoes
one); a push then Undo comes back to the ring; the Redraw pick keeps the token shown while
the engine still offers it; and a step never changes the value it was given, so keeping a
state and stepping it again gives the same commands (what makes ``selection()`` pure).
"""

from __future__ import annotations

import contextlib
import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CommandRejected, apply
from engine.state import TableState
from hardware.config import GpioConfig
from hardware.dial import (
    ACTION,
    CAPABILITY,
    DIFFICULTY,
    HERO,
    SHADE,
    TRAINING,
    Dial,
    DialMemory,
    Offer,
)
from hardware.encoder import Detents
from hardware.facts import table_facts
from hardware.moves import WheelState
from hardware.picks import RedrawPick
from tests.harness import BEGIN

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
#: no deadline: six engineers share two cores, and a slow example is not a wrong one
VALUES = settings(deadline=None)

# --- Detents: encoder steps → whole positions -------------------------------------------


@VALUES
@given(per_choice=st.integers(1, 4), steps=st.lists(st.integers(-5, 5), max_size=40))
def test_detents_count_every_step_and_keep_less_than_a_position(per_choice, steps) -> None:
    d, moved = Detents(per_choice), 0
    for n in steps:
        moves, d = d.turned(n)
        moved += moves
        assert abs(d.partial) < per_choice
    assert moved * per_choice + d.partial == sum(steps)


@VALUES
@given(per_choice=st.integers(2, 4), data=st.data())
def test_detents_a_jiggle_of_less_than_a_position_never_moves(per_choice, data) -> None:
    """A hand resting on the knob: it wanders less than one position either way of rest."""
    d = Detents(per_choice)
    for _ in range(data.draw(st.integers(1, 20))):
        # a step that keeps the wander within (−per_choice, per_choice)
        low, high = -per_choice + 1 - d.partial, per_choice - 1 - d.partial
        moves, d = d.turned(data.draw(st.integers(low, high)))
        assert moves == 0
    assert d.cleared() == Detents(per_choice)


# --- the Dial on a Performance begun (the engine's facts, the example table) --------------


def _offer(state: TableState, memory: DialMemory | None = None) -> Offer:
    return Offer(table_facts(state), hero_ring=True, memory=memory or DialMemory())


#: rings whose options do not follow their own choice
PLAIN = (HERO, SHADE, CAPABILITY, ACTION, TRAINING)


@SETTINGS
@given(ring=st.sampled_from(PLAIN), a=st.integers(-12, 12), b=st.integers(-12, 12))
def test_p4_a_ring_turns_like_a_printed_wheel(example_state, ring, a, b) -> None:
    """Turns add up and wrap round: a then b is a + b; a full turn is no turn."""
    state, _ = apply(example_state, BEGIN)
    offer = _offer(state)
    dial = Dial(ring)
    n = len(offer.options(ring, dial))
    at = offer.value
    assert at(ring, dial.turned(a, offer).turned(b, offer)) == at(ring, dial.turned(a + b, offer))
    assert at(ring, dial.turned(a, offer).turned(-a, offer)) == at(ring, dial)
    assert at(ring, dial.turned(n, offer)) == at(ring, dial)


@SETTINGS
@given(turns=st.lists(st.integers(-3, 3), min_size=1, max_size=6))
def test_p4_push_then_undo_comes_back_to_the_ring_with_its_choice(example_state, turns) -> None:
    state, _ = apply(example_state, BEGIN)
    offer = _offer(state)
    dial = Dial().followed(offer)
    for n in turns:
        ring = dial.ring
        assert ring is not None
        turned = dial.turned(n, offer)
        pushed = turned.pushed(offer)
        if pushed.ring == ring:  # the last ring: its push declares, nothing to come back to
            break
        assert pushed.backed(offer) == turned.confirmed(offer)
        assert offer.value(ring, pushed) == offer.value(ring, turned)
        dial = pushed
    assert Dial().followed(offer).backed(offer) is None  # the first ring: Undo is the table's


def test_p19_the_difficulty_ring_is_the_only_ring_without_a_performance(example_state) -> None:
    offer = _offer(example_state, DialMemory(last_difficulty=6))
    dial = Dial().followed(offer)
    assert (dial.ring, offer.rings(dial), offer.value(DIFFICULTY, dial)) == (
        DIFFICULTY,
        [DIFFICULTY],
        6,  # the ring starts at the last Difficulty begun
    )


def test_a_dial_is_a_value_every_move_returns_a_new_one(example_state) -> None:
    state, _ = apply(example_state, BEGIN)
    offer = _offer(state)
    dial = Dial().followed(offer).turned(+1, offer)
    kept = copy.deepcopy(dial)
    dial.turned(+1, offer).pushed(offer).exerted().chose(HERO, "cass")
    assert dial == kept


# --- the Redraw pick (P11) ----------------------------------------------------------------

tokens = st.lists(
    st.tuples(st.sampled_from(["aria", "bren"]), st.text("abc", min_size=1, max_size=3)),
    min_size=1,
    max_size=6,
    unique=True,
)


@VALUES
@given(candidates=tokens, at=st.integers(0, 10), n=st.integers(-9, 9))
def test_p11_the_redraw_pick_turns_round_the_engine_s_candidates(candidates, at, n) -> None:
    pick = RedrawPick(tuple(candidates), at % len(candidates))
    assert pick.turned(n).turned(-n) == pick
    assert pick.turned(n).shown in candidates


@VALUES
@given(candidates=tokens, later=tokens, at=st.integers(0, 10))
def test_p11_the_redraw_pick_keeps_the_token_shown_while_the_engine_offers_it(
    candidates, later, at
) -> None:
    pick = RedrawPick(tuple(candidates), at % len(candidates))
    followed = pick.followed(later, lowest=0)
    assert followed is not None
    if pick.shown in later:
        assert followed.shown == pick.shown
    else:
        assert followed.shown == later[0]
    assert pick.followed([], lowest=0) is None  # nothing left to Redraw: the pick ends


# --- WheelState: every input a pure step ----------------------------------------------------

BUTTONS = ("undo", "exert", "resolve", "reset", "redraw", "call_favor", "time", "hero")
moves = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(-3, 3)),
        st.tuples(st.just("push"), st.just(0)),
        st.tuples(st.just("press"), st.sampled_from(BUTTONS)),
        st.tuples(st.just("draw"), st.integers(0, 50)),
    ),
    min_size=5,
    max_size=50,
)


def _step(s: WheelState, table: TableState, cfg: GpioConfig, kind: str, arg: Any) -> Any:
    f = table_facts(table)
    if kind == "turn":
        return s.turned(f, cfg, arg)
    if kind == "push":
        return s.pushed(f, cfg)
    if kind == "press":
        rng = random.Random(arg)  # the same seeds for every run of the step
        return s.pressed(f, cfg, arg, lambda: rng.randrange(1000))
    perf = table.performance  # a token from the bag of a hero who has declared, laid
    heroes = [c.hero for c in perf.contributions] if perf else []
    return s, [{"cmd": "draw", "hero": heroes[arg % len(heroes)], "seed": arg}] if heroes else []


@SETTINGS
@given(script=moves)
def test_a_step_never_changes_the_state_it_was_given(example_state, script) -> None:
    """Stepping a kept state again gives the same next state and commands: no step mutates
    a value (what makes selection() pure, and a replayed hand send the same commands)."""
    cfg = GpioConfig(call_favor="random", steps_per_choice=2)
    table = example_state
    s = WheelState.start(cfg)
    for kind, arg in script:
        kept = copy.deepcopy(s)
        first, again = _step(s, table, cfg, kind, arg), _step(s, table, cfg, kind, arg)
        assert first == again and s == kept
        f = table_facts(table)
        assert s.selection(f, cfg) == kept.selection(f, cfg)
        s, commands = first
        for command in commands:
            with contextlib.suppress(CommandRejected):
                table, _ = apply(table, command)


def test_the_selection_has_the_keys_its_type_and_the_docs_name(example_state) -> None:
    """hardware.moves.Selection is the panel's contract: every selection has exactly its keys,
    and so does the example in docs/controls.md ("The selection, for the panel")."""
    import json
    import re

    from hardware.moves import Selection
    from hardware.wheel import Wheel
    from tests.harness import ROOT

    keys = set(Selection.__required_keys__)
    state, _ = apply(example_state, BEGIN)
    wheel = Wheel(lambda: state)
    assert set(wheel.selection()) == keys  # dialling
    assert set(Wheel(lambda: example_state).selection()) == keys  # the Difficulty ring
    docs = (ROOT / "docs" / "controls.md").read_text(encoding="utf-8")
    section = docs[docs.index("## The selection, for the panel") :]
    (example,) = re.findall(r"```json\n(.*?)```", section, re.DOTALL)[:1]
    assert set(json.loads(example)) == keys
