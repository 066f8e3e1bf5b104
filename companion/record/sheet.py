"""``rhuna-table sheet``: the heroes as a session left them, written back as a table file.

The table file the session was played with is edited in place of a copy with
tomlkit, which keeps its comments, order and layout: each ``[[heroes]]`` entry
gets the hero's Training (P4, mastery P12), Fatigue, Strain and the very Strain
tokens in play (P13, P14), Wounds (P15), Favor (P18), Redraws (P11) and Active
Reserve (P17); ``[time]`` the day, band and Minor draws done (T3); ``[weather]``
the current weather when it came from a Weather token (T1, T2); each
``[[combatants]]`` entry its renown (C11), its armour's durability (I-C8), its injuries,
conditions and death (C8–C10). Loading the file gives the same heroes and the same roster
sheets, as ``run --new-session --carry`` does (tests/companion/record/test_record_sheet.py
checks both ends).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit

from companion.record.journal import JournalError
from engine import load_table_text
from engine.state import Hero, TableState


def _hero_values(state: TableState, hero: Hero) -> dict[str, Any]:
    default_tokens = [f"{hero.id}.strain.{n}" for n in range(1, hero.strain + 1)]
    values: dict[str, Any] = {
        "training": {cap: level.value for cap, level in hero.training.items()},
        "fatigue": hero.fatigue,
        "strain": hero.strain,
        "wounds": hero.wounds,
        "favor": hero.favor,
        "redraws": hero.redraws,
        "active_reserve": sorted(
            t for t in state.active_reserve if t in state.tokens and state.tokens[t].bag == hero.bag
        ),
    }
    if list(hero.strain_tokens) != default_tokens:
        values["strain_tokens"] = list(hero.strain_tokens)
    return values


def sheet_text(original: str, state: TableState, source: str = "table.toml") -> str:
    """``original`` (the table file's text) with the heroes, time and weather of ``state``."""
    doc = tomlkit.parse(original)
    heroes = doc.get("heroes")
    if heroes is None:
        raise JournalError(f"{source}: no [[heroes]] to write the sheets into")
    seen = set()
    for entry in heroes:
        hero = state.heroes.get(str(entry.get("id")))
        if hero is None:
            continue
        seen.add(hero.id)
        for key, value in _hero_values(state, hero).items():
            if key == "training":
                table = tomlkit.inline_table()
                table.update(value)
                entry[key] = table
            elif key in ("active_reserve", "strain_tokens"):
                if value or key in entry:
                    entry[key] = value
            elif value or key in entry:
                entry[key] = value
    missing = sorted(set(state.heroes) - seen)
    if missing:
        raise JournalError(
            f"{source}: hero {missing[0]!r} of the session is not in this table file — give the"
            " table file the session was played with: --table FILE"
        )
    _combatants(doc, state)
    board = state.time
    if board is not None:
        time = doc.setdefault("time", tomlkit.table())
        time["day"] = board.day
        time["band"] = board.band.value
        time["minor_done"] = board.minor_done
        w = board.weather
        if w is not None and w.token is not None:
            weather = doc.setdefault("weather", tomlkit.table())
            weather["bag"] = w.bag
            weather["current"] = str(state.tokens[w.token].face)
    return tomlkit.dumps(doc)


def _inline(values: dict[str, Any]) -> Any:
    table = tomlkit.inline_table()
    table.update({k: v for k, v in values.items() if v is not None})
    return table


def _combatants(doc: Any, state: TableState) -> None:
    """Each ``[[combatants]]`` entry: its renown (C11), its armour's durability, worn in the
    fights (I-C8), its injuries and conditions (C8–C10) and its death (C9), with the keys
    ``injuries``, ``conditions`` and ``dead`` (engine/combat/roster.py), as ``--carry``
    carries them. A key the session emptied is taken out (a healed combatant)."""
    roster = state.combat.roster if state.combat is not None else {}
    for entry in doc.get("combatants", []):
        c = roster.get(str(entry.get("id")))
        if c is None:
            continue
        if c.renown or "renown" in entry:
            entry["renown"] = c.renown
        injuries = [
            _inline({"type": i.type, "hits": i.hits, "detail": i.detail, "cause": i.source})
            for i in c.injuries
        ]
        conditions = [
            _inline(
                {"name": k.name, "level": k.level, "attribute": k.attribute, "source": k.source}
            )
            for k in c.conditions
        ]
        for key, value in (("injuries", injuries), ("conditions", conditions), ("dead", c.dead)):
            if value:
                entry[key] = value
            elif key in entry:
                del entry[key]
        armour = entry.get("armour")
        if (armour is not None and "durability" in armour) or c.armour.durability:
            if armour is None:
                armour = entry["armour"] = tomlkit.inline_table()
                armour.update({"name": c.armour.name, "reduction": c.armour.reduction})
            armour["durability"] = c.armour.durability


def write_sheet(table_file: Path, state: TableState, to: Path) -> TableState:
    """Write ``to`` and load it back; returns the loaded state (the round trip's other end)."""
    try:
        original = table_file.read_text("utf-8")
    except OSError as e:
        raise JournalError(f"{table_file}: cannot read the table file ({e.strerror})") from None
    text = sheet_text(original, state, str(table_file))
    loaded = load_table_text(text, str(to), base=table_file.parent)
    try:
        to.write_text(text, "utf-8")
    except OSError as e:
        raise JournalError(f"--to {to}: cannot write it ({e.strerror})") from None
    return loaded
