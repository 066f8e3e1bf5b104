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
# what a session left on the sheet (``rhuna-table sheet`` writes them; table file only):
injuries = [{ type = "bleeding", hits = 2, cause = "captain" }]     # C8, C9
conditions = [{ name = "cursed", level = 1, attribute = "might" }]  # C10
dead = true              # C9: only with more than twice FORTITUDE in injuries
```

``injuries``, ``conditions`` and ``dead`` are the table file's alone (:func:`carried_state`):
an inline sheet (``start_combat``'s ``add``, ``add_combatant``) starts unhurt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.combat.rules import CombatRules, check
from engine.combat.state import (
    ATTRIBUTES,
    Armour,
    Combat,
    Combatant,
    Condition,
    Injury,
    Weapon,
)
from engine.immutable import replace
from engine.rules import bound, shipped_rules
from engine.state import TableState
from engine.table import section
from settings.checker import unknown_key
from settings.errors import ConfigError

_KEYS = {"id", "name", "hero", "side", *ATTRIBUTES, "speed", "renown", "weapon", "armour"}
_WEAPON_KEYS = {"name", "damage", "injury", "attribute"}
_ARMOUR_KEYS = {"name", "reduction", "durability"}
#: what a session leaves on a sheet: the table file's keys only (``rhuna-table sheet``)
CARRIED_KEYS = {"injuries", "conditions", "dead"}
_INJURY_KEYS = {"type", "hits", "detail", "cause"}
_CONDITION_KEYS = {"name", "level", "attribute", "source"}


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


def _text(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RosterError(f"{where} must be text, not {value!r}")
    return value


def _entries(data: Mapping[str, Any], key: str, where: str, keys: set[str]) -> list[Any]:
    value = data.get(key, [])
    example = ", ".join(sorted(keys))
    if not isinstance(value, list):
        raise RosterError(f"{where}.{key} must be a list of tables like [{{ {example} }}]")
    return [_table(v, f"{where}.{key}[{i}]", keys) for i, v in enumerate(value)]


def carried_state(
    c: Combatant, data: Mapping[str, Any], where: str, rules: Mapping[str, Any]
) -> Combatant:
    """``c`` with the ``injuries``, ``conditions`` and ``dead`` of its table-file entry: what
    a session left on the sheet (C8–C10). Each is checked as the commands that make it check
    it (``injure``, ``add_combat_condition``); ``dead`` must agree with the injuries (C9)."""
    r = CombatRules(rules)
    injuries = []
    for i, v in enumerate(_entries(data, "injuries", where, _INJURY_KEYS)):
        at = f"{where}.injuries[{i}]"
        kind = v.get("type")
        if kind not in r.injury_types:
            raise RosterError(
                f"{at}.type = {kind!r} is not an injury type (C9). Fix: use one of"
                f" {', '.join(r.injury_types)}",
                "C9",
            )
        hits = _count(v, "hits", at, rules, "hits", 1)
        detail = _text(v.get("detail"), f"{at}.detail")
        injuries.append(Injury(str(kind), hits, detail, _text(v.get("cause"), f"{at}.cause")))
    conditions: list[Condition] = []
    for i, v in enumerate(_entries(data, "conditions", where, _CONDITION_KEYS)):
        at = f"{where}.conditions[{i}]"
        name = v.get("name")
        if name not in r.condition_names:
            raise RosterError(
                f"{at}.name = {name!r} is not a condition (C10). Fix: use one of"
                f" {', '.join(r.condition_names)}",
                "C10",
            )
        rule = r.condition(str(name))
        level = _count(v, "level", at, rules, "condition_level", 1)
        if level > int(rule["max_level"]):
            raise RosterError(
                f"{at}.level = {level}: {name} has at most {rule['max_level']} (C10)."
                f" Fix: use 1 to {rule['max_level']}",
                "C10",
            )
        attribute = v.get("attribute")
        if int(rule["attribute_dice"]) > 0 and attribute not in ATTRIBUTES:
            raise RosterError(
                f"{at}.attribute = {attribute!r}: {name} takes dice from one attribute (C10)."
                f" Fix: add attribute = one of {', '.join(ATTRIBUTES)}",
                "C10",
            )
        if int(rule["attribute_dice"]) == 0 and attribute is not None:
            raise RosterError(
                f"{at}.attribute: {name} does not name an attribute (C10). Fix: leave it out",
                "C10",
            )
        if any(k.name == name and k.attribute == attribute for k in conditions):
            raise RosterError(
                f"{at}: {name} is listed twice (C10). Fix: one entry with the levels added up",
                "C10",
            )
        source = _text(v.get("source"), f"{at}.source")
        conditions.append(Condition(str(name), level, attribute, source))
    dead = data.get("dead", False)
    if not isinstance(dead, bool):
        raise RosterError(f"{where}.dead must be true or false, not {dead!r}", "C9")
    c = replace(c, injuries=tuple(injuries), conditions=tuple(conditions), dead=dead)
    count, limit = c.injury_count, r.death_multiplier * c.fortitude
    if count > limit and not dead:
        raise RosterError(
            f"{where}: {count} injuries is more than {limit} (twice FORTITUDE): this combatant"
            " is dead (C9). Fix: add dead = true, or list fewer injuries",
            "C9",
        )
    if dead and count <= limit:
        raise RosterError(
            f"{where}.dead = true with {count} injuries, not more than {limit} (twice"
            " FORTITUDE): only injuries kill (C9, I-C9a). Fix: list the injuries it died of,"
            " or leave out dead",
            "C9",
        )
    return c


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
        where = f"combatants[{i}]"
        try:
            sheet = entry
            if isinstance(entry, Mapping):
                sheet = {k: v for k, v in entry.items() if k not in CARRIED_KEYS}
            c = parse_combatant(sheet, where, state.rules, hero_names(state))
            if isinstance(entry, Mapping):
                c = carried_state(c, entry, where, state.rules)
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
