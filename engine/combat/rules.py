"""Typed access to the ``[combat]`` rules data (C1–C11 and their interpretations).

The engine asks these properties instead of writing a rules number in code. A
table may override any value under ``[rules.combat…]``; :func:`check` refuses
values the engine cannot play (an unknown choice, a negative cost) when the
table loads, so a typo is a clear error instead of a strange fight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.combat.state import ATTRIBUTES, ActionKind
from settings.errors import ConfigError

_CHOICES = {
    ("initiative", "score"): ("sum", "highest"),
    ("initiative", "placement"): ("successive",),
    ("joining", "equal_initiative"): ("after",),
    ("aim", "bonus_die"): ("highest",),
    ("attack", "ties_to"): ("defender", "attacker"),
    ("attack", "unmatched_die"): ("wins", "ignored"),
    ("attack", "default_defense"): ("dodge", "parry", "best"),
    ("attack", "attribute"): ATTRIBUTES,
    ("damage", "armour_removes"): ("highest",),
    ("damage", "unmatched_die"): ("wins", "ignored"),
}


#: keys that must be at least 1 wherever they stand (a level, a divisor); every other
#: whole number in ``[combat]`` is at least 0, except the renown a combatant starts with
_AT_LEAST = {"max_level": 1, "speed_divisor": 1, "max_pool": 1}


def _numbers(data: dict[str, Any], path: str, rule: str) -> list[tuple[str, int, str]]:
    """Every whole number under ``data`` with its dotted key and the rule id of its table
    (booleans are not numbers)."""
    rule = str(data.get("rule", rule))
    out: list[tuple[str, int, str]] = []
    for key, value in data.items():
        where = f"{path}.{key}"
        if isinstance(value, dict):
            out += _numbers(value, where, rule)
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append((where, value, rule))
    return out


class CombatRules:
    """Read-only view over ``rules["combat"]``.

    >>> from engine.rules import default_rules
    >>> r = CombatRules(default_rules())
    >>> r.cost("attack"), r.wheel_ticks, r.aim_bonus(3)
    (3, 6, 6)
    """

    __slots__ = ("data",)

    def __init__(self, rules: Mapping[str, Any]) -> None:
        self.data: dict[str, Any] = rules["combat"]

    # C1, C2
    def cost(self, action: str) -> int:
        return int(self.data["costs"][action])

    @property
    def wheel_ticks(self) -> int:
        return int(self.data["wheel_ticks"])

    def speed_multiple(self, action: str) -> int:
        """How many times its speed a Move or Dash takes the combatant (C7)."""
        return int(self.data["movement"][action])

    # C3
    @property
    def initiative_score(self) -> str:
        return str(self.data["initiative"]["score"])

    @property
    def rolloff_limit(self) -> int:
        return int(self.data["initiative"]["rolloff_limit"])

    # I-C3b
    @property
    def join_delay(self) -> int:
        """Ticks after the tick now acting that a newcomer's token waits (I-C3b)."""
        return int(self.data["joining"]["delay_ticks"])

    # C5
    @property
    def aim_max_ticks(self) -> int:
        return int(self.data["aim"]["max_ticks"])

    def aim_bonus(self, ticks: int) -> int:
        return int(self.data["aim"]["bonus_per_tick"]) * ticks

    @property
    def aim_kept_through_other_actions(self) -> bool:
        return bool(self.data["aim"]["kept_through_other_actions"])

    # C6, C7
    @property
    def ties_to_attacker(self) -> bool:
        return bool(self.data["attack"]["ties_to"] == "attacker")

    def unmatched_wins(self, roll: str = "attack") -> bool:
        """I-C6a for the ``"attack"`` (ATTACK vs DEFENSE) or ``"damage"`` (vs FORTITUDE) roll."""
        return bool(self.data[roll]["unmatched_die"] == "wins")

    @property
    def guard_dice(self) -> int:
        return int(self.data["attack"]["guard_dice"])

    @property
    def default_defense(self) -> str:
        return str(self.data["attack"]["default_defense"])

    @property
    def damage_dice_per_success(self) -> int:
        return int(self.data["attack"]["damage_dice_per_success"])

    @property
    def max_pool(self) -> int:
        return int(self.data["attack"]["max_pool"])

    @property
    def attack_attribute(self) -> str:
        return str(self.data["attack"]["attribute"])

    def flags(self, roll: str = "attack") -> dict[str, bool]:
        """The comparison switches of the ``"attack"`` or ``"damage"`` roll (I-C6, I-C6a)."""
        return {
            "ties_to_attacker": self.ties_to_attacker,
            "unmatched_wins": self.unmatched_wins(roll),
        }

    # C8, C9
    @property
    def armour_limited_by_durability(self) -> bool:
        return bool(self.data["damage"]["limited_by_durability"])

    @property
    def fortitude_dice_per_injury(self) -> int:
        return int(self.data["damage"]["fortitude_dice_per_injury"])

    @property
    def death_multiplier(self) -> int:
        return int(self.data["death"]["multiplier"])

    @property
    def injury_types(self) -> tuple[str, ...]:
        return tuple(k for k in self.data["injuries"] if k != "rule")

    def injury(self, name: str) -> dict[str, Any]:
        out: dict[str, Any] = self.data["injuries"][name]
        return out

    # C10
    @property
    def condition_names(self) -> tuple[str, ...]:
        return tuple(k for k in self.data["conditions"] if k != "rule")

    def condition(self, name: str) -> dict[str, Any]:
        out: dict[str, Any] = self.data["conditions"][name]
        return out

    # defaults, C11
    @property
    def defaults(self) -> dict[str, Any]:
        out: dict[str, Any] = self.data["defaults"]
        return out

    @property
    def renown_start(self) -> int:
        return int(self.data["renown"]["start"])


def check(rules: Mapping[str, Any], source: str) -> None:
    """Refuse combat rules values the engine cannot play; the message names the key."""
    data = rules["combat"]
    for (sec, key), allowed in _CHOICES.items():
        if data[sec][key] not in allowed:
            raise ConfigError(
                f"{source}: rules.combat.{sec}.{key} = {data[sec][key]!r}:"
                f" use one of {', '.join(allowed)}"
            )
    if int(data["wheel_ticks"]) < 1:
        raise ConfigError(f"{source}: rules.combat.wheel_ticks must be at least 1")
    ticks = int(data["wheel_ticks"])
    for action in ActionKind:
        cost = int(data["costs"][action.value])
        if cost < 1:
            raise ConfigError(
                f"{source}: rules.combat.costs.{action.value} must be at least 1 tick"
            )
        # The tick loop counts time from the start of the fight; that is the physical
        # wheel only while no token goes more than once round it in one move (C2, C4).
        if cost > ticks:
            raise ConfigError(
                f"{source}: rules.combat.costs.{action.value} = {cost} [C1]: a token moves at"
                f" most once round the wheel (rules.combat.wheel_ticks = {ticks});"
                f" use a cost from 1 to {ticks}"
            )
    delay = int(data["joining"]["delay_ticks"])
    if delay > ticks:
        raise ConfigError(
            f"{source}: rules.combat.joining.delay_ticks = {delay} [I-C3b]: a newcomer waits"
            f" at most once round the wheel; use 0 to {ticks}"
        )
    for path, value, rule in _numbers(data, "rules.combat", "C2"):
        least = _AT_LEAST.get(path.rsplit(".", 1)[-1], 0)
        if path != "rules.combat.renown.start" and value < least:
            raise ConfigError(
                f"{source}: {path} = {value} [{rule}]: use a whole number ≥ {least}"
                " (dice, ticks, levels and multipliers are never negative)"
            )
    r = CombatRules(rules)
    if r.defaults["injury"] not in r.injury_types:
        raise ConfigError(
            f"{source}: rules.combat.defaults.injury must be one of {', '.join(r.injury_types)}"
        )
    for name in r.condition_names:
        for action in r.condition(name)["blocks"]:
            if action not in tuple(ActionKind):
                raise ConfigError(
                    f"{source}: rules.combat.conditions.{name}.blocks: {action!r} is not an action"
                    f" (use {', '.join(ActionKind)})"
                )
