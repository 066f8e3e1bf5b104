"""The topic catalogue (companion/mqtt/topics.py, CATALOGUE; issue 28 item 3): the one list
the builders, docs/topics.json, the pages' section names and docs/mqtt.md's table come from."""

from __future__ import annotations

import json
import re

import pytest

from companion.mqtt import messages
from companion.mqtt.schema import MESSAGES, TITLES, _payload_type
from companion.mqtt.topics import (
    CATALOGUE,
    PUBLIC_FILTERS,
    SECTIONS,
    Topic,
    Topics,
    catalogue_json,
)
from engine.contracts import view
from tests.harness import ROOT

DOCS = ROOT / "docs"
_ROW = re.compile(r"^\| `…/([^`]+)` \| (yes|no|—) \| (\d) \|", re.M)


def test_docs_mqtt_md_lists_every_topic_of_the_catalogue_as_it_is():
    """The topics table of docs/mqtt.md: each catalogue topic once, retained and QoS as here."""
    said = {m[1]: ({"yes": True, "no": False, "—": None}[m[2]], int(m[3])) for m in
            _ROW.finditer((DOCS / "mqtt.md").read_text("utf-8"))}  # fmt: skip
    assert said == {t.suffix: (t.retained, t.qos) for t in CATALOGUE}


_WHO = re.compile(r"^\| `…/([^`]+)` \| (?:yes|no|—) \| \d \| ([^|]+?) \|", re.M)


def test_docs_mqtt_md_says_who_reads_each_topic_as_the_acl_grants_it():
    """issue 42 item 4: the table's "who reads it" is each entry's audience, and the public
    logins' ACL filters are exactly the public topics the service publishes."""
    said = dict(_WHO.findall((DOCS / "mqtt.md").read_text("utf-8")))
    who = {"public": "everyone", "worldkeeper": "gm, service"}
    assert said == {
        t.suffix: "service (gm writes)"
        if t.retained is None
        else who[t.audience] + (" (gm writes)" if t.writer == "worldkeeper" else "")
        for t in CATALOGUE
    }
    assert set(PUBLIC_FILTERS) == {
        t.suffix.replace("<id>", "+")
        for t in CATALOGUE
        if t.audience == "public" and t.retained is not None
    }
    assert not {"error", "reply", "gm_events", "gm", "command"} & set(PUBLIC_FILTERS)


def test_every_builder_names_a_catalogue_topic_and_nothing_else_is_built():
    t = Topics("rhuna", "hall-1")
    filters = {"root", "heroes", "command_filter"}  # the prefix and the two filters
    properties = [n for n, v in vars(Topics).items() if isinstance(v, property)]
    built = {getattr(t, n) for n in properties if n not in filters}
    built |= {t.hero("aria"), *(t.section(name) for name in SECTIONS)}
    suffixes = {b.removeprefix("rhuna/hall-1/").replace("aria", "<id>") for b in built}
    assert suffixes == {c.suffix for c in CATALOGUE} - {"command/<name>"}
    assert t.heroes == "rhuna/hall-1/heroes/+" and t.command_filter == "rhuna/hall-1/command/+"
    with pytest.raises(ValueError, match="not in the topic catalogue"):
        t.section("odd")


def test_the_pages_section_names_are_the_catalogue_s():
    """web/gen-types.mjs writes src/generated/topics.ts from docs/topics.json (make web); the
    public pages follow its PAGE_SECTIONS, the retained sections marked for the pages."""
    assert json.loads((DOCS / "topics.json").read_text("utf-8")) == catalogue_json()
    generated = ROOT / "web" / "src" / "generated" / "topics.ts"
    text = generated.read_text("utf-8")
    pages = json.loads(re.search(r"PAGE_SECTIONS = (\[.*?\]) as const", text)[1])
    assert pages == [c.suffix for c in CATALOGUE if c.retained and c.pages and "/" not in c.suffix]
    assert "bags" not in pages and "history" in pages  # the remote alone follows the bags


def test_the_bridge_s_message_schemas_come_from_the_catalogue():
    """issue 40 item 3: companion/mqtt/schema.py keeps no list of its own: each titled entry
    names its payload's TypedDict (companion/mqtt/messages.py) and its schema's title; every
    type an entry names is a real one (the bridge's messages, or the engine's view)."""
    titled = [t for t in CATALOGUE if t.title]
    assert {t.suffix: getattr(messages, t.type or "") for t in titled} == MESSAGES
    assert {t.suffix: t.title for t in titled} == TITLES
    for t in CATALOGUE:
        if t.type:
            assert hasattr(messages, t.type) or hasattr(view, t.type), t
    assert [t.suffix for t in CATALOGUE if t.in_state] == [s for s in SECTIONS if s != "bags"]
    assert all(t.section for t in CATALOGUE if t.in_state or t.pages)


def test_a_titled_entry_whose_type_is_no_message_is_refused_by_name():
    odd = Topic("odd", False, "odd.schema.json", type="OddMessage", title="Rhuna table odd")
    with pytest.raises(TypeError, match=r"CATALOGUE's 'odd' .*'OddMessage'"):
        _payload_type(odd)
