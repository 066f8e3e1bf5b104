"""docs/rules.md: every rule id the project cites is defined there, and every key it names exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"
RULES_DATA = ROOT / "engine" / "data" / "rules.toml"
#: where rule ids are cited: the packages, the tests, the docs, the examples, the web pages'
#: sources, the benchmarks and scripts
CITING = (
    "settings",
    "engine",
    "tags",
    "hardware",
    "display",
    "companion",
    "firmware_bridge",
    "tests",
    "docs",
    "examples",
    "web/src",
    "web/pages",
    "benchmarks",
    "scripts",
    "systemd",
)
#: the text files among them (web/src/generated is made from docs/*.schema.json, checked here)
SUFFIXES = (".py", ".md", ".toml", ".jsonl", ".json", ".ts", ".mjs", ".html", ".css", ".sh")
RULE_ID = re.compile(r"\b(?:I-)?[PTC][1-9][0-9]?[a-z]?\b")  # rule numbers start at 1
ROW = re.compile(r"^\| ((?:I-)?[PTC][0-9]{1,2}[a-z]?) \|(.*)\|(.*)\|$", re.M)
KEY = re.compile(r"`([a-z_.*]+)`")


def _defined() -> dict[str, str]:
    """rule id → the key column of its row."""
    return {m[1]: m[3] for m in ROW.finditer(RULES_DOC.read_text(encoding="utf-8"))}


def _citing_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "web" / "README.md", ROOT / "Makefile"]
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*")):
            if "generated" in path.relative_to(ROOT).parts:
                continue
            if path.suffix in SUFFIXES and path.is_file():
                files.append(path)
    return files


def test_the_citing_files_include_the_web_pages_and_benchmarks() -> None:
    found = {str(p.relative_to(ROOT)) for p in _citing_files()}
    assert {"web/src/model.ts", "web/pages/gm.html", "benchmarks/odds.py"} <= found
    assert "docs/state.schema.json" in found


def test_every_cited_rule_id_is_defined_in_docs_rules_md() -> None:
    defined = _defined()
    missing: dict[str, str] = {}
    for path in _citing_files():
        for rule in RULE_ID.findall(path.read_text(encoding="utf-8", errors="replace")):
            if rule not in defined:
                missing.setdefault(rule, str(path.relative_to(ROOT)))
    assert not missing, f"rule ids cited but not defined in docs/rules.md: {missing}"


def test_every_rule_of_the_three_families_has_a_row() -> None:
    defined = _defined()
    expected = {f"P{n}" for n in range(1, 24)} | {f"T{n}" for n in range(1, 13)}
    expected |= {f"C{n}" for n in range(1, 12)}
    assert expected <= set(defined), sorted(expected - set(defined))


def _resolve(data: dict, dotted: str) -> bool:
    node: object = data
    for part in dotted.removesuffix(".*").split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def test_every_rules_data_key_named_in_docs_rules_md_exists() -> None:
    data = tomllib.loads(RULES_DATA.read_text(encoding="utf-8"))
    named = [(rule, key) for rule, column in _defined().items() for key in KEY.findall(column)]
    assert len(named) > 60  # the page names the keys (a parser that found none proves nothing)
    unknown = [(rule, key) for rule, key in named if not _resolve(data, key)]
    assert not unknown, f"keys named in docs/rules.md that engine/data/rules.toml lacks: {unknown}"


def test_every_rule_tag_in_the_rules_data_is_defined() -> None:
    """Each table of rules.toml carries ``rule = "…"``: that id is on the page."""
    tags = re.findall(r'^rule = "([^"]+)"', RULES_DATA.read_text(encoding="utf-8"), re.M)
    assert tags and set(tags) <= set(_defined())


def test_no_reference_points_outside_the_repository() -> None:
    """A clone has no RULES.md or DESIGN.md: references go to docs/ (issue 18)."""
    outside = re.compile(r"\b(?:RULES|DESIGN)\.md\b|/work/shared")
    hits = [
        str(path.relative_to(ROOT))
        for path in _citing_files()
        if path != Path(__file__).resolve() and outside.search(path.read_text(encoding="utf-8"))
    ]
    assert not hits, f"these files point to a RULES.md/DESIGN.md outside the repository: {hits}"
