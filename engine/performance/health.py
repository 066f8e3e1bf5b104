"""Fatigue → Strain → Wound (P13–P15), shared by Performances, Time and Rest.

Each function takes the whole table because Strain is physical: gaining it puts a
Strain token into the Hero Bag, and clearing it takes them all out again (those
lying on the Draw Board leave at Reset).
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.events import Event
from engine.immutable import replace
from engine.performance.costs import record
from engine.state import TableState
from engine.tokens import TokenKind


def add_fatigue(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    """Add Fatigue; past capacity it clears and becomes 1 Strain (P13, I-P13)."""
    if amount <= 0:
        return state, []
    events: list[Event] = []
    mode = state.rules["health"]["fatigue_overflow"]
    steps = [amount] if mode == "discard" else [1] * amount
    for step in steps:
        hero = state.heroes[hero_id]
        new = hero.fatigue + step
        if new > hero.fatigue_capacity:
            state = state.with_hero(replace(hero, fatigue=0))
            state = record(state, hero_id, fatigue=step, fatigue_overflows=1)
            events.append(
                ev.fatigue_overflow(
                    {"hero": hero_id, "added": step, "was": hero.fatigue, "rule": "P13"},
                )
            )
            state, more = _add_strain(state, hero_id, 1, "fatigue overflow", chained=True)
            events += more
        else:
            state = state.with_hero(replace(hero, fatigue=new))
            state = record(state, hero_id, fatigue=step)
            events.append(
                ev.fatigue_gained(
                    {"hero": hero_id, "amount": step, "fatigue": new, "cause": cause},
                )
            )
    return state, events


def add_strain(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    """Add Strain, one Strain token each; past capacity all Strain clears into 1 Wound (P14)."""
    return _add_strain(state, hero_id, amount, cause, chained=False)


def _add_strain(
    state: TableState, hero_id: str, amount: int, cause: str, *, chained: bool
) -> tuple[TableState, list[Event]]:
    """``chained``: the Strain of a Fatigue overflow, recorded as part of that Fatigue."""
    events: list[Event] = []
    for _ in range(amount):
        hero = state.heroes[hero_id]
        if not chained:
            state = record(state, hero_id, strain=1)
        if hero.strain + 1 > hero.strain_capacity:
            if chained:
                state = record(state, hero_id, chained_wounds=1)
            else:
                state = record(state, hero_id, strain_overflows=1)
            state, removed = _clear_strain(state, hero_id)
            events.append(
                ev.strain_overflow(
                    {"hero": hero_id, "removed_tokens": removed, "rule": "P14"},
                )
            )
            state, more = _add_wound(state, hero_id, 1, "strain overflow")
            events += more
            continue
        token = _free_strain_token(state, hero_id)
        state = state.with_hero(
            replace(
                hero,
                strain=hero.strain + 1,
                strain_tokens=(*hero.strain_tokens, token) if token else hero.strain_tokens,
            )
        )
        if token is not None and token in state.retiring:
            # it lies on the Draw Board, cleared earlier: it counts again and goes back at Reset
            state = replace(state, retiring=state.retiring - {token})
        elif token is not None:
            state = state.put_in_bag(token)
        events.append(
            ev.strain_gained(
                {
                    "hero": hero_id,
                    "token": token,
                    "strain": hero.strain + 1,
                    "cause": cause,
                    "rule": "P14",
                },
            )
        )
    return state, events


def add_wound(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    """Wounds sit outside the bag; each lowers the draw total by 1 (P15)."""
    return _add_wound(record(state, hero_id, wounds=amount), hero_id, amount, cause)


def _add_wound(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    hero = state.heroes[hero_id]
    state = state.with_hero(replace(hero, wounds=hero.wounds + amount))
    return state, [
        ev.wound_gained(
            {"hero": hero_id, "wounds": hero.wounds + amount, "cause": cause, "rule": "P15"},
        )
    ]


def recover_fatigue(
    state: TableState, hero_id: str, amount: int | None, cause: str
) -> tuple[TableState, list[Event]]:
    """Remove ``amount`` Fatigue (all of it when None); never below zero."""
    hero = state.heroes[hero_id]
    new = 0 if amount is None else max(0, hero.fatigue - amount)
    if new == hero.fatigue:
        return state, []
    state = state.with_hero(replace(hero, fatigue=new))
    return state, [
        ev.fatigue_recovered(
            {"hero": hero_id, "amount": hero.fatigue - new, "fatigue": new, "cause": cause},
        )
    ]


def recover_strain(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    """Remove Strain and its tokens (preferring ones still in the bag)."""
    events: list[Event] = []
    for _ in range(amount):
        hero = state.heroes[hero_id]
        if hero.strain == 0:
            break
        bag = state.bags[hero.bag].contents
        in_bag = [t for t in hero.strain_tokens if t in bag]
        token = in_bag[-1] if in_bag else (hero.strain_tokens[-1] if hero.strain_tokens else None)
        tokens = tuple(t for t in hero.strain_tokens if t != token)
        state = state.with_hero(replace(hero, strain=hero.strain - 1, strain_tokens=tokens))
        if token is not None:
            state = _retire(state, token)
        events.append(
            ev.strain_recovered(
                {"hero": hero_id, "token": token, "strain": hero.strain - 1, "cause": cause},
            )
        )
    return state, events


def recover_wounds(
    state: TableState, hero_id: str, amount: int, cause: str
) -> tuple[TableState, list[Event]]:
    hero = state.heroes[hero_id]
    new = max(0, hero.wounds - amount)
    if new == hero.wounds:
        return state, []
    state = state.with_hero(replace(hero, wounds=new))
    return state, [ev.wound_recovered({"hero": hero_id, "wounds": new, "cause": cause})]


def _clear_strain(state: TableState, hero_id: str) -> tuple[TableState, list[str]]:
    hero = state.heroes[hero_id]
    removed = list(hero.strain_tokens)
    state = state.with_hero(replace(hero, strain=0, strain_tokens=()))
    for token in removed:
        state = _retire(state, token)
    return state, removed


def _retire(state: TableState, token: str) -> TableState:
    """Take a token out of the game: from its bag now, or from the Draw Board at Reset."""
    if token in state.bags[state.tokens[token].bag].contents:
        return state.take_from_bag(token)
    return replace(state, retiring=state.retiring | {token})


def _free_strain_token(state: TableState, hero_id: str) -> str | None:
    """A Strain token of the hero's that no Strain holds: one out of play, else one still on
    the Draw Board from Strain cleared earlier (it would leave at Reset), else none (a table
    whose sheet has fewer Strain tokens than its capacity)."""
    hero = state.heroes[hero_id]
    live = set(hero.strain_tokens)
    mine = [
        t.id
        for t in state.tokens.values()
        if t.kind is TokenKind.STRAIN and t.bag == hero.bag and t.id not in live
    ]
    for token_id in mine:
        if token_id not in state.retiring and state.location(token_id) == "supply":
            return token_id
    for token_id in mine:
        if token_id in state.retiring:
            return token_id
    return None
