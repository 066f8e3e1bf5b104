"""The 40-token bag the odds tests play (tests/engine/data/odds_big_bag.toml, the table format
only): Vesna declared against a chosen Difficulty, and her bags' tokens valued by the engine.

>>> big_state(6).performance.difficulty
6
>>> len(bag_values(big_state(6), "vesna"))
40
"""

from __future__ import annotations

import engine
from engine.performance.commands import value_of
from engine.state import TableState
from tests.harness import ROOT, run

BIG = ROOT / "tests" / "engine" / "data" / "odds_big_bag.toml"


def big_state(difficulty: int) -> TableState:
    """The big bag's table with a Performance begun (Weight: mass) and Vesna declared in Skill."""
    state = engine.load_table(BIG)
    state, _ = run(
        state,
        {"cmd": "begin_performance", "difficulty": difficulty, "weight": "mass"},
        {
            "cmd": "declare",
            "hero": "vesna",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
    )
    return state


def bag_values(state: TableState, bag: str) -> list[int]:
    """Each token's value in ``bag`` for the first contribution (the engine's value_of)."""
    assert state.performance is not None
    c = state.performance.contributions[0]
    return [value_of(state, c, t) for t in state.bags[bag].contents]
