"""The pages read events, token kinds, the odds' advice and the Time Board's prompts through the
generated types (issue 40 item 2): in a copy of web/ and docs/, an event field or an event's name
renamed in docs/events.schema.json, or an advice's field in docs/state.schema.json, is a `tsc`
error where a page reads it; a token kind added to the engine's contract
(engine/contracts/terms.py, in a copy of the engine, its schemas written from it) is one in
web/src/tokenart.ts, which must give it a colour and a shape, and a prompt kind added there is
one in web/src/gm/time.ts, which must give it its words. The style sheets cannot be compiled:
every token kind the style sheets name is one the contract has."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from typing import get_args

from engine.contracts.terms import TokenKindName
from tests.harness import ROOT
from tests.harness.contract_copies import copy_web, typecheck_web, with_kind, with_prompt_kind

_ERROR = re.compile(r"^(src/[\w/.-]+\.ts)\((\d+),\d+\): error TS\d+: (.*)$", re.M)
#: (event type, payload field) renamed → the files whose reading of it tsc must refuse
FIELD_RENAMES = {("performance_resolved", "success"): {"src/model.ts", "src/store.ts"}}
#: an event's name renamed → the files that match on it
TYPE_RENAMES = {"token_replaced": {"src/model.ts"}}
#: (view type in docs/state.schema.json, field) renamed → the files whose reading of it tsc
#: must refuse
VIEW_RENAMES = {("Advice", "text"): {"src/model.ts", "src/store.ts"}}
NEW_KIND = "relic"
KIND_READERS = {"src/tokenart.ts"}
NEW_PROMPT_KIND = "omen"
PROMPT_KIND_READERS = {"src/gm/time.ts"}

_WRITE_SCHEMAS = """
import sys
from engine.contracts.schema import dumps, events_schema, state_schema
for name, schema in (("state", state_schema()), ("events", events_schema())):
    open(f"{sys.argv[1]}/{name}.schema.json", "w").write(dumps(schema))
"""


def _errors(result) -> list[tuple[str, int, str]]:
    return [(f, int(n), msg) for f, n, msg in _ERROR.findall(result.stdout)]


def test_a_renamed_event_field_or_name_is_a_tsc_error_where_a_page_reads_it(tmp_path):
    copy = copy_web(tmp_path)
    assert typecheck_web(copy).returncode == 0, "the unmodified copy must type-check"
    path = tmp_path / "docs" / "events.schema.json"
    schema = json.loads(path.read_text())
    variants = {v.get("title"): v for v in schema["oneOf"]}
    for event, field in FIELD_RENAMES:
        v = variants[event]
        v["properties"][f"{field}_renamed"] = v["properties"].pop(field)
        v["required"] = [f"{field}_renamed" if k == field else k for k in v["required"]]
    for event in TYPE_RENAMES:
        variants[event]["properties"]["type"] = {"const": f"{event}_renamed"}
    path.write_text(json.dumps(schema))
    path = tmp_path / "docs" / "state.schema.json"
    schema = json.loads(path.read_text())
    for typed, field in VIEW_RENAMES:
        d = schema["$defs"][typed]
        d["properties"][f"{field}_renamed"] = d["properties"].pop(field)
        d["required"] = [f"{field}_renamed" if k == field else k for k in d["required"]]
    path.write_text(json.dumps(schema))
    result = typecheck_web(copy)
    assert result.returncode != 0
    errors = _errors(result)
    for (typed, field), readers in VIEW_RENAMES.items():
        said = {
            f
            for f, _, msg in errors
            if f"Property '{field}' does not exist on type '{typed}'" in msg
        }
        assert said == readers, (typed, field, errors)
    for (event, field), readers in FIELD_RENAMES.items():
        said = {f for f, _, msg in errors if f"Property '{field}' does not exist" in msg}
        assert said == readers, (event, field, errors)
    for event, readers in TYPE_RENAMES.items():
        said = {f for f, _, msg in errors if f'"{event}"' in msg}
        assert said == readers, (event, errors)


def _with_terms(tmp_path, change, added: str) -> subprocess.CompletedProcess[str]:
    """tsc on a copy of the pages whose schemas are written from a copy of the engine with
    ``change`` made to its engine/contracts/terms.py (which adds the word ``added``)."""
    copy = copy_web(tmp_path / "pages")
    assert typecheck_web(copy).returncode == 0, "the unmodified copy must type-check"
    engine = tmp_path / "engine"
    for package in ("engine", "settings"):
        shutil.copytree(ROOT / package, engine / package, ignore=shutil.ignore_patterns("*.pyc"))
    terms = engine / "engine" / "contracts" / "terms.py"
    terms.write_text(change(terms.read_text("utf-8")), "utf-8")
    docs = tmp_path / "pages" / "docs"
    subprocess.run(
        [sys.executable, "-c", _WRITE_SCHEMAS, str(docs)], cwd=engine, check=True, timeout=120
    )
    assert added in (docs / "state.schema.json").read_text()
    return typecheck_web(copy)


def test_a_new_token_kind_is_a_tsc_error_in_the_token_art(tmp_path):
    result = _with_terms(tmp_path, lambda terms: with_kind(terms, NEW_KIND), NEW_KIND)
    assert result.returncode != 0
    said = {f for f, _, msg in _errors(result) if NEW_KIND in msg}
    assert said == KIND_READERS, result.stdout


def test_a_new_prompt_kind_is_a_tsc_error_where_a_page_words_it(tmp_path):
    result = _with_terms(
        tmp_path, lambda terms: with_prompt_kind(terms, NEW_PROMPT_KIND), NEW_PROMPT_KIND
    )
    assert result.returncode != 0
    said = {f for f, _, msg in _errors(result) if NEW_PROMPT_KIND in msg}
    assert said == PROMPT_KIND_READERS, result.stdout


def test_the_style_sheets_name_only_the_contracts_token_kinds():
    kinds = set(get_args(TokenKindName))
    named = {
        m.group(2)
        for css in sorted((ROOT / "web" / "pages").glob("*.css"))
        for m in re.finditer(r"\.(kind|art)-([a-z_]+)", css.read_text("utf-8"))
    }
    assert named, "no token kind in the style sheets: the selectors moved, update this test"
    assert named <= kinds, sorted(named - kinds)
