"""The table as a value: heroes, bags, the Draw Board, and Undo history.

Every field is immutable: frozen dataclasses, tuples, and maps typed ``Mapping``
(so mypy refuses a write to a state the Undo history shares; at run time they are
dicts never mutated after construction). Commands build a new state; unchanged
parts are shared, so keeping the previous states for Undo costs little. No rule
number is a default here: the rules data holds them (engine/data/rules.toml).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import codec
from engine.events import Event
from engine.immutable import replace
from engine.rules import Rules
from engine.tokens import Action, Moment, Shade, Token, Training, WeightMode

if TYPE_CHECKING:
    # The core imports no family at run time: the families' state types are named
    # here for the type checker, and each family registers its type with the codec
    # (codec.state_type) so that decoding a TableState finds it.
    from engine.combat.state import Combat
    from engine.time.board import TimeBoard


@dataclass(frozen=True, slots=True)
class Bag:
    """A cloth bag and the tokens in it right now, sorted by token id."""

    id: str
    name: str
    owner: str | None = None
    contents: tuple[str, ...] = ()


#: the Training in a capability a hero's sheet does not list (P2)
UNLISTED_TRAINING = Training.UNTRAINED


@dataclass(frozen=True, slots=True)
class Hero:
    """A hero sheet: Training per capability, health tracks, Favor, Redraws (P2, P13–P18)."""

    id: str
    name: str
    bag: str
    pathways: tuple[str, ...]
    training: Mapping[str, Training] = field(default_factory=dict)
    fatigue: int = 0
    #: from the sheet, else the rules data (health.fatigue_capacity, I-P13): no default here
    fatigue_capacity: int = field(kw_only=True)
    strain: int = 0
    strain_capacity: int = field(kw_only=True)
    wounds: int = 0
    favor: int = 0
    redraws: int = 0
    #: the Strain tokens that count (one per point of Strain), wherever they lie
    strain_tokens: tuple[str, ...] = ()

    def training_in(self, capability: str) -> Training:
        return self.training.get(capability, UNLISTED_TRAINING)


@dataclass(frozen=True, slots=True)
class Contribution:
    """One hero's part in a Performance (P23): declaration, Draw Board, Favor, Redraws."""

    hero: str
    shade: Shade
    capability: str
    action: Action
    training: Training
    allowed: int
    exert: bool = False
    moment: Moment | None = None
    intersect: str | None = None
    reserve: str | None = None
    drawn: tuple[str, ...] = ()
    set_aside: tuple[str, ...] = ()
    favor: tuple[str, ...] = ()
    pending_redraw: str | None = None
    redraws_used: int = 0

    @property
    def draws_left(self) -> int:
        return self.allowed - len(self.drawn)

    @property
    def checks(self) -> bool:
        """Gain makes no check (P7)."""
        return self.action.checks


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one resolving group (a hero alone, or Intersecting heroes)."""

    heroes: tuple[str, ...]
    total: int
    difficulty: int
    success: bool


@dataclass(frozen=True, slots=True)
class HeroCost:
    """One hero's health changes in this Performance, in the cascade they happened in (P13–P15).

    Recorded by :mod:`engine.performance.health` as each step happens; worded by
    :func:`engine.performance.costs.describe`.
    """

    #: Fatigue added, including any that then overflowed
    fatigue: int = 0
    #: times Fatigue overflowed into 1 Strain (P13)
    fatigue_overflows: int = 0
    #: of those, times the Strain track was full and became 1 Wound (P14)
    chained_wounds: int = 0
    #: Strain added directly (Time, Rest, the sheet), including any that overflowed
    strain: int = 0
    #: times a direct Strain overflowed into 1 Wound
    strain_overflows: int = 0
    #: Wounds added directly
    wounds: int = 0

    @property
    def empty(self) -> bool:
        return not (self.fatigue or self.strain or self.wounds)


@dataclass(frozen=True, slots=True)
class Performance:
    """The Performance on the Draw Board (P6–P23)."""

    number: int
    difficulty: int
    weight: WeightMode = WeightMode.OFF
    contributions: tuple[Contribution, ...] = ()
    resolved: bool = False
    results: tuple[Result, ...] = ()
    #: the hero drawing now: the last to declare, draw or Redraw (a Favor token laid is theirs)
    drawing: str | None = None
    #: what this Performance has cost each hero so far (P9, P13–P15), hero id → cost
    costs: Mapping[str, HeroCost] = field(default_factory=dict)

    def contribution(self, hero: str) -> Contribution | None:
        for c in self.contributions:
            if c.hero == hero:
                return c
        return None

    def with_contribution(self, new: Contribution) -> Performance:
        items = tuple(new if c.hero == new.hero else c for c in self.contributions)
        if new.hero not in {c.hero for c in self.contributions}:
            items += (new,)
        return replace(self, contributions=items)


@dataclass(frozen=True, slots=True)
class Change:
    """The command that made a state, in words: what an Undo from that state takes back.

    ``cmd`` is the command's name, ``text`` its events as the history tells them (the first
    two). The view publishes it as ``undo`` (the one answer to "what would Undo take back?"),
    and the ``undone`` event names it after.
    """

    cmd: str
    text: str


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything the rules need to know about the table, and nothing else."""

    table_id: str
    rules: Mapping[str, Mapping[str, Any]]
    #: capability id → "pathway" | "presence" | "sense"
    capabilities: Mapping[str, str]
    tokens: Mapping[str, Token]
    bags: Mapping[str, Bag]
    heroes: Mapping[str, Hero]
    active_reserve: frozenset[str] = frozenset()
    #: the table file's ``[table] name`` ("The kitchen table"): what the pages show for the
    #: table (…/info's ``name``); None when the file gives none (the pages show the id)
    table_name: str | None = None
    #: tokens that leave the game at the next Reset instead of going back to their bag
    retiring: frozenset[str] = frozenset()
    awakened: tuple[str, ...] = ()
    escalation: int = 0
    performances: int = 0
    performance: Performance | None = None
    #: the Time Board: day, band, weather, Rest, temporary tokens (T1–T12; engine/time/board.py)
    time: TimeBoard | None = None
    #: combat: the roster and the fight on the six-tick wheel (C1–C11; engine/combat/)
    combat: Combat | None = None
    #: the state-changing command that made this state (None for a table file's own); a
    #: command that records no history (a note) leaves it as it was
    #: command that records no history (a note) leaves it as it was. Not part of equality:
    #: two states are the same table whatever command made each
    change: Change | None = field(default=None, compare=False)
    history: tuple[TableState, ...] = ()

    @property
    def rulebook(self) -> Rules:
        return Rules(self.rules)

    def hero(self, hero_id: str) -> Hero:
        return self.heroes[hero_id]

    def with_hero(self, hero: Hero) -> TableState:
        heroes = dict(self.heroes)
        heroes[hero.id] = hero
        return replace(self, heroes=heroes)

    def with_bag(self, bag: Bag) -> TableState:
        bags = dict(self.bags)
        bags[bag.id] = bag
        return replace(self, bags=bags)

    def put_in_bag(self, token_id: str) -> TableState:
        """Return a token to its home bag (contents stay sorted by token id)."""
        token = self.tokens[token_id]
        bag = self.bags[token.bag]
        if token_id in bag.contents:
            return self
        return self.with_bag(replace(bag, contents=tuple(sorted((*bag.contents, token_id)))))

    def take_from_bag(self, token_id: str) -> TableState:
        token = self.tokens[token_id]
        bag = self.bags[token.bag]
        return self.with_bag(replace(bag, contents=tuple(t for t in bag.contents if t != token_id)))

    def without_history(self) -> TableState:
        return replace(self, history=()) if self.history else self

    def location(self, token_id: str) -> str:
        """Where a token is now: ``bag:<id>``, ``board:<hero>``, ``aside:<hero>`` or ``supply``."""
        token = self.tokens[token_id]
        if token_id in self.bags[token.bag].contents:
            return f"bag:{token.bag}"
        if self.performance is not None:
            for c in self.performance.contributions:
                if token_id in c.drawn or token_id in c.favor:
                    return f"board:{c.hero}"
                if token_id in c.set_aside:
                    return f"aside:{c.hero}"
        return "supply"

    # --- JSON -------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state, history included, as JSON data (lossless)."""
        data: dict[str, Any] = codec.to_data(self)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableState:
        return codec.from_data(cls, data)


#: what a command handler answers: the state after the command, and the events it told
Applied = tuple[TableState, list[Event]]
