"""The bag audit on MQTT (issue 43 item 4): the remote sends ``audit_bag`` on ``…/command``; the
retained ``…/audit``, the gm's, says each read while it runs and the answer at its end (seen,
missing, extra, from another bag), validated against its schema.

Real parts: the Service in process with its MQTT bridge on a real Mosquitto of the test's own,
its emulated hub on a real pty running the firmware's own hubcore.
"""

from __future__ import annotations

import jsonschema

from companion.mqtt.schema import message_schema
from companion.mqtt.topics import CATALOGUE, PUBLIC_FILTERS
from tests.harness import wait_until
from tests.harness.broker import Message, Watcher
from tests.harness.service import InProcess, uid_of

R = "rhuna/example"
AUDIT = f"{R}/audit"
UNKNOWN = "04DEADBEEF0001"


def audits(ms: list[Message]) -> list[dict]:
    return [m.json() for m in ms if m.topic == AUDIT and m.payload]


def test_the_remote_audits_a_bag_and_reads_the_answer_on_the_gm_s_audit_topic(tmp_path, broker):
    [topic] = [t for t in CATALOGUE if t.suffix == "audit"]
    assert topic.audience == "worldkeeper" and topic.retained
    assert "audit" not in PUBLIC_FILTERS  # the gm's: what is in the bags is not the players'
    watcher = Watcher(broker.port, [AUDIT, f"{R}/reply"])
    table = InProcess(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    validator = jsonschema.Draft202012Validator(message_schema("audit"))
    try:
        svc = table.service
        watcher.send(f"{R}/command", {"cmd": "audit_bag", "bag": "favor", "id": 1})
        assert watcher.reply(f"{R}/reply", 1)["status"] == "ok"
        begun = watcher.wait(lambda ms: audits(ms), "the audit begun")[-1]
        assert begun["running"] and (begun["seen"], begun["expected"]) == (0, 23)
        for well, tag in enumerate(
            [uid_of(svc, "favor.01"), uid_of(svc, "cass.weight.0"), UNKNOWN]
        ):
            table.hub.lay(well, tag)
        # the three reads said: the newest running report has them all (the retained topic is
        # latest-wins, companion/mqtt/publisher.py: reads that come in one batch go out as one
        # message, so a count of messages is the machine's speed, not the audit's)
        wait_until(
            lambda: any(
                a["running"] and (a["seen"], len(a["extra"]), len(a["others"])) == (1, 1, 1)
                for a in audits(watcher.messages)
            ),
            lambda: f"three reads said; the reports: {audits(watcher.messages)}",
        )
        watcher.send(f"{R}/command", {"cmd": "audit_bag", "id": 2})  # no bag: ends it
        assert watcher.reply(f"{R}/reply", 2)["status"] == "ok"
        answer = watcher.wait(lambda ms: [a for a in audits(ms) if not a["running"]], "the answer")[
            -1
        ]
        for message in audits(watcher.messages):
            validator.validate(message)
        assert (answer["seen"], answer["expected"], answer["complete"]) == (1, 23, False)
        assert len(answer["missing"]) == 22 and answer["missing"][0]["token"] == "favor.02"
        assert answer["extra"] == [{"uid": UNKNOWN, "token": None}]
        assert [(o["token"], o["bag_name"]) for o in answer["others"]] == [
            ("cass.weight.0", "Cass's Hero Bag")
        ]
        assert answer["lines"][0] == (
            "audit of the Favor Bag: 1 of 23 seen, 22 missing, 1 extra, 1 from another bag"
        )
        assert answer["last"] is None
    finally:
        table.close()
        watcher.close()
    # retained: a remote opened later reads the last answer
    late = Watcher(broker.port, [AUDIT])
    try:
        assert late.wait(lambda ms: audits(ms), "the retained answer")[-1] == answer
    finally:
        late.close()
