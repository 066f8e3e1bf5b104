"""The event catalogue: every event the engine tells, by name, and its payload's shape.

An :class:`~engine.events.Event` is a name and a dict; this module says which
names exist and what each dict holds, as ``TypedDict``s. The JSON Schema of the
MQTT ``…/events`` messages (``docs/events.schema.json``) is generated from it,
and ``tests/engine/contracts/test_contracts.py`` checks that every event the engine emits in the
example sessions fits, and that the engine's code names no event missing here.
"""

from typing import Any, Literal, NotRequired, TypedDict, TypeVar, get_args

from engine.contracts.terms import (
    ActionName,
    BandName,
    CombatActionName,
    MomentName,
    PromptKindName,
    RestKindName,
    ShadeName,
    SizeName,
    TokenKindName,
    TrainingName,
    WeightName,
)
from engine.events import Event, EventKind

P = TypeVar("P")

Dice = list[int]
#: a compared pair of dice: [attacker's or damage die, defender's or FORTITUDE die (None:
#: unopposed), "attacker" | "defender"]
Pair = list[int | str | None]

# --- the Performance (P1–P23) ------------------------------------------------------------


class PerformanceStarted(TypedDict):
    number: int
    difficulty: int
    weight: WeightName


class Declared(TypedDict):
    hero: str
    shade: ShadeName
    capability: str
    action: ActionName
    training: TrainingName
    exert: bool
    draws: int
    moment: MomentName | None
    intersect: str | None


class GainResolved(TypedDict):
    hero: str
    capability: str
    fatigue_cost: int
    rule: str


class ReserveChanged(TypedDict):
    hero: str
    token: str
    rule: NotRequired[str]


class TokenDrawn(TypedDict):
    hero: str
    token: str
    name: str
    token_kind: TokenKindName
    value: int
    total: int
    draws_left: int


class TokenReplaced(TokenDrawn):
    replaced: str


class FavorCalled(TokenDrawn):
    favor_left: int


class RedrawStarted(TypedDict):
    hero: str
    set_aside: str
    name: str
    redraws_left: int
    rule: str


class DeityAwakened(TypedDict):
    deity: str
    hero: str
    rule: str


class PerformanceResolved(TypedDict):
    """``performance_resolved`` (P19): one group's outcome. ``performance`` is the
    Performance's number: with ``heroes`` it names the outcome for the night (the stream's
    alert queue keys on it, and a service's state publisher may skip the resolved state when
    the table moves on at once, so the event is the one copy every page receives)."""

    performance: int
    heroes: list[str]
    total: int
    difficulty: int
    success: bool
    rule: str


class Prompt(TypedDict):
    """``wear_prompt`` / ``impact_prompt`` (P20)."""

    heroes: list[str]
    rule: str


class EscalationPrompt(TypedDict):
    hero: str
    moment: MomentName
    success: bool
    shift: int
    escalation: int
    rule: str


class EscalationShifted(TypedDict):
    shift: int
    escalation: int
    rule: str


class PerformanceReset(TypedDict):
    number: int
    returned: list[str]
    removed: list[str]
    rule: str


class PerformanceCancelled(TypedDict):
    number: int
    returned: list[str]
    removed: list[str]


class Undone(TypedDict):
    remaining: int
    #: the command taken back, by name, and in words (the view's ``undo`` before it)
    cmd: NotRequired[str]
    what: NotRequired[str]


class NoteTaken(TypedDict):
    """A WorldKeeper's note (I-T13): its words, and who may read them (``worldkeeper`` only,
    ``table`` or ``public``: the ``audience`` of its …/events message, engine.contracts.events)."""

    text: str
    audience: Literal["worldkeeper", "table", "public"]


# --- the hero sheet and health (P4, P12–P15, P18) ------------------------------------------


class HealthChanged(TypedDict):
    """``fatigue_gained`` / ``fatigue_recovered``."""

    hero: str
    amount: int
    fatigue: int
    cause: str


class FatigueOverflow(TypedDict):
    hero: str
    added: int
    was: int
    rule: str


class StrainGained(TypedDict):
    hero: str
    #: None: the sheet has fewer Strain tokens than its capacity
    token: str | None
    strain: int
    cause: str
    rule: str


class StrainRecovered(TypedDict):
    hero: str
    token: str | None
    strain: int
    cause: str


class StrainOverflow(TypedDict):
    hero: str
    removed_tokens: list[str]
    rule: str


class StrainTokensSet(TypedDict):
    hero: str
    tokens: list[str]
    rule: str


class WoundGained(TypedDict):
    hero: str
    wounds: int
    cause: str
    rule: str


class WoundRecovered(TypedDict):
    hero: str
    wounds: int
    cause: str


class HeroAdjusted(TypedDict):
    hero: str
    favor: int
    redraws: int


TrainingChanged = TypedDict(
    "TrainingChanged",
    {"hero": str, "capability": str, "from": TrainingName, "to": TrainingName},
)


class BagChanged(TypedDict):
    hero: str
    removed: str
    added: str
    rule: str
    say: str


# --- Time, Weather, Rest, temporary tokens (T1–T12) ---------------------------------------


class SessionStarted(TypedDict):
    session: int
    day: int
    band: BandName
    weather: str | None


class BandStarted(TypedDict):
    day: int
    band: BandName
    new_day: bool
    rule: str


class TimeSet(TypedDict):
    day: int
    band: BandName
    minor_done: int
    rule: str


class TimeDrawn(TypedDict):
    token: str
    name: str
    size: SizeName
    face: str
    band: BandName
    day: int
    step: int
    rule: str


class TimeResolved(TypedDict):
    token: str
    size: SizeName
    face: str
    band: BandName
    day: int
    step: int
    rule: str


class TimeDrawCancelled(TypedDict):
    token: str
    rule: str


class TimeFatigueIgnored(TypedDict):
    heroes: list[str]
    rule: str


class TimePrompt(TypedDict):
    prompt: int
    kind: PromptKindName
    text: str
    face: str | None
    size: SizeName | None
    blocking: bool


class PromptAcknowledged(TypedDict):
    prompts: list[int]
    kinds: list[PromptKindName]


class WeatherDrawn(TypedDict):
    bag: str
    token: str
    face: str
    name: str
    replaced: str | None
    cause: str
    rule: str


class WeatherChanged(TypedDict):
    bag: str
    name: str
    replaced: str | None
    cause: str
    rule: str


class RestStarted(TypedDict):
    kind: RestKindName
    resting: list[str]
    watch: list[str]
    full_rest_at: int
    rule: str


class RestStep(TypedDict):
    minor_draws: int
    full_rest_at: int
    rule: str


class RestEnded(TypedDict):
    reason: str
    minor_draws: int
    kind: RestKindName


class RuleOnly(TypedDict):
    """``rest_interrupted`` / ``rest_not_interrupted`` (I-T10)."""

    rule: str


class FullRestChoice(TypedDict):
    choice: str
    default: bool


class FullRestCompleted(TypedDict):
    heroes: dict[str, FullRestChoice]
    rule: str


class FullRestChosen(TypedDict):
    hero: str
    choice: str
    rule: str


class TemporaryGranted(TypedDict):
    token: str
    name: str
    hero: str
    face: str
    on: str
    remaining: int
    expires: str
    rule: str


class TemporaryTimer(TypedDict):
    token: str
    hero: str
    face: str
    remaining: int
    expires: str
    rule: str


class TemporaryExpired(TypedDict):
    token: str
    name: str
    hero: str
    face: str
    leaves: str
    rule: str


# --- combat (C1–C11) ------------------------------------------------------------------------


class CombatantAdded(TypedDict):
    combatant: str
    name: str
    #: None when the sheet names no side
    side: str | None
    rule: str


class CombatStarted(TypedDict):
    fight: int
    combatants: list[str]


class CombatantJoined(TypedDict):
    combatant: str
    fight: int
    initiative: int
    tick: int
    round: int
    rule: str


class InitiativeRolled(TypedDict):
    combatant: str
    dice: Dice
    penalty: int
    score: int
    rolled: bool
    rule: str


class RolledOff(TypedDict):
    combatants: list[str]
    roll: int
    dice: dict[str, Dice]
    scores: dict[str, int]
    rule: str


class Placement(TypedDict):
    combatant: str
    tick: int
    initiative: int


class TokensPlaced(TypedDict):
    placement: list[Placement]
    rule: str


class CombatRound(TypedDict):
    round: int
    rule: str


class CombatTurn(TypedDict):
    round: int
    tick: int
    acting: list[str]
    rule: str


class TokenMoved(TypedDict):
    combatant: str
    action: CombatActionName
    cost: int
    from_tick: int
    to_tick: int
    round: int
    rule: str


class Aimed(TypedDict):
    combatant: str
    target: str
    ticks: int
    bonus: int
    rule: str


class AimLost(TypedDict):
    combatant: str
    target: str
    reason: str
    rule: str


class Guarding(TypedDict):
    combatant: str
    rule: str


class Moved(TypedDict):
    combatant: str
    action: str
    distance: int
    rule: str


class AttackResolved(TypedDict):
    attacker: str
    target: str
    defense: str
    attack_dice: Dice
    defense_dice: Dice
    #: which pools the engine rolled (the others were entered)
    rolled: list[str]
    aim_bonus: int
    guard: int
    sorted_attack: Dice
    #: Guard's always-winning dice are the string "guard" (I-C7)
    sorted_defense: list[int | str]
    pairs: list[Pair]
    attacker_successes: int
    defender_successes: int
    rule: str


class DamageResolved(TypedDict):
    attacker: str
    target: str
    damage_dice: Dice
    fortitude_dice: Dice
    rolled: list[str]
    armour: str
    armour_removed: Dice
    sorted_damage: Dice
    armour_durability: int
    pairs: list[Pair]
    hits: int
    negated: int
    injuries: int
    rule: str


class CombatantInjured(TypedDict):
    combatant: str
    injury: str
    hits: int
    detail: str | None
    source: str | None
    injuries: int
    fortitude_dice: int
    death_limit: int
    rule: str


class InjurySavePrompt(TypedDict):
    combatant: str
    injury: str
    hits: int
    fortitude_dice: int
    rule: str


class InjuriesHealed(TypedDict):
    combatant: str
    hits: int
    type: str | None
    injuries: int


class ConditionChanged(TypedDict):
    """``condition_added`` (with its rule) / ``condition_removed``."""

    combatant: str
    condition: str
    level: int
    attribute: str | None
    rule: NotRequired[str]


class CombatantDied(TypedDict):
    combatant: str
    injuries: int
    limit: int
    rule: str


class RenownChanged(TypedDict):
    combatant: str
    change: int
    renown: int
    reason: str
    rule: str


class ArmourSet(TypedDict):
    """``set_armour``: the durability left on a combatant's worn armour, set (I-C8)."""

    combatant: str
    armour: str
    durability: int
    #: the durability it had before
    was: int
    cause: str | None
    rule: str


class CombatEnded(TypedDict):
    fight: int
    rounds: int
    survivors: list[str]
    dead: list[str]
    injuries: dict[str, int]
    rule: str


# --- the constructors: one per event, named as the event -------------------------------------
#: ``events.token_drawn({...})`` builds the Event; mypy checks the dict against the payload's
#: TypedDict (a key misspelt, missing or of the wrong type is an error). The order is the
#: rules' and the schema's.
_KINDS: list[EventKind[Any]] = []


def _kind(name: str, shape: type[P]) -> EventKind[P]:
    kind = EventKind(name, shape)
    _KINDS.append(kind)
    return kind


performance_started = _kind("performance_started", PerformanceStarted)
declared = _kind("declared", Declared)
gain_resolved = _kind("gain_resolved", GainResolved)
reserve_activated = _kind("reserve_activated", ReserveChanged)
reserve_returned = _kind("reserve_returned", ReserveChanged)
token_drawn = _kind("token_drawn", TokenDrawn)
token_replaced = _kind("token_replaced", TokenReplaced)
redraw_started = _kind("redraw_started", RedrawStarted)
favor_called = _kind("favor_called", FavorCalled)
deity_awakened = _kind("deity_awakened", DeityAwakened)
performance_resolved = _kind("performance_resolved", PerformanceResolved)
wear_prompt = _kind("wear_prompt", Prompt)
impact_prompt = _kind("impact_prompt", Prompt)
escalation_prompt = _kind("escalation_prompt", EscalationPrompt)
escalation_shifted = _kind("escalation_shifted", EscalationShifted)
performance_reset = _kind("performance_reset", PerformanceReset)
performance_cancelled = _kind("performance_cancelled", PerformanceCancelled)
undone = _kind("undone", Undone)
note = _kind("note", NoteTaken)
fatigue_gained = _kind("fatigue_gained", HealthChanged)
fatigue_recovered = _kind("fatigue_recovered", HealthChanged)
fatigue_overflow = _kind("fatigue_overflow", FatigueOverflow)
strain_gained = _kind("strain_gained", StrainGained)
strain_recovered = _kind("strain_recovered", StrainRecovered)
strain_overflow = _kind("strain_overflow", StrainOverflow)
strain_tokens_set = _kind("strain_tokens_set", StrainTokensSet)
wound_gained = _kind("wound_gained", WoundGained)
wound_recovered = _kind("wound_recovered", WoundRecovered)
hero_adjusted = _kind("hero_adjusted", HeroAdjusted)
training_changed = _kind("training_changed", TrainingChanged)
bag_changed = _kind("bag_changed", BagChanged)
session_started = _kind("session_started", SessionStarted)
band_started = _kind("band_started", BandStarted)
time_set = _kind("time_set", TimeSet)
time_drawn = _kind("time_drawn", TimeDrawn)
time_resolved = _kind("time_resolved", TimeResolved)
time_draw_cancelled = _kind("time_draw_cancelled", TimeDrawCancelled)
time_fatigue_ignored = _kind("time_fatigue_ignored", TimeFatigueIgnored)
time_prompt = _kind("time_prompt", TimePrompt)
prompt_acknowledged = _kind("prompt_acknowledged", PromptAcknowledged)
weather_drawn = _kind("weather_drawn", WeatherDrawn)
weather_changed = _kind("weather_changed", WeatherChanged)
rest_started = _kind("rest_started", RestStarted)
rest_step = _kind("rest_step", RestStep)
rest_ended = _kind("rest_ended", RestEnded)
rest_interrupted = _kind("rest_interrupted", RuleOnly)
rest_not_interrupted = _kind("rest_not_interrupted", RuleOnly)
full_rest_completed = _kind("full_rest_completed", FullRestCompleted)
full_rest_chosen = _kind("full_rest_chosen", FullRestChosen)
temporary_granted = _kind("temporary_granted", TemporaryGranted)
temporary_timer = _kind("temporary_timer", TemporaryTimer)
temporary_expired = _kind("temporary_expired", TemporaryExpired)
combatant_added = _kind("combatant_added", CombatantAdded)
combat_started = _kind("combat_started", CombatStarted)
combatant_joined = _kind("combatant_joined", CombatantJoined)
initiative_rolled = _kind("initiative_rolled", InitiativeRolled)
rolled_off = _kind("rolled_off", RolledOff)
tokens_placed = _kind("tokens_placed", TokensPlaced)
combat_round = _kind("combat_round", CombatRound)
combat_turn = _kind("combat_turn", CombatTurn)
token_moved = _kind("token_moved", TokenMoved)
aimed = _kind("aimed", Aimed)
aim_lost = _kind("aim_lost", AimLost)
guarding = _kind("guarding", Guarding)
moved = _kind("moved", Moved)
attack_resolved = _kind("attack_resolved", AttackResolved)
damage_resolved = _kind("damage_resolved", DamageResolved)
combatant_injured = _kind("combatant_injured", CombatantInjured)
injury_save_prompt = _kind("injury_save_prompt", InjurySavePrompt)
injuries_healed = _kind("injuries_healed", InjuriesHealed)
condition_added = _kind("condition_added", ConditionChanged)
condition_removed = _kind("condition_removed", ConditionChanged)
combatant_died = _kind("combatant_died", CombatantDied)
renown_changed = _kind("renown_changed", RenownChanged)
armour_set = _kind("armour_set", ArmourSet)
combat_ended = _kind("combat_ended", CombatEnded)

#: every event name → the TypedDict of its payload (``Event.data``), in the order of the rules;
#: made from the constructors, so the schema (generated from it) and they cannot drift
EVENTS: dict[str, Any] = {kind.name: kind.shape for kind in _KINDS}

# --- who may read each event ----------------------------------------------------------------

#: who an event's words are for: ``worldkeeper`` (the remote, the CLI: instructions to the
#: WorldKeeper, never on a page the players or a stream see), ``table`` (the table display
#: too: what the table resolves, corrections), ``public`` (the overlay and the wall as well)
Audience = Literal["worldkeeper", "table", "public"]
AUDIENCES: tuple[Audience, ...] = get_args(Audience)

#: the audience of each event that is not ``public``; an event whose payload carries its own
#: ``audience`` (a note) has that one
AUDIENCE: dict[str, Audience] = {
    # P20: the WorldKeeper's instructions after an outcome ("Aria succeeded: the WorldKeeper
    # resolves any Wear that applies (P20)")
    wear_prompt.name: "worldkeeper",
    impact_prompt.name: "worldkeeper",
    escalation_prompt.name: "worldkeeper",
    # what the table resolves together, on its own screen
    time_prompt.name: "table",
    injury_save_prompt.name: "table",
    # corrections: the table sees them, a stream does not need to
    undone.name: "table",
    hero_adjusted.name: "table",
    bag_changed.name: "table",
    time_set.name: "table",
    strain_tokens_set.name: "table",
    armour_set.name: "table",
}


def audience(event: Event) -> Audience:
    """Who may read ``event`` (the ``audience`` of its ``…/events`` message).

    >>> audience(wear_prompt({"heroes": ["aria"], "rule": "P20"}))
    'worldkeeper'
    >>> audience(Event("token_drawn", {}))
    'public'
    >>> audience(Event("note", {"text": "the lich is listening", "audience": "worldkeeper"}))
    'worldkeeper'
    """
    own = event.data.get("audience")
    if own in AUDIENCES:
        return own  # type: ignore[no-any-return]
    return AUDIENCE.get(event.type, "public")


# --- not an engine event: the service's notices on …/events ------------------------------

#: what a notice is about: two tokens in one well of a reader (the hub's collision)
NoticeKind = Literal["one_token_per_well"]


class NoticeMessage(TypedDict):
    """A notice on ``…/events`` about the table itself, not an engine event: two tokens in one
    well ("one token per well", ``active`` true) and its end (the extra token lifted, ``active``
    false). It is never journaled, so it has no ``seq`` and takes none: the next engine event's
    ``seq`` is unchanged, and a subscriber's gap detection (by ``seq``) ignores it."""

    type: Literal["notice"]
    kind: NoticeKind
    #: the reader's name in the config, and its channel (the well)
    reader: str
    channel: int
    active: bool
    text: str
    #: ``reader:<name>``
    source: str
    at: str
    audience: Literal["table"]


class WithheldMessage(TypedDict):
    """What ``…/events`` carries in place of an event only the WorldKeeper may read (a
    worldkeeper note, a P20 prompt, an improvised foe): its ``seq``, so a page's gap detection
    sees the stream whole, and no words. The event itself goes, whole, to the topic only the
    gm and the service can read (``…/gm_events``, docs/mqtt.md)."""

    seq: int
    type: Literal["withheld"]
    #: empty: the words are the WorldKeeper's
    text: Literal[""]
    source: str
    at: str
    audience: Literal["worldkeeper"]
