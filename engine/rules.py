"""The shipped rules TOML, a table's overrides, and typed access to both.

The engine never writes a rules number in code: it asks :class:`Rules`. A table
overrides any value by repeating its key (``[rules.exertion] fatigue = 3``);
a key the shipped file does not have is refused, so a typo cannot silently do
nothing.
"""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Mapping
from typing import Any

from engine.tokens import Training
from settings.checker import unknown_key
from settings.errors import ConfigError

_SHIPPED: dict[str, Any] | None = None


def shipped_rules() -> Mapping[str, Any]:
    """The shipped rules data, parsed once and shared: read it, never change it.

    Every table, the command schema and the input limits start from it; reading it without a
    copy keeps ``import engine`` (and so the CLI's cold start) from deep-copying the whole
    file once per constant. A caller that builds a rules dict of its own takes
    :func:`default_rules` (or :func:`merge_rules`, which copies).
    """
    global _SHIPPED
    if _SHIPPED is None:
        # beside this module, as the package ships it (pyproject's package-data); a plain open,
        # not importlib.resources, whose zip support imports zipfile, tempfile and random at the
        # CLI's cold start (docs/performance.md)
        path = os.path.join(os.path.dirname(__file__), "data", "rules.toml")
        with open(path, encoding="utf-8") as f:
            _SHIPPED = tomllib.loads(f.read())
    return _SHIPPED


def default_rules() -> dict[str, Any]:
    """A fresh copy of the shipped rules data, the caller's to change."""
    return copy.deepcopy(dict(shipped_rules()))


def merge_rules(
    base: Mapping[str, Any], override: dict[str, Any], source: str = "table", path: str = "rules"
) -> dict[str, Any]:
    """Deep-merge ``override`` into a copy of ``base``; refuse unknown keys and type changes."""
    out = copy.deepcopy(dict(base))
    for key, value in override.items():
        where = f"{path}.{key}"
        if key not in out:
            known = sorted(k for k in out if k != "rule")
            raise unknown_key(f"{source}: {path}", key, known)
        old = out[key]
        if isinstance(old, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {where} must be a table of values")
            out[key] = merge_rules(old, value, source, where)
        elif isinstance(old, bool) != isinstance(value, bool) or not isinstance(
            value, type(old) if not isinstance(old, int) or isinstance(old, bool) else int
        ):
            raise ConfigError(
                f"{source}: {where} must be {type(old).__name__} like the shipped value {old!r}"
            )
        else:
            out[key] = copy.deepcopy(value)
    return out


#: rules values that name a choice, for the Performance and Time parts: the key's path, the
#: choices the engine plays and the rule id (the combat wheel checks its own, engine.combat.rules)
_TRAINING = tuple(t.value for t in Training)
_CHOICES: dict[tuple[str, ...], tuple[tuple[str, ...], str]] = {
    ("training", "exert_only"): (_TRAINING, "P9"),
    ("training", "intersect_minimum"): (_TRAINING, "P10"),
    ("training", "redraw_minimum"): (_TRAINING, "P11"),
    ("intersect", "mode"): (("sum", "separate"), "I-P10"),
    ("health", "fatigue_overflow"): (("discard", "carry"), "I-P13"),
    ("time", "tokens_return"): (("band_end", "resolved"), "T3"),
    ("rest", "default_choice"): (("strain_if_no_fatigue", "fatigue", "strain"), "I-T8"),
}
#: whole numbers that must be at least 1 for the rules to make sense
_AT_LEAST_ONE: dict[tuple[str, ...], str] = {
    ("draws", "minimum"): "P15",
    ("draws", "maximum"): "P11",
    ("time", "minor_per_band"): "T3",
    ("rest", "full_rest_draws"): "T8",
}


def check_rules(rules: dict[str, Any], source: str) -> None:
    """Refuse Performance and Time rules values the engine cannot play, when the table loads.

    The merge already refuses unknown keys and wrong types; this catches a misspelt choice
    (``intersect.mode = "summ"`` would silently play as "separate") and values that would
    fail in play, naming the key, the choices and the rule id.
    """

    def value(path: tuple[str, ...]) -> Any:
        out: Any = rules
        for key in path:
            out = out[key]
        return out

    if rules["limits"] != shipped_rules()["limits"]:
        raise ConfigError(
            f"{source}: rules.limits cannot be changed by a table: they bound every input the"
            " service takes, and the published command schema states them (docs/commands.md,"
            " Limits). Fix: remove [rules.limits] from the table file"
        )
    for path, (choices, rule) in _CHOICES.items():
        if value(path) not in choices:
            raise ConfigError(
                f"{source}: rules.{'.'.join(path)} = {value(path)!r}: use one of"
                f" {', '.join(choices)} ({rule})"
            )
    for path, rule in _AT_LEAST_ONE.items():
        if value(path) < 1:
            raise ConfigError(f"{source}: rules.{'.'.join(path)} must be at least 1 ({rule})")
    weight = rules["weight"]
    for mode in ("off", "mass", "light"):
        for printed in weight["tokens"]:
            if str(printed) not in weight[mode]:
                raise ConfigError(
                    f"{source}: rules.weight.tokens has a Weight {printed!r}, but"
                    f" rules.weight.{mode} gives no value for it: printed weights are"
                    f" {', '.join(weight[mode])} (P16)"
                )
    check_bounds(rules, source)
    for face, timer in rules["temporary"]["timers"].items():
        if timer["on"] not in ("minor", "major") or timer["count"] < 1:
            raise ConfigError(
                f"{source}: rules.temporary.timers.{face} = {timer!r}: on is"
                ' "minor" or "major", count at least 1 (T12)'
            )


def _lookup(node: Any, path: list[str]) -> tuple[int, str]:
    """The whole number at ``path`` (``*``: the largest under every table there) and its key."""
    if not path:
        return int(node), ""
    head, *rest = path
    if head == "*":
        found = [(_lookup(v, rest), k) for k, v in node.items() if isinstance(v, Mapping)]
        (value, key), name = max(found)
        return value, f"{name}.{key}".rstrip(".")
    value, key = _lookup(node[head], rest)
    return value, f"{head}.{key}".rstrip(".")


def bound_value(rules: Mapping[str, Any], value: int | str) -> tuple[int, str | None]:
    """A ``[bounds]`` minimum or maximum: a number, or the rules key it names (``-key``: its
    negative; ``a.*.b``: the largest ``b``), with the dotted key it came from (None: a number).

    >>> bound_value(default_rules(), "combat.conditions.*.max_level")
    (6, 'combat.conditions.fatigued.max_level')
    """
    if isinstance(value, int):
        return value, None
    sign = -1 if value.startswith("-") else 1
    number, key = _lookup(rules, value.lstrip("-").split("."))
    return sign * number, key


def bound(rules: Mapping[str, Any], name: str) -> tuple[int, int]:
    """The smallest and largest value ``[bounds.<name>]`` allows under ``rules``.

    >>> bound(default_rules(), "difficulty"), bound(default_rules(), "pool")
    ((3, 8), (0, 12))
    """
    entry = rules["bounds"][name]
    return bound_value(rules, entry["minimum"])[0], bound_value(rules, entry["maximum"])[0]


def check_bounds(rules: Mapping[str, Any], source: str) -> None:
    """A table may change a bound's numeric maximum, up to its ceiling, and nothing else.

    A bound that names another rules value (``difficulty.maximum``) follows that value, which
    must stay under the ceiling too. The message names the file, the key, the ceiling and
    the fix.
    """
    shipped = shipped_rules()["bounds"]
    for name, entry in rules["bounds"].items():
        ship = shipped[name]
        ceiling = int(ship["ceiling"])
        rule = f" ({ship['rule']})" if "rule" in ship else ""
        for key, value in entry.items():
            if value == ship[key] or (key == "maximum" and isinstance(ship[key], int)):
                continue
            fix = f"remove rules.bounds.{name}.{key} from the table file"
            if key == "maximum":
                fix += f"; the bound follows rules.{ship[key]}: change that (at most {ceiling})"
            else:
                fix += f"; a table may set rules.bounds.{name}.maximum, up to {ceiling}"
            raise ConfigError(
                f"{source}: rules.bounds.{name}.{key} cannot be changed by a table: it is the"
                f" shipped bound's{rule}. Fix: {fix}"
            )
        low = bound_value(rules, entry["minimum"])[0]
        high, where = bound_value(rules, entry["maximum"])
        key = f"rules.{where}" if where else f"rules.bounds.{name}.maximum"
        if high > ceiling:
            raise ConfigError(
                f"{source}: {key} = {high} is past the hard ceiling {ceiling} of bounds.{name}"
                f"{rule}, which no table can exceed: {ship['why']}. Fix: set {key} to at most"
                f" {ceiling}"
            )
        if high < low:
            raise ConfigError(
                f"{source}: {key} = {high} is below the bound's minimum {low}"
                f" (bounds.{name}{rule}). Fix: set {key} to at least {low}"
            )


class Rules:
    """Read-only, typed view over a rules dict.

    >>> r = Rules(default_rules())
    >>> r.draws_for("trained"), r.gain_fatigue("master")
    (3, 0)
    """

    __slots__ = ("data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data

    def __getitem__(self, section: str) -> Any:
        return self.data[section]

    def draws_for(self, training: str) -> int:
        return int(self.data["draws"][training])

    def gain_fatigue(self, training: str) -> int:
        return int(self.data["gain"][training])

    @property
    def difficulty_range(self) -> tuple[int, int]:
        d = self.data["difficulty"]
        return int(d["minimum"]), int(d["maximum"])

    @property
    def undo_depth(self) -> int:
        return int(self.data["undo"]["depth"])
