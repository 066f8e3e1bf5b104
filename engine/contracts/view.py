"""The table view's shape: one ``TypedDict`` per section, the whole view, and its parts.

:func:`engine.view.table_view` builds the view the display, MQTT and the web
pages read; each rule family builds its own section. These types are what the
builders return (so mypy refuses a renamed key), what the JSON Schema of the
MQTT state topics (``docs/state.schema.json``) is generated from, and what the
display's test fixtures are checked against.
"""

from typing import Any, Literal, NotRequired, TypedDict

from engine.contracts.commands import CallFavorCommand, DrawCommand, RedrawCommand, ResolveCommand
from engine.contracts.events import Audience
from engine.contracts.terms import (
    ActionName,
    AdviceActionName,
    BandName,
    CombatActionName,
    MomentName,
    PromptKindName,
    RestKindName,
    RoleName,
    ShadeName,
    SizeName,
    TokenKindName,
    TrainingName,
    WeightName,
)
from engine.errors import Refusal

__all__ = ["Refusal"]  # engine.errors' own, one of the view's parts (RedrawView.refusals)

#: an answer that can cost more than a turn may spend (engine.view.answer): ``ready``;
#: ``pending``, being computed off the turn (it follows on the same topics, for this very
#: state, unless the table has moved on); ``too_big``, too big to compute exactly (nothing
#: approximate is shown in its place)
AnswerStatus = Literal["ready", "pending", "too_big"]

# --- the core: the table, its heroes and its bags ------------------------------------------


class HeroView(TypedDict):
    """``…/heroes/<id>``: one hero sheet as it is now (P2, P13–P18)."""

    id: str
    name: str
    fatigue: int
    fatigue_capacity: int
    strain: int
    strain_capacity: int
    wounds: int
    favor: int
    redraws: int
    #: capability → Training level, as the sheet lists it
    training: dict[str, TrainingName]
    #: every capability of the table (P2), in the table's order, with this hero's Training
    #: in it: Untrained where the sheet lists none (P4). What a remote's declare offers
    capabilities: dict[str, TrainingName]
    #: the capabilities this hero may Exert in (P9: only at ``training.exert_only``)
    exert: list[str]
    pathways: list[str]
    active_reserve: list[str]
    bag_count: int


class BagToken(TypedDict):
    id: str
    name: str


class BagView(TypedDict):
    name: str
    owner: str | None
    count: int
    #: what is in the bag now (a remote can draw by picking one when a tag is missed): in the
    #: engine's view and on ``…/bags``, left out of ``…/state`` — two thirds of it, and
    #: Mosquitto 2.0 sends a websocket client a little of it per pass of its loop, so a page
    #: waited several passes for a ``…/state`` that held them (docs/mqtt.md has the figures)
    tokens: NotRequired[list[BagToken]]


# --- the Performance (P1–P23) ----------------------------------------------------------------


class TokenView(TypedDict):
    id: str
    name: str
    kind: TokenKindName
    shade: str | None
    weight: int | None
    #: what it adds to this contribution's total
    value: int


class ContributionView(TypedDict):
    hero: str
    name: str
    shade: ShadeName
    capability: str
    action: ActionName
    training: TrainingName
    exert: bool
    moment: MomentName | None
    intersect: str | None
    allowed: int
    draws_left: int
    pending_redraw: str | None
    drawn: list[TokenView]
    favor: list[TokenView]
    set_aside: list[str]
    total: int
    #: the total of this hero's resolving group, the one figure set against the Difficulty
    #: (I-P10, P19): ``total`` summed over ``groups``' group holding this hero
    group_total: int


class ResultView(TypedDict):
    heroes: list[str]
    total: int
    difficulty: int
    success: bool
    #: the typed outcome of the group's check (P19)
    outcome: Literal["success", "failure"]
    #: what the WorldKeeper resolves next (P20): Wear on a success, Impact on a failure
    consequence: Literal["wear", "impact"]


class RedrawCandidate(TypedDict):
    hero: str
    token: str


class RedrawView(TypedDict):
    """What a Redraw may replace now (P11), and per hero why not."""

    candidates: list[RedrawCandidate]
    refusals: dict[str, Refusal]


class PerformanceView(TypedDict):
    """``…/performance``: the Performance on the Draw Board (None between Performances)."""

    number: int
    difficulty: int
    weight: WeightName
    resolved: bool
    #: the resolving groups: Intersecting heroes together when the table sums them (I-P10)
    groups: list[list[str]]
    contributions: list[ContributionView]
    results: list[ResultView]
    #: the hero drawing now: a Favor token laid is theirs (P18)
    drawing: str | None
    redraw: RedrawView


class CostView(TypedDict):
    """One hero's Fatigue → Strain → Wound in the open Performance (P9, P13–P15)."""

    fatigue: int
    fatigue_overflows: int
    chained_wounds: int
    strain: int
    strain_overflows: int
    wounds: int
    #: in words: ``["+2 Fatigue → 1 Strain"]``
    text: list[str]


#: ``…/costs``: hero id → cost (None between Performances)
CostsView = dict[str, CostView]


class Percent(TypedDict):
    """An exact probability: ``num / den``, and as a percentage (two decimals)."""

    num: int
    den: int
    percent: float


#: the commands an advised move is made with (Advice.command): one per AdviceActionName
AdviceCommand = DrawCommand | ResolveCommand | RedrawCommand | CallFavorCommand


class Advice(TypedDict):
    """One move open now, valued with best play after it (P11, P18, I-P18a)."""

    #: what the move is (AdviceActionName)
    action: AdviceActionName
    hero: str | None
    #: the drawn token a Redraw replaces
    token: str | None
    best_play: Percent
    text: str
    #: the command of the vocabulary that makes the move (a draw's token comes from the reader)
    command: AdviceCommand


class OddsGroup(TypedDict):
    heroes: list[str]
    difficulty: int
    #: the odds with the best play from here (Redraws and Favor used well): the headline
    best_play: Percent
    #: the odds if nothing more than the draws left is done
    as_drawn: Percent
    advice: list[Advice]
    #: [total, probability] for every total the draw can make
    distribution: list[list[float]]
    expected_fatigue: float
    expected_strain: float
    expected_wounds: float


class OddsView(TypedDict):
    """``…/odds``: exact odds of the open Performance (None unless one is open)."""

    groups: list[OddsGroup]
    #: ``pending`` while the odds are computed off the turn (``groups`` is empty then; they
    #: follow for this very state), ``too_big`` when they cannot be computed exactly
    status: AnswerStatus


# --- the Time Board (T1–T12) ----------------------------------------------------------------


class WeatherView(TypedDict):
    bag: str
    #: None: set by the WorldKeeper, not drawn (T2)
    token: str | None
    name: str


class RestView(TypedDict):
    kind: RestKindName
    minor_draws: int
    full_rest_at: int
    #: hero id → "resting" | "watch"
    heroes: dict[str, RoleName]


class TemporaryView(TypedDict):
    token: str
    hero: str
    face: str
    expires: str
    on: str
    remaining: int


class TimeDrawView(TypedDict):
    token: str
    name: str
    size: SizeName
    face: str
    band: BandName
    day: int
    step: int
    resolved: bool


class PromptView(TypedDict):
    id: int
    kind: PromptKindName
    text: str
    face: str | None
    size: SizeName | None
    day: int
    band: BandName
    blocking: bool
    #: who may read it: the Time Board's prompts are the table's
    audience: Audience


class TimeView(TypedDict):
    """``…/time``: the Time Board (None at a table without one)."""

    day: int
    band: BandName
    minor_done: int
    due: str
    weather: WeatherView | None
    rest: RestView | None
    temporary: list[TemporaryView]
    last: TimeDrawView | None
    prompts: list[PromptView]


# --- combat (C1–C11) -------------------------------------------------------------------------


class InjuryView(TypedDict):
    type: str
    hits: int
    detail: str | None
    source: str | None


class ConditionView(TypedDict):
    name: str
    level: int
    attribute: str | None


class ArmourView(TypedDict):
    name: str
    reduction: int
    durability: int


class CombatantView(TypedDict):
    id: str
    name: str
    side: str | None
    tick: int
    round: int
    initiative: int
    injuries: int
    death_limit: int
    injury_list: list[InjuryView]
    conditions: list[ConditionView]
    armour: ArmourView
    aim: int
    aim_target: str | None
    aim_bonus: int
    guarding: bool
    dead: bool
    can_act: bool
    fortitude_dice: int
    speed: int
    renown: int


class ForecastView(TypedDict):
    """Exact odds of an Attack by the combatant acting now on one foe (C6, C8, C9)."""

    attacker: str
    target: str
    target_name: str
    damage: float
    expected_injuries: float
    death: float
    aim_bonus: int
    guard: int


class CombatActionView(TypedDict):
    """One of the five actions (C1) and what it takes besides the combatant acting: the
    engine's own table (engine.combat.state.ARITY), which the ``act`` command checks too."""

    action: CombatActionName
    #: it names another combatant (``target``)
    target: bool
    #: it is an attack: the defender's ``defense`` choice and the four rolls
    rolls: bool
    #: its cost in ticks (C1)
    ticks: int
    rule: str


class CombatView(TypedDict):
    """``…/combat``: the fight on the six-tick wheel (None when no fight is running)."""

    fight: int
    round: int
    tick: int
    acting: list[str]
    #: tick ("1" … "6") → the combatants waiting on it
    wheel: dict[str, list[str]]
    combatants: list[CombatantView]
    forecast: list[ForecastView]
    #: ``pending`` while the forecast is computed off the turn (``forecast`` is empty then),
    #: ``too_big`` when it cannot be computed exactly (AnswerStatus)
    forecast_status: AnswerStatus
    #: the actions and what each takes (attack first, the likely one): what a remote offers
    actions: list[CombatActionView]


class RosterEntry(TypedDict):
    """One combatant of the roster, in a fight or not (C2, I-C3b)."""

    id: str
    name: str
    side: str | None
    hero: str | None
    dead: bool
    in_fight: bool
    injuries: int
    injury_list: list[InjuryView]
    conditions: list[ConditionView]
    reflex: int
    renown: int


class CombatTerms(TypedDict):
    """The injury types (C9) and conditions (C10) this table's rules know (a remote's choices)."""

    injuries: list[str]
    conditions: list[str]


# --- what the table would take now (engine/legal.py) ----------------------------------------


class LegalView(TypedDict):
    """Which commands ``engine.check`` would take now, over the templates of a remote's buttons
    (engine/legal.py): each entry None (taken) or the refusal (its rule id and fix)."""

    #: the table-wide commands by name (``resolve``, ``draw_time``, ``start_combat`` …)
    table: dict[str, Refusal | None]
    #: hero id → ``declare``, ``draw``, ``call_favor``, ``redraw`` (when a token is drawn)
    heroes: dict[str, dict[str, Refusal | None]]
    #: combatant id → ``act``, ``join_combat``
    combatants: dict[str, dict[str, Refusal | None]]
    #: False when ``[answers] legal`` checks did not reach every template (the rest left out)
    complete: bool


# --- the whole view ---------------------------------------------------------------------------


class UndoView(TypedDict):
    """The command the next Undo takes back: its name and its events in words. A note is not
    one (Undo skips a note: it changes nothing in the game)."""

    cmd: str
    text: str


class TableView(TypedDict):
    """``…/state``: the whole table, retained; each section also has its own topic."""

    table: str
    heroes: dict[str, HeroView]
    bags: dict[str, BagView]
    awakened: list[str]
    escalation: int
    can_undo: int
    #: what an Undo would take back now (None when nothing can be undone)
    undo: UndoView | None
    combat: CombatView | None
    roster: list[RosterEntry]
    combat_terms: CombatTerms
    performance: PerformanceView | None
    odds: OddsView | None
    costs: CostsView | None
    time: TimeView | None
    #: which commands the table would take now (engine/legal.py)
    legal: LegalView
    #: the answers not in this view yet, by name (``odds``, ``forecast``): ``pending`` or
    #: ``too_big`` (AnswerStatus); empty when every answer is here
    answers: dict[str, AnswerStatus]
    #: when the table last changed (UTC, ISO 8601, ms): the commit of the last accepted
    #: command, from the journal after a restart; null before its first. The service stamps
    #: it on ``…/state`` (the engine has no clock: not in the engine's own view)
    changed_at: NotRequired[str | None]


#: the sections with a retained topic of their own (``…/<name>``), besides ``…/state`` and
#: ``…/heroes/<id>``: name → the section's type (None allowed for each)
RETAINED_SECTIONS: dict[str, Any] = {
    "performance": PerformanceView,
    "time": TimeView,
    "combat": CombatView,
    "odds": OddsView,
    "costs": CostsView,
    #: every bag with what is in it now (``tokens``): the remote's choices; last, being the
    #: largest section
    "bags": dict[str, BagView],
}
