"""Combatant sheets from the table file's ``[[combatants]]`` (or inline in ``start_combat``).

One parser for both sources; it raises :class:`RosterError` with the key and the
fix, which the table loader turns into a :class:`ConfigError` (file, key, fix)
and ``start_combat`` into a refused command.

```toml
[[combatants]]
id = "aria"
hero = "aria"            # optional: the hero this combatant is (name comes from the hero)
side = "heroes"          # optional, for the panel
reflex = 3               # attribute dice pools (C3, C6, C8)
might = 3
dodge = 3
parry = 2
fortitude = 3
speed = 6                # Move covers speed, Dash twice speed (C7)
renown = 1               # C11
weapon = { name = "sabre", damage = 2, injury = "bleeding" }       # DAMAGE dice (C6, C9)
armour = { name = "leather", reduction = 1, durability = 4 }       # I-C8
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.combat.rules import CombatRules, check
from engine.combat.state import ATTRIBUTES, Armour, Combat, Combatant, Weapon
from engine.immutable import replace
from engine.rules import bound, shipped_rules
from engine.state import TableState
from engine.table import section
from settings.checker import unknown_key
from settings.errors import ConfigError

_KEYS = {"id", "name", "hero", "side", *ATTRIBUTES, "speed", "renown", "weapon", "armour"}
_WEAPON_KEYS = {"name", "damage", "injury", "attribute"}
_ARMOUR_KEYS = {"name", "reduction", "durability"}


class RosterError(ValueError):
    """A combatant entry that cannot be used; the message names the key and the fix."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        #: the rule id the entry breaks, when there is one (a pool past its bound: I-C2a)
        self.rule = rule


def _count(
    data: Mapping[str, Any],
    key: str,
    where: str,
    rules: Mapping[str, Any],
    name: str = "pool",
    default: int | None = None,
) -> int:
    """A whole number of the sheet within the rules data's ``[bounds.<name>]`` (I-C2a)."""
    value = data.get(key, default)
    low, high = bound(rules, name)
    if value is None:
        raise RosterError(f"{where}: add {key} = <dice> (a whole number from {low} to {high})")
    if not isinstance(value, int) or isinstance(value, bool):
        raise RosterError(f"{where}.{key} must be a whole number ≥ {low}, not {value!r}")
    if not low <= value <= high:
        entry = rules["bounds"][name]
        ceiling = shipped_rules()["bounds"][name]["ceiling"]
        rule = entry.get("rule")
        raise RosterError(
            f"{where}.{key} must be a whole number from {low} to {high}, not {value}"
            f" ({rule}, bounds.{name}):"
            f" {entry['why']}. Fix: use {low} to {high}, or raise [rules.bounds.{name}]"
            f" maximum in the table file (up to {ceiling})",
            rule,
        )
    return value


def _table(value: Any, where: str, keys: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RosterError(f"{where} must be a table like {{ {', '.join(sorted(keys))} }}")
    unknown = set(value) - keys
    if unknown:
        raise RosterError(str(unknown_key(where, sorted(unknown)[0], sorted(keys))))
    return value


def parse_combatant(
    entry: Any, where: str, rules: Mapping[str, Any], heroes: Mapping[str, str]
) -> Combatant:
    """One combatant sheet; ``heroes`` maps hero ids to names for ``hero = "…"`` links."""
    r = CombatRules(rules)
    data = _table(entry, where, _KEYS)
    cid = data.get("id")
    if not isinstance(cid, str) or not cid or "." in cid:
        raise RosterError(f'{where}.id must be a short name without dots, like "goblin1"')
    hero = data.get("hero")
    if hero is not None and hero not in heroes:
        known = ", ".join(sorted(heroes)) or "none"
        raise RosterError(f"{where}.hero = {hero!r} is not a hero of this table (heroes: {known})")
    name = data.get("name") or (heroes[hero] if hero is not None else cid.title())
    side = data.get("side")
    if side is not None and not isinstance(side, str):
        raise RosterError(f"{where}.side must be a name")
    defaults = r.defaults
    w = _table(data.get("weapon", {}), f"{where}.weapon", _WEAPON_KEYS)
    injury = w.get("injury", defaults["injury"])
    if injury not in r.injury_types:
        raise RosterError(
            f"{where}.weapon.injury = {injury!r}: use one of {', '.join(r.injury_types)} (C9)"
        )
    attribute = w.get("attribute", r.attack_attribute)
    if attribute not in ATTRIBUTES:
        raise RosterError(
            f"{where}.weapon.attribute = {attribute!r}: use one of {', '.join(ATTRIBUTES)}"
        )
    weapon = Weapon(
        name=str(w.get("name", defaults["weapon"])),
        damage=_count(
            w, "damage", f"{where}.weapon", rules, default=int(defaults["weapon_damage"])
        ),
        injury=str(injury),
        attribute=str(attribute),
    )
    a = _table(data.get("armour", {}), f"{where}.armour", _ARMOUR_KEYS)
    armour = Armour(
        name=str(a.get("name", "armour" if a else "none")),
        reduction=_count(a, "reduction", f"{where}.armour", rules, default=0),
        durability=_count(a, "durability", f"{where}.armour", rules, "durability", 0),
    )
    renown = data.get("renown", r.renown_start)
    if not isinstance(renown, int) or isinstance(renown, bool):
        raise RosterError(f"{where}.renown must be a whole number (it may be negative, C11)")
    renown = _count({"renown": renown}, "renown", where, rules, "renown")
    return Combatant(
        id=cid,
        name=str(name),
        hero=hero,
        side=side,
        reflex=_count(data, "reflex", where, rules),
        might=_count(data, "might", where, rules),
        dodge=_count(data, "dodge", where, rules),
        parry=_count(data, "parry", where, rules),
        fortitude=_count(data, "fortitude", where, rules),
        speed=_count(data, "speed", where, rules, "speed"),
        weapon=weapon,
        armour=armour,
        renown=renown,
    )


#: the interpretation that bounds the roster (docs/rules.md): ``limits.roster`` combatants
ROSTER_RULE = "I-C2b"


def roster_room(rules: Mapping[str, Any], size: int) -> str | None:
    """Why a roster of ``size`` combatants is past ``limits.roster`` (I-C2b); None when it
    fits. The rules data's number, never a literal here; a table cannot change it."""
    most = int(rules["limits"]["roster"])
    if size <= most:
        return None
    return (
        f"the roster would hold {size} combatants, more than {most}"
        f" (limits.roster, {ROSTER_RULE}): {rules['limits']['why']['roster']}"
    )


def hero_names(state: TableState) -> dict[str, str]:
    return {h.id: h.name for h in state.heroes.values()}


@section("combatants")
def load_combatants(state: TableState, data: Any, source: str) -> TableState:
    """The table file's ``[[combatants]]``; also checks the table's combat rules."""
    check(state.rules, source)
    if data is None:
        return state
    if not isinstance(data, list):
        raise ConfigError(f"{source}: combatants must be a list of [[combatants]] tables")
    roster: dict[str, Combatant] = {}
    for i, entry in enumerate(data):
        try:
            c = parse_combatant(entry, f"combatants[{i}]", state.rules, hero_names(state))
        except RosterError as e:
            raise ConfigError(f"{source}: {e}") from None
        if c.id in roster:
            raise ConfigError(f"{source}: combatants[{i}].id {c.id!r} is used twice")
        roster[c.id] = c
    combat = state.combat or Combat()
    too_many = roster_room(state.rules, len({**combat.roster, **roster}))
    if too_many:
        raise ConfigError(
            f"{source}: combatants: {too_many}. Fix: keep at most"
            f" {state.rules['limits']['roster']} [[combatants]] in the table file (a foe met"
            " later can be added during the session with add_combatant)"
        )
    return replace(state, combat=replace(combat, roster={**combat.roster, **roster}))
