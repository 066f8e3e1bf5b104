"""The history names who sent a command (issue 41 items 13 and 15): gm.html signs its commands
``gm`` and ``rhuna-table`` signs them ``cli`` (their ``source`` field); any other client, or a
word not on the list, is ``mqtt``. Mosquitto cannot tell them apart: both use the gm login."""

from __future__ import annotations

import pytest

from tests.harness import BEGIN
from tests.harness.broker import WAIT, R, Watcher, table_on_mqtt


@pytest.fixture
def watcher(broker):
    w = Watcher(broker.port, [f"{R}/#"])
    yield w
    w.close()


def test_the_history_names_the_remote_and_the_cli(broker, watcher):
    with table_on_mqtt(broker.port) as (bridge, _running):
        assert bridge.wait_ready(WAIT)
        sources = []
        for n, said in enumerate(("gm", "cli", "a script", None)):
            command = {**BEGIN, "transaction": f"t-{n}"}
            if said is not None:
                command["source"] = said
            watcher.send(f"{R}/command", command)
            reply = watcher.reply(f"{R}/reply", f"t-{n}")
            assert reply["status"] == "ok", reply
            sources.append(reply["data"]["events"][0]["source"].split(":")[0])
            watcher.send(f"{R}/command", {"cmd": "cancel_performance", "transaction": f"c-{n}"})
            assert watcher.reply(f"{R}/reply", f"c-{n}")["status"] == "ok"
        # the events' source is the journal row's: what `history` and the export print
        assert sources == ["gm", "cli", "mqtt", "mqtt"]
