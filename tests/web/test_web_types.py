"""The pages' payload types come from the service's JSON Schemas: a key renamed in the service
breaks the web build (`tsc`), instead of leaving a blank on a stream (docs/state.schema.json)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from tests.harness import ROOT, missing_real_part

WEB = ROOT / "web"


def typecheck(tmp_path, state_schema, topics=None, **schemas):
    """Generate the types from ``state_schema`` (and any other ``<name>=schema`` given, else
    the one in docs/; ``topics``, else docs/topics.json) in a copy of web/ and run tsc there."""
    if not (WEB / "node_modules" / ".bin" / "tsc").exists() or shutil.which("node") is None:
        missing_real_part("web/node_modules (make web) and node")
    copy = tmp_path / "web"
    copy.mkdir()
    for name in ("src", "gen-types.mjs", "tsconfig.json", "package.json"):
        src = WEB / name
        if src.is_dir():
            shutil.copytree(src, copy / name, ignore=shutil.ignore_patterns("generated"))
        else:
            shutil.copy(src, copy / name)
    (copy / "node_modules").symlink_to(WEB / "node_modules")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "state.schema.json").write_text(json.dumps(state_schema))
    if topics is None:  # the topic catalogue
        shutil.copy(ROOT / "docs" / "topics.json", docs / "topics.json")
    else:
        (docs / "topics.json").write_text(json.dumps(topics))
    for path in (ROOT / "docs").glob("*.schema.json"):  # gm.html reads the commands too
        if path.name != "state.schema.json":
            shutil.copy(path, docs / path.name)
    for name, schema in schemas.items():
        (docs / f"{name}.schema.json").write_text(json.dumps(schema))
    env = {"PATH": f"{copy / 'node_modules' / '.bin'}:/usr/bin:/bin", "RHUNA_DOCS": str(docs)}
    subprocess.run(["node", "gen-types.mjs"], cwd=copy, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["tsc", "--noEmit"], cwd=copy, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_schemas_as_published_typecheck(tmp_path):
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    result = typecheck(tmp_path, schema)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_key_renamed_in_the_service_breaks_the_web_build(tmp_path):
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    contribution = schema["$defs"]["ContributionView"]
    contribution["properties"]["sum"] = contribution["properties"].pop("total")
    contribution["required"] = ["sum" if k == "total" else k for k in contribution["required"]]
    result = typecheck(tmp_path, schema)
    assert result.returncode != 0
    assert "Property 'total' does not exist on type 'ContributionView'" in result.stdout
    assert "src/model.ts" in result.stdout


def test_a_key_renamed_in_the_history_message_breaks_the_web_build(tmp_path):
    """…/history is generated too (docs/history.schema.json): the table page's recap link."""
    state = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    history = json.loads((ROOT / "docs" / "history.schema.json").read_text())
    recap = history["$defs"]["Recap"]
    recap["properties"]["link"] = recap["properties"].pop("href")
    recap["required"] = ["link" if k == "href" else k for k in recap["required"]]
    result = typecheck(tmp_path, state, history=history)
    assert result.returncode != 0
    assert "Property 'href' does not exist on type 'Recap'" in result.stdout
    assert "src/model.ts" in result.stdout


def test_a_topic_renamed_in_the_catalogue_breaks_the_pages_that_follow_it(tmp_path):
    """issue 28 item 3: the pages' section names come from docs/topics.json (web/gen-types.mjs),
    so a section the service no longer publishes is a type error where a page asks for it."""
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    topics = json.loads((ROOT / "docs" / "topics.json").read_text())
    for t in topics["topics"]:
        if t["suffix"] == "bags":
            t["suffix"] = "contents"
    result = typecheck(tmp_path, schema, topics)
    assert result.returncode != 0
    assert "Type '\"bags\"' is not assignable" in result.stdout, result.stdout
    assert "src/pages/gm.ts" in result.stdout
    # issue 40 item 3: the renamed topic is the one the router and the store's sections know
    generated = (tmp_path / "web" / "src" / "generated" / "topics.ts").read_text()
    assert '["contents",["contents"],false]' in generated and '"bags":' not in generated
    assert '"contents"?: Payloads["contents"] | null;' in generated


def _with_topic(topics, entry, before="heroes/<id>"):
    """A copy of the catalogue with ``entry`` (a docs/topics.json row) before ``before``."""
    rows = topics["topics"]
    at = next(i for i, t in enumerate(rows) if t["suffix"] == before)
    return {**topics, "topics": [*rows[:at], entry, *rows[at:]]}


def test_a_section_added_to_the_catalogue_reaches_the_pages_with_no_other_edit(tmp_path):
    """issue 40 item 3: no hand list of topics remains. A retained section added to a copy of
    docs/topics.json reaches the generated payload map, router table and store sections, and
    the pages type-check with no other file edited (the pages follow it: PAGE_SECTIONS)."""
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    topics = json.loads((ROOT / "docs" / "topics.json").read_text())
    weather = {
        "suffix": "weather", "retained": True, "qos": 1, "pages": True, "type": None,
        "payload": "state.schema.json#/x-topics/time", "section": True, "in_state": False,
    }  # fmt: skip
    result = typecheck(tmp_path, schema, _with_topic(topics, weather))
    assert result.returncode == 0, result.stdout + result.stderr
    generated = (tmp_path / "web" / "src" / "generated" / "topics.ts").read_text()
    assert '"weather": TopicPayloads_state["time"];' in generated  # Payloads
    assert '"weather": (payload: Payloads["weather"] | null, at: Delivery) => void;' in generated
    assert '["weather",["weather"],false]' in generated  # the router's table
    assert '"weather": Payloads["weather"] | null;' in generated  # the store's Sections
    pages = json.loads(re.search(r"PAGE_SECTIONS = (\[.*?\]) as const", generated)[1])
    assert pages[-1] == "weather"


def test_a_stream_added_to_the_catalogue_asks_only_for_its_reader(tmp_path):
    """A new stream with a schema of its own: its payload type is generated (the catalogue
    names it) and the one error tsc gives is the router in connection.ts lacking its handler:
    the recipe's last step, the reader (docs/mqtt.md, "Adding a topic")."""
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text())
    topics = json.loads((ROOT / "docs" / "topics.json").read_text())
    tidings = {
        "suffix": "tidings", "retained": False, "qos": 1, "pages": False, "type": "Tidings",
        "payload": "tidings.schema.json", "section": False, "in_state": False,
    }  # fmt: skip
    payload = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rhuna-table/tidings.schema.json", "title": "Rhuna table tidings",
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
        "additionalProperties": False,
    }  # fmt: skip
    result = typecheck(tmp_path, schema, _with_topic(topics, tidings, "info"), tidings=payload)
    generated = (tmp_path / "web" / "src" / "generated" / "topics.ts").read_text()
    assert 'import type { Tidings } from "./tidings";' in generated
    assert '"tidings": Tidings;' in generated
    errors = [line for line in result.stdout.splitlines() if "error TS" in line]
    assert result.returncode != 0 and errors, result.stdout + result.stderr
    assert all(line.startswith("src/connection.ts") for line in errors), errors
    assert "Property '\"tidings\"' is missing" in result.stdout, result.stdout


_CODE_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def test_connection_ts_names_no_topic_by_hand():
    """The pages' connection routes and subscribes through the generated table (TOPIC, ROUTES,
    Router): no topic suffix of the catalogue is written in it as a string, neither whole
    (``"status"``) nor as a level (`` `${root}/events` ``). MQTT.js's own event names
    (``client.on("error", …)``) are not topics."""
    code = _CODE_COMMENT.sub("", (WEB / "src" / "connection.ts").read_text("utf-8"))
    code = re.sub(r"\.on\(\"[a-z]+\"", ".on(", code)
    topics = json.loads((ROOT / "docs" / "topics.json").read_text())["topics"]
    levels = {level for t in topics for level in t["suffix"].split("/") if "<" not in level}
    found = sorted(
        m[0] for level in levels for m in re.finditer(rf"[\"'`/]{re.escape(level)}(?![\w-])", code)
    )
    assert found == [], f"web/src/connection.ts names topics by hand: {found}"
