"""The closed vocabularies of the rules, as ``Literal``s: what the view and the events may say.

Each is the value set of one of the engine's enums (``TokenKind``, ``Band`` …), which
declares it as its ``_value_`` type, so ``kind.value`` is this ``Literal`` for mypy and a
member missing here is an error where the view or an event is built. The JSON Schemas give
each an ``enum`` and the pages' generated types a union, so a new token kind (say) is a
compile error in each reader that must learn it: an exhaustive ``match`` ending in
``assert_never`` in Python (``display/viewmodel.py``), a ``Record<TokenKind, …>`` or a
``never`` check in TypeScript (``web/src/tokenart.ts``). ``tests/engine/contracts`` keeps
each equal to its enum.

Pure typing: it imports nothing of the engine.
"""

from typing import Literal

#: a token's kind (engine.tokens.TokenKind): what it is on the Draw Board
TokenKindName = Literal[
    "ember", "potential", "weight", "strain", "favor", "time", "weather", "temporary"
]
#: a declared Shade (P1, engine.tokens.Shade); Gray Versatility is never declared
ShadeName = Literal["control", "impulse"]
#: a Training level, in order (P4, engine.tokens.Training)
TrainingName = Literal["untrained", "trained", "adept", "master", "exemplar"]
#: the Performance Wheel's four actions (P3, engine.tokens.Action)
ActionName = Literal["target", "defend", "gain", "spend"]
#: the Moment Board's commitments (P5, engine.tokens.Moment)
MomentName = Literal["prepare", "advance", "breakthrough"]
#: WEIGHT OFF, or ON as MASS or LIGHT (P16, engine.tokens.WeightMode)
WeightName = Literal["off", "mass", "light"]
#: the Time Board's bands, in the order they run (T3, engine.time.board.Band)
BandName = Literal["morning", "day", "night"]
#: Minor or Major Time (T4, T5, engine.time.board.Size)
SizeName = Literal["minor", "major"]
#: a Safe or an Unsafe Rest (T10, engine.time.board.RestKind)
RestKindName = Literal["safe", "unsafe"]
#: during a Rest a hero rests or keeps watch (T9, engine.time.board.Role)
RoleName = Literal["resting", "watch"]
#: what a Time Board prompt asks of the WorldKeeper (engine.time.board.PromptKind): a Time
#: token's result (T4, T5), the unknown weather (T1), an Unsafe Rest's interruption (T10),
#: the coming Full Rest's choice (T8)
PromptKindName = Literal["weather", "opportunity", "event", "escalation", "interrupt", "full_rest"]
#: the five combat actions (C1, engine.combat.state.ActionKind)
CombatActionName = Literal["aim", "attack", "dash", "guard", "move"]
#: a move the odds advise (P11, P18; engine.performance.combinatorics.MoveValue), in the order
#: a tie prefers them
AdviceActionName = Literal["draw", "resolve", "redraw", "call_favor"]
