"""Two tokens in one well on ``…/events`` (issue 30, item 6): a ``notice``, not an event.

Real parts: the Service in process with its MQTT bridge on a real Mosquitto, its emulated
hub on a real pty running the firmware's own hubcore (a crowded reader answers every poll
with a collision). The notice and its end go out on ``…/events`` with no ``seq`` (they are
not journaled), so the next engine event's ``seq`` is the one after the last event's.
"""

from __future__ import annotations

import jsonschema

from engine.contracts.schema import events_schema
from tests.harness import ARIA, BEGIN
from tests.harness.broker import Watcher
from tests.harness.service import InProcess, drawn, uid_of

R = "rhuna/example"


def test_two_tokens_in_one_well_are_a_notice_on_the_events_without_a_seq(tmp_path, broker):
    watcher = Watcher(broker.port, [f"{R}/events"])
    table = InProcess(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    try:
        svc = table.service
        table.submit(BEGIN, ARIA)
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        table.settled(3)
        watcher.wait(lambda ms: len(ms) >= 3, "the three events")
        table.hub.crowd(0)
        watcher.wait(lambda ms: any(m.json()["type"] == "notice" for m in ms), "the notice")
        table.hub.crowd(0, False)
        watcher.wait(
            lambda ms: len([m for m in ms if m.json()["type"] == "notice"]) == 2, "its end"
        )
        assert drawn(svc) == ["aria.weight.0"] and svc.store.seq == 3  # nothing journaled
        table.submit({"cmd": "cancel_performance"})
        watcher.wait(lambda ms: len(ms) >= 6, "the next engine event")
        messages = watcher.json_on(f"{R}/events")
        validator = jsonschema.Draft202012Validator(events_schema())
        for message in messages:
            validator.validate(message)  # the notice is in the events contract
        notices = [m for m in messages if m["type"] == "notice"]
        assert [(n["kind"], n["active"]) for n in notices] == [
            ("one_token_per_well", True),
            ("one_token_per_well", False),
        ]
        first = notices[0]
        assert first["text"] == "one token per well: lift the extra token (draw-board channel 0)"
        assert (first["reader"], first["channel"], first["audience"]) == ("draw-board", 0, "table")
        assert "seq" not in first and "seq" not in notices[1]
        assert first["source"] == "reader:draw-board" and first["at"]
        # the stream: three events, the notice and its end, then the cancel with seq 4
        assert [m["type"] for m in messages][3:5] == ["notice", "notice"]
        seqs = [m["seq"] for m in messages if m["type"] != "notice"]
        assert seqs == list(range(1, len(seqs) + 1)) and seqs[3] == 4
    finally:
        table.close()
        watcher.close()
