"""The hero view names every capability the hero can declare in, with its Training, and where
Exert is allowed (P2, P4, P9): a remote offers exactly what the engine takes (issue 41 item 3)."""

from __future__ import annotations

import pytest

from engine import apply
from engine.errors import CommandRejected
from engine.view import hero_view
from tests.harness import BEGIN, run


def test_every_capability_of_the_table_with_its_training(example_state):
    aria = hero_view(example_state, "aria")
    # examples/table.toml: pathways, then presences, then senses, as the table lists them
    assert list(aria["capabilities"]) == list(example_state.capabilities)
    assert len(aria["capabilities"]) == 10
    for cap, level in aria["capabilities"].items():
        assert level == aria["training"].get(cap, "untrained"), cap
    assert aria["capabilities"]["skill"] == "adept"
    assert aria["capabilities"]["charm"] == "untrained"
    # P9: only Untrained heroes Exert
    assert aria["exert"] == [c for c, t in aria["capabilities"].items() if t == "untrained"]
    assert "skill" not in aria["exert"] and "charm" in aria["exert"]


@pytest.mark.parametrize("hero", ["aria", "bren", "cass"])
def test_the_engine_takes_an_exert_exactly_where_the_view_offers_it(example_state, hero):
    state, _ = run(example_state, BEGIN)
    view = hero_view(state, hero)
    for cap in view["capabilities"]:
        cmd = {"cmd": "declare", "hero": hero, "shade": "control", "capability": cap}
        cmd |= {"action": "target", "exert": True}
        if cap in view["exert"]:
            after, _ = apply(state, cmd)
            assert after.performance.contribution(hero).exert, cap
        else:
            with pytest.raises(CommandRejected) as refused:
                apply(state, cmd)
            assert refused.value.violation.rule == "P9", cap
        # and every capability can be declared without Exert (untrained ones too)
        apply(state, {k: v for k, v in cmd.items() if k != "exert"})
