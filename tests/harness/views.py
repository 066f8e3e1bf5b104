"""Views for the display tests and golden images, built from the real engine where it can.

Performance views come from ``engine.view.table_view`` after real commands on
the example table. The ``odds``, ``time`` and ``combat`` sections belong to
other modules and are optional in the view; they are added here by hand in
exactly the shapes those modules publish.
"""

from __future__ import annotations

import copy
from typing import Any

import engine
from engine import apply
from engine.combat.rules import CombatRules
from engine.combat.view import actions
from engine.rules import shipped_rules
from engine.view import table_view
from tests.harness import ARIA, BEGIN, EXAMPLE_TABLE, draw

LONG_HERO = "Wilhelmina-Josephine of the Seventeenth Lantern"
LONG_CAPABILITY = "unutterable_cartography_of_drowned_cathedrals"


def _run(
    state: engine.TableState, *commands: dict[str, Any]
) -> tuple[engine.TableState, list[Any]]:
    events: list[Any] = []
    for c in commands:
        state, more = apply(state, c)
        events += more
    return state, events


def example_state() -> engine.TableState:
    return engine.load_table(EXAMPLE_TABLE)


def _clean(view: dict[str, Any]) -> dict[str, Any]:
    for key in ("odds", "time", "combat", "costs"):
        view.setdefault(key, None)
    return view


ODDS_MID = {
    "status": "ready",
    "groups": [
        {
            "heroes": ["aria"],
            "difficulty": 6,
            "best_play": {"num": 71, "den": 100, "percent": 71.0},
            "as_drawn": {"num": 31, "den": 100, "percent": 31.0},
            "advice": [
                {
                    "text": "Redraw Aria's Weight 0, then Favor if still short → 71%",
                    "action": "redraw",
                    "hero": "aria",
                    "token": "aria.weight.0",
                    "best_play": {"num": 71, "den": 100, "percent": 71.0},
                    "command": {"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0"},
                },
                {
                    "text": "Draw, then Redraw while short, then Favor if still short → 58%",
                    "action": "draw",
                    "hero": "aria",
                    "token": None,
                    "best_play": {"num": 29, "den": 50, "percent": 58.0},
                    "command": {"cmd": "draw", "hero": "aria"},
                },
            ],
            "distribution": [[3, 0.12], [4, 0.3], [5, 0.3], [6, 0.2], [7, 0.08]],
            "expected_fatigue": 0.0,
            "expected_strain": 0.0,
            "expected_wounds": 0.0,
        }
    ],
}


def performance_mid() -> dict[str, Any]:
    """Aria, Adept in Skill, two tokens down and two to go, odds known (P6, P19)."""
    state, _ = _run(
        example_state(),
        {"cmd": "begin_performance", "difficulty": 6, "weight": "mass"},
        ARIA,
        draw("aria", "aria.ember.skill"),
        draw("aria", "aria.weight.0"),
    )
    view = _clean(table_view(state))
    view["odds"] = copy.deepcopy(ODDS_MID)
    return view


def performance_redraw() -> dict[str, Any]:
    """A Redraw waiting for its token, and a Favor call answered by Xantyr (P11, P18)."""
    state, _ = _run(
        example_state(),
        BEGIN,
        ARIA,
        draw("aria", "aria.ember.skill"),
        draw("aria", "aria.ember.wild"),
        draw("aria", "aria.potential.skill.1"),
        {"cmd": "call_favor", "hero": "aria", "token": "favor.23"},
        {"cmd": "redraw", "hero": "aria", "replace": "aria.ember.wild"},
    )
    return _clean(table_view(state))


#: Cass Exerts through one Performance: Fatigue 5 of 5 (P9)
TIRE_CASS: tuple[dict[str, Any], ...] = (
    {"cmd": "begin_performance", "difficulty": 3},
    {
        "cmd": "declare",
        "hero": "cass",
        "shade": "impulse",
        "capability": "charm",
        "action": "target",
        "exert": True,
    },
    *({"cmd": "draw", "hero": "cass", "seed": i} for i in range(3)),
    {"cmd": "resolve"},
    {"cmd": "reset"},
)
#: then Exerts again and fails on the full track: +2 Fatigue → 1 Strain (P9, P13, P20)
FAIL_TIRED_CASS: tuple[dict[str, Any], ...] = (
    {"cmd": "begin_performance", "difficulty": 7},
    {
        "cmd": "declare",
        "hero": "cass",
        "shade": "impulse",
        "capability": "charm",
        "action": "defend",
        "exert": True,
    },
    {"cmd": "draw", "hero": "cass", "token": "cass.ember.shadow"},
    {"cmd": "draw", "hero": "cass", "token": "cass.weight.1"},
    {"cmd": "call_favor", "hero": "cass", "token": "favor.01"},
    {"cmd": "draw", "hero": "cass", "token": "cass.potential.shadow.1"},
    {"cmd": "resolve"},
)


def _tired_cass() -> engine.TableState:
    """Cass after one Exerted Performance: Fatigue 5 of 5 (P9)."""
    state, _ = _run(example_state(), *TIRE_CASS)
    assert state.heroes["cass"].fatigue == 5
    return state


def performance_failed() -> dict[str, Any]:
    """Cass Exerts again and fails: +2 Fatigue on a full track overflows into 1 Strain (P9, P13, P20)."""
    state, _events = _run(_tired_cass(), *FAIL_TIRED_CASS)
    return _clean(table_view(state))


def performance_success_group() -> dict[str, Any]:
    """Aria and Bren in one Performance, each resolving on their own (P23, I-P10)."""
    state, _events = _run(
        example_state(),
        {"cmd": "begin_performance", "difficulty": 4},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
            "moment": "advance",
        },
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "defend",
        },
        *({"cmd": "draw", "hero": "bren", "seed": i} for i in range(4)),
        *({"cmd": "draw", "hero": "aria", "seed": 10 + i} for i in range(4)),
        {"cmd": "resolve"},
    )
    return _clean(table_view(state))


def performance_long_names() -> dict[str, Any]:
    """A hero and a capability with names far wider than any panel, the 7.5" too (text-fits)."""
    view = performance_mid()
    c = view["performance"]["contributions"][0]
    longer = f"{LONG_HERO}, Keeper of the Ninth Bell"
    c["name"] = longer
    c["capability"] = LONG_CAPABILITY
    view["heroes"]["aria"]["name"] = longer
    view["odds"]["groups"][0]["advice"][0]["text"] = f"Redraw {LONG_HERO}'s Weight 0 → 71%"
    return view


TIME = {
    "day": 2,
    "band": "day",
    "minor_done": 3,
    "due": "major",
    "weather": {"bag": "overworld", "token": "weather.storm", "name": "Storm"},
    "rest": {
        "kind": "unsafe",
        "minor_draws": 3,
        "full_rest_at": 5,
        "heroes": {"aria": "resting", "bren": "watch", "cass": "resting"},
    },
    "temporary": [
        {
            "token": "temporary.purity.1",
            "hero": "bren",
            "face": "purity",
            "expires": "after 2 more Major draws",
            "on": "major",
            "remaining": 2,
        }
    ],
    "last": {
        "token": "time.day.minor.event.1",
        "name": "Day Minor Time: Event",
        "size": "minor",
        "face": "event",
        "band": "day",
        "day": 2,
        "step": 3,
        "resolved": True,
    },
    "prompts": [
        {
            "id": 4,
            "kind": "interrupt",
            "text": "Unsafe Rest: does this Minor Event interrupt the Rest? (I-T10)",
            "face": "event",
            "size": "minor",
            "day": 2,
            "band": "day",
            "blocking": True,
            "audience": "table",
        }
    ],
}


def between_time() -> dict[str, Any]:
    """After a Performance: the Time Board mid-Rest, and health against capacity (T3, T8, P13)."""
    view = _clean(table_view(_tired_cass()))
    view["time"] = copy.deepcopy(TIME)
    return view


def between_plain() -> dict[str, Any]:
    """No Time Board published (``time`` is optional in the view)."""
    view = _clean(table_view(example_state()))
    view["time"] = None
    return view


COMBAT = {
    "round": 2,
    "tick": 3,
    "acting": ["orc1", "aria"],
    "forecast_status": "ready",
    "forecast": [
        {
            "attacker": "orc1",
            "target": "aria",
            "target_name": "Aria",
            "damage": 0.617,
            "expected_injuries": 0.98,
            "death": 0.1376,
            "aim_bonus": 0,
            "guard": 0,
        },
        {
            "attacker": "orc1",
            "target": "bren",
            "target_name": "Bren",
            "damage": 0.41,
            "expected_injuries": 0.5,
            "death": 0.0,
            "aim_bonus": 0,
            "guard": 0,
        },
    ],
    "combatants": [
        {
            "id": "aria",
            "name": "Aria",
            "tick": 3,
            "initiative": 14,
            "injuries": 1,
            "injury_list": [{"type": "bleeding", "hits": 1, "detail": None, "source": None}],
            "conditions": [],
            "armour": {"name": "hide", "reduction": 2, "durability": 2},
            "aim": 0,
            "guarding": False,
            "dead": False,
        },
        {
            "id": "orc1",
            "name": "Orc Chieftain",
            "tick": 3,
            "initiative": 11,
            "injuries": 2,
            "injury_list": [
                {"type": "burned", "hits": 2, "detail": None, "source": None},
                {"type": "sprained", "hits": 1, "detail": None, "source": None},
            ],
            "conditions": [{"name": "prone", "level": 1, "attribute": None}],
            "armour": {"name": "scale", "reduction": 2, "durability": 3},
            "aim": 0,
            "guarding": False,
            "dead": False,
        },
        {
            "id": "bren",
            "name": "Bren",
            "tick": 5,
            "initiative": 9,
            "injuries": 0,
            "injury_list": [],
            "conditions": [],
            "armour": {"name": "mail", "reduction": 2, "durability": 4},
            "aim": 2,
            "guarding": False,
            "dead": False,
        },
        {
            "id": "wolf",
            "name": "Grey Wolf",
            "tick": 6,
            "initiative": 7,
            "injuries": 5,
            "injury_list": [{"type": "bleeding", "hits": 1, "detail": None, "source": None}],
            "conditions": [],
            "armour": {"name": "none", "reduction": 0, "durability": 0},
            "aim": 0,
            "guarding": False,
            "dead": True,
        },
        {
            "id": "cass",
            "name": "Cass",
            "tick": 1,
            "initiative": 16,
            "injuries": 0,
            "injury_list": [],
            "conditions": [{"name": "frightened", "level": 1, "attribute": None}],
            "armour": {"name": "leather", "reduction": 1, "durability": 1},
            "aim": 0,
            "guarding": True,
            "dead": False,
        },
        {
            "id": "gob",
            "name": "Goblin Archer",
            "tick": 1,
            "initiative": 5,
            "injuries": 0,
            "injury_list": [],
            "conditions": [],
            "armour": {"name": "leather", "reduction": 1, "durability": 1},
            "aim": 1,
            "guarding": False,
            "dead": False,
        },
    ],
}


def _complete_combat(view: dict[str, Any]) -> dict[str, Any]:
    """Give the hand-made fight every key the engine's combat section has (CombatView in
    engine/contracts/view.py; tests/engine/contracts/test_contracts.py checks it), so the panels are tested on
    the engine's shape, not on a subset of it."""
    view.setdefault("fight", 1)
    wheel: dict[str, list[str]] = {str(t): [] for t in range(1, 7)}
    for c in view["combatants"]:
        wheel[str(c["tick"])].append(c["id"])
        c.setdefault("side", None)
        c.setdefault("round", view["round"])
        c.setdefault("death_limit", 6)
        c.setdefault("aim_target", None)
        c.setdefault("aim_bonus", 2 * c["aim"])
        c.setdefault("can_act", not c["dead"])
        c.setdefault("fortitude_dice", 3)
        c.setdefault("speed", 6)
        c.setdefault("renown", 0)
    view.setdefault("wheel", wheel)
    # the actions and what each takes: the engine's own table, with the shipped costs (C1)
    view.setdefault("actions", actions(CombatRules(shipped_rules())))
    return view


COMBAT = _complete_combat(COMBAT)


def combat() -> dict[str, Any]:
    view = _clean(table_view(example_state()))
    view["combat"] = copy.deepcopy(COMBAT)
    return view


def view_with_total(n: int) -> dict[str, Any]:
    """The mid-Performance view with running total ``n``: a different picture for every ``n``
    (the display worker's test and benchmarks/display_render.py)."""
    view = performance_mid()
    contribution = view["performance"]["contributions"][0]
    contribution["total"] = n
    contribution["group_total"] = n  # the figure the panel shows (the engine's, I-P10): alone here
    return view
