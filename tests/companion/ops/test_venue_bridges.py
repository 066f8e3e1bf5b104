"""Ten table brokers bridged to a venue broker, all from ``rhuna-table venue``'s files
(docs/convention.md): the wall at the venue gets every table; one table's uplink cut
(a blackhole, found by keepalives) loses nothing; a venue restart leaves the wall whole."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.broker import Message, Watcher, send
from tests.harness.venue import Rig

TABLES = 10
CUT = "t003"
EVENTS = 20


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path, TABLES, keepalive=5, cut=CUT).start()
    try:
        yield r
    finally:
        r.stop()


def wall(r: Rig) -> Watcher:
    return Watcher(r.venue.port, ["rhuna/#"], username="wall", password=r.venue.wall)


def latest(ms: list[Message], kind: str) -> dict[str, bytes]:
    """table → the last payload of ``/state`` (rhuna/<t>/state) or ``/uplink`` (rhuna/uplink/<t>)."""
    out: dict[str, bytes] = {}
    for m in ms:
        parts = m.topic.split("/")
        if kind == "/uplink" and parts[1] == "uplink":
            out[parts[2]] = m.payload
        elif kind != "/uplink" and parts[1] != "uplink" and m.topic.endswith(kind):
            out[parts[1]] = m.payload
    return out


def test_ten_tables_one_cut_nothing_lost_and_whole_after_a_venue_restart(rig: Rig) -> None:
    for t, b in rig.tables.items():
        send(b.port, f"rhuna/{t}/state", {"table": t, "n": 0}, retain=True)
    w = wall(rig)
    w.wait(lambda ms: len(latest(ms, "/state")) == TABLES, "every table's state at the venue")
    w.wait(
        lambda ms: (
            all(v == b"1" for v in latest(ms, "/uplink").values())
            and len(latest(ms, "/uplink")) == TABLES
        ),
        "every uplink online",
    )

    assert rig.cut is not None
    rig.cut.drop()
    port = rig.tables[CUT].port
    for n in range(EVENTS):
        send(port, f"rhuna/{CUT}/events", {"n": n})
    send(port, f"rhuna/{CUT}/state", {"table": CUT, "n": EVENTS}, retain=True)
    # the bridge's will: the venue says the uplink is down once keepalives find the cut
    w.wait(lambda ms: latest(ms, "/uplink").get(CUT) == b"0", "the cut uplink offline", 20)
    rig.cut.restore()
    got = w.wait(
        lambda ms: (
            len(ev := [json.loads(m.payload)["n"] for m in ms if m.topic == f"rhuna/{CUT}/events"])
            >= EVENTS
            and latest(ms, "/uplink").get(CUT) == b"1"
            and json.loads(latest(ms, "/state")[CUT])["n"] == EVENTS
            and ev
        ),
        "the outage's events after the reconnection",
        30,
    )
    # all of them, once each, in order (QoS 1 may redeliver: then duplicates, never a gap)
    assert sorted(set(got)) == list(range(EVENTS)), got
    assert [n for i, n in enumerate(got) if i == 0 or n != got[i - 1]] == list(range(EVENTS)), got
    assert json.loads(latest(w.messages, "/state")[CUT]) == {"table": CUT, "n": EVENTS}
    w.close()

    rig.broker.stop()
    rig.broker.start()
    fresh = wall(rig)
    fresh.wait(
        lambda ms: (
            len(latest(ms, "/state")) == TABLES
            and sum(v == b"1" for v in latest(ms, "/uplink").values()) == TABLES
        ),
        "every table's retained state and uplink after the venue restart",
        15,
    )
    assert json.loads(latest(fresh.messages, "/state")[CUT])["n"] == EVENTS
    fresh.close()


def test_a_bridge_login_writes_only_its_own_table(rig: Rig) -> None:
    w = wall(rig)
    intruder = Watcher(rig.venue.port, ["x/none"], username="t001.bridge", password="t001-pw")
    for topic, body in (
        ("rhuna/t002/state", b'{"forged": true}'),
        ("rhuna/t001/state", b'{"own": true}'),
    ):
        intruder.client.publish(topic, body, qos=1, retain=True).wait_for_publish(10)
    w.wait(lambda ms: "t001" in latest(ms, "/state"), "t001's own write")
    assert (
        "t002" not in latest(w.messages, "/state")
        or b"forged" not in latest(w.messages, "/state")["t002"]
    )
    # the wall is read-only: its write is dropped
    w.client.publish("rhuna/t001/state", b'{"wall": 1}', qos=1, retain=True).wait_for_publish(10)
    intruder.close()
    again = wall(rig)
    again.wait(lambda ms: "t001" in latest(ms, "/state"), "t001's retained state")
    assert json.loads(latest(again.messages, "/state")["t001"]) == {"own": True}
    again.close()
    w.close()


def test_the_worldkeepers_topics_never_leave_the_table_s_pi(tmp_path: Path) -> None:
    """Issue 42 item 4: a table's bridge sends its public topics out, each by name, so the
    WorldKeeper's (…/gm_events, …/gm, …/error, …/reply) never reach the venue, where the wall
    and the director read rhuna/#."""
    r = Rig(tmp_path, 1, keepalive=5).start()
    try:
        [(t, b)] = r.tables.items()
        w = wall(r)
        w.wait(lambda ms: latest(ms, "/uplink").get(t) == b"1", "the uplink online")
        for secret in ("gm_events", "gm", "error", "reply"):
            send(b.port, f"rhuna/{t}/{secret}", {"secret": f"the lich on {secret}"})
        send(b.port, f"rhuna/{t}/events", {"public": "after the secrets"})
        w.wait(lambda ms: any(m.topic == f"rhuna/{t}/events" for m in ms), "the public event")
        assert not [m.topic for m in w.messages if b"the lich" in m.payload]
        w.close()
    finally:
        r.stop()
