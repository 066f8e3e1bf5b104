"""engine/legal.py: the view says which commands the table would take now, as engine.check does."""

from __future__ import annotations

import json
from typing import Any

import engine
from engine.legal import TABLE, legal_commands
from engine.narrate import describe
from engine.view import table_view
from tests.harness import ARIA, BEGIN, EXAMPLE_TABLE, ROOT, draw, run


def _resolved() -> engine.TableState:
    state = engine.load_table(EXAMPLE_TABLE)
    state, _ = run(state, BEGIN, ARIA, *[draw("aria", seed=i) for i in range(4)])
    state, _ = engine.apply(state, {"cmd": "resolve"})
    return state


def test_a_resolved_performance_offers_no_draw_redraw_favor_or_declare() -> None:
    legal = table_view(_resolved())["legal"]
    for hero, entry in legal["heroes"].items():
        for name in ("declare", "draw", "call_favor"):
            refusal = entry[name]
            assert refusal is not None and refusal["rule"] == "P22", (hero, name, refusal)
    assert legal["heroes"]["aria"]["redraw"]["rule"] == "P22"  # type: ignore[index]
    assert legal["table"]["resolve"]["rule"] == "P22"  # type: ignore[index]
    assert legal["table"]["reset"] is None and legal["table"]["undo"] is None
    assert legal["complete"] is True


def test_each_answer_is_engine_check_of_its_template_through_the_example_session() -> None:
    state = engine.load_table(EXAMPLE_TABLE)
    lines = (ROOT / "examples" / "session.jsonl").read_text("utf-8").splitlines()
    commands = [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]
    seen: set[tuple[str, bool]] = set()
    for cmd in commands:
        legal = legal_commands(state)
        for name, template in TABLE.items():
            refused = engine.check(state, template)
            want = None if refused is None else refused.to_json()
            assert legal["table"][name] == want, (cmd, name)
            seen.add((name, want is None))
        for hero, entry in legal["heroes"].items():
            # taken: apply takes it; refused: apply refuses it with that very rule
            got = engine.check(state, {"cmd": "draw", "hero": hero, "seed": 0})
            assert entry["draw"] == (None if got is None else got.to_json())
        state, _ = engine.apply(state, cmd)
    # the session moves each table-wide Performance command between taken and refused
    for name in ("begin_performance", "resolve", "reset"):
        assert {(name, True), (name, False)} <= seen, name


def test_a_fight_says_who_can_act_and_who_can_join() -> None:
    state = engine.load_table(ROOT / "examples" / "fight.toml")
    roster = list(state.combat.roster)  # type: ignore[union-attr]
    legal = legal_commands(state)
    assert legal["table"]["start_combat"] is None
    assert legal["table"]["end_combat"] is not None
    state, _ = engine.apply(state, {"cmd": "start_combat", "combatants": roster[:2], "seed": 1})
    view = table_view(state)
    legal = view["legal"]
    acting = view["combat"]["acting"]  # type: ignore[index]
    assert acting
    for cid in roster[:2]:
        assert (legal["combatants"][cid]["act"] is None) == (cid in acting), cid
        assert legal["combatants"][cid]["join_combat"] is not None
    for cid in roster[2:]:
        assert legal["combatants"][cid]["join_combat"] is None, cid
    assert legal["table"]["end_combat"] is None


def test_the_checks_are_bounded_by_the_rules_data() -> None:
    text = EXAMPLE_TABLE.read_text("utf-8") + "\n[rules.answers]\nlegal = 5\n"
    state = engine.load_table_text(text, "small.toml", EXAMPLE_TABLE.parent)
    legal: Any = legal_commands(state)
    assert legal["complete"] is False
    assert len(legal["table"]) == 5 and all(not e for e in legal["heroes"].values())
    assert legal_commands(engine.load_table(EXAMPLE_TABLE))["complete"] is True


def test_favor_is_named_once_in_the_narration() -> None:
    state = engine.load_table(EXAMPLE_TABLE)
    state, events = run(state, BEGIN, ARIA, {"cmd": "call_favor", "hero": "aria", "seed": 3})
    [called] = [describe(state, e) for e in events if e.type == "favor_called"]
    assert called.startswith("Aria calls Favor: ") and "Favor: Favor" not in called, called
