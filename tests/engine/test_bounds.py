"""Every number a command carries is bounded by the rules data, with its rule id (issue 27).

The cases are generated from the command specs, so a new integer field (or list of dice)
cannot be forgotten: each is refused one past its bound and below its minimum, naming the
field, the bound and the rule, changes nothing, and is accepted at the bound. A table may
move a bound's maximum up to the bound's hard ceiling (``[bounds]`` in the rules data).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from engine import CommandRejected, ConfigError, apply, load_table_text
from engine.rules import bound, default_rules
from engine.vocabulary import LIMITS, LIMITS_WHY, REGISTRY, SHIPPED, Field, parse_command
from tests.harness import EXAMPLE_TABLE, ROOT

RULE_ID = re.compile(r"\b(?:I-)?[PTC][1-9][0-9]?[a-z]?\b")


def _defined() -> set[str]:
    """The rule ids docs/rules.md defines (tests/docs/test_rules_doc.py checks that page)."""
    text = (ROOT / "docs" / "rules.md").read_text("utf-8")
    return set(re.findall(r"^\| ((?:I-)?[PTC][0-9]{1,2}[a-z]?) \|", text, re.M))


#: add_combatant with every pool at its shipped maximum (I-C2a)
BIG = {
    "cmd": "add_combatant",
    "combatant": "ogre",
    "reflex": 12,
    "might": 12,
    "dodge": 12,
    "parry": 12,
    "fortitude": 12,
    "speed": 6,
    "damage": 12,
}


def _numeric() -> Iterator[tuple[str, str, Field]]:
    """(command, field, spec) for every integer field and every list of integers."""
    for name, (spec, _) in sorted(REGISTRY.items()):
        for key, f in spec.fields.items():
            if f.type == "integer" or (f.type == "array" and f.items == "integer"):
                yield name, key, f


NUMERIC = list(_numeric())
IDS = [f"{name}.{key}" for name, key, _ in NUMERIC]


def _rule_of(name: str, f: Field) -> str | None:
    """The rule a refusal of ``f`` cites (the field's, the bound's, else the command's)."""
    if f.bound is None:
        return None
    spec = REGISTRY[name][0]
    return f.rule or SHIPPED["bounds"][f.bound].get("rule") or (spec.rules or (None,))[0]


def _filler(f: Field) -> Any:
    """A value that fits ``f`` (for the required fields beside the one under test)."""
    if f.enum:
        return f.enum[0]
    if f.type == "integer":
        return f.bounds[0]
    return {"string": "x", "boolean": True, "object": {}, "array": []}[f.type]


def _command(name: str, key: str, value: Any) -> dict[str, Any]:
    spec = REGISTRY[name][0]
    out = {"cmd": name, **{k: _filler(f) for k, f in spec.fields.items() if f.required}}
    out[key] = value
    return out


def _edges(f: Field) -> tuple[list[Any], list[Any]]:
    """(values at the bounds, values just outside them) for an integer field or a list."""
    if f.type == "integer":
        low, high = f.bounds
        assert low is not None and high is not None
        return [low, high], [low - 1, high + 1]
    item = f.item_bounds_in(SHIPPED)
    assert item is not None
    low, high = item
    most = f.length_in(SHIPPED)
    ok = [[low], [high], [high] * most]
    bad = [[low - 1], [high + 1]]
    if most < LIMITS["array_items"]:  # the rules' bound, not only the transport limit
        bad.append([high] * (most + 1))
    return ok, bad


# --- every numeric field has a bound from the rules, with a rule id -------------------


def test_every_integer_field_has_a_rule_derived_bound() -> None:
    """A field bounded only by ``limits.integer`` (2^53) could stall the table: each names
    a ``[bounds]`` entry (or a ``[limits]`` amount whose why gives the rules), with a rule
    id defined in docs/rules.md."""
    defined = _defined()
    assert len(NUMERIC) > 40
    loose = []
    for name, key, f in NUMERIC:
        if f.bound is not None:
            assert f.bound in SHIPPED["bounds"], f"{name}.{key}: no [bounds.{f.bound}]"
            assert _rule_of(name, f) in defined, f"{name}.{key}: {_rule_of(name, f)}"
        elif f.limit != "integer":
            cited = RULE_ID.findall(LIMITS_WHY[f.limit])
            assert cited and set(cited) <= set(defined), f"{name}.{key}: limits.{f.limit}"
        else:
            loose.append(f"{name}.{key}")
        if f.type == "array":
            assert f.length is not None and f.item_bounds_in(SHIPPED), f"{name}.{key}"
    assert not loose, f"integer fields with no bound from the rules data: {loose}"


def test_every_bound_has_a_rule_a_why_and_a_ceiling_at_least_its_maximum() -> None:
    defined = _defined()
    for name, entry in SHIPPED["bounds"].items():
        assert entry["why"], name
        assert "rule" not in entry or entry["rule"] in defined, name
        low, high = bound(SHIPPED, name)
        assert low <= high <= entry["ceiling"] <= LIMITS["integer"], name
        assert entry.get("code", "malformed") in ("malformed", "illegal"), name
    used = {f.bound for _, _, f in NUMERIC} | {f.length for _, _, f in NUMERIC}
    assert set(SHIPPED["bounds"]) <= used, "a bound no field uses"


# --- refused past the bound, accepted at it -------------------------------------------


@pytest.mark.parametrize(("name", "key", "f"), NUMERIC, ids=IDS)
def test_bounds_refuse_one_past_and_accept_the_bound(name: str, key: str, f: Field) -> None:
    ok, bad = _edges(f)
    for value in ok:
        parse_command(_command(name, key, value), SHIPPED)
    for value in bad:
        with pytest.raises(CommandRejected) as info:
            parse_command(_command(name, key, value), SHIPPED)
        v = info.value.violation
        assert v.field == key and v.fix, (name, key, value)
        if f.bound is not None:
            assert v.rule == _rule_of(name, f), (name, key, value, v)
            assert re.search(r"\(([^,]+), bounds\.\w+\)", v.message), v.message
            assert v.rule in v.message


@pytest.mark.parametrize(("name", "key", "f"), NUMERIC, ids=IDS)
def test_a_refusal_changes_nothing(example_state, name: str, key: str, f: Field) -> None:
    before = example_state.to_json()
    for value in _edges(f)[1]:
        with pytest.raises(CommandRejected):
            apply(example_state, _command(name, key, value))
    assert example_state.to_json() == before


@pytest.mark.parametrize(("name", "key", "f"), NUMERIC, ids=IDS)
def test_the_schema_states_the_shipped_bounds(name: str, key: str, f: Field) -> None:
    schema = json.loads((ROOT / "docs" / "commands.schema.json").read_text("utf-8"))
    variant = next(v for v in schema["oneOf"] if v["title"] == name)
    prop = variant["properties"][key]
    if f.type == "integer":
        assert (prop["minimum"], prop["maximum"]) == f.bounds
    else:
        assert (prop["items"]["minimum"], prop["items"]["maximum"]) == f.item_bounds_in(SHIPPED)
        assert prop["maxItems"] == f.length_in(SHIPPED)


# --- the adversarial commands of issue 27 ---------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"might": 1000, "dodge": 1000, "parry": 1000, "fortitude": 1000, "damage": 1000},
        {"reflex": 10_000_000},
        {"reduction": 21},
        {"durability": 10**15},
    ],
)
def test_i_c2a_a_giant_pool_is_refused_naming_the_rule(example_state, change) -> None:
    with pytest.raises(CommandRejected) as info:
        apply(example_state, {**BIG, **change})
    v = info.value.violation
    assert (v.rule, v.code) == ("I-C2a", "malformed") and v.field in change
    assert "bounds." in v.message and "a table may raise" in (v.fix or "")


def test_i_c2a_pools_at_the_bound_play_a_fight(example_state) -> None:
    state, _ = apply(example_state, BIG)
    state, _ = apply(state, {**BIG, "combatant": "troll"})
    state, events = apply(
        state, {"cmd": "start_combat", "combatants": ["ogre", "troll"]} | {"seed": 1}
    )
    rolled = [e for e in events if e.type == "initiative_rolled"]
    assert rolled and all(len(e["dice"]) == 12 for e in rolled)


def test_i_c2a_an_inline_sheet_and_a_table_sheet_are_bounded_too(example_state) -> None:
    sheet: dict[str, Any] = {k: v for k, v in BIG.items() if k not in ("cmd", "combatant")}
    sheet |= {"id": "ogre", "might": 13, "weapon": {"damage": sheet.pop("damage")}}
    with pytest.raises(CommandRejected) as info:
        apply(example_state, {"cmd": "start_combat", "add": [sheet]})
    assert (info.value.violation.rule, info.value.violation.field) == ("I-C2a", "add")
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in sheet.items() if k != "weapon")
    lines += "weapon = { damage = 12 }\n"
    text = EXAMPLE_TABLE.read_text() + f"\n[[combatants]]\n{lines}"
    with pytest.raises(ConfigError, match=r"t\.toml: combatants\[0\]\.might .*I-C2a"):
        load_table_text(text, "t.toml")
    raised = load_table_text(text + "\n[rules.bounds.pool]\nmaximum = 13\n", "t.toml")
    assert raised.combat is not None and raised.combat.roster["ogre"].might == 13


def test_p19_t3_c10_a_rule_s_own_range_is_illegal(example_state) -> None:
    for command, rule in (
        ({"cmd": "begin_performance", "difficulty": 9}, "P19"),
        ({"cmd": "set_time", "minor_done": 4}, "T3"),
    ):
        with pytest.raises(CommandRejected) as info:
            apply(example_state, command)
        assert (info.value.violation.rule, info.value.violation.code) == (rule, "illegal")


# --- a table's own bounds, up to the ceiling ------------------------------------------


def _table(extra: str) -> engine.TableState:
    return load_table_text(EXAMPLE_TABLE.read_text() + "\n" + extra, "t.toml")


def test_i_c2a_a_table_may_raise_a_bound_up_to_its_ceiling() -> None:
    state = _table("[rules.bounds.pool]\nmaximum = 20\n")
    apply(state, {**BIG, "might": 20})
    with pytest.raises(CommandRejected) as info:
        apply(state, {**BIG, "might": 21})
    assert "0 to 20" in info.value.violation.message
    with pytest.raises(CommandRejected):  # the shipped table still stops at 12
        apply(engine.load_table(EXAMPLE_TABLE), {**BIG, "might": 13})


def test_i_c2a_a_table_s_lower_bound_is_checked_on_an_already_parsed_command() -> None:
    state = _table("[rules.bounds.pool]\nmaximum = 4\n")
    cmd = parse_command(BIG)  # fits the shipped bounds
    with pytest.raises(CommandRejected) as info:
        apply(state, cmd)
    assert info.value.violation.field == "reflex" and "0 to 4" in info.value.violation.message


def test_p19_a_bound_that_is_a_rule_s_value_follows_the_table() -> None:
    state = _table("[rules.difficulty]\nmaximum = 10\n")
    apply(state, {"cmd": "begin_performance", "difficulty": 10})
    with pytest.raises(CommandRejected) as info:
        apply(state, {"cmd": "begin_performance", "difficulty": 11})
    assert info.value.violation.rule == "P19" and "3 to 10" in (info.value.violation.fix or "")


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (
            "[rules.bounds.pool]\nmaximum = 21\n",
            "t.toml: rules.bounds.pool.maximum = 21 is past the hard ceiling 20 of bounds.pool"
            " (I-C2a)",
        ),
        ("[rules.bounds.die]\nmaximum = 8\n", "ceiling 6 of bounds.die (I-C2a)"),
        ("[rules.difficulty]\nmaximum = 100\n", "rules.difficulty.maximum = 100 is past"),
        ("[rules.combat.attack]\nmax_pool = 41\n", "rules.combat.attack.max_pool = 41 is past"),
        (
            "[rules.combat.conditions.fatigued]\nmax_level = 100\n",
            "rules.combat.conditions.fatigued.max_level = 100 is past the hard ceiling 99",
        ),
        ("[rules.bounds.pool]\nceiling = 1000\n", "rules.bounds.pool.ceiling cannot be changed"),
        ("[rules.bounds.pool]\nminimum = -5\n", "rules.bounds.pool.minimum cannot be changed"),
        ("[rules.bounds.pool]\nmaximum = -1\n", "below the bound's minimum 0"),
    ],
)
def test_a_bound_past_its_ceiling_is_a_clear_config_error(extra: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        _table(extra)
    message = str(info.value)
    assert says in message and "Fix:" in message


def test_the_shipped_rules_pass_their_own_ceilings() -> None:
    from engine.rules import check_bounds

    check_bounds(default_rules(), "engine/data/rules.toml")
