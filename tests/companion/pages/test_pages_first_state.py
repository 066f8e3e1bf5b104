"""The page server inlines the table's first state in every page it serves (issue 42 item 7), and
only what each page's login may read on the broker (companion/pages/server.py).

Mosquitto with the accounts and ACL ``rhuna-table accounts`` writes (tests.harness.web
.AccountsBroker) and the real service serving the built pages (``[web]``). The WorldKeeper
improvises a foe, which only the gm's ``…/gm`` (retained) names. Every page from the service
carries ``…/state`` in its ``rhuna-first`` block; every topic in the block is one that each
public login (the overlay's, the display's, the wall's) receives when it subscribes to ``#``;
no worldkeeper topic is in it, and the foe's name is nowhere in the page.
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path

import pytest

from companion.config import ConfigError, config_from_text
from companion.ops.accounts import WALL
from companion.pages.server import PageServer
from tests.harness import wait_until
from tests.harness.broker import WAIT, Watcher
from tests.harness.web import AccountsBroker, served_table

FOE = "lichling"
PAGES = ("overlay.html", "table.html", "tables.html", "gm.html")
BLOCK = re.compile(rb'<script id="rhuna-first" type="application/json">(.*?)</script>', re.S)


def page(port: int, name: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request("GET", f"/{name}?table=example")
        r = conn.getresponse()
        assert r.status == 200, r.status
        return r.read()
    finally:
        conn.close()


def inlined(body: bytes) -> dict[str, str]:
    found = BLOCK.findall(body)
    assert len(found) == 1, "one rhuna-first block, before the page's own script"
    assert body.index(b'id="rhuna-first"') < body.index(b"</head>")
    topics: dict[str, str] = json.loads(found[0])
    return topics


def readable(port: int, username: str, password: str, wanted: set[str]) -> set[str]:
    """The retained topics ``username`` receives on subscribing to ``#`` (the ACL's answer):
    the broker sends every retained copy a login may read at once after the SUBACK, so once
    the ``wanted`` ones have come (or WAIT has passed) the rest would have come too."""
    w = Watcher(port, ["#"], username=username, password=password)
    try:
        with w.cond:
            w.cond.wait_for(lambda: wanted <= {m.topic for m in w.messages}, WAIT)
            return {m.topic for m in w.messages if m.retain}
    finally:
        w.client.disconnect()
        w.client.loop_stop()


def test_every_page_is_given_the_state_and_only_what_the_public_logins_may_read(
    tmp_path: Path,
) -> None:
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(
            tmp_path / "svc", broker, login=broker.login("service"), serve_pages=True
        ) as table:
            sheet = {"reflex": 2, "might": 2, "dodge": 1, "parry": 1, "fortitude": 2, "speed": 3}
            table.command({"cmd": "add_combatant", "combatant": FOE, "side": "foes", **sheet})
            gm_topic, state_topic = "rhuna/example/gm", "rhuna/example/state"
            # the bridge has published the foe on the gm's topic (and a state after it)
            wait_until(
                lambda: FOE in table.bridge.link.published.get(gm_topic, ""),
                "the improvised foe on …/gm",
            )
            assert table.web_port is not None
            bodies = {name: page(table.web_port, name) for name in PAGES}
            blocks = {name: inlined(body) for name, body in bodies.items()}
            every: set[str] = set().union(*blocks.values())
            # the state is there, as the bridge last published it
            for name, block in blocks.items():
                assert state_topic in block, name
                published = table.bridge.link.published[state_topic]
                assert json.loads(block[state_topic]) == json.loads(published), name
                assert FOE not in bodies[name].decode(), f"{name} names the gm's foe"
            assert gm_topic not in every
            assert not {t for t in every if t.rsplit("/", 1)[-1] in ("gm", "audit", "error")}
            # what the broker lets each public login read: the block is within it, for each
            logins: dict[str, tuple[str, str]] = {
                "overlay": broker.login("overlay"),
                "display": broker.login("display"),
            }
            assert broker.accounts.wall is not None
            logins["wall"] = (WALL, broker.accounts.wall)
            for role, (user, password) in logins.items():
                may = readable(broker.port, user, password, every)
                assert gm_topic not in may, f"the {role} login reads the gm's topic"
                assert every <= may, f"{role} may not read {sorted(every - may)}"
    finally:
        broker.stop()


def test_first_state_off_serves_the_pages_as_built_and_the_config_says_so(tmp_path: Path) -> None:
    """``[web] first_state = false``: whoever reaches the port without a login gets the page as
    built, with no table state in it; on (the default) the same page carries the block. The
    key is checked like every other: a word that is no boolean is refused, naming the key."""
    root = tmp_path / "web"
    root.mkdir()
    built = b"<html><head><title>t</title></head><body></body></html>"
    (root / "table.html").write_bytes(built)
    state = {"rhuna/example/state": json.dumps({"table": "example"})}
    bodies = {}
    for first_state in (True, False):
        server = PageServer(root, "127.0.0.1", 0, first_state=first_state)
        server.take_first_state(lambda: state)
        server.start(None)
        try:
            bodies[first_state] = page(server.port, "table.html")
        finally:
            server.stop()
    assert inlined(bodies[True]) == state
    assert bodies[False] == built, "a page served with first_state off carries no state"

    assert config_from_text('[web]\ndir = "web"\n', "rhuna.toml", base=tmp_path).web_first_state
    off = config_from_text('[web]\ndir = "web"\nfirst_state = false\n', "rhuna.toml", base=tmp_path)
    assert off.web_first_state is False
    with pytest.raises(ConfigError) as refused:
        config_from_text('[web]\ndir = "web"\nfirst_state = "no"\n', "rhuna.toml", base=tmp_path)
    assert "web.first_state" in str(refused.value)
