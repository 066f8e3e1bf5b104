"""Every command of the vocabulary as a ``TypedDict``, and its constructor.

Generated from the command specs (engine/vocabulary.py's ``REGISTRY``, which also write
docs/commands.schema.json) by ``python -m engine.codegen``: do not edit. A test keeps it
current and equal to the published schema (tests/engine/contracts/test_commands.py).

A producer builds a command through its constructor, every field by keyword; the dict keeps
the order the fields were given in, and a key renamed here is a mypy error at each producer:

>>> draw(hero="aria", token="aria.ember.skill")
{'cmd': 'draw', 'hero': 'aria', 'token': 'aria.ember.skill'}

``<Name>Fields`` are the fields, ``<Name>Command`` the whole command (with ``cmd``); an enum
field is a ``str`` here (the engine refuses a value outside it, naming the field). ``id`` and
``source`` (:class:`Transport`) are accepted on every command and ignored by the rules.
``<Name>Args`` is what the command's handler reads once the engine has parsed it (every field,
defaults filled in; an enum field is its ``Literal``), so a field renamed here is a mypy error
in the handler too.

Pure typing: importing it registers nothing and imports no rule family.
"""

from typing import Any, Literal, NotRequired, TypedDict, Unpack


class Transport(TypedDict, total=False):
    """The transport fields of every command: a request id (echoed in the reply) and where the
    command came from; the engine ignores both."""

    id: str | int
    source: str


class AcceptAsDrawnFields(Transport):
    """The fields of ``accept_as_drawn``: The WorldKeeper accepts the token lying on an unsync
    well as drawn: counted as laying it on the Draw Board counts it (a hero's token drawn for
    its owner, a Favor token called for the hero drawing), where the rules allow it now; else
    refused, naming the rule. Rules: P6, P18, P22, I-P11."""

    #: the token lying on the unsync well (…/board names it)
    token: str
    #: a hero's token: its owner (any other is refused); a Favor token: the hero who calls it
    #: (default: the hero drawing now)
    hero: NotRequired[str]


class AcceptAsDrawnCommand(AcceptAsDrawnFields):
    """The command ``accept_as_drawn``."""

    cmd: Literal["accept_as_drawn"]


def accept_as_drawn(**fields: Unpack[AcceptAsDrawnFields]) -> AcceptAsDrawnCommand:
    """``accept_as_drawn``: The WorldKeeper accepts the token lying on an unsync well as drawn:
    counted as laying it on the Draw Board counts it (a hero's token drawn for its owner, a
    Favor token called for the hero drawing), where the rules allow it now; else refused, naming
    the rule."""
    return {"cmd": "accept_as_drawn", **fields}


class AcceptAsDrawnArgs(TypedDict):
    """What the handler of ``accept_as_drawn`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    token: str
    hero: str | None


class AcknowledgePromptFields(Transport):
    """The fields of ``acknowledge_prompt``: The WorldKeeper has dealt with a Time prompt
    (Opportunity, Event, Escalation …); without prompt, every non-blocking one. Rules: T4,
    T5."""

    #: the prompt's number
    prompt: NotRequired[int]


class AcknowledgePromptCommand(AcknowledgePromptFields):
    """The command ``acknowledge_prompt``."""

    cmd: Literal["acknowledge_prompt"]


def acknowledge_prompt(**fields: Unpack[AcknowledgePromptFields]) -> AcknowledgePromptCommand:
    """``acknowledge_prompt``: The WorldKeeper has dealt with a Time prompt (Opportunity, Event,
    Escalation …); without prompt, every non-blocking one."""
    return {"cmd": "acknowledge_prompt", **fields}


class AcknowledgePromptArgs(TypedDict):
    """What the handler of ``acknowledge_prompt`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    prompt: int | None


class ActFields(Transport):
    """The fields of ``act``: The combatant whose turn it is declares and resolves one action;
    its token moves on by the action's cost (Aim 1, Attack 3, Dash 3, Guard 3, Move 2). Attack
    dice are entered or rolled from the seed. Rules: C1, C4, C5, C6, C7, C8, C9, I-C5, I-C6,
    I-C7, I-C8."""

    #: who acts (the first combatant on the tick)
    combatant: str
    #: the action
    action: str
    #: Aim and Attack: the target combatant
    target: NotRequired[str]
    #: Attack: the target's DEFENSE roll (default: rules)
    defense: NotRequired[str]
    #: ATTACK roll: physical d6 values, one per die
    attack_dice: NotRequired[list[int]]
    #: DEFENSE roll: physical d6 values, one per die
    defense_dice: NotRequired[list[int]]
    #: DAMAGE roll (weapon dice + one per attacker success): physical d6 values, one per die
    damage_dice: NotRequired[list[int]]
    #: FORTITUDE roll: physical d6 values, one per die
    fortitude_dice: NotRequired[list[int]]
    #: Attack: aptitude bonus dice (+) or penalty (−)
    bonus_dice: NotRequired[int]
    #: Attack: injury type caused (default: the weapon's)
    injury: NotRequired[str]
    #: Attack: where the injury is (a Sprained leg …)
    detail: NotRequired[str]
    #: roll the dice not entered from this seed (scripts, the demo)
    seed: NotRequired[int]


class ActCommand(ActFields):
    """The command ``act``."""

    cmd: Literal["act"]


def act(**fields: Unpack[ActFields]) -> ActCommand:
    """``act``: The combatant whose turn it is declares and resolves one action; its token moves
    on by the action's cost (Aim 1, Attack 3, Dash 3, Guard 3, Move 2). Attack dice are entered
    or rolled from the seed."""
    return {"cmd": "act", **fields}


class ActArgs(TypedDict):
    """What the handler of ``act`` reads: every field, a default for each one omitted (None when
    it has none), an array as a tuple."""

    combatant: str
    action: Literal["aim", "attack", "dash", "guard", "move"]
    target: str | None
    defense: Literal["dodge", "parry"] | None
    attack_dice: tuple[int, ...] | None
    defense_dice: tuple[int, ...] | None
    damage_dice: tuple[int, ...] | None
    fortitude_dice: tuple[int, ...] | None
    bonus_dice: int | None
    injury: str | None
    detail: str | None
    seed: int | None


class AddCombatConditionFields(Transport):
    """The fields of ``add_combat_condition``: Put a condition on a combatant (Fatigued and
    Cursed stack levels). Conditions that stop acting make the wheel pass the token by. Rules:
    C10, I-C10a."""

    #: combatant id
    combatant: str
    #: blinded, confused, cursed, … (C10)
    condition: str
    #: levels to add (Fatigued: up to six)
    level: NotRequired[int]
    #: Cursed: the attribute it lowers
    attribute: NotRequired[str]


class AddCombatConditionCommand(AddCombatConditionFields):
    """The command ``add_combat_condition``."""

    cmd: Literal["add_combat_condition"]


def add_combat_condition(**fields: Unpack[AddCombatConditionFields]) -> AddCombatConditionCommand:
    """``add_combat_condition``: Put a condition on a combatant (Fatigued and Cursed stack
    levels). Conditions that stop acting make the wheel pass the token by."""
    return {"cmd": "add_combat_condition", **fields}


class AddCombatConditionArgs(TypedDict):
    """What the handler of ``add_combat_condition`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    combatant: str
    condition: str
    level: int
    attribute: Literal["reflex", "might", "dodge", "parry", "fortitude"] | None
    source: str | None


class AddCombatantFields(Transport):
    """The fields of ``add_combatant``: Add a combatant during the session (a foe the
    WorldKeeper improvises): the same sheet as [[combatants]], flattened; with join, it also
    joins the fight now running. Rules: C2, C3, I-C3b."""

    #: the new combatant's id, short, no dots: goblin3
    combatant: str
    #: the name shown (default: the id, or the hero's name)
    name: NotRequired[str]
    #: the hero this combatant is, if any
    hero: NotRequired[str]
    #: its side, for the panel and the forecast (foes, heroes…)
    side: NotRequired[str]
    #: REFLEX dice (initiative, C3)
    reflex: int
    #: MIGHT dice (the ATTACK roll, C6)
    might: int
    #: DODGE dice (DEFENSE, C6)
    dodge: int
    #: PARRY dice (DEFENSE, C6)
    parry: int
    #: FORTITUDE dice (C8)
    fortitude: int
    #: how far a Move goes (C7)
    speed: int
    #: starting renown (C11)
    renown: NotRequired[int]
    #: the weapon's name
    weapon: NotRequired[str]
    #: the weapon's DAMAGE dice (C6)
    damage: NotRequired[int]
    #: the injury type the weapon causes (C9)
    injury: NotRequired[str]
    #: the ATTACK attribute (default: the rules')
    weapon_attribute: NotRequired[str]
    #: the armour's name
    armour: NotRequired[str]
    #: armour reduction in DAMAGE dice (I-C8)
    reduction: NotRequired[int]
    #: armour durability (I-C8a)
    durability: NotRequired[int]
    #: also join the fight now running (I-C3b)
    join: NotRequired[bool]
    #: entered REFLEX dice (physical d6 values), else rolled
    initiative: NotRequired[list[int]]
    #: roll the REFLEX dice not entered from this seed
    seed: NotRequired[int]


class AddCombatantCommand(AddCombatantFields):
    """The command ``add_combatant``."""

    cmd: Literal["add_combatant"]


def add_combatant(**fields: Unpack[AddCombatantFields]) -> AddCombatantCommand:
    """``add_combatant``: Add a combatant during the session (a foe the WorldKeeper improvises):
    the same sheet as [[combatants]], flattened; with join, it also joins the fight now
    running."""
    return {"cmd": "add_combatant", **fields}


class AddCombatantArgs(TypedDict):
    """What the handler of ``add_combatant`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatant: str
    name: str | None
    hero: str | None
    side: str | None
    reflex: int
    might: int
    dodge: int
    parry: int
    fortitude: int
    speed: int
    renown: int | None
    weapon: str | None
    damage: int | None
    injury: str | None
    weapon_attribute: Literal["reflex", "might", "dodge", "parry", "fortitude"] | None
    armour: str | None
    reduction: int | None
    durability: int | None
    join: bool | None
    initiative: tuple[int, ...] | None
    seed: int | None


class AdjustHeroFields(Transport):
    """The fields of ``adjust_hero``: Change a hero's tracks by signed amounts. Gains run the
    Fatigue → Strain → Wound cascade; losses are recovery. Favor and Redraws are set by delta
    too. Rules: P13, P14, P15, P18, P11."""

    #: hero id
    hero: str
    #: Fatigue to add (+) or recover (−)
    fatigue: NotRequired[int]
    #: Strain to add (+) or recover (−)
    strain: NotRequired[int]
    #: Wounds to add (+) or heal (−)
    wounds: NotRequired[int]
    #: Favor to add (+) or remove (−)
    favor: NotRequired[int]
    #: Redraws to add (+) or remove (−)
    redraws: NotRequired[int]
    #: why, for the log
    cause: NotRequired[str]


class AdjustHeroCommand(AdjustHeroFields):
    """The command ``adjust_hero``."""

    cmd: Literal["adjust_hero"]


def adjust_hero(**fields: Unpack[AdjustHeroFields]) -> AdjustHeroCommand:
    """``adjust_hero``: Change a hero's tracks by signed amounts. Gains run the Fatigue → Strain
    → Wound cascade; losses are recovery. Favor and Redraws are set by delta too."""
    return {"cmd": "adjust_hero", **fields}


class AdjustHeroArgs(TypedDict):
    """What the handler of ``adjust_hero`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    hero: str
    fatigue: int
    strain: int
    wounds: int
    favor: int
    redraws: int
    cause: str


class AdjustRenownFields(Transport):
    """The fields of ``adjust_renown``: Renown rises or falls with a deed, at the GM's call
    (C11). Rules: C11."""

    #: combatant id
    combatant: str
    #: renown to add (+) or take away (−)
    change: int
    #: the deed, for the log
    reason: NotRequired[str]


class AdjustRenownCommand(AdjustRenownFields):
    """The command ``adjust_renown``."""

    cmd: Literal["adjust_renown"]


def adjust_renown(**fields: Unpack[AdjustRenownFields]) -> AdjustRenownCommand:
    """``adjust_renown``: Renown rises or falls with a deed, at the GM's call (C11)."""
    return {"cmd": "adjust_renown", **fields}


class AdjustRenownArgs(TypedDict):
    """What the handler of ``adjust_renown`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatant: str
    change: int
    reason: str | None


class AnswerInterruptionFields(Transport):
    """The fields of ``answer_interruption``: The WorldKeeper says whether the Event drawn in an
    Unsafe Rest interrupts it (I-T10). Rules: T10, I-T10."""

    #: true: the Rest ends now, without this draw's recovery
    interrupts: bool
    #: Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)
    full_rest: NotRequired[dict[str, Any]]


class AnswerInterruptionCommand(AnswerInterruptionFields):
    """The command ``answer_interruption``."""

    cmd: Literal["answer_interruption"]


def answer_interruption(**fields: Unpack[AnswerInterruptionFields]) -> AnswerInterruptionCommand:
    """``answer_interruption``: The WorldKeeper says whether the Event drawn in an Unsafe Rest
    interrupts it (I-T10)."""
    return {"cmd": "answer_interruption", **fields}


class AnswerInterruptionArgs(TypedDict):
    """What the handler of ``answer_interruption`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    interrupts: bool
    full_rest: dict[str, Any] | None


class AuditBagFields(Transport):
    """The fields of ``audit_bag``: Start an audit of one bag before play: its tokens passed
    over any reader, one after another, are counted (not drawn), and the table says what is
    missing, what is extra and what belongs to another bag. The same command again ends it;
    without bag it ends the audit that runs."""

    #: the bag to audit: a bag id (favor, time.morning …) or a hero id (that hero's Hero Bag); omit
    #: to end the audit that runs
    bag: NotRequired[str]


class AuditBagCommand(AuditBagFields):
    """The command ``audit_bag``."""

    cmd: Literal["audit_bag"]


def audit_bag(**fields: Unpack[AuditBagFields]) -> AuditBagCommand:
    """``audit_bag``: Start an audit of one bag before play: its tokens passed over any reader,
    one after another, are counted (not drawn), and the table says what is missing, what is
    extra and what belongs to another bag. The same command again ends it; without bag it ends
    the audit that runs."""
    return {"cmd": "audit_bag", **fields}


class AuditBagArgs(TypedDict):
    """What the handler of ``audit_bag`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    bag: str | None


class BeginPerformanceFields(Transport):
    """The fields of ``begin_performance``: Start a Performance against a Difficulty, with the
    Weight mode for it. Rules: P19, I-P16."""

    #: Difficulty set by the WorldKeeper (3–8)
    difficulty: int
    #: WEIGHT mode
    weight: NotRequired[str]


class BeginPerformanceCommand(BeginPerformanceFields):
    """The command ``begin_performance``."""

    cmd: Literal["begin_performance"]


def begin_performance(**fields: Unpack[BeginPerformanceFields]) -> BeginPerformanceCommand:
    """``begin_performance``: Start a Performance against a Difficulty, with the Weight mode for
    it."""
    return {"cmd": "begin_performance", **fields}


class BeginPerformanceArgs(TypedDict):
    """What the handler of ``begin_performance`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    difficulty: int
    weight: Literal["off", "mass", "light"]


class BeginRestFields(Transport):
    """The fields of ``begin_rest``: The heroes Rest: Safe or Unsafe, who keeps watch, and
    (optionally) their Full Rest choices. Time goes on with the ordinary cadence. Rules: T7, T8,
    T9, T10."""

    #: safe (settlement …) or unsafe (wilderness …)
    kind: str
    #: heroes keeping watch (the rest rest)
    watch: NotRequired[list[str]]
    #: Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)
    full_rest: NotRequired[dict[str, Any]]


class BeginRestCommand(BeginRestFields):
    """The command ``begin_rest``."""

    cmd: Literal["begin_rest"]


def begin_rest(**fields: Unpack[BeginRestFields]) -> BeginRestCommand:
    """``begin_rest``: The heroes Rest: Safe or Unsafe, who keeps watch, and (optionally) their
    Full Rest choices. Time goes on with the ordinary cadence."""
    return {"cmd": "begin_rest", **fields}


class BeginRestArgs(TypedDict):
    """What the handler of ``begin_rest`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    kind: Literal["safe", "unsafe"]
    watch: tuple[str, ...] | None
    full_rest: dict[str, Any] | None


class CallFavorFields(Transport):
    """The fields of ``call_favor``: Spend 1 Favor: one random token from the Favor Bag, valued
    against the declared Shade; the answering deity may be Awakened on the Star Grid. Rules:
    P18, I-P18."""

    #: hero id from the table file
    hero: str
    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]


class CallFavorCommand(CallFavorFields):
    """The command ``call_favor``."""

    cmd: Literal["call_favor"]


def call_favor(**fields: Unpack[CallFavorFields]) -> CallFavorCommand:
    """``call_favor``: Spend 1 Favor: one random token from the Favor Bag, valued against the
    declared Shade; the answering deity may be Awakened on the Star Grid."""
    return {"cmd": "call_favor", **fields}


class CallFavorArgs(TypedDict):
    """What the handler of ``call_favor`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    hero: str
    token: str | None
    seed: int | None


class CancelPerformanceFields(Transport):
    """The fields of ``cancel_performance``: Abandon an unresolved Performance: tokens go back;
    Favor and Redraws spent are refunded. Rules: P22."""


class CancelPerformanceCommand(CancelPerformanceFields):
    """The command ``cancel_performance``."""

    cmd: Literal["cancel_performance"]


def cancel_performance(**fields: Unpack[CancelPerformanceFields]) -> CancelPerformanceCommand:
    """``cancel_performance``: Abandon an unresolved Performance: tokens go back; Favor and
    Redraws spent are refunded."""
    return {"cmd": "cancel_performance", **fields}


class CancelPerformanceArgs(TypedDict):
    """What the handler of ``cancel_performance`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""


class CancelTimeDrawFields(Transport):
    """The fields of ``cancel_time_draw``: Put the drawn, unresolved Time token back: nothing
    advances, no timer moves (T12). Rules: T12."""


class CancelTimeDrawCommand(CancelTimeDrawFields):
    """The command ``cancel_time_draw``."""

    cmd: Literal["cancel_time_draw"]


def cancel_time_draw(**fields: Unpack[CancelTimeDrawFields]) -> CancelTimeDrawCommand:
    """``cancel_time_draw``: Put the drawn, unresolved Time token back: nothing advances, no
    timer moves (T12)."""
    return {"cmd": "cancel_time_draw", **fields}


class CancelTimeDrawArgs(TypedDict):
    """What the handler of ``cancel_time_draw`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""


class ChooseFullRestFields(Transport):
    """The fields of ``choose_full_rest``: A resting hero's Full Rest choice: recover all
    Fatigue, or 1 Strain (T8, I-T8). Rules: T8, I-T8."""

    #: hero id
    hero: str
    #: what to recover
    choice: str


class ChooseFullRestCommand(ChooseFullRestFields):
    """The command ``choose_full_rest``."""

    cmd: Literal["choose_full_rest"]


def choose_full_rest(**fields: Unpack[ChooseFullRestFields]) -> ChooseFullRestCommand:
    """``choose_full_rest``: A resting hero's Full Rest choice: recover all Fatigue, or 1 Strain
    (T8, I-T8)."""
    return {"cmd": "choose_full_rest", **fields}


class ChooseFullRestArgs(TypedDict):
    """What the handler of ``choose_full_rest`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    hero: str
    choice: Literal["fatigue", "strain"]


class DeclareFields(Transport):
    """The fields of ``declare``: A hero dials the Performance Wheel: Shade, Capability, Action
    (Training comes from the sheet), with Exert, a Moment commitment, Intersect or the Reserve
    token used. Rules: P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P17, P23."""

    #: hero id from the table file
    hero: str
    #: declared Shade
    shade: str
    #: Pathway, Presence or Sense
    capability: str
    #: action icon
    action: str
    #: Exert (Untrained only)
    exert: NotRequired[bool]
    #: Moment Board commitment
    moment: NotRequired[str]
    #: hero to Intersect with (Trained or higher)
    intersect: NotRequired[str]
    #: Gain: Potential token to make Active Reserve; Spend: Reserve spent
    reserve: NotRequired[str]


class DeclareCommand(DeclareFields):
    """The command ``declare``."""

    cmd: Literal["declare"]


def declare(**fields: Unpack[DeclareFields]) -> DeclareCommand:
    """``declare``: A hero dials the Performance Wheel: Shade, Capability, Action (Training
    comes from the sheet), with Exert, a Moment commitment, Intersect or the Reserve token
    used."""
    return {"cmd": "declare", **fields}


class DeclareArgs(TypedDict):
    """What the handler of ``declare`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    hero: str
    shade: Literal["control", "impulse"]
    capability: str
    action: Literal["target", "defend", "gain", "spend"]
    exert: bool
    moment: Literal["prepare", "advance", "breakthrough"] | None
    intersect: str | None
    reserve: str | None


class DrawFields(Transport):
    """The fields of ``draw``: A token drawn from the hero's own bag is laid on the Draw Board
    (or fills a Redraw). Rules: P6, P9, P11, P15."""

    #: hero id from the table file
    hero: str
    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]


class DrawCommand(DrawFields):
    """The command ``draw``."""

    cmd: Literal["draw"]


def draw(**fields: Unpack[DrawFields]) -> DrawCommand:
    """``draw``: A token drawn from the hero's own bag is laid on the Draw Board (or fills a
    Redraw)."""
    return {"cmd": "draw", **fields}


class DrawArgs(TypedDict):
    """What the handler of ``draw`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    hero: str
    token: str | None
    seed: int | None


class DrawTimeFields(Transport):
    """The fields of ``draw_time``: Draw the due Time token from the current band's Time Bag
    onto the board (T3, T6); resolve: true resolves it at once. Rules: T1, T3, T4, T5, T6."""

    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]
    #: resolve it now (one step, one Undo)
    resolve: NotRequired[bool]
    #: Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)
    full_rest: NotRequired[dict[str, Any]]


class DrawTimeCommand(DrawTimeFields):
    """The command ``draw_time``."""

    cmd: Literal["draw_time"]


def draw_time(**fields: Unpack[DrawTimeFields]) -> DrawTimeCommand:
    """``draw_time``: Draw the due Time token from the current band's Time Bag onto the board
    (T3, T6); resolve: true resolves it at once."""
    return {"cmd": "draw_time", **fields}


class DrawTimeArgs(TypedDict):
    """What the handler of ``draw_time`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    token: str | None
    seed: int | None
    resolve: bool
    full_rest: dict[str, Any] | None


class DrawWeatherFields(Transport):
    """The fields of ``draw_weather``: Draw a Weather token: the session-start draw, or a
    Weather Time result (T1, T4). Rules: T1, T2, T4."""

    #: overworld (open sky) or underworld (caves, ruins, depths); default: the current weather's
    bag: NotRequired[str]
    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]


class DrawWeatherCommand(DrawWeatherFields):
    """The command ``draw_weather``."""

    cmd: Literal["draw_weather"]


def draw_weather(**fields: Unpack[DrawWeatherFields]) -> DrawWeatherCommand:
    """``draw_weather``: Draw a Weather token: the session-start draw, or a Weather Time result
    (T1, T4)."""
    return {"cmd": "draw_weather", **fields}


class DrawWeatherArgs(TypedDict):
    """What the handler of ``draw_weather`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    bag: Literal["overworld", "underworld"] | None
    token: str | None
    seed: int | None


class EndCombatFields(Transport):
    """The fields of ``end_combat``: End the fight: tokens leave the wheel; injuries, armour
    wear, conditions and renown stay. Rules: C2."""


class EndCombatCommand(EndCombatFields):
    """The command ``end_combat``."""

    cmd: Literal["end_combat"]


def end_combat(**fields: Unpack[EndCombatFields]) -> EndCombatCommand:
    """``end_combat``: End the fight: tokens leave the wheel; injuries, armour wear, conditions
    and renown stay."""
    return {"cmd": "end_combat", **fields}


class EndCombatArgs(TypedDict):
    """What the handler of ``end_combat`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""


class EndRestFields(Transport):
    """The fields of ``end_rest``: End the Rest (allowed after any Minor draw resolves, T7); no
    Full Rest unless completed. Rules: T7."""


class EndRestCommand(EndRestFields):
    """The command ``end_rest``."""

    cmd: Literal["end_rest"]


def end_rest(**fields: Unpack[EndRestFields]) -> EndRestCommand:
    """``end_rest``: End the Rest (allowed after any Minor draw resolves, T7); no Full Rest
    unless completed."""
    return {"cmd": "end_rest", **fields}


class EndRestArgs(TypedDict):
    """What the handler of ``end_rest`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""


class GrantTemporaryFields(Transport):
    """The fields of ``grant_temporary``: Put a temporary token (Purity, Link, RESTORE, VIGOR)
    into a hero's bag with its timer. Rules: T12."""

    #: hero id whose bag receives it
    hero: str
    #: the temporary token's id (from its tag)
    token: NotRequired[str]
    #: or just its face: the first free token of it is used
    face: NotRequired[str]


class GrantTemporaryCommand(GrantTemporaryFields):
    """The command ``grant_temporary``."""

    cmd: Literal["grant_temporary"]


def grant_temporary(**fields: Unpack[GrantTemporaryFields]) -> GrantTemporaryCommand:
    """``grant_temporary``: Put a temporary token (Purity, Link, RESTORE, VIGOR) into a hero's
    bag with its timer."""
    return {"cmd": "grant_temporary", **fields}


class GrantTemporaryArgs(TypedDict):
    """What the handler of ``grant_temporary`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    hero: str
    token: str | None
    face: str | None


class HealInjuriesFields(Transport):
    """The fields of ``heal_injuries``: Take injuries off a living combatant, newest first (of
    one type if given). Rules: C8, C9."""

    #: combatant id
    combatant: str
    #: how many injuries to heal
    hits: NotRequired[int]
    #: heal only this injury type
    type: NotRequired[str]


class HealInjuriesCommand(HealInjuriesFields):
    """The command ``heal_injuries``."""

    cmd: Literal["heal_injuries"]


def heal_injuries(**fields: Unpack[HealInjuriesFields]) -> HealInjuriesCommand:
    """``heal_injuries``: Take injuries off a living combatant, newest first (of one type if
    given)."""
    return {"cmd": "heal_injuries", **fields}


class HealInjuriesArgs(TypedDict):
    """What the handler of ``heal_injuries`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatant: str
    hits: int
    type: str | None


class InjureFields(Transport):
    """The fields of ``injure``: Give a combatant injuries outside an attack (a failed Bleeding
    save, a fall). More than twice FORTITUDE injuries kills (C9). Rules: C8, C9."""

    #: combatant id
    combatant: str
    #: injury type (bleeding, concussion, …)
    type: str
    #: how many injuries
    hits: NotRequired[int]
    #: where, when it matters (a Sprained leg halves speed)
    detail: NotRequired[str]
    #: why, for the log
    cause: NotRequired[str]


class InjureCommand(InjureFields):
    """The command ``injure``."""

    cmd: Literal["injure"]


def injure(**fields: Unpack[InjureFields]) -> InjureCommand:
    """``injure``: Give a combatant injuries outside an attack (a failed Bleeding save, a fall).
    More than twice FORTITUDE injuries kills (C9)."""
    return {"cmd": "injure", **fields}


class InjureArgs(TypedDict):
    """What the handler of ``injure`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    combatant: str
    type: str
    hits: int
    detail: str | None
    cause: str | None


class JoinCombatFields(Transport):
    """The fields of ``join_combat``: A combatant of the roster joins the fight now running: it
    rolls REFLEX initiative (or enters the dice) and waits on the wheel after the tick now
    acting. Rules: C2, C3, I-C3, I-C3b."""

    #: who joins (a living combatant not in the fight)
    combatant: str
    #: entered REFLEX dice (physical d6 values), else rolled
    initiative: NotRequired[list[int]]
    #: roll the REFLEX dice not entered from this seed
    seed: NotRequired[int]


class JoinCombatCommand(JoinCombatFields):
    """The command ``join_combat``."""

    cmd: Literal["join_combat"]


def join_combat(**fields: Unpack[JoinCombatFields]) -> JoinCombatCommand:
    """``join_combat``: A combatant of the roster joins the fight now running: it rolls REFLEX
    initiative (or enters the dice) and waits on the wheel after the tick now acting."""
    return {"cmd": "join_combat", **fields}


class JoinCombatArgs(TypedDict):
    """What the handler of ``join_combat`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatant: str
    initiative: tuple[int, ...] | None
    seed: int | None


class NoteFields(Transport):
    """The fields of ``note``: A WorldKeeper's note: words kept in the night's history and
    recap, changing nothing in the game; worldkeeper-only unless marked table or public. Rules:
    I-T13."""

    #: the note's words (one line or two)
    text: str
    #: who may read it: worldkeeper (the WorldKeeper only), table (the table display too) or public
    #: (the overlay and the wall as well)
    audience: NotRequired[str]


class NoteCommand(NoteFields):
    """The command ``note``."""

    cmd: Literal["note"]


def note(**fields: Unpack[NoteFields]) -> NoteCommand:
    """``note``: A WorldKeeper's note: words kept in the night's history and recap, changing
    nothing in the game; worldkeeper-only unless marked table or public."""
    return {"cmd": "note", **fields}


class NoteArgs(TypedDict):
    """What the handler of ``note`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    text: str
    audience: Literal["worldkeeper", "table", "public"]


class RedrawFields(Transport):
    """The fields of ``redraw``: Refinement: spend 1 Redraw to replace one drawn token; the old
    one is set aside until Reset. Without token or seed, the next draw for the hero fills the
    slot. Rules: P11, I-P11."""

    #: hero id from the table file
    hero: str
    #: the drawn token to replace
    replace: str
    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]


class RedrawCommand(RedrawFields):
    """The command ``redraw``."""

    cmd: Literal["redraw"]


def redraw(**fields: Unpack[RedrawFields]) -> RedrawCommand:
    """``redraw``: Refinement: spend 1 Redraw to replace one drawn token; the old one is set
    aside until Reset. Without token or seed, the next draw for the hero fills the slot."""
    return {"cmd": "redraw", **fields}


class RedrawArgs(TypedDict):
    """What the handler of ``redraw`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    hero: str
    replace: str
    token: str | None
    seed: int | None


class RemoveCombatConditionFields(Transport):
    """The fields of ``remove_combat_condition``: Take a condition (or some of its levels) off a
    combatant. Rules: C10."""

    #: combatant id
    combatant: str
    #: the condition
    condition: str
    #: levels to remove (default: all)
    level: NotRequired[int]
    #: Cursed: which curse
    attribute: NotRequired[str]


class RemoveCombatConditionCommand(RemoveCombatConditionFields):
    """The command ``remove_combat_condition``."""

    cmd: Literal["remove_combat_condition"]


def remove_combat_condition(
    **fields: Unpack[RemoveCombatConditionFields],
) -> RemoveCombatConditionCommand:
    """``remove_combat_condition``: Take a condition (or some of its levels) off a combatant."""
    return {"cmd": "remove_combat_condition", **fields}


class RemoveCombatConditionArgs(TypedDict):
    """What the handler of ``remove_combat_condition`` reads: every field, a default for each
    one omitted (None when it has none), an array as a tuple."""

    combatant: str
    condition: str
    level: int | None
    attribute: Literal["reflex", "might", "dodge", "parry", "fortitude"] | None


class ResetFields(Transport):
    """The fields of ``reset``: End of the Performance: the drawn, set-aside and Favor tokens go
    back to their bags. Rules: P22."""


class ResetCommand(ResetFields):
    """The command ``reset``."""

    cmd: Literal["reset"]


def reset(**fields: Unpack[ResetFields]) -> ResetCommand:
    """``reset``: End of the Performance: the drawn, set-aside and Favor tokens go back to their
    bags."""
    return {"cmd": "reset", **fields}


class ResetArgs(TypedDict):
    """What the handler of ``reset`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""


class ResolveFields(Transport):
    """The fields of ``resolve``: Compare each total with the Difficulty; Exertion Fatigue,
    Reserve returned, Wear / Impact and Escalation prompts. Rules: P9, P10, P17, P19, P20, P21,
    P23."""


class ResolveCommand(ResolveFields):
    """The command ``resolve``."""

    cmd: Literal["resolve"]


def resolve(**fields: Unpack[ResolveFields]) -> ResolveCommand:
    """``resolve``: Compare each total with the Difficulty; Exertion Fatigue, Reserve returned,
    Wear / Impact and Escalation prompts."""
    return {"cmd": "resolve", **fields}


class ResolveArgs(TypedDict):
    """What the handler of ``resolve`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""


class ResolveTimeFields(Transport):
    """The fields of ``resolve_time``: Resolve the drawn Time token: timers, its effect, the
    Rest, then the cadence moves on. Rules: T3, T4, T5, T7, T8, T9, T10, T12, I-T4, I-T8,
    I-T10."""

    #: Full Rest choices by resting hero: {"aria": "fatigue", "cass": "strain"} (T8, I-T8)
    full_rest: NotRequired[dict[str, Any]]


class ResolveTimeCommand(ResolveTimeFields):
    """The command ``resolve_time``."""

    cmd: Literal["resolve_time"]


def resolve_time(**fields: Unpack[ResolveTimeFields]) -> ResolveTimeCommand:
    """``resolve_time``: Resolve the drawn Time token: timers, its effect, the Rest, then the
    cadence moves on."""
    return {"cmd": "resolve_time", **fields}


class ResolveTimeArgs(TypedDict):
    """What the handler of ``resolve_time`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    full_rest: dict[str, Any] | None


class SetArmourFields(Transport):
    """The fields of ``set_armour``: Set the durability left on a combatant's worn armour
    (I-C8): a carried session keeps it as the last one wore it, or the WorldKeeper mends it. Its
    name and reduction stay the sheet's. Rules: C8, I-C8, I-C8a."""

    #: combatant id
    combatant: str
    #: the durability it has left
    durability: int
    #: why (worn last session, mended), for the log
    cause: NotRequired[str]


class SetArmourCommand(SetArmourFields):
    """The command ``set_armour``."""

    cmd: Literal["set_armour"]


def set_armour(**fields: Unpack[SetArmourFields]) -> SetArmourCommand:
    """``set_armour``: Set the durability left on a combatant's worn armour (I-C8): a carried
    session keeps it as the last one wore it, or the WorldKeeper mends it. Its name and
    reduction stay the sheet's."""
    return {"cmd": "set_armour", **fields}


class SetArmourArgs(TypedDict):
    """What the handler of ``set_armour`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatant: str
    durability: int
    cause: str | None


class SetReserveFields(Transport):
    """The fields of ``set_reserve``: Make a Potential token Active Reserve, or return it to
    Potential (P17). Rules: P17."""

    #: hero id
    hero: str
    #: the hero's Potential token
    token: str
    #: true: Active Reserve; false: back to Potential
    active: bool


class SetReserveCommand(SetReserveFields):
    """The command ``set_reserve``."""

    cmd: Literal["set_reserve"]


def set_reserve(**fields: Unpack[SetReserveFields]) -> SetReserveCommand:
    """``set_reserve``: Make a Potential token Active Reserve, or return it to Potential
    (P17)."""
    return {"cmd": "set_reserve", **fields}


class SetReserveArgs(TypedDict):
    """What the handler of ``set_reserve`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    hero: str
    token: str
    active: bool


class SetStrainTokensFields(Transport):
    """The fields of ``set_strain_tokens``: Say which of the hero's Strain tokens are the ones
    in play (P14): each physical token has its own tag, so a session carried on, or a mix-up at
    the table, names them. The Strain count stays; the named tokens go into the Hero Bag, the
    others out. Rules: P14."""

    #: hero id
    hero: str
    #: the hero's Strain token ids, one per point of Strain
    tokens: list[str]


class SetStrainTokensCommand(SetStrainTokensFields):
    """The command ``set_strain_tokens``."""

    cmd: Literal["set_strain_tokens"]


def set_strain_tokens(**fields: Unpack[SetStrainTokensFields]) -> SetStrainTokensCommand:
    """``set_strain_tokens``: Say which of the hero's Strain tokens are the ones in play (P14):
    each physical token has its own tag, so a session carried on, or a mix-up at the table,
    names them. The Strain count stays; the named tokens go into the Hero Bag, the others
    out."""
    return {"cmd": "set_strain_tokens", **fields}


class SetStrainTokensArgs(TypedDict):
    """What the handler of ``set_strain_tokens`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    hero: str
    tokens: tuple[str, ...]


class SetTimeFields(Transport):
    """The fields of ``set_time``: The WorldKeeper sets the board: day, band and Minor draws
    already made (T3). Tokens on the spaces go back to their bags; timers and the Rest are
    untouched. Rules: T3."""

    #: day number
    day: NotRequired[int]
    #: band
    band: NotRequired[str]
    #: Minor draws already made in the band
    minor_done: NotRequired[int]


class SetTimeCommand(SetTimeFields):
    """The command ``set_time``."""

    cmd: Literal["set_time"]


def set_time(**fields: Unpack[SetTimeFields]) -> SetTimeCommand:
    """``set_time``: The WorldKeeper sets the board: day, band and Minor draws already made
    (T3). Tokens on the spaces go back to their bags; timers and the Rest are untouched."""
    return {"cmd": "set_time", **fields}


class SetTimeArgs(TypedDict):
    """What the handler of ``set_time`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""

    day: int | None
    band: Literal["morning", "day", "night"] | None
    minor_done: int | None


class SetTrainingFields(Transport):
    """The fields of ``set_training``: Set a hero's Training in a capability. Master and
    Exemplar change the Ember tokens (P12). Rules: P4, P12."""

    #: hero id
    hero: str
    #: Pathway, Presence or Sense
    capability: str
    #: Training level
    level: str


class SetTrainingCommand(SetTrainingFields):
    """The command ``set_training``."""

    cmd: Literal["set_training"]


def set_training(**fields: Unpack[SetTrainingFields]) -> SetTrainingCommand:
    """``set_training``: Set a hero's Training in a capability. Master and Exemplar change the
    Ember tokens (P12)."""
    return {"cmd": "set_training", **fields}


class SetTrainingArgs(TypedDict):
    """What the handler of ``set_training`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    hero: str
    capability: str
    level: Literal["untrained", "trained", "adept", "master", "exemplar"]


class SetWeatherFields(Transport):
    """The fields of ``set_weather``: The WorldKeeper changes the conditions without a draw (a
    significant event, T2). Rules: T2."""

    #: the new conditions, in words
    name: str
    #: overworld (open sky) or underworld (caves, ruins, depths); default: the current weather's
    bag: NotRequired[str]


class SetWeatherCommand(SetWeatherFields):
    """The command ``set_weather``."""

    cmd: Literal["set_weather"]


def set_weather(**fields: Unpack[SetWeatherFields]) -> SetWeatherCommand:
    """``set_weather``: The WorldKeeper changes the conditions without a draw (a significant
    event, T2)."""
    return {"cmd": "set_weather", **fields}


class SetWeatherArgs(TypedDict):
    """What the handler of ``set_weather`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    name: str
    bag: Literal["overworld", "underworld"] | None


class ShiftEscalationFields(Transport):
    """The fields of ``shift_escalation``: The WorldKeeper shifts the Moment's Escalation toward
    FOR or AGAINST (P21). Rules: P21."""

    #: which way
    direction: str
    #: how far
    steps: NotRequired[int]


class ShiftEscalationCommand(ShiftEscalationFields):
    """The command ``shift_escalation``."""

    cmd: Literal["shift_escalation"]


def shift_escalation(**fields: Unpack[ShiftEscalationFields]) -> ShiftEscalationCommand:
    """``shift_escalation``: The WorldKeeper shifts the Moment's Escalation toward FOR or
    AGAINST (P21)."""
    return {"cmd": "shift_escalation", **fields}


class ShiftEscalationArgs(TypedDict):
    """What the handler of ``shift_escalation`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    direction: Literal["for", "against"]
    steps: int


class StartCombatFields(Transport):
    """The fields of ``start_combat``: Start a fight: every combatant rolls REFLEX initiative
    (or enters the dice), tokens go on the six-tick wheel, ties on a tick roll off. Rules: C2,
    C3, I-C3."""

    #: combatant ids (default: every living combatant)
    combatants: NotRequired[list[str]]
    #: inline combatant sheets joining the roster (same keys as [[combatants]])
    add: NotRequired[list[dict[str, Any]]]
    #: entered REFLEX dice per combatant: {id: [d6, …]}
    initiative: NotRequired[dict[str, Any]]
    #: entered roll-off dice per combatant: {id: [[d6, …], …]}, one per tie
    rolloff: NotRequired[dict[str, Any]]
    #: roll the dice not entered from this seed (scripts, the demo)
    seed: NotRequired[int]


class StartCombatCommand(StartCombatFields):
    """The command ``start_combat``."""

    cmd: Literal["start_combat"]


def start_combat(**fields: Unpack[StartCombatFields]) -> StartCombatCommand:
    """``start_combat``: Start a fight: every combatant rolls REFLEX initiative (or enters the
    dice), tokens go on the six-tick wheel, ties on a tick roll off."""
    return {"cmd": "start_combat", **fields}


class StartCombatArgs(TypedDict):
    """What the handler of ``start_combat`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    combatants: tuple[str, ...] | None
    add: tuple[dict[str, Any], ...] | None
    initiative: dict[str, Any] | None
    rolloff: dict[str, Any] | None
    seed: int | None


class StartSessionFields(Transport):
    """The fields of ``start_session``: A Session begins: the board, weather and timers carry on
    (T11); if the weather is unknown, draw it now (token or seed) or the WorldKeeper is prompted
    to (T1). Rules: T1, T2, T11."""

    #: overworld (open sky) or underworld (caves, ruins, depths); default: the current weather's
    bag: NotRequired[str]
    #: token id (the registry maps a tag UID to it); omit to use seed
    token: NotRequired[str]
    #: draw at random with this seed instead of naming a token (scripts, demo)
    seed: NotRequired[int]
    #: the Session's number, when a campaign goes on from an earlier journal (default: the next one)
    number: NotRequired[int]


class StartSessionCommand(StartSessionFields):
    """The command ``start_session``."""

    cmd: Literal["start_session"]


def start_session(**fields: Unpack[StartSessionFields]) -> StartSessionCommand:
    """``start_session``: A Session begins: the board, weather and timers carry on (T11); if the
    weather is unknown, draw it now (token or seed) or the WorldKeeper is prompted to (T1)."""
    return {"cmd": "start_session", **fields}


class StartSessionArgs(TypedDict):
    """What the handler of ``start_session`` reads: every field, a default for each one omitted
    (None when it has none), an array as a tuple."""

    bag: Literal["overworld", "underworld"] | None
    token: str | None
    seed: int | None
    number: int | None


class TargetLeavesSightFields(Transport):
    """The fields of ``target_leaves_sight``: A target leaves sight: Aim at it is lost
    (everyone's, or one combatant's). Rules: C5."""

    #: the combatant who left sight
    target: str
    #: only this combatant loses sight (default: everyone)
    combatant: NotRequired[str]


class TargetLeavesSightCommand(TargetLeavesSightFields):
    """The command ``target_leaves_sight``."""

    cmd: Literal["target_leaves_sight"]


def target_leaves_sight(**fields: Unpack[TargetLeavesSightFields]) -> TargetLeavesSightCommand:
    """``target_leaves_sight``: A target leaves sight: Aim at it is lost (everyone's, or one
    combatant's)."""
    return {"cmd": "target_leaves_sight", **fields}


class TargetLeavesSightArgs(TypedDict):
    """What the handler of ``target_leaves_sight`` reads: every field, a default for each one
    omitted (None when it has none), an array as a tuple."""

    target: str
    combatant: str | None


class UndoFields(Transport):
    """The fields of ``undo``: Take back the last state-changing command (repeatable, up to the
    rules' Undo depth)."""


class UndoCommand(UndoFields):
    """The command ``undo``."""

    cmd: Literal["undo"]


def undo(**fields: Unpack[UndoFields]) -> UndoCommand:
    """``undo``: Take back the last state-changing command (repeatable, up to the rules' Undo
    depth)."""
    return {"cmd": "undo", **fields}


class UndoArgs(TypedDict):
    """What the handler of ``undo`` reads: every field, a default for each one omitted (None
    when it has none), an array as a tuple."""


#: any command of the vocabulary
AnyCommand = (
    AcceptAsDrawnCommand
    | AcknowledgePromptCommand
    | ActCommand
    | AddCombatConditionCommand
    | AddCombatantCommand
    | AdjustHeroCommand
    | AdjustRenownCommand
    | AnswerInterruptionCommand
    | AuditBagCommand
    | BeginPerformanceCommand
    | BeginRestCommand
    | CallFavorCommand
    | CancelPerformanceCommand
    | CancelTimeDrawCommand
    | ChooseFullRestCommand
    | DeclareCommand
    | DrawCommand
    | DrawTimeCommand
    | DrawWeatherCommand
    | EndCombatCommand
    | EndRestCommand
    | GrantTemporaryCommand
    | HealInjuriesCommand
    | InjureCommand
    | JoinCombatCommand
    | NoteCommand
    | RedrawCommand
    | RemoveCombatConditionCommand
    | ResetCommand
    | ResolveCommand
    | ResolveTimeCommand
    | SetArmourCommand
    | SetReserveCommand
    | SetStrainTokensCommand
    | SetTimeCommand
    | SetTrainingCommand
    | SetWeatherCommand
    | ShiftEscalationCommand
    | StartCombatCommand
    | StartSessionCommand
    | TargetLeavesSightCommand
    | UndoCommand
)

#: each command's name → its TypedDict
COMMANDS: dict[str, Any] = {
    "accept_as_drawn": AcceptAsDrawnCommand,
    "acknowledge_prompt": AcknowledgePromptCommand,
    "act": ActCommand,
    "add_combat_condition": AddCombatConditionCommand,
    "add_combatant": AddCombatantCommand,
    "adjust_hero": AdjustHeroCommand,
    "adjust_renown": AdjustRenownCommand,
    "answer_interruption": AnswerInterruptionCommand,
    "audit_bag": AuditBagCommand,
    "begin_performance": BeginPerformanceCommand,
    "begin_rest": BeginRestCommand,
    "call_favor": CallFavorCommand,
    "cancel_performance": CancelPerformanceCommand,
    "cancel_time_draw": CancelTimeDrawCommand,
    "choose_full_rest": ChooseFullRestCommand,
    "declare": DeclareCommand,
    "draw": DrawCommand,
    "draw_time": DrawTimeCommand,
    "draw_weather": DrawWeatherCommand,
    "end_combat": EndCombatCommand,
    "end_rest": EndRestCommand,
    "grant_temporary": GrantTemporaryCommand,
    "heal_injuries": HealInjuriesCommand,
    "injure": InjureCommand,
    "join_combat": JoinCombatCommand,
    "note": NoteCommand,
    "redraw": RedrawCommand,
    "remove_combat_condition": RemoveCombatConditionCommand,
    "reset": ResetCommand,
    "resolve": ResolveCommand,
    "resolve_time": ResolveTimeCommand,
    "set_armour": SetArmourCommand,
    "set_reserve": SetReserveCommand,
    "set_strain_tokens": SetStrainTokensCommand,
    "set_time": SetTimeCommand,
    "set_training": SetTrainingCommand,
    "set_weather": SetWeatherCommand,
    "shift_escalation": ShiftEscalationCommand,
    "start_combat": StartCombatCommand,
    "start_session": StartSessionCommand,
    "target_leaves_sight": TargetLeavesSightCommand,
    "undo": UndoCommand,
}
