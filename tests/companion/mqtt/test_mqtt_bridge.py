"""The bridge against a real Mosquitto: retained state, events, commands with replies, HA discovery.

A real TableLoop (the example table) runs on a test thread; a separate paho
client plays the overlay / Home Assistant. Nothing is mocked.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from companion.mqtt.ahead import StateAhead
from companion.mqtt.bridge import MqttBridge
from companion.mqtt.messages import state_messages, state_payload
from companion.mqtt.topics import Topics
from companion.table.panel_output import LazyView
from companion.views.answers import answer_for
from companion.views.cache import VIEWS, Views
from engine import CommandRejected, apply
from engine.combat.odds import success_counts
from engine.contracts.events import audience
from engine.view import table_view
from firmware_bridge.events import Presence, TagEvent
from tests.harness import ARIA, BEGIN, ROOT, run, wait_until
from tests.harness.broker import (
    WAIT,
    Broker,
    R,
    RunningLoop,
    Watcher,
    bridge_config,
    example_loop,
    send,
    table_on_mqtt,
)
from tests.harness.mqtt_gate import MqttGate

DRAW = {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}


@pytest.fixture
def watcher(broker):
    w = Watcher(broker.port, [f"{R}/#"])
    yield w
    w.close()


def as_json(value):
    return json.loads(json.dumps(value))


def expected_events(state, commands):
    """What the engine itself says these commands cause (refused ones cause nothing)."""
    out = []
    for command in commands:
        try:
            state, more = apply(state, command)
        except CommandRejected:
            continue
        out += more
    return out


def view_of(message) -> dict:
    """``…/state`` as the engine's view: without the service's ``changed_at`` stamp."""
    out = message.json()
    out.pop("changed_at", None)
    return out


def events(w: Watcher) -> list[dict]:
    return w.json_on(f"{R}/events")


def test_a_late_subscriber_sees_the_whole_retained_truth_at_once(broker, watcher):
    """An overlay opened mid-Performance gets state, Performance, odds and heroes at once."""
    with table_on_mqtt(broker.port) as (bridge, running):
        # ready first: the connection's Ready republishes every retained topic whole, and
        # that republish, landing after the late subscriber below, handed it copies live
        # (make test-loaded, issue 39)
        assert bridge.wait_ready(WAIT)
        for command in (BEGIN, ARIA, DRAW):
            running.loop.submit(command, source="script")
        watcher.wait(lambda ms: len(events(watcher)) == 3, "three events")
        expected = as_json(state_payload(table_view(running.loop.state)))
        # every retained topic published (the state first, the heroes last): a subscriber
        # that came earlier would get some of them live, not retained
        retained = state_messages(table_view(running.loop.state), Topics("rhuna", "example"))
        watcher.wait(
            lambda ms: all(
                [
                    view_of(m) if t == f"{R}/state" else m.payload.decode()
                    for m in ms
                    if m.topic == t
                ][-1:]
                == [json.loads(p) if t == f"{R}/state" else p]
                for t, p in retained.items()
            ),
            "every retained topic after the draw",
        )
        # …/history goes out last, after the state's topics: a subscriber before it got it live
        watcher.wait(lambda ms: watcher.on(f"{R}/history"), "the history")
        late = Watcher(broker.port, [f"{R}/#"])
        try:
            wanted = {*retained, f"{R}/status", f"{R}/history"}
            late.wait(lambda ms: wanted <= {m.topic for m in ms}, "every retained topic")
            got = {}  # what it was handed first on each topic: the retained copy, if any
            for m in late.messages:
                got.setdefault(m.topic, m)
            assert all(m.retain for m in got.values()), [
                (t, m.payload[:80]) for t, m in got.items() if not m.retain
            ]
            assert view_of(got[f"{R}/state"]) == expected
            assert got[f"{R}/performance"].json() == expected["performance"]
            assert got[f"{R}/odds"].json() == expected["odds"]
            assert got[f"{R}/costs"].json() == expected["costs"] == {}  # P13: nothing cost yet
            assert got[f"{R}/time"].json() == expected["time"]
            assert got[f"{R}/combat"].json() is None
            assert got[f"{R}/heroes/aria"].json() == expected["heroes"]["aria"]
            # what is in each bag: on …/bags only (…/state's bags have no tokens)
            assert got[f"{R}/bags"].json() == as_json(table_view(running.loop.state))["bags"]
            assert got[f"{R}/status"].payload == b"online"
            assert f"{R}/events" not in got  # the stream is not retained
        finally:
            late.close()


def test_a_command_gets_an_ok_reply_with_its_events_and_the_echoed_transaction(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        watcher.send(f"{R}/command", {**BEGIN, "transaction": "t-1"})
        reply = watcher.reply(f"{R}/reply", "t-1")
        assert reply["status"] == "ok" and "error" not in reply
        assert reply["data"]["command"] == BEGIN
        [started] = reply["data"]["events"]
        assert started["type"] == "performance_started" and started["difficulty"] == 5
        assert started["text"] == "Performance 1 begins: Difficulty 5, WEIGHT OFF"
        assert started["source"].startswith("mqtt:")
        # the same event, same seq, on the stream
        watcher.wait(lambda ms: events(watcher), "the event")
        assert events(watcher) == [started]

        # Zigbee2MQTT style: the command's name in the topic, its fields as the payload, "id"
        fields = {k: v for k, v in ARIA.items() if k != "cmd"}
        watcher.send(f"{R}/command/declare", {**fields, "id": 42})
        reply = watcher.reply(f"{R}/reply", 42)
        assert reply["status"] == "ok" and reply["data"]["events"][0]["type"] == "declared"
        watcher.send(f"{R}/command/undo", "")
        watcher.wait(lambda ms: len(watcher.on(f"{R}/reply")) == 3, "the undo's reply")
        undone = watcher.on(f"{R}/reply")[-1].json()
        assert undone["status"] == "ok" and "transaction" not in undone
        assert undone["data"]["events"][0]["type"] == "undone"
        assert running.loop.state.performance.contributions == ()


def test_a_commands_reply_goes_out_in_its_turn_right_after_its_events(broker, watcher):
    """Issue 27's leftover: a command from MQTT whose events the loop's turn sent gets its reply
    from that turn too (not from the publisher thread), the same payload: its transaction and
    those very events, after them on the wire; a refused one still gets its error reply, after
    its ``…/error`` (the publisher's)."""
    with table_on_mqtt(broker.port) as (bridge, _running):
        assert bridge.wait_ready(WAIT)

        def clear() -> bool:  # the way open: the retained topics out and acknowledged
            with bridge.link.cond:
                return bridge.link.outstanding == 0 and bridge.publisher.inbox.empty()

        for transaction, command in (("begin", BEGIN), ("declare", ARIA)):
            wait_until(clear, "the publisher done and every publish acknowledged")
            watcher.send(f"{R}/command", {**command, "transaction": transaction})
            reply = watcher.reply(f"{R}/reply", transaction)
            assert reply["status"] == "ok" and reply["data"]["command"] == command
        assert bridge.stats.reply_direct == 2  # both from the turn
        draw = {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"}  # P23: not declared
        watcher.send(f"{R}/command", {**draw, "transaction": "refused"})
        refused = watcher.reply(f"{R}/reply", "refused")
        assert refused["status"] == "error" and refused["error"]["rule"] == "P23"
        assert bridge.stats.reply_direct == 2
        wire = [
            m for m in watcher.messages if m.topic in (f"{R}/events", f"{R}/reply", f"{R}/error")
        ]
        kinds = [(m.topic.rsplit("/", 1)[1], m.json().get("transaction")) for m in wire]
        assert kinds == [("events", None), ("reply", "begin"), ("events", None),
                         ("reply", "declare"), ("error", None), ("reply", "refused")]  # fmt: skip
        sent = [m.json() for m in wire if m.topic == f"{R}/events"]
        replies = watcher.json_on(f"{R}/reply")
        assert replies[0]["data"]["events"] == sent[:1] and replies[1]["data"]["events"] == sent[1:]
        assert [e["seq"] for e in sent] == [1, 2]


def test_an_illegal_command_gets_an_error_reply_naming_rule_field_and_fix_p23(broker, watcher):
    """Bren draws without declaring (P23): refused, nothing changes, the reason goes back."""
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        watcher.send(f"{R}/command", {**BEGIN, "transaction": 1})
        watcher.reply(f"{R}/reply", 1)
        before = running.loop.state
        draw = {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"}
        watcher.send(f"{R}/command", {**draw, "transaction": 2})
        reply = watcher.reply(f"{R}/reply", 2)
        assert reply["status"] == "error" and reply["data"] == {}
        assert reply["error"]["rule"] == "P23" and reply["error"]["field"] == "hero"
        assert reply["error"]["code"] == "illegal" and reply["error"]["fix"]
        error = watcher.first(f"{R}/error").json()
        assert error["rule"] == "P23" and error["command"] == draw
        assert error["source"].startswith("mqtt:") and error["at"]
        assert running.loop.state is before
        # an unknown command: the vocabulary names the field
        watcher.send(f"{R}/command/juggle", {"transaction": 3})
        reply = watcher.reply(f"{R}/reply", 3)
        assert reply["error"]["code"] == "malformed" and reply["error"]["field"] == "cmd"


def test_malformed_payloads_get_error_replies_and_the_bridge_goes_on(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        for payload in (b"{nope", b"\xff\xfe", b'["undo"]', b""):
            watcher.send(f"{R}/command", payload)
        watcher.send(f"{R}/command/draw", b"17")
        watcher.send(f"{R}/command/undo", {"cmd": "resolve", "transaction": "mixed"})
        watcher.wait(lambda ms: len(watcher.on(f"{R}/reply")) == 6, "six error replies")
        replies = watcher.json_on(f"{R}/reply")
        assert all(r["status"] == "error" and r["error"]["code"] == "malformed" for r in replies)
        assert [r.get("transaction") for r in replies][-1] == "mixed"
        assert "not JSON" in replies[0]["error"]["message"]
        assert "not UTF-8" in replies[1]["error"]["message"]
        assert running.loop.processed == 0  # none of them reached the table
        watcher.send(f"{R}/command", {**BEGIN, "transaction": "after"})
        assert watcher.reply(f"{R}/reply", "after")["status"] == "ok"


def test_event_seq_rises_by_one_and_continues_from_the_stores(broker, watcher):
    """seq=41 given (the journal's last): the events are 42, 43, … with no gap or repeat."""
    with table_on_mqtt(broker.port, seq=41) as (bridge, running):
        commands = [
            BEGIN,
            ARIA,
            DRAW,
            {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"},
            {"cmd": "draw", "hero": "bren", "token": "bren.weight.0"},  # refused: no event
            {"cmd": "draw", "hero": "aria", "token": "aria.ember.lore"},
            {"cmd": "draw", "hero": "aria", "token": "aria.potential.skill.1"},
            {"cmd": "resolve"},
        ]
        expected = expected_events(running.loop.state, commands)
        for command in commands:
            running.loop.submit(command, source="script")
        watcher.wait(lambda ms: len(events(watcher)) >= len(expected), "every event")
        watcher.wait(lambda ms: watcher.on(f"{R}/error"), "the refusal")
        # a worldkeeper event (the P20 prompts) is a wordless stand-in here, whole on
        # …/gm_events with the same seq (issue 42 item 4): the seq still rises by one
        withheld = {e.type for e in expected if audience(e) == "worldkeeper"}
        assert withheld, "the Performance gave no P20 prompt"
        said = [e.type if e.type not in withheld else "withheld" for e in expected]
        assert [e["type"] for e in events(watcher)] == said
        seqs = [e["seq"] for e in events(watcher)]
        assert seqs == list(range(42, 42 + len(expected)))
        assert bridge.seq == seqs[-1]
        assert all(e["source"] == "script" for e in events(watcher))
        assert all(e["text"] for e in events(watcher) if e["type"] != "withheld")
        whole = watcher.wait(lambda ms: watcher.json_on(f"{R}/gm_events"), "the P20 prompts")
        assert {e["type"] for e in whole} <= withheld and all(e["text"] for e in whole)


@pytest.mark.error_log  # the loop logs the command it could not save
def test_a_command_whose_commit_failed_publishes_nothing_and_the_next_goes_out_whole(
    broker, watcher, example_state
):
    """Nothing of an accepted command is published before the journal has it: a commit that
    fails sends no event, the retained state stays the committed one, a ``store`` error. The
    same command committed next goes out whole, its ``…/state`` from the loop's own turn."""
    with table_on_mqtt(broker.port) as (bridge, running):

        def disk_full(outcome):
            raise OSError("database or disk is full")

        assert bridge.wait_ready(WAIT)
        assert watcher.first(f"{R}/state").json()["performance"] is None
        running.loop.journal = disk_full
        running.loop.submit(BEGIN, source="script")
        assert watcher.first(f"{R}/error").json()["code"] == "store"
        running.loop.submit(
            {"cmd": "resolve_time"}, source="script"
        )  # refused: no Time token drawn (T3)
        watcher.wait(lambda ms: len(watcher.on(f"{R}/error")) == 2, "a later refusal")
        # everything the failed command caused is in by now (one connection, in order)
        assert len(watcher.on(f"{R}/state")) == 1 and not events(watcher)
        assert bridge.stats.state_direct == 0

        running.loop.journal = lambda outcome: 1
        running.loop.submit(BEGIN, source="script")
        watcher.wait(lambda ms: len(watcher.on(f"{R}/state")) >= 2, "the committed state")
        watcher.wait(lambda ms: events(watcher), "its events")
        states = [view_of(m) for m in watcher.on(f"{R}/state")]
        assert [s["performance"] is None for s in states] == [True, False]
        assert states[-1] == as_json(state_payload(table_view(running.loop.state)))
        # the failed command changed nothing: the table's last change is the committed one's
        stamps = [m.json()["changed_at"] for m in watcher.on(f"{R}/state")]
        assert stamps == [None, events(watcher)[0]["at"]]
        expected = expected_events(example_state, [BEGIN])
        assert [e["type"] for e in events(watcher)] == [e.type for e in expected]


def test_only_topics_whose_json_changed_are_published_again(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        watcher.first(f"{R}/heroes/cass")
        running.loop.submit(BEGIN, source="script")
        watcher.wait(lambda ms: len(watcher.on(f"{R}/performance")) == 2, "the Performance")
        running.loop.submit({"cmd": "resolve_time"}, source="script")  # refused: nothing changes
        watcher.first(f"{R}/error")
        running.loop.submit(ARIA, source="script")
        watcher.wait(lambda ms: len(watcher.on(f"{R}/performance")) == 3, "the declaration")
        counts = {
            t: len(watcher.on(f"{R}/{t}")) for t in ("state", "time", "combat", "heroes/aria")
        }
        assert counts == {"state": 3, "time": 1, "combat": 1, "heroes/aria": 1}


def test_an_unknown_tag_is_an_error_message_naming_the_tag(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        tag = TagEvent("draw-board", 0, "04C0FFEE000001", Presence.PRESENT, 0.0)
        running.loop.tag_sink(tag)
        error = watcher.first(f"{R}/error").json()
        assert error["code"] == "unknown" and "04C0FFEE000001" in error["message"]
        assert error["tag"] == "04C0FFEE000001" and error["source"] == "reader:draw-board"


def test_status_is_online_retained_then_offline_after_a_clean_stop(broker, watcher):
    """The will is not sent on a clean disconnect, so the bridge says offline itself."""
    with table_on_mqtt(broker.port) as (bridge, _running):
        assert bridge.wait_ready(WAIT)
        assert watcher.last(f"{R}/status").payload == b"online"
    watcher.wait(lambda ms: watcher.last(f"{R}/status").payload == b"offline", "offline")
    late = Watcher(broker.port, [f"{R}/status"])
    try:
        status = late.first(f"{R}/status")
        assert status.retain and status.payload == b"offline"
    finally:
        late.close()


def test_home_assistant_discovery_and_removal_of_a_hero_who_left(broker):
    """Sensors for every hero and the table, availability = status; Zed left the table file,
    so Zed's retained hero topic and HA configs are cleared (empty retained payload)."""
    prefix = "homeassistant/sensor/rhuna_example"
    stale = [f"{prefix}/zed_fatigue/config", f"{prefix}/zed_favor/config", f"{R}/heroes/zed"]
    for topic in stale:
        send(broker.port, topic, {"left": "over"}, retain=True)
    ha = Watcher(broker.port, ["homeassistant/#", f"{R}/heroes/#"])
    try:
        with table_on_mqtt(broker.port, homeassistant=True) as (bridge, _running):
            assert bridge.wait_ready(WAIT)
            for topic in stale:
                ha.wait(lambda ms, t=topic: any(m.topic == t and not m.payload for m in ms), topic)
            config = ha.first(f"{prefix}/aria_fatigue/config").json()
            assert config["state_topic"] == f"{R}/heroes/aria"
            assert config["availability_topic"] == f"{R}/status"
            assert config["unique_id"] == "rhuna_example_aria_fatigue"
            assert config["device"]["name"] == "Rhuna table example"
            ha.first(f"{prefix}/best_play_odds/config")
            ha.first(f"{prefix}/as_drawn_odds/config")
            ha.first(f"{prefix}/combat_tick/config")
            # HA restarts and says so: discovery comes again
            ha.send("homeassistant/status", "online")
            ha.wait(lambda ms: len(ha.on(f"{prefix}/aria_fatigue/config")) == 2, "rediscovery")
    finally:
        ha.close()


def test_the_state_goes_out_from_the_loops_turn_and_never_older_after_newer(broker, watcher):
    """``…/state`` is published in the loop's turn right after the events when nothing waits
    (no hand-off to the publisher thread), and by the publisher when the loop is busy. With
    both at work — three threads submitting 150 Favor gains, inputs processed where they are
    submitted — the retained state a subscriber sees only ever moves forward, and ends on
    the table's state (issue 17 item 3)."""
    favor = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18: Favor by delta
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        start = watcher.first(f"{R}/state").json()["heroes"]["aria"]["favor"]
        running.loop.inline = True
        sent = 0

        def direct() -> bool:
            """One gain with the loop idle: its …/state from this very turn, unless the
            publisher still holds the state lock (the start's topics): then once more."""
            nonlocal sent
            running.loop.submit(favor, source="script")
            sent += 1
            return bridge.stats.state_direct >= 1

        wait_until(direct, "a …/state published in the loop's turn")
        threads = [
            threading.Thread(
                target=lambda: [running.loop.submit(favor, source="script") for _ in range(50)]
            )
            for _ in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
        final = start + sent + 150
        watcher.wait(
            lambda ms: watcher.on(f"{R}/state")[-1].json()["heroes"]["aria"]["favor"] == final,
            "the last gain",
        )
        seen = [m.json()["heroes"]["aria"]["favor"] for m in watcher.on(f"{R}/state")]
        assert seen == sorted(seen) and len(set(seen)) == len(seen), seen
        assert view_of(watcher.on(f"{R}/state")[-1]) == as_json(
            state_payload(table_view(running.loop.state))
        )
        watcher.wait(
            lambda ms: watcher.on(f"{R}/heroes/aria")[-1].json()["favor"] == final,
            "the hero's own topic",
        )
        heroes = [m.json()["favor"] for m in watcher.on(f"{R}/heroes/aria")]
        assert heroes == sorted(heroes), heroes


def test_every_qos1_publish_is_counted_until_its_ack(broker, watcher):
    """``max_queued`` bounds the QoS 1 messages handed to paho and not yet acknowledged: the
    count must come back to exactly 0 once the broker has acknowledged everything — the
    connect's status, info and vocabulary, a retained command cleared, events, the state.
    Three of those were never counted, so each connect loosened the bound by one."""
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        send(broker.port, f"{R}/command", BEGIN, retain=True)  # refused, cleared, never run
        watcher.wait(lambda ms: watcher.on(f"{R}/reply"), "the retained command refused")
        running.loop.submit(BEGIN, source="script")  # (the retained one used to run, live)
        running.loop.submit(ARIA, source="script")
        watcher.wait(lambda ms: events(watcher), "the declaration's events")

        def counted() -> tuple[int, int]:
            """(QoS 1 messages paho still waits on an ack for, the bridge's count), read
            together: paho takes a message off its list and calls the bridge's on_publish
            under its own lock, so no ack is half-handled between the two."""
            client = bridge.link.client
            assert client is not None
            with client._out_message_mutex, bridge.link.cond:
                return len(client._out_messages), bridge.link.outstanding

        # nothing left in flight at paho, so no ack left to come, and the count exactly 0 in
        # the same instant: it stays there (a publish never counted leaves it below 0 for good,
        # one counted twice above)
        wait_until(
            lambda: counted() == (0, 0),
            lambda: (
                f"every publish acknowledged, none counted twice (in flight, count) {counted()}"
            ),
        )


def test_the_panel_takes_the_view_the_bridge_computed_for_its_state(broker, watcher):
    """The view of a state is computed once for ``…/state`` and the panel's frame
    (companion.views.cache): once the state is on the broker, the panel's LazyView of it is that
    very view, and nothing is computed again (issue 17: work done twice on a Pi's CPU)."""
    favor = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        start = watcher.first(f"{R}/state").json()["heroes"]["aria"]["favor"]
        running.loop.inline = True
        running.loop.submit(favor, source="script")
        watcher.wait(
            lambda ms: watcher.on(f"{R}/state")[-1].json()["heroes"]["aria"]["favor"] == start + 1,
            "the gain's state",
        )
        state = running.loop.state
        before = VIEWS.computed
        shown = LazyView(state)
        assert shown["heroes"]["aria"]["favor"] == start + 1
        assert VIEWS.computed == before  # the bridge's, kept
        assert shown._get() is VIEWS(state)


def test_views_are_kept_for_the_last_few_states_by_identity(example_state):
    views = Views(size=2)
    same_value = replace(example_state)  # equal, but another state: its own view
    first = views(example_state)
    assert views(example_state) is first and views.computed == 1
    assert views(same_value) is not first and views.computed == 2
    views(run(example_state, BEGIN)[0])  # a third: the oldest goes
    assert views(example_state) is not first and views.computed == 4


FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18: Favor by delta


def _journal_after_the_ahead(bridge, fail: bool = False):
    """A journal that commits only once the ahead thread has computed the state's payload:
    the proof that it was computed *during* the commit (a hint that never came times out)."""
    seq = iter(range(1, 1_000))

    def commit(outcome):
        def computed() -> bool:
            done = bridge.fast.ahead._done
            return done is not None and done[0] is outcome.state

        wait_until(computed, "the state computed ahead, during its commit")
        if fail:
            raise OSError("database or disk is full")
        return next(seq)

    return commit


def test_a_readers_turn_publishes_the_state_computed_while_its_commit_synced(broker, watcher):
    """A turn off paho's thread (a reader's) asks for its ``…/state`` just before the commit
    and takes the payload the ahead thread computed meanwhile: the same JSON as the state's
    view, and its view computed once, not again by the turn (issue 17 item 3)."""
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        start = watcher.first(f"{R}/state").json()["heroes"]["aria"]["favor"]
        # the connection's first publication done (…/history is its last): a turn that finds
        # the publisher still at it leaves the state to it (seen under xdist: state_direct 0)
        watcher.wait(lambda ms: watcher.on(f"{R}/history"), "the history")
        idle = lambda: bridge.publisher.inbox.empty() and not bridge.link.state_lock.locked()  # noqa: E731
        wait_until(idle, "the publisher done with its retained topics")
        running.loop.journal = _journal_after_the_ahead(bridge)
        running.loop.inline = True
        before = VIEWS.computed
        running.loop.submit(FAVOR, source="script")  # processed here, as a reader's would be
        watcher.wait(
            lambda ms: watcher.on(f"{R}/state")[-1].json()["heroes"]["aria"]["favor"] == start + 1,
            "the gain's state",
        )
        assert bridge.stats.state_ahead == 1 and bridge.stats.state_direct == 1
        assert bridge.fast.ahead.taken == 1
        assert view_of(watcher.on(f"{R}/state")[-1]) == as_json(
            state_payload(table_view(running.loop.state))
        )
        assert VIEWS.computed == before + 1  # the ahead thread's, and nobody's again


FIGHT = ROOT / "examples" / "fight.toml"


def test_answers_that_come_during_the_commit_go_out_in_the_turns_own_state_c3(broker):
    """A state whose answers were pending when the ahead thread encoded it (the fight's
    attack forecast, C3: past the turn's 2,000 steps) and were answered before its commit
    ended: the turn publishes the whole view, not the payload of the pending one. Before,
    the publisher took that payload for the whole view's (same state, same ``VIEWS`` entry)
    and the overlay's forecast stayed empty for good (two CI runs, stops 48 and 49)."""
    [start] = [json.loads(x) for x in FIGHT.with_suffix(".jsonl").read_text().splitlines()
               if x.startswith('{"cmd":"start_combat"')]  # fmt: skip
    watcher = Watcher(broker.port, ["rhuna/fight/#"])
    VIEWS.start_answers()
    try:
        with table_on_mqtt(broker.port, table=FIGHT) as (bridge, running):
            assert bridge.wait_ready(WAIT)
            watcher.wait(lambda ms: watcher.on("rhuna/fight/history"), "the history")
            idle = lambda: bridge.publisher.inbox.empty() and not bridge.link.state_lock.locked()  # noqa: E731
            wait_until(idle, "the publisher done with its retained topics")
            seq = iter(range(1, 1_000))

            def commit(outcome):  # the disk slow enough for the answer to come first
                def answered() -> bool:
                    done = bridge.fast.ahead._done
                    if done is None or done[0] is not outcome.state:
                        return False
                    pending.append(answer_for(done[1]))
                    kept = dict((id(s), v) for s, v in VIEWS._kept)
                    return not pending[-1] or kept.get(id(outcome.state)) is not done[1]

                wait_until(answered, "the state encoded ahead, then its answers come")
                return next(seq)

            pending: list[bool] = []
            running.loop.journal = commit
            running.loop.inline = True
            # the odds this process's earlier tests memoised would answer the forecast in
            # the turn's own 2,000 steps: forgotten, as in a service that just started
            success_counts.cache_clear()
            running.loop.submit(start, source="script")
            wait_until(lambda: bridge.stats.state_direct == 1, "the turn's own …/state")
            assert pending[0], "the forecast was answered in the turn: nothing to test"
            first = watcher.wait(
                lambda ms: [m for m in watcher.on("rhuna/fight/state") if m.json().get("combat")],
                "the fight's first state",
            )[0].json()
            assert first["combat"]["forecast_status"] == "ready"
            assert bridge.fast.ahead.stale == 1 and bridge.stats.state_ahead == 0
            assert (
                first["combat"]["forecast"] == table_view(running.loop.state)["combat"]["forecast"]
            )
            assert len(first["combat"]["forecast"]) == 2
    finally:
        VIEWS.stop_answers()
        watcher.close()


@pytest.mark.error_log  # the loop logs the command it could not save
def test_a_state_whose_commit_failed_was_computed_ahead_and_is_never_published(broker, watcher):
    """The ahead thread computes a state before the journal has it; when the commit then
    fails, that state goes out nowhere (a ``store`` error), and the next committed state is
    published as itself, never as the failed one's payload (nothing unacknowledged shown)."""
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        start = watcher.first(f"{R}/state").json()["heroes"]["aria"]["favor"]
        running.loop.inline = True
        running.loop.journal = _journal_after_the_ahead(bridge, fail=True)
        running.loop.submit(FAVOR, source="script")
        assert watcher.first(f"{R}/error").json()["code"] == "store"
        assert bridge.fast.ahead.computed == 1 and bridge.stats.state_ahead == 0
        running.loop.journal = _journal_after_the_ahead(bridge)
        running.loop.submit({**FAVOR, "favor": 2}, source="script")
        watcher.wait(lambda ms: len(watcher.on(f"{R}/state")) >= 2, "the committed state")
        states = [m.json()["heroes"]["aria"]["favor"] for m in watcher.on(f"{R}/state")]
        assert states == [start, start + 2]
        assert bridge.stats.state_ahead == 1


def test_the_ahead_payload_is_only_ever_its_own_states(example_state):
    """StateAhead hands a payload only for the very state it computed (by identity), once,
    and the same JSON as that state's view; a state it was not asked for gets None."""
    ahead = StateAhead()
    ahead.start()
    thread = ahead.thread
    assert thread is not None
    try:
        first, second = example_state, run(example_state, BEGIN)[0]
        ahead.ask(first)
        wait_until(lambda: ahead.computed == 1, "the first state computed")
        assert ahead.take(second, VIEWS(second), timeout=0) is None
        payload = ahead.take(first, VIEWS(first))
        assert payload is not None and json.loads(payload) == as_json(
            state_payload(table_view(first))
        )
        assert ahead.take(first, VIEWS(first), timeout=0) is None  # taken once
        ahead.ask(second)
        payload = ahead.take(second, VIEWS(second))  # waits while it is being computed
        assert payload is not None and json.loads(payload) == as_json(
            state_payload(table_view(second))
        )
        # encoded from another view than the turn's (its answers came since): not taken
        ahead.ask(first)
        wait_until(lambda: ahead.computed == 3, "the first state computed again")
        assert ahead.take(first, dict(VIEWS(first))) is None and ahead.stale == 1
    finally:
        ahead.stop()
    assert not thread.is_alive()


def test_the_ahead_thread_and_its_hint_go_with_the_bridge(broker, example_state):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        ahead = bridge.fast.ahead
        assert ahead is not None and running.loop._before_commit
        thread = ahead.thread
        assert thread is not None and thread.is_alive()
    assert not running.loop._before_commit
    assert not thread.is_alive() and bridge.fast.ahead is None


def test_a_pondered_draw_publishes_the_state_prepared_while_the_table_waited_p6(broker, watcher):
    """With pondering (companion.table.ponder), the bridge prepares the view and ``…/state`` of each
    likely next draw while the table waits; the draw's turn publishes that payload — the same
    JSON as the state's view — without computing it, and never asks the ahead thread."""
    from companion.table.ponder import Ponder, likely_commands

    loop = example_loop()
    loop.ponder = ponder = Ponder(settle=0.0)
    ponder.start()
    running = RunningLoop(loop)
    bridge = MqttBridge(bridge_config(broker.port))
    bridge.start(loop)
    try:
        assert bridge.wait_ready(WAIT)
        for cmd in (BEGIN, ARIA):
            loop.submit(cmd, source="script")
        wait_until(lambda: loop.state.performance is not None and bridge._loop.pending == 0, "")
        declared = loop.state
        shown = as_json(state_payload(table_view(declared)))
        watcher.wait(  # the publisher is done with the declaration's state
            lambda ms: bool(ms := watcher.on(f"{R}/state")) and view_of(ms[-1]) == shown,
            "the declaration's state",
        )
        idle = lambda: bridge.publisher.inbox.empty() and not bridge.link.state_lock.locked()  # noqa: E731
        wait_until(idle, "the publisher done with its retained topics")
        wanted = len(list(likely_commands(declared)))
        wait_until(lambda: ponder.pondered >= wanted and len(bridge.fast.pondered) >= wanted, "")
        assert bridge.fast.ahead is not None
        computed = bridge.fast.ahead.computed
        token = declared.bags["aria"].contents[2]
        loop.inline = True
        loop.submit({"cmd": "draw", "hero": "aria", "token": token}, source="script")
        watcher.wait(
            lambda ms: (
                token not in [t["id"] for t in ms[-1].json()["aria"]["tokens"]]
                if (ms := watcher.on(f"{R}/bags"))
                else False
            ),
            "the draw's state",
        )
        assert loop.state is not declared and ponder.recalled == 1
        assert bridge.stats.state_pondered == 1 and bridge.fast.ahead.computed == computed
        assert view_of(watcher.on(f"{R}/state")[-1]) == as_json(
            state_payload(table_view(loop.state))
        )
    finally:
        bridge.stop()
        running.close()
        ponder.stop()
    assert not bridge.fast.pondered or all(k == id(v[0]) for k, v in bridge.fast.pondered.items())


def test_a_prepared_payload_is_only_ever_its_own_states(example_state):
    """The pondered payloads are keyed by ``id``; an entry whose state is another object (an id
    reused once the first state was gone) is never taken for this one."""
    bridge = MqttBridge(bridge_config(1))
    other = run(example_state, BEGIN)[0]
    bridge.fast.pondered[id(example_state)] = (other, table_view(other), "{}")
    assert bridge.fast.pondered_for(example_state) is None
    bridge.fast.warm(example_state)
    kept = bridge.fast.pondered_for(example_state)
    assert kept is not None and json.loads(kept[1]) == as_json(
        state_payload(table_view(example_state))
    )


def test_a_command_sent_the_moment_online_is_read_is_answered_after_a_broker_lost_all(tmp_path):
    """``online`` on ``…/status`` is the service's word that commands are heard: a remote that
    sends one the instant it reads it is answered, also when the service comes back to a
    broker that lost its session (killed, a power cut: no persistence file, so the commands'
    subscription is gone with it). The gate holds the service's stream right after its new
    ``online`` until the command is on the broker (acknowledged), so whatever the service had
    not subscribed to by then, the broker could not route to it. Before: the commands'
    subscription went out after ``online`` (and after ``…/info``), and such a command was
    dropped by the broker, unanswered (docs/mqtt.md, "online")."""
    broker = Broker(tmp_path / "broker").start()
    onlines = 0

    def second_online(topic: str, payload: bytes) -> bool:
        nonlocal onlines
        onlines += topic == f"{R}/status" and payload == b"online"
        return onlines == 2

    watcher = None
    try:
        with (
            MqttGate(broker.port, hold_after=second_online) as gate,
            table_on_mqtt(gate.port) as (bridge, _running),
        ):
            assert bridge.wait_ready(WAIT)
            watcher = Watcher(broker.port, [f"{R}/#"])
            assert broker.proc is not None
            broker.proc.kill()  # no clean stop: nothing saved, every session lost
            broker.proc.wait()
            broker.proc = None
            seen = len(watcher.messages)
            broker.start()
            gate.target = broker.port
            assert gate.held.wait(WAIT * 2), f"no second online: {gate.seen}"
            watcher.wait(lambda ms: any(m.payload == b"online" for m in ms[seen:]), "online again")
            watcher.send(f"{R}/command", {**BEGIN, "transaction": "at-once"})
            gate.release()
            reply = watcher.reply(f"{R}/reply", "at-once")
            assert reply["status"] == "ok" and reply["data"]["command"] == BEGIN
    finally:
        if watcher is not None:
            watcher.close()
        broker.stop()
