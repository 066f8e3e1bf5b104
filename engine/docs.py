"""The vocabulary for people: docs/commands.md and docs/commands.schema.json, generated.

Generated from the same CommandSpecs that validate commands, so the docs cannot
drift; a test fails when the committed files are stale
(regenerate with ``rhuna-table schema --write docs``).
"""

from __future__ import annotations

import json
from typing import Any

from engine.rules import bound_value
from engine.vocabulary import LIMITS, LIMITS_WHY, REGISTRY, SHIPPED, Field, json_schema

GROUP_TITLES = {
    "performance": "The Performance (P1–P23)",
    "sheet": "Hero sheets and the Moment",
    "table": "The table",
    "time": "Time, Weather and Rest (T1–T12)",
    "combat": "The six-tick combat wheel (C1–C11)",
}

HEADER = """\
# The command vocabulary

Every input speaks this one vocabulary: the RFID readers and the wheel (through
the table loop), MQTT (`rhuna/<table>/command`), replay scripts and the CLI. A
command is a JSON object with `"cmd"` and the fields below; `"id"` (a request id,
echoed in replies) and `"source"` are accepted on every command and ignored by
the rules.

A refused command changes nothing and comes back as an error object:

```json
{"code": "illegal", "message": "Aria has no Redraws left", "rule": "P11",
 "field": "hero", "fix": "resolve as drawn"}
```

`code` is `malformed` (the JSON does not fit the schema), `unknown` (no such hero,
token or capability) or `illegal` (the rules forbid it now). `rule` is the rule id
(see [`rules.md`](rules.md)); `field` names the offending field.

The machine-readable form is [`commands.schema.json`](commands.schema.json)
(JSON Schema 2020-12). This file and that one are generated from the engine's
command specs: `.venv/bin/rhuna-table schema --write docs`.

The same specs type every command at both ends: in Python,
`engine/contracts/commands.py` (`.venv/bin/python -m engine.codegen`) holds one
`TypedDict` per command, its constructor (`draw(hero="aria", token=…)`) and the
arguments its handler reads; the pages' `src/generated/commands.ts` is made from
the schema by `web/gen-types.mjs`. A field renamed in a spec is then a type error
wherever a command is built or read.
"""


LIMITS_INTRO = """\
## Limits

Every input, from every source (MQTT, `--commands`, replay scripts, the readers and
the wheel), is bounded before it can cost the table anything: a payload or line
too big, not UTF-8, not JSON, nested too deep, with a lone UTF-16 surrogate
(`"\\ud83d"`: valid JSON, but no character) or a NaN is refused as `malformed`
naming the limit, and so is a field beyond its range. A limit is the rules data's
`[limits]` (`engine/data/rules.toml`); a table cannot change them. The schema
states them too (`maxLength`, `maxItems`, `minimum`, `maximum`).

**The bound on one command**: no accepted command may hold the table loop for more
than 50 ms. With these limits the costliest one (`adjust_hero` with `strain: 99`, each
point a step of the cascade) stays well inside it, and a typical one costs a small part
of that (the figures: `make bench`, docs/performance.md).

| limit | value | what it bounds | why |
|---|---|---|---|
"""

#: what each ``[limits]`` key bounds, for the table above
LIMITS_WHAT = {
    "payload_bytes": "one MQTT payload or one `--commands` line, in bytes, before parsing",
    "depth": "arrays and objects nested in one another",
    "string_length": "any one string (ids, causes, request ids), in characters",
    "array_items": "any one array, and the fields of any one object",
    "integer": "the magnitude of any whole number (seeds, day numbers)",
    "amount": "what one command adds to or takes from a track: the fields marked *amount*",
    "roster": "the combatants on a table's roster, the table file's and those added (I-C2b)",
}


BOUNDS_INTRO = """
### Bounds from the rules

Every whole number a command carries, and every list of entered dice, is also bounded
by a rule: the rules data's `[bounds]` gives each bound its rule id, its range and why.
A value outside is refused, naming the field, the bound, the rule and the fix, and
changes nothing: `{"cmd": "add_combatant", …, "might": 1000}` is `might = 1000 is outside
0 to 12 (I-C2a, bounds.pool)`. The schema states the shipped bounds. **A table may raise
(or lower) a bound's maximum in its own file, up to the bound's hard ceiling** (`[rules.bounds.pool]
maximum = 16`), and its commands are then checked against its own bounds; a value past
the ceiling is refused when the table loads, naming the file, the key and the ceiling. A
bound that is a rule's own value (a Difficulty, `difficulty.maximum`) follows that value.
The vocabulary published on MQTT is the shipped one.

| bound | range | ceiling | rule | fields | why |
|---|---|---|---|---|---|
"""


def _range_text(entry: dict[str, Any]) -> str:
    def one(value: int | str) -> str:
        number, key = bound_value(SHIPPED, value)
        return f"{number} (`{value}`)" if key else str(number)

    return f"{one(entry['minimum'])} to {one(entry['maximum'])}"


def _bound_fields() -> dict[str, list[str]]:
    """bound name → the fields it bounds (``command.field``)."""
    out: dict[str, list[str]] = {}
    for name, (spec, _) in sorted(REGISTRY.items()):
        for key, f in spec.fields.items():
            for which in (f.bound, f.length):
                if which is not None:
                    out.setdefault(which, []).append(f"`{name}.{key}`")
    return out


def limits_markdown() -> str:
    rows = [LIMITS_INTRO]
    for key, what in LIMITS_WHAT.items():
        rows.append(f"| `limits.{key}` | {LIMITS[key]} | {what} | {LIMITS_WHY[key]} |\n")
    rows.append(BOUNDS_INTRO)
    fields = _bound_fields()
    for name, entry in SHIPPED["bounds"].items():
        rule = entry.get("rule", "the command's")
        used = ", ".join(fields.get(name, [])) or "—"
        rows.append(
            f"| `bounds.{name}` | {_range_text(entry)} | {entry['ceiling']} | {rule} | {used}"
            f" | {entry['why']} |\n"
        )
    return "".join(rows)


def _meaning(f: Field) -> str:
    """What the field table says of a field's bounds."""
    if f.bound is not None:
        rule = f.rule or SHIPPED["bounds"][f.bound].get("rule", "")
        where = f"{rule}, `bounds.{f.bound}`" if rule else f"`bounds.{f.bound}`"
        if f.type == "integer":
            low, high = f.bounds
            return f"; {low} to {high} ({where})"
        item = f.item_bounds_in(SHIPPED)
        assert item is not None
        return f"; each {item[0]} to {item[1]}, at most {f.length_in(SHIPPED)} ({where})"
    if f.limit != "integer":
        low, high = f.bounds
        return f"; *{f.limit}*: {low} to {high}"
    if f.minimum is not None or f.maximum is not None:
        low, high = f.bounds
        return f"; {low} to {high}"
    return ""


def commands_markdown() -> str:
    lines = [HEADER, limits_markdown()]
    by_group: dict[str, list[str]] = {}
    for name, (spec, _) in REGISTRY.items():
        by_group.setdefault(spec.group, []).append(name)
    order = [g for g in GROUP_TITLES if g in by_group] + sorted(set(by_group) - set(GROUP_TITLES))
    for group in order:
        lines.append(f"## {GROUP_TITLES.get(group, group.title())}\n")
        for name in sorted(by_group[group]):
            spec = REGISTRY[name][0]
            rules = f" Rules: {', '.join(spec.rules)}." if spec.rules else ""
            lines.append(f"### `{name}`\n\n{spec.summary}{rules}\n")
            if spec.fields:
                lines.append("| field | type | required | meaning |")
                lines.append("|---|---|---|---|")
                for key, f in spec.fields.items():
                    typ = f.type + (f" of {f.items}" if f.items else "")
                    if f.enum:
                        typ = " \\| ".join(f"`{v}`" for v in f.enum)
                    meaning = f.description + (
                        f" (default `{json.dumps(f.default)}`)" if f.default is not None else ""
                    )
                    meaning += _meaning(f)
                    lines.append(f"| `{key}` | {typ} | {'yes' if f.required else ''} | {meaning} |")
                lines.append("")
            example: dict[str, Any] = {"cmd": name}
            for key, f in spec.fields.items():
                if f.required:
                    example[key] = f.enum[0] if f.enum else _EXAMPLE.get(f.type, "…")
            lines.append(f"```json\n{json.dumps(example, ensure_ascii=False)}\n```\n")
    return "\n".join(lines).rstrip() + "\n"


_EXAMPLE: dict[str, Any] = {"string": "…", "integer": 5, "boolean": True, "array": []}


def schema_json() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
