"""The WorldKeeper's words never reach a public login: the broker holds the audiences (issue 42
item 4), not the pages.

A real Mosquitto on the Pi's snippet with the generated accounts and ACL
(tests.harness.broker.running_pi_broker), the real service logged in as the table's service
(tests.harness.service.InProcess), and the WorldKeeper's commands sent as the gm login. Each
public login (the table's viewers, ``example.overlay`` and ``example.display``, and the
convention ``wall``) subscribes to ``#`` and to ``rhuna/#``, as a curious viewer would; the
service makes each kind of secret — a worldkeeper note, a P20 prompt, a refusal, an improvised
foe, a free-text cause (of a Fatigue, of an injury) — and no message any public login receives carries its words, while
the gm login receives every one of them.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from companion.ops import accounts as A
from tests.harness import ARIA, BEGIN, draw
from tests.harness.broker import Message, Watcher
from tests.harness.service import InProcess

R = "rhuna/example"


def marker(what: str) -> str:
    """A word no table, rule or narration says: found in a message, it is this test's secret."""
    return f"{what}{uuid.uuid4().hex[:10]}"


def publics(acc: A.Accounts) -> list[tuple[str, str]]:
    """(user, password) of every public login: the table's viewers and the wall."""
    table = acc.table("example")
    logins = [(A.user("example", name), pw) for name, pw in sorted(table.viewers.items())]
    assert acc.wall is not None
    return [*logins, (A.WALL, acc.wall)]


def texts(watcher: Watcher) -> list[Message]:
    with watcher.cond:
        return list(watcher.messages)


def leaked(watcher: Watcher, secrets: list[str]) -> list[tuple[str, str]]:
    """(topic, secret) of every message received that carries a secret's words."""
    out = []
    for m in texts(watcher):
        body = m.payload.decode("utf-8", "replace")
        out += [(m.topic, s) for s in secrets if s in body]
    return out


def test_no_public_login_reads_the_worldkeepers_words_the_gm_does(
    tmp_path: Path, pi_broker: tuple[A.Accounts, int, int]
) -> None:
    acc, port, _ = pi_broker
    table = acc.table("example")
    note, foe, cause, hex_ = marker("whisper"), marker("lich"), marker("cursed"), marker("hex")
    extra = (
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nusername = "example.service"\n'
        f'password = "{table.service}"\nreconnect_min_delay = 1\nreconnect_max_delay = 2\n'
    )
    service = InProcess(tmp_path / "service", extra)
    watchers: list[Watcher] = []
    try:
        public = [
            Watcher(port, ["#", "rhuna/#"], username=name, password=pw) for name, pw in publics(acc)
        ]
        watchers += public
        gm = Watcher(port, [f"{R}/#"], username="example.gm", password=table.gm)
        watchers.append(gm)
        for w in watchers:  # each has the table's retained state: the login works
            w.wait(lambda ms: any(m.topic == f"{R}/status" for m in ms), "the retained status")

        def command(body: dict[str, Any]) -> Any:
            transaction = marker("t")
            gm.send(f"{R}/command", {**body, "transaction": transaction})
            return gm.reply(f"{R}/reply", transaction)

        # a worldkeeper note
        assert command({"cmd": "note", "text": note, "audience": "worldkeeper"})["status"] == "ok"
        # an improvised foe, and the refusal of setting it up twice ("… 'lich…' already exists")
        sheet = {"reflex": 2, "might": 2, "dodge": 1, "parry": 1, "fortitude": 2, "speed": 3}
        added = {"cmd": "add_combatant", "combatant": foe, "side": "foes", **sheet}
        assert command(added)["status"] == "ok"
        refused = command(added)
        assert refused["status"] == "error" and foe in refused["error"]["message"]
        # a free-text cause
        hurt = {"cmd": "adjust_hero", "hero": "aria", "fatigue": 1, "cause": cause}
        assert command(hurt)["status"] == "ok"
        # an injury's free-text cause, on a combatant every page shows (a hero's)
        champion = {**sheet, "cmd": "add_combatant", "combatant": "aria_c", "hero": "aria"}
        assert command(champion)["status"] == "ok"
        injured = {"cmd": "injure", "combatant": "aria_c", "type": "bleeding", "cause": hex_}
        assert command(injured)["status"] == "ok", "the injury was refused"
        # a Performance resolved: its P20 prompt ("Aria failed: the WorldKeeper resolves any
        # Impact that applies (P20)")
        for body in (BEGIN, ARIA, *(draw("aria", seed=i) for i in range(4))):
            command(dict(body))
        resolved = command({"cmd": "resolve"})
        assert resolved["status"] == "ok"
        prompts = [
            e["text"]
            for e in resolved["data"]["events"]
            if e["type"] in ("wear_prompt", "impact_prompt", "escalation_prompt")
        ]
        assert prompts, "the Performance gave no P20 prompt"
        prompt = prompts[0].strip()

        # the public logins have had everything the service published by now: the last
        # command's public event, and a message published after it on a public topic
        for w in public:
            w.wait(
                lambda ms: any(
                    m.topic == f"{R}/events" and b'"performance_resolved"' in m.payload for m in ms
                ),
                "the Performance's outcome on …/events",
            )
        for w in public:
            w.wait(
                lambda ms: any(m.topic == f"{R}/history" and b"resolve" in m.payload for m in ms),
                "the resolve in …/history",
            )
        secrets = [note, foe, cause, hex_, prompt]
        for w, (name, _) in zip(public, publics(acc), strict=True):
            assert leaked(w, secrets) == [], (name, leaked(w, secrets))
            topics = {m.topic for m in texts(w)}
            assert not topics & {f"{R}/error", f"{R}/reply", f"{R}/gm_events", f"{R}/gm"}, (
                name,
                sorted(topics),
            )
            # the withheld events' stand-ins keep the public stream whole (no seq missing)
            seqs = sorted(
                {
                    m.json()["seq"]
                    for m in texts(w)
                    if m.topic == f"{R}/events" and b'"seq"' in m.payload
                }
            )
            assert seqs == list(range(seqs[0], seqs[-1] + 1)), (name, seqs)

        # the gm login receives each secret, on its own topics
        def has(topic: str, secret: str) -> Any:
            return lambda ms: any(
                m.topic == f"{R}/{topic}" and secret in m.payload.decode() for m in ms
            )

        gm.wait(has("gm_events", note), "the note on …/gm_events")
        gm.wait(has("gm_events", prompt), "the P20 prompt on …/gm_events")
        gm.wait(has("gm_events", foe), "the improvised foe on …/gm_events")
        gm.wait(has("gm_events", cause), "the free-text cause on …/gm_events")
        gm.wait(has("gm", hex_), "the injury's cause on the retained …/gm")
        gm.wait(has("error", foe), "the refusal on …/error")
        gm.wait(has("gm", foe), "the improvised foe on the retained …/gm")
    finally:
        for w in watchers:
            w.close()
        service.close()
