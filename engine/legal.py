"""Which commands the table would take now: the engine's own answer, in the view (``legal``).

A remote greys out what cannot work (a Draw on a resolved Performance, P22) instead of
offering it and showing the refusal afterwards. The answer is :func:`engine.check` (the
very ``apply`` that would run) over one *template* per button a remote offers: the command
with representative arguments (a seed of 0, the first drawn token for a Redraw). So it
never re-states a rule: a new refusal in a handler shows on the page with no page change.

A template stands for the command "as the state allows it": a Declare is legal when some
Shade and capability of the hero's Training could be declared (the chosen one is still the
service's answer when sent); the next Shade or capability is tried only while the refusal
names one of those fields (a refusal of the state, "no Performance is running", holds for all). An entry is ``None`` when the command would be taken, else the
refusal (its rule id, message and fix) the page shows as the disabled button's hint.

Bounded: one ``check`` is one ``apply`` (a few microseconds, no enumeration: none of the
templates draws odds); at most ``[answers] legal`` checks per view, the table's first,
then the heroes', then the combatants' in roster order. Past it the rest are left out and
``complete`` is false: a remote leaves a command it has no answer for enabled.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engine.apply import check
from engine.contracts.view import LegalView, Refusal
from engine.state import TableState
from engine.view import view_section

#: table-wide commands, by the name a remote keys its buttons with → the command checked
TABLE: Mapping[str, Mapping[str, Any]] = {
    "begin_performance": {"cmd": "begin_performance", "difficulty": 5},
    "resolve": {"cmd": "resolve"},
    "reset": {"cmd": "reset"},
    "cancel_performance": {"cmd": "cancel_performance"},
    "start_session": {"cmd": "start_session", "bag": "overworld", "seed": 0},
    "draw_time": {"cmd": "draw_time", "seed": 0},
    "resolve_time": {"cmd": "resolve_time"},
    "cancel_time_draw": {"cmd": "cancel_time_draw"},
    "begin_rest": {"cmd": "begin_rest", "kind": "safe"},
    "end_rest": {"cmd": "end_rest"},
    "draw_weather": {"cmd": "draw_weather", "bag": "overworld", "seed": 0},
    "end_combat": {"cmd": "end_combat"},
    "undo": {"cmd": "undo"},
}

_SHADES = ("control", "impulse")


def _limit(state: TableState) -> int:
    return int(state.rules["answers"]["legal"])


#: the fields the tries of one template vary (a refusal naming another is not tried again)
_VARIES = {
    "declare": frozenset({"shade", "capability", "action"}),
    "act": frozenset({"action"}),
}


def _hero_templates(state: TableState, hero: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """name → the commands tried in turn (legal if any is taken; else the first's refusal)."""
    h = state.heroes[hero]
    yield (
        "declare",
        [
            {"cmd": "declare", "hero": hero, "shade": s, "capability": c, "action": "target"}
            for c in sorted(h.training)
            for s in _SHADES
        ]
        or [{"cmd": "declare", "hero": hero, "shade": "control", "capability": "-"}],
    )
    yield "draw", [{"cmd": "draw", "hero": hero, "seed": 0}]
    yield "call_favor", [{"cmd": "call_favor", "hero": hero, "seed": 0}]
    perf = state.performance
    drawn = next(
        (c.drawn for c in (perf.contributions if perf else ()) if c.hero == hero and c.drawn),
        (),
    )
    if drawn:
        yield "redraw", [{"cmd": "redraw", "hero": hero, "replace": drawn[0], "seed": 0}]


def _combatant_templates(cid: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    yield (
        "act",
        [{"cmd": "act", "combatant": cid, "action": a} for a in ("move", "guard", "dash")],
    )
    yield "join_combat", [{"cmd": "join_combat", "combatant": cid, "seed": 0}]


class _Budget:
    def __init__(self, checks: int) -> None:
        self.left = checks
        self.complete = True

    def answer(
        self, state: TableState, tries: list[dict[str, Any]], varies: frozenset[str] = frozenset()
    ) -> tuple[bool, Refusal | None]:
        """(answered, the refusal or None); not answered once the budget is spent. The next
        try is asked only while the refusal names a field the tries vary (``varies``): a
        refusal of the state or the hero (no Performance, already declared) holds for all."""
        first: Refusal | None = None
        for cmd in tries:
            if self.left <= 0:
                self.complete = False
                return False, None
            self.left -= 1
            refused = check(state, cmd)
            if refused is None:
                return True, None
            if first is None:
                first = refused.to_json()
            if refused.field not in varies:
                break
        return True, first


def legal_commands(state: TableState) -> LegalView:
    """Every template's answer now (see the module's docstring), within ``[answers] legal``."""
    budget = _Budget(_limit(state))
    table: dict[str, Refusal | None] = {}
    for name, cmd in TABLE.items():
        done, refusal = budget.answer(state, [dict(cmd)])
        if done:
            table[name] = refusal
    start = _start_combat(state)
    if start is not None:
        done, refusal = budget.answer(state, [start])
        if done:
            table["start_combat"] = refusal
    heroes: dict[str, dict[str, Refusal | None]] = {}
    for hero in state.heroes:
        entry: dict[str, Refusal | None] = {}
        for name, tries in _hero_templates(state, hero):
            done, refusal = budget.answer(state, tries, _VARIES.get(name, frozenset()))
            if done:
                entry[name] = refusal
        heroes[hero] = entry
    combatants: dict[str, dict[str, Refusal | None]] = {}
    for cid in _roster(state):
        entry = {}
        for name, tries in _combatant_templates(cid):
            done, refusal = budget.answer(state, tries, _VARIES.get(name, frozenset()))
            if done:
                entry[name] = refusal
        combatants[cid] = entry
    return {
        "table": table,
        "heroes": heroes,
        "combatants": combatants,
        "complete": budget.complete,
    }


def _roster(state: TableState) -> list[str]:
    return list(state.combat.roster) if state.combat is not None else []


def _start_combat(state: TableState) -> dict[str, Any] | None:
    """A fight of every living combatant of the roster, dice rolled (None: no roster)."""
    combat = state.combat
    alive = [c.id for c in combat.roster.values() if not c.dead] if combat is not None else []
    if not alive:
        return None
    return {"cmd": "start_combat", "combatants": alive, "seed": 0}


@view_section("legal")
def _legal_section(state: TableState) -> LegalView:
    return legal_commands(state)
