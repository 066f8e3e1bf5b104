"""Build the starting :class:`TableState` from a table TOML file.

A table file names the heroes (starting Pathways with their Ember's Shade,
Training, health, Favor, Redraws), the capabilities in play and the Favor Bag;
the loader makes every physical token those imply (P12–P17). Other rules modules
(Time, combat) add their own sections through :func:`section`.

Errors name the file, the key and the fix, and never show a traceback.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.immutable import replace
from engine.registry import Registry
from engine.rules import check_rules, merge_rules, shipped_rules
from engine.state import Bag, Hero, TableState
from engine.tokens import Token, TokenKind, Training
from settings.checker import Key, Section, unknown_key
from settings.errors import ConfigError
from settings.plain import check_file
from settings.textfile import read_text

FAVOR_BAG = "favor"

#: extra table sections: name → loader(state, section data, file name) → state
SectionLoader = Callable[[TableState, Any, str], TableState]
TABLE_SECTIONS: Registry[SectionLoader] = Registry("table-file section")


def section(name: str) -> Callable[[SectionLoader], SectionLoader]:
    """Register a loader for a top-level table section (used by the Time and combat modules)."""
    return TABLE_SECTIONS.decorator(name)


def load_table(path: str | Path) -> TableState:
    """Read a table TOML file; :class:`ConfigError` names what is wrong."""
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the table file ({e.strerror})") from None
    return load_table_text(text, str(path), base=path.parent)


def load_table_text(text: str, source: str = "<table>", base: Path | None = None) -> TableState:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: not valid TOML: {e}") from None
    return build_table(data, source, base)


_CORE = {"table", "rules", "capabilities", "heroes", "favor_bag"}


def _listing(label: str, keys: list[str]) -> Section:
    """For an unknown name: the key probably meant (settings.checker), then the known ones."""
    return Section(label, {k: Key("any", k) for k in keys}, label=label)


def build_table(data: dict[str, Any], source: str, base: Path | None = None) -> TableState:
    check_file(data, source)  # a name with an ESC or a U+202E: refused here, naming the key
    unknown = set(data) - _CORE - set(TABLE_SECTIONS)
    if unknown:
        name = sorted(unknown)[0]
        _, fix = _listing("the table file", sorted(_CORE | set(TABLE_SECTIONS))).unknown(name)
        raise ConfigError(
            f"{source}: unknown section {name!r} — {fix.replace('the table file takes', 'known sections')}"
        )
    table = _table(data.get("table", {}), source)
    base_rules = shipped_rules()  # shared: merge_rules copies it before any change
    rules_file = table.get("rules_file")
    if rules_file:
        rpath = (base or Path(".")) / rules_file
        try:
            extra = tomllib.loads(read_text(rpath))
            check_file(extra, str(rpath))
            base_rules = merge_rules(base_rules, extra, str(rpath))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"{source}: table.rules_file {rules_file!r}: {e}") from None
    rules = merge_rules(base_rules, _mapping(data.get("rules", {}), source, "rules"), source)
    check_rules(rules, source)
    capabilities = _capabilities(data.get("capabilities"), source)
    tokens: dict[str, Token] = {}
    bags: dict[str, Bag] = {}
    heroes: dict[str, Hero] = {}
    active: set[str] = set()
    heroes_data = data.get("heroes")
    if not isinstance(heroes_data, list) or not heroes_data:
        raise ConfigError(f"{source}: add at least one [[heroes]] entry")
    for i, h in enumerate(heroes_data):
        hero, hero_tokens = _hero(h, f"{source}: heroes[{i}]", rules, capabilities)
        if hero.id in heroes or hero.id == FAVOR_BAG:
            raise ConfigError(f"{source}: heroes[{i}].id {hero.id!r} is used twice")
        heroes[hero.id] = hero
        active.update(h.get("active_reserve", []))
        for t in hero_tokens:
            tokens[t.id] = t
        bags[hero.bag] = Bag(hero.bag, f"{hero.name}'s Hero Bag", hero.id, ())
    favor_tokens = _favor_bag(data.get("favor_bag"), source, rules)
    for t in favor_tokens:
        tokens[t.id] = t
    bags[FAVOR_BAG] = Bag(
        FAVOR_BAG, "the Favor Bag", None, tuple(sorted(t.id for t in favor_tokens))
    )
    state = TableState(
        table_id=str(table.get("id", "table")),
        table_name=str(table["name"]) if "name" in table else None,
        rules=rules,
        capabilities=capabilities,
        tokens=tokens,
        bags=bags,
        heroes=heroes,
        active_reserve=frozenset(active),
    )
    state = _fill_hero_bags(state)
    _check_reserve_in_play(state, heroes_data, source)
    for name, loader in TABLE_SECTIONS.items():
        state = loader(state, data.get(name), source)
    return state


def _mapping(value: Any, source: str, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: {key} must be a table ([{key}])")
    return value


def _table(value: Any, source: str) -> dict[str, Any]:
    t = _mapping(value, source, "table")
    for key in t:
        if key not in ("id", "name", "rules_file"):
            raise unknown_key(f"{source}: table", key, ["id", "name", "rules_file"])
    return t


def _capabilities(value: Any, source: str) -> dict[str, str]:
    if value is None:
        raise ConfigError(
            f"{source}: missing [capabilities] (pathways = [...], presences = [...], senses = [...])"
        )
    caps = _mapping(value, source, "capabilities")
    out: dict[str, str] = {}
    for key, kind in (("pathways", "pathway"), ("presences", "presence"), ("senses", "sense")):
        names = caps.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{source}: capabilities.{key} must be a list of names")
        for n in names:
            if n in out:
                raise ConfigError(f"{source}: capability {n!r} is listed twice")
            out[n] = kind
    extra = set(caps) - {"pathways", "presences", "senses"}
    if extra:
        raise unknown_key(
            f"{source}: capabilities", sorted(extra)[0], ["pathways", "presences", "senses"]
        )
    return out


_HERO_KEYS = {
    "id",
    "name",
    "pathways",
    "training",
    "fatigue",
    "fatigue_capacity",
    "strain",
    "strain_capacity",
    "strain_tokens",
    "wounds",
    "favor",
    "redraws",
    "active_reserve",
}


def _int(h: dict[str, Any], key: str, where: str, default: int, lo: int = 0) -> int:
    v = h.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo:
        raise ConfigError(f"{where}.{key} must be a whole number ≥ {lo}, not {v!r}")
    return v


def _hero(
    h: Any, where: str, rules: dict[str, Any], caps: dict[str, str]
) -> tuple[Hero, list[Token]]:
    """One ``[[heroes]]`` entry: the hero's sheet and every physical token the hero owns.

    Checked in the order a player reads the entry (id, Pathways, Training, health, then the
    tokens it names), so the first mistake is the one reported.
    """
    if not isinstance(h, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(h) - _HERO_KEYS
    if unknown:
        raise unknown_key(where, sorted(unknown)[0], sorted(_HERO_KEYS))
    hero_id = _hero_id(h, where)
    pathways = _pathways(h, where, rules, caps)
    hero = _sheet(h, where, hero_id, pathways, _training(h, where, caps), rules["health"])
    tokens = [
        *(t for p, shade in pathways.items() for t in _pathway_tokens(hero, p, shade, rules)),
        *_weight_tokens(hero, rules["weight"]["tokens"]),
        *_strain_pool(hero),
    ]
    _check_active_reserve(h, where, tokens)
    return replace(hero, strain_tokens=_strain_in_play(h, where, hero, tokens)), tokens


def _hero_id(h: dict[str, Any], where: str) -> str:
    """The hero's id: it starts every token id of the hero (``aria.ember.skill``), so no dots."""
    hero_id = h.get("id")
    if not isinstance(hero_id, str) or not hero_id or "." in hero_id:
        raise ConfigError(f'{where}.id must be a short name without dots, like "aria"')
    return hero_id


def _pathways(
    h: dict[str, Any], where: str, rules: dict[str, Any], caps: dict[str, str]
) -> dict[str, str]:
    """P17: the starting Pathways, each with its Ember's Shade (pathway → shade)."""
    pathways = h.get("pathways")
    starting = int(rules["potential"]["starting_pathways"])
    if not isinstance(pathways, dict) or len(pathways) != starting:
        raise ConfigError(
            f"{where}.pathways: give the hero's {starting} starting Pathways with their Ember's"
            ' Shade, e.g. { skill = "control", lore = "versatility", wild = "impulse" } (P17)'
        )
    for p, shade in pathways.items():
        if caps.get(p) != "pathway":
            raise ConfigError(f"{where}.pathways: {p!r} is not in capabilities.pathways")
        if shade not in ("control", "versatility", "impulse"):
            raise ConfigError(
                f"{where}.pathways.{p} = {shade!r}: an Ember is control, versatility or impulse"
            )
    return pathways


def _training(h: dict[str, Any], where: str, caps: dict[str, str]) -> dict[str, Training]:
    """The hero's Training per capability; an Exemplar Pathway changes the bag (P12)."""
    training: dict[str, Training] = {}
    for cap, level in _mapping(h.get("training", {}), where, "training").items():
        if cap not in caps:
            raise ConfigError(f"{where}.training: unknown capability {cap!r}")
        try:
            training[cap] = Training(level)
        except ValueError:
            levels = ", ".join(Training)
            raise ConfigError(f"{where}.training.{cap} = {level!r}: use one of {levels}") from None
    return training


def _sheet(
    h: dict[str, Any],
    where: str,
    hero_id: str,
    pathways: dict[str, str],
    training: dict[str, Training],
    health: dict[str, Any],
) -> Hero:
    """The hero's sheet: health (capacities default to the rules'), Favor and Redraws."""
    hero = Hero(
        id=hero_id,
        name=str(h.get("name", hero_id.title())),
        bag=hero_id,
        pathways=tuple(pathways),
        training=training,
        fatigue=_int(h, "fatigue", where, 0),
        fatigue_capacity=_int(h, "fatigue_capacity", where, int(health["fatigue_capacity"]), 1),
        strain=_int(h, "strain", where, 0),
        strain_capacity=_int(h, "strain_capacity", where, int(health["strain_capacity"]), 1),
        wounds=_int(h, "wounds", where, 0),
        favor=_int(h, "favor", where, 0),
        redraws=_int(h, "redraws", where, 0),
    )
    if hero.fatigue > hero.fatigue_capacity or hero.strain > hero.strain_capacity:
        raise ConfigError(f"{where}: fatigue and strain must be within their capacities")
    return hero


def _pathway_tokens(hero: Hero, p: str, shade: str, rules: dict[str, Any]) -> list[Token]:
    """A Pathway's tokens: its Ember, the second Ember an Exemplar swaps in (P12), and its
    Potentials. All are made; :func:`_fill_hero_bags` decides which are in the bag."""
    hid, name = hero.id, hero.name
    return [
        Token(
            f"{hid}.ember.{p}",
            TokenKind.EMBER,
            hid,
            f"{name}'s {p} Ember ({shade})",
            shade=shade,
            pathway=p,
        ),
        Token(
            f"{hid}.ember.{p}.2",
            TokenKind.EMBER,
            hid,
            f"{name}'s second {p} Ember ({shade})",
            shade=shade,
            pathway=p,
            ordinal=2,
        ),
        *(
            Token(
                f"{hid}.potential.{p}.{n}",
                TokenKind.POTENTIAL,
                hid,
                f"{name}'s {p} Potential {n}",
                pathway=p,
                ordinal=n,
            )
            for n in range(1, int(rules["potential"]["per_pathway"]) + 1)
        ),
    ]


def _weight_tokens(hero: Hero, weights: list[Any]) -> list[Token]:
    """P16: always so many Weight tokens, even when two show the same printed weight (the
    second of a weight gets ``.2`` in its id and ``(2)`` in its name)."""
    tokens: list[Token] = []
    printed: dict[int, int] = {}
    for w in weights:
        n = printed[w] = printed.get(w, 0) + 1
        again = f".{n}" if n > 1 else ""
        tokens.append(
            Token(
                f"{hero.id}.weight.{w}{again}",
                TokenKind.WEIGHT,
                hero.id,
                f"{hero.name}'s Weight {w}" + (f" ({n})" if n > 1 else ""),
                weight=int(w),
                ordinal=n,
            )
        )
    return tokens


def _strain_pool(hero: Hero) -> list[Token]:
    """One Strain token per point of strain capacity; those of the hero's strain are in play."""
    return [
        Token(
            f"{hero.id}.strain.{n}",
            TokenKind.STRAIN,
            hero.id,
            f"{hero.name}'s Strain {n}",
            ordinal=n,
        )
        for n in range(1, hero.strain_capacity + 1)
    ]


def _check_active_reserve(h: dict[str, Any], where: str, tokens: list[Token]) -> None:
    """P17: Active Reserve lists the hero's own Potential tokens, nothing else."""
    active = h.get("active_reserve", [])
    ids = {t.id for t in tokens}
    if not isinstance(active, list) or any(
        not isinstance(a, str) or a not in ids or ".potential." not in a for a in active
    ):
        raise ConfigError(f"{where}.active_reserve must list the hero's Potential token ids")


def _strain_in_play(
    h: dict[str, Any], where: str, hero: Hero, tokens: list[Token]
) -> tuple[str, ...]:
    """P14: which Strain tokens stand for the hero's strain (by default the first ones); the
    table file names them when a table wants the physical tokens it has out."""
    strain_tokens = h.get(
        "strain_tokens", [f"{hero.id}.strain.{n}" for n in range(1, hero.strain + 1)]
    )
    strain_ids = {t.id for t in tokens if t.kind is TokenKind.STRAIN}
    if (
        not isinstance(strain_tokens, list)
        or len(strain_tokens) != hero.strain
        or len(set(strain_tokens)) != len(strain_tokens)
        or any(t not in strain_ids for t in strain_tokens)
    ):
        raise ConfigError(
            f"{where}.strain_tokens must list {hero.strain} of the hero's Strain token ids, one"
            f" per point of strain ({', '.join(sorted(strain_ids))}) (P14)"
        )
    return tuple(strain_tokens)


def _check_reserve_in_play(state: TableState, heroes_data: list[Any], source: str) -> None:
    """P12 / P17: a Potential the Exemplar's second Ember replaced is out of play (in no bag),
    so it cannot be listed as Active Reserve."""
    for i, h in enumerate(heroes_data):
        for token_id in h.get("active_reserve", []):
            token = state.tokens[token_id]
            if token_id not in state.bags[token.bag].contents:
                raise ConfigError(
                    f"{source}: heroes[{i}].active_reserve lists {token_id!r}, but the second"
                    f" {token.pathway} Ember of an Exemplar replaces that Potential, so it is out"
                    f" of play (P12) and cannot be Active Reserve (P17) — list another"
                    f" {token.pathway} Potential"
                )


def _fill_hero_bags(state: TableState) -> TableState:
    """Put each hero's starting tokens in the bag; Exemplar Pathways swap a Potential (P12)."""
    bags = dict(state.bags)
    for hero in state.heroes.values():
        contents = []
        for t in state.tokens.values():
            if t.bag != hero.bag:
                continue
            exemplar = t.pathway is not None and hero.training_in(t.pathway) is Training.EXEMPLAR
            per = int(state.rules["potential"]["per_pathway"])
            if t.kind is TokenKind.EMBER and t.ordinal == 2 and not exemplar:
                continue
            if t.kind is TokenKind.POTENTIAL and exemplar and t.ordinal == per:
                continue
            if t.kind is TokenKind.STRAIN and t.id not in hero.strain_tokens:
                continue
            contents.append(t.id)
        bags[hero.bag] = replace(bags[hero.bag], contents=tuple(sorted(contents)))
    return replace(state, bags=bags)


def _favor_bag(value: Any, source: str, rules: dict[str, Any]) -> list[Token]:
    """I-P18: the 23 Favor tokens, from the table or the rules' default composition."""
    if value is None:
        entries = rules["favor"]["default_bag"]
        where = "rules favor.default_bag"
    else:
        entries = _mapping(value, source, "favor_bag").get("tokens")
        where = f"{source}: favor_bag.tokens"
    if not isinstance(entries, list):
        raise ConfigError(f"{where} must be a list of {{ shade, deity, count }}")
    tokens: list[Token] = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or e.get("shade") not in (
            "control",
            "gray",
            "impulse",
            "xul",
            "xantyr",
        ):
            raise ConfigError(f"{where}[{i}]: shade must be control, gray, impulse, xul or xantyr")
        count = e.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise ConfigError(f"{where}[{i}].count must be a whole number ≥ 1")
        shade = e["shade"]
        if not isinstance(e.get("deity", ""), str):
            raise ConfigError(f'{where}[{i}].deity must be a name, like "The Warden"')
        deity = e.get("deity") or (shade.title() if shade in ("xul", "xantyr") else None)
        for _ in range(count):
            n = len(tokens) + 1
            label = deity or f"{shade} favor"
            tokens.append(
                Token(
                    f"favor.{n:02d}",
                    TokenKind.FAVOR,
                    FAVOR_BAG,
                    f"Favor: {label} ({shade})",
                    shade=shade,
                    deity=deity,
                )
            )
    size = int(rules["favor"]["bag_size"])
    if len(tokens) != size:
        raise ConfigError(f"{where}: the Favor Bag holds {size} tokens, these make {len(tokens)}")
    return tokens
