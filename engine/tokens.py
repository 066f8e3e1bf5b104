"""Tokens, the Shades and Training levels, and what a drawn token is worth (P1, P12–P18).

A token is a physical thing with an RFID tag. Its identity never changes; what it
is *worth* depends on the declaration it is drawn into (declared Shade, the
Capability used, the Weight mode) and on its owner's Training — so value is a
function, never a stored number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.contracts.terms import (
    ActionName,
    MomentName,
    ShadeName,
    TokenKindName,
    TrainingName,
    WeightName,
)


class Shade(StrEnum):
    """A declared Shade (P1). Gray Versatility is never declared."""

    _value_: ShadeName

    CONTROL = "control"
    IMPULSE = "impulse"

    @property
    def opposite(self) -> Shade:
        return Shade.IMPULSE if self is Shade.CONTROL else Shade.CONTROL


class Training(StrEnum):
    """Training levels in order (P4)."""

    _value_: TrainingName

    UNTRAINED = "untrained"
    TRAINED = "trained"
    ADEPT = "adept"
    MASTER = "master"
    EXEMPLAR = "exemplar"

    @property
    def rank(self) -> int:
        return _TRAINING_ORDER.index(self)

    def at_least(self, other: Training | str) -> bool:
        return self.rank >= Training(other).rank


_TRAINING_ORDER = list(Training)


class Action(StrEnum):
    """The four action icons on the Performance Wheel (P3)."""

    _value_: ActionName

    TARGET = "target"
    DEFEND = "defend"
    GAIN = "gain"
    SPEND = "spend"

    @property
    def checks(self) -> bool:
        """A Gain makes no check (P7): it draws nothing, so no Redraw, Favor or Intersect."""
        return self is not Action.GAIN

    @property
    def names_reserve(self) -> bool:
        """A Gain may name a Potential token to make Active Reserve (P17) and a Spend names the
        Active Reserve token it uses (P8); Target and Defend name none (P3)."""
        return self is Action.GAIN or self is Action.SPEND


class Moment(StrEnum):
    """The Moment Board commitment (P5)."""

    _value_: MomentName

    PREPARE = "prepare"
    ADVANCE = "advance"
    BREAKTHROUGH = "breakthrough"


class WeightMode(StrEnum):
    """WEIGHT OFF, or ON as MASS or LIGHT (P16, I-P16)."""

    _value_: WeightName

    OFF = "off"
    MASS = "mass"
    LIGHT = "light"


class TokenKind(StrEnum):
    _value_: TokenKindName

    EMBER = "ember"
    POTENTIAL = "potential"
    WEIGHT = "weight"
    STRAIN = "strain"
    FAVOR = "favor"
    TIME = "time"
    WEATHER = "weather"
    TEMPORARY = "temporary"  # Purity, Link, RESTORE, VIGOR (T12)


@dataclass(frozen=True, slots=True)
class Token:
    """One physical token.

    ``shade`` is an Ember's Shade (control / versatility / impulse) or a Favor
    token's relation (control / gray / impulse / xul / xantyr). ``face`` names
    what a Time, Weather or temporary token shows.
    """

    id: str
    kind: TokenKind
    bag: str
    name: str
    shade: str | None = None
    pathway: str | None = None
    weight: int | None = None
    deity: str | None = None
    ordinal: int = 1
    face: str | None = None


@dataclass(frozen=True, slots=True)
class ValueContext:
    """What a token's worth depends on, besides the token."""

    shade: Shade
    capability: str
    weight_mode: WeightMode
    training: Training  # the owner's Training in ``capability``
    active_reserve: bool = False


def shade_value(table: dict[str, int], token_shade: str, declared: Shade, opposite: int) -> int:
    """Value of a Shade-bearing token: its own Shade or Versatility counts, the opposite does not."""
    if token_shade == "versatility":
        return int(table["versatility"])
    if token_shade == declared.value:
        return int(table[token_shade])
    return opposite


def token_value(token: Token, ctx: ValueContext, rules: Mapping[str, Any]) -> int:
    """What ``token`` adds to the Performance Total when drawn into ``ctx``."""
    kind = token.kind
    if kind is TokenKind.EMBER:
        ember = rules["ember"]
        table = ember["normal"]
        if token.pathway == ctx.capability:
            if ctx.training is Training.EXEMPLAR:
                table = ember["exemplar_own_pathway"]
            elif ctx.training is Training.MASTER:
                table = ember["master_own_pathway"]
        assert token.shade is not None
        return shade_value(table, token.shade, ctx.shade, int(rules["shade"]["opposite_value"]))
    if kind is TokenKind.POTENTIAL:
        p = rules["potential"]
        if ctx.active_reserve:
            own = token.pathway == ctx.capability
            return int(p["reserve_own_pathway_value"] if own else p["reserve_value"])
        return int(p["value"])
    if kind is TokenKind.WEIGHT:
        return int(rules["weight"][ctx.weight_mode.value][str(token.weight)])
    if kind is TokenKind.STRAIN:
        return int(rules["strain"]["value"])
    if kind is TokenKind.FAVOR:
        return favor_value(token, ctx.shade, rules)
    if kind is TokenKind.TEMPORARY:
        values = rules.get("temporary", {}).get("values", {})
        return int(values.get(token.face or "", 0))
    return 0


def favor_value(token: Token, declared: Shade, rules: Mapping[str, Any]) -> int:
    """P18: Matching +2V, Gray +1V, Opposite 0V, Xul +4V, Xantyr −4V (values from the rules data)."""
    f = rules["favor"]
    shade = token.shade
    if shade in ("xul", "xantyr", "gray"):
        return int(f[shade])
    return int(f["matching"] if shade == declared.value else f["opposite"])
