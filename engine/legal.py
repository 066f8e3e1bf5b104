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

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.apply import check
from engine.contracts import commands
from engine.contracts.commands import AnyCommand, StartCombatCommand
from engine.contracts.view import LegalView, Refusal
from engine.state import TableState
from engine.view import view_section

#: table-wide commands, by the name a remote keys its buttons with → the command checked
TABLE: Mapping[str, AnyCommand] = {
    "begin_performance": commands.begin_performance(difficulty=5),
    "resolve": commands.resolve(),
    "reset": commands.reset(),
    "cancel_performance": commands.cancel_performance(),
    "start_session": commands.start_session(bag="overworld", seed=0),
    "draw_time": commands.draw_time(seed=0),
    "resolve_time": commands.resolve_time(),
    "cancel_time_draw": commands.cancel_time_draw(),
    "begin_rest": commands.begin_rest(kind="safe"),
    "end_rest": commands.end_rest(),
    "draw_weather": commands.draw_weather(bag="overworld", seed=0),
    "end_combat": commands.end_combat(),
    "undo": commands.undo(),
}

_SHADES = ("control", "impulse")


def _limit(state: TableState) -> int:
    return int(state.rules["answers"]["legal"])


#: the fields the tries of one template vary (a refusal naming another is not tried again)
_VARIES = {
    "declare": frozenset({"shade", "capability", "action"}),
    "act": frozenset({"action"}),
}


def _hero_templates(state: TableState, hero: str) -> Iterator[tuple[str, list[Mapping[str, Any]]]]:
    """name → the commands tried in turn (legal if any is taken; else the first's refusal)."""
    h = state.heroes[hero]
    declares: list[Mapping[str, Any]] = [
        commands.declare(hero=hero, shade=s, capability=cap, action="target")
        for cap in sorted(h.training)
        for s in _SHADES
    ]
    # a hero with no Training at all: a template without an action, as it has always been
    # (its refusal names the missing field); not a command any remote sends
    yield (
        "declare",
        declares or [{"cmd": "declare", "hero": hero, "shade": "control", "capability": "-"}],
    )
    yield "draw", [commands.draw(hero=hero, seed=0)]
    yield "call_favor", [commands.call_favor(hero=hero, seed=0)]
    perf = state.performance
    drawn = next(
        (c.drawn for c in (perf.contributions if perf else ()) if c.hero == hero and c.drawn),
        (),
    )
    if drawn:
        yield "redraw", [commands.redraw(hero=hero, replace=drawn[0], seed=0)]


def _combatant_templates(cid: str) -> Iterator[tuple[str, list[Mapping[str, Any]]]]:
    yield "act", [commands.act(combatant=cid, action=a) for a in ("move", "guard", "dash")]
    yield "join_combat", [commands.join_combat(combatant=cid, seed=0)]


class _Budget:
    def __init__(self, checks: int) -> None:
        self.left = checks
        self.complete = True

    def answer(
        self,
        state: TableState,
        tries: Sequence[Mapping[str, Any]],
        varies: frozenset[str] = frozenset(),
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
        done, refusal = budget.answer(state, [cmd.copy()])
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


def _start_combat(state: TableState) -> StartCombatCommand | None:
    """A fight of every living combatant of the roster, dice rolled (None: no roster)."""
    combat = state.combat
    alive = [c.id for c in combat.roster.values() if not c.dead] if combat is not None else []
    if not alive:
        return None
    return commands.start_combat(combatants=alive, seed=0)


@view_section("legal")
def _legal_section(state: TableState) -> LegalView:
    return legal_commands(state)
