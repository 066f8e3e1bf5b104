"""The board in sync or not on MQTT (issue 43 item 1): the retained ``…/board`` says each unsync
in the table's words (where and what) until it is resolved, and the WorldKeeper's
``accept_as_drawn``, sent on ``…/command``, resolves one by counting what lies in the well.

Real parts: the Service in process with its MQTT bridge on a real Mosquitto of the test's own,
its emulated hub on a real pty running the firmware's own hubcore.
"""

from __future__ import annotations

import jsonschema

from companion.mqtt.schema import message_schema
from companion.mqtt.topics import PUBLIC_FILTERS
from tests.harness import ARIA, BEGIN, CASS
from tests.harness.broker import Message, Watcher
from tests.harness.service import InProcess, drawn, uid_of

R = "rhuna/example"
BOARD = f"{R}/board"


def boards(ms: list[Message]) -> list[dict]:
    return [m.json() for m in ms if m.topic == BOARD and m.payload]


def unsync(ms: list[Message]) -> dict | None:
    """The last ``…/board`` if it says unsync."""
    said = boards(ms)
    return said[-1] if said and not said[-1]["sync"] else None


def test_an_unsync_is_on_the_retained_board_topic_until_resolved(tmp_path, broker):
    assert "board" in PUBLIC_FILTERS  # where and what on the board: every login may read it
    watcher = Watcher(broker.port, [BOARD, f"{R}/reply"])
    table = InProcess(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    validator = jsonschema.Draft202012Validator(message_schema("board"))
    try:
        svc = table.service
        first = watcher.wait(lambda ms: boards(ms), "the board in sync")[0]
        assert first == {"sync": True, "alerts": []}
        table.submit(BEGIN, ARIA)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        # two tokens in one well: said in the readers' words, nothing to accept
        table.hub.crowd(0)
        crowded = watcher.wait(unsync, "two tokens said")
        assert crowded == {
            "sync": False,
            "alerts": [
                {
                    "key": "well draw-board channel 0",
                    "text": "one token per well: lift the extra token (draw-board channel 0)",
                    "token": None,
                }
            ],
        }
        table.hub.crowd(0, False)  # the extra token taken away
        watcher.wait(lambda ms: boards(ms)[-1]["sync"], "in sync again")
        # Cass's token laid before she declared: refused, so unsync; the token is named
        table.hub.lay(1, uid_of(svc, "cass.weight.0"))
        undrawn = watcher.wait(unsync, "the undrawn token")
        [alert] = undrawn["alerts"]
        assert alert["key"] == "board draw-board channel 1"
        assert alert["token"] == "cass.weight.0"
        assert alert["text"] == (
            "unsync: draw-board channel 1 holds Cass's Weight 0, not drawn: take it away"
            " (it belongs in Cass's Hero Bag)"
        )
        # accepted as drawn before Cass declared: refused, naming the rule; still unsync
        watcher.send(f"{R}/command", {"cmd": "accept_as_drawn", "token": "cass.weight.0", "id": 1})
        refusal = watcher.reply(f"{R}/reply", 1)
        assert refusal["status"] == "error" and refusal["error"]["rule"] == "P23"
        assert not boards(watcher.messages)[-1]["sync"]
        table.submit(CASS)
        table.settled(4)
        watcher.send(f"{R}/command", {"cmd": "accept_as_drawn", "token": "cass.weight.0", "id": 2})
        assert watcher.reply(f"{R}/reply", 2)["status"] == "ok"
        watcher.wait(lambda ms: boards(ms)[-1]["sync"], "resolved: accepted as drawn")
        assert drawn(svc) == ["aria.weight.0", "cass.weight.0"]
        for board in boards(watcher.messages):
            validator.validate(board)
        # a late subscriber finds the board as it stands, retained
        late = Watcher(broker.port, [BOARD])
        try:
            assert late.first(BOARD).json() == {"sync": True, "alerts": []}
        finally:
            late.close()
    finally:
        table.close()
        watcher.close()


def test_the_other_standing_alerts_are_not_the_boards(tmp_path, broker):
    watcher = Watcher(broker.port, [BOARD])
    table = InProcess(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    try:
        watcher.wait(lambda ms: boards(ms), "the board in sync")
        table.service.alert("panel", "the panel is not responding")  # not the board's
        table.hub.lay(2, "04DEADBEEF0001")  # an unknown tag: the board's
        board = watcher.wait(unsync, "the unknown tag")
        assert [a["key"] for a in board["alerts"]] == ["board draw-board channel 2"]
        assert board["alerts"][0]["token"] is None
        table.service.alert("panel", None)
    finally:
        table.close()
        watcher.close()
