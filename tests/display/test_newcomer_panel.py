"""The panel after a fight and after the last push of the wheel (issue 15 item 6).

Real engine states (examples/fight.toml + fight.jsonl), the real service on emulated parts
(companion/scripted.py: gpiozero's MockFactory, its display worker), frames as they are
submitted.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.scripted import ScriptedTable
from display.panels import PANELS
from display.render import Frame, draw
from engine import apply, load_table
from engine.view import table_view
from tests.harness import ROOT


def _after_the_fight() -> dict[str, Any]:
    state = load_table(ROOT / "examples" / "fight.toml")
    for line in (ROOT / "examples" / "fight.jsonl").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            state, _ = apply(state, json.loads(line))
    view = table_view(state)
    assert view["combat"] is None  # end_combat ran (C2)
    return view


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_c9_c10_injuries_stay_on_the_between_screen_after_end_combat(panel: str) -> None:
    view = _after_the_fight()
    shown = [t.shown for t in draw(view, panel, "bw").texts]
    assert "Hurt: Aria 6 injuries (bleeding)" in shown
    assert "Hurt: Raider captain 3 injuries (concussion)" in shown
    assert not any("Raider " in s and "Hurt: Raider " + "7" in s for s in shown)  # the dead: no


def test_c10_a_condition_stays_too_and_a_healed_combatant_is_not_listed() -> None:
    view = copy.deepcopy(_after_the_fight())
    for entry in view["roster"]:
        if entry["name"] == "Bren":
            entry["conditions"] = [{"name": "prone", "level": 0, "attribute": None}]
        if entry["name"] == "Aria":
            entry["injuries"], entry["injury_list"] = 0, []  # healed
    shown = [t.shown for t in draw(view, "4.2", "bw").texts]
    assert "Hurt: Bren prone" in shown
    assert not any(s.startswith("Hurt: Aria") for s in shown)


def test_no_stale_next_hero_frame_after_the_last_push(tmp_path: Path) -> None:
    """The push that declares sends a command; the frame after it is the loop's outcome, never a
    dial banner read before the command was applied ("hero: Aria?" again)."""
    table = ROOT / "examples" / "table.toml"
    with ScriptedTable.emulated(table, tmp_path, panel="2.13", colour="bw", flipbook=True) as t:
        frames: list[Frame | str] = []
        submit, push = t.worker.submit, t.hand.push

        def record(frame: Frame) -> None:
            frames.append(frame)
            submit(frame)

        def pushed() -> None:
            frames.append("push")
            push()

        t.worker.submit = record  # type: ignore[method-assign]
        t.hand.push = pushed  # type: ignore[method-assign]
        t.command({"cmd": "begin_performance", "difficulty": 5})
        outcome = t.dial(
            {"hero": "aria", "shade": "control", "capability": "skill", "action": "target"}
        )
        assert outcome.error is None and outcome.command is not None
        assert outcome.command["cmd"] == "declare"
        last = max(i for i, f in enumerate(frames) if f == "push")
        after = [f for f in frames[last + 1 :] if isinstance(f, Frame)]
        assert after, "no frame after the last push"
        banners = [f.banner.text for f in after if f.banner is not None]
        assert not banners, f"a dial banner after the last push: {banners}"
        declared = after[-1].view["performance"]["contributions"]
        assert [c["hero"] for c in declared] == ["aria"]
        before = [f.banner.text for f in frames[:last] if isinstance(f, Frame) and f.banner]
        assert any(b.startswith("Wheel: Aria") for b in before)  # shown while being dialled
