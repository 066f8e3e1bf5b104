"""Combat as values: the roster of combatants and the fight on the six-tick wheel.

:class:`Combat` is what :class:`engine.state.TableState` holds in its ``combat``
field. The roster outlives a fight: injuries, worn armour, conditions and
renown carry into the next one (C8–C11). Only the wheel — where each token
stands, Aim and Guard — belongs to a :class:`Fight`.

This module imports nothing from :mod:`engine.state` (which imports it), so the
codec can resolve these types from ``TableState``'s annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from engine.codec import state_type
from engine.contracts.terms import CombatActionName
from engine.immutable import replace


class ActionKind(StrEnum):
    """The five combat actions (C1)."""

    _value_: CombatActionName

    AIM = "aim"
    ATTACK = "attack"
    DASH = "dash"
    GUARD = "guard"
    MOVE = "move"


@dataclass(frozen=True, slots=True)
class Arity:
    """What an action takes besides the combatant acting: the ``act`` command's check and the
    view's ``actions`` (what the remote offers) both read :data:`ARITY`, so neither decides it
    alone."""

    #: it names another combatant (``target``): Aim at them (C5), Attack them (C6)
    target: bool
    #: it is an attack: the defender's ``defense`` choice and the four rolls (C6–C8)
    rolls: bool
    #: the rule that says so
    rule: str


ARITY: dict[ActionKind, Arity] = {
    ActionKind.ATTACK: Arity(target=True, rolls=True, rule="C6"),
    ActionKind.AIM: Arity(target=True, rolls=False, rule="C5"),
    ActionKind.MOVE: Arity(target=False, rolls=False, rule="C7"),
    ActionKind.DASH: Arity(target=False, rolls=False, rule="C7"),
    ActionKind.GUARD: Arity(target=False, rolls=False, rule="C7"),
}


@dataclass(frozen=True, slots=True)
class Weapon:
    """What the combatant attacks with: DAMAGE dice, the injury it causes, the ATTACK attribute."""

    name: str
    damage: int
    injury: str
    attribute: str = "might"


@dataclass(frozen=True, slots=True)
class Armour:
    """Armour reduces DAMAGE by ``reduction`` dice and takes that much damage (C8, I-C8)."""

    name: str = "none"
    reduction: int = 0
    durability: int = 0


@dataclass(frozen=True, slots=True)
class Injury:
    """One wound record: ``hits`` injuries of one type from one cause (C9).

    ``detail`` says where, when it matters (a Sprained ``leg`` halves speed).
    """

    type: str
    hits: int
    detail: str | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition (C10) with its level (Fatigued stacks to six) and, for Cursed, the attribute."""

    name: str
    level: int = 1
    attribute: str | None = None
    source: str | None = None


ATTRIBUTES = ("reflex", "might", "dodge", "parry", "fortitude")


@dataclass(frozen=True, slots=True)
class Combatant:
    """A combatant's sheet: attribute dice pools, speed, weapon, armour, injuries, renown."""

    id: str
    name: str
    reflex: int
    might: int
    dodge: int
    parry: int
    fortitude: int
    speed: int
    weapon: Weapon
    armour: Armour = Armour()
    hero: str | None = None
    side: str | None = None
    injuries: tuple[Injury, ...] = ()
    conditions: tuple[Condition, ...] = ()
    renown: int = 0
    dead: bool = False

    @property
    def injury_count(self) -> int:
        return sum(i.hits for i in self.injuries)

    def hits_of(self, injury_type: str) -> int:
        return sum(i.hits for i in self.injuries if i.type == injury_type)

    def condition(self, name: str, attribute: str | None = None) -> Condition | None:
        for c in self.conditions:
            if c.name == name and (attribute is None or c.attribute == attribute):
                return c
        return None

    def attribute(self, name: str) -> int:
        value: int = getattr(self, name)
        return value


@dataclass(frozen=True, slots=True)
class WheelToken:
    """A combatant's token on the wheel.

    ``time`` counts ticks from the start of the fight (1 = round 1, tick 1);
    the tick on the wheel is ``(time - 1) % 6 + 1``. Tokens only move forward,
    by the cost of the action taken (C4). ``initiative`` is the starting
    initiative score; ``order`` the rank that breaks ties within a tick
    (I-C3, roll-offs C3).
    """

    combatant: str
    time: int
    initiative: int
    order: int
    aim: int = 0
    aim_target: str | None = None
    guarding: bool = False
    actions: int = 0


@dataclass(frozen=True, slots=True)
class Fight:
    """The fight on the wheel: tokens in acting order, and the tick now acting (``now``)."""

    number: int
    now: int
    tokens: tuple[WheelToken, ...]

    def token(self, combatant: str) -> WheelToken | None:
        for t in self.tokens:
            if t.combatant == combatant:
                return t
        return None

    def with_token(self, token: WheelToken) -> Fight:
        return replace(
            self, tokens=tuple(token if t.combatant == token.combatant else t for t in self.tokens)
        )


@state_type
@dataclass(frozen=True, slots=True)
class Combat:
    """Everything combat keeps on the table: the roster, the running fight, fights so far."""

    roster: Mapping[str, Combatant] = field(default_factory=dict)
    fight: Fight | None = None
    fights: int = 0

    def with_combatant(self, combatant: Combatant) -> Combat:
        roster = dict(self.roster)
        roster[combatant.id] = combatant
        return replace(self, roster=roster)
