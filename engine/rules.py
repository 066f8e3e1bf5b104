"""The shipped rules TOML, a table's overrides, and typed access to both.

The engine never writes a rules number in code: it asks :class:`Rules`. A table
overrides any value by repeating its key (``[rules.exertion] fatigue = 3``);
a key the shipped file does not have is refused, so a typo cannot silently do
nothing.
"""

from __future__ import annotations

import copy
import tomllib
from importlib import resources
from typing import Any

from engine.errors import ConfigError

_DEFAULTS: dict[str, Any] | None = None


def default_rules() -> dict[str, Any]:
    """A fresh copy of the shipped rules data."""
    global _DEFAULTS
    if _DEFAULTS is None:
        text = resources.files("engine").joinpath("data/rules.toml").read_text("utf-8")
        _DEFAULTS = tomllib.loads(text)
    return copy.deepcopy(_DEFAULTS)


def merge_rules(
    base: dict[str, Any], override: dict[str, Any], source: str = "table", path: str = "rules"
) -> dict[str, Any]:
    """Deep-merge ``override`` into a copy of ``base``; refuse unknown keys and type changes."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        where = f"{path}.{key}"
        if key not in out:
            known = ", ".join(sorted(k for k in out if k != "rule"))
            raise ConfigError(f"{source}: unknown rules key {where!r} (known here: {known})")
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


class Rules:
    """Read-only, typed view over a rules dict.

    >>> r = Rules(default_rules())
    >>> r.draws_for("trained"), r.gain_fatigue("master")
    (3, 0)
    """

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
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
