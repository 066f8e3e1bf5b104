"""Issue 29, item 4: a command published with the retain flag is never run — an error reply naming
the rule and the fix, and the broker's copy cleared — on a real Mosquitto (docs/mqtt.md)."""

from __future__ import annotations

import pytest

from tests.harness import BEGIN
from tests.harness.broker import WAIT, Watcher, retained_on, send, table_on_mqtt

R = "rhuna/example"


@pytest.fixture
def watcher(broker):
    w = Watcher(broker.port, [f"{R}/#"])
    yield w
    w.close()


def _refused_and_cleared(broker, watcher, running, transaction):
    reply = watcher.reply(f"{R}/reply", transaction)
    assert reply["status"] == "error" and reply["error"]["code"] == "retained"
    assert "retained command is refused" in reply["error"]["message"]
    assert "without the retain flag" in reply["error"]["fix"]
    # cleared from the broker: the bridge's empty retained message on the command's topic
    # reaches the watcher after the broker has dropped its copy, and a late subscriber then
    # finds no retained command (all its retained messages come before its own marker)
    watcher.wait(
        lambda ms: [m for m in ms if m.topic.startswith(f"{R}/command") and not m.payload],
        "the retained command cleared",
    )
    assert not retained_on(broker.port, [f"{R}/command/#"])  # …/command and below
    assert running.loop.state.performance is None  # never run
    replies = [r for r in watcher.json_on(f"{R}/reply") if r.get("transaction") == transaction]
    assert len(replies) == 1, replies


def test_a_retained_command_sent_while_up_gets_an_error_reply_and_is_cleared(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        send(broker.port, f"{R}/command", {**BEGIN, "transaction": "kept"}, retain=True)
        _refused_and_cleared(broker, watcher, running, "kept")


def test_a_retained_command_found_at_connect_gets_an_error_reply_and_is_cleared(broker, watcher):
    send(broker.port, f"{R}/command/begin_performance", {"difficulty": 5, "transaction": "old"},
         retain=True)  # fmt: skip
    with table_on_mqtt(broker.port) as (bridge, running):
        assert bridge.wait_ready(WAIT)
        _refused_and_cleared(broker, watcher, running, "old")
