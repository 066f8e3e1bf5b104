"""A bag audit before play (issue 43, item 4), in the running service: ``audit_bag`` begins it,
each token passed over a reader is counted once (not drawn), and the answer names what is
missing, what is extra and what belongs to another bag; the board is not judged meanwhile.

Real parts: the Service in process, its emulated hub on a real pty running the firmware's own
hubcore.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from companion.table.store import JOURNAL
from hardware.mock import MockHand
from tests.harness import wait_until
from tests.harness.service import InProcess, journal_rows, uid_of

UNKNOWN = "04DEADBEEF0001"
#: the wells the tokens are passed over (4 is the Favor reader, 5 the Time one: any reader)
WELLS = (0, 1, 2, 3, 4, 5)


class Reports:
    """An extension's ``audit`` hook: every report, in order."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def audit(self, report: dict[str, Any]) -> None:
        with self.lock:
            self.seen.append(report)

    def start(self, loop: object) -> None:
        pass

    def stop(self) -> None:
        pass

    def answers(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.seen if not r["running"]]


def pass_over(table: InProcess, uids: list[str]) -> None:
    """Pass each tag over a well, a few at once on different wells, each lifted once read."""
    for i in range(0, len(uids), len(WELLS)):
        batch = list(zip(WELLS, uids[i : i + len(WELLS)], strict=False))
        for well, uid in batch:
            table.hub.lay(well, uid)
        for well, _ in batch:
            wait_until(lambda w=well: w in table.reader.tags, f"well {well} read")
        for well, _ in batch:
            table.hub.lift(well)
        for well, _ in batch:
            wait_until(lambda w=well: w not in table.reader.tags, f"well {well} lifted")


def test_an_audit_names_missing_extra_and_other_bags_and_draws_nothing(tmp_path):
    table = InProcess(tmp_path)
    reports = Reports()
    try:
        svc = table.service
        svc.extensions.append(reports)
        table.submit({"cmd": "audit_bag", "bag": "favor"})
        table.settled(1)
        wait_until(lambda: svc.audits.running, "the audit begun")
        favor = [uid_of(svc, f"favor.{n:02}") for n in range(1, 24)]
        other = uid_of(svc, "aria.weight.0")
        # 21 of the 23, one passed twice, Aria's token and a tag nobody enrolled
        pass_over(table, [*favor[:20], favor[0], other, UNKNOWN, favor[22]])
        wait_until(lambda: len(reports.seen) >= 25, "every read reported")
        said = [r["last"] for r in reports.seen]
        assert said.count("already seen: Favor: The Warden (control)") == 1
        assert f"{UNKNOWN}: an unknown tag (no token has it)" in said
        assert svc.audits.running  # two tokens still unseen: it runs until ended
        assert "audit of the Favor Bag: 21 of 23" in svc.alerts["audit"]
        # nothing was judged on the board meanwhile: Aria's token was never "not drawn"
        assert not [k for k in svc.alerts if k.startswith("board ")]
        table.submit({"cmd": "audit_bag", "bag": "favor"})  # the same again: ends it
        table.settled(2)
        wait_until(lambda: reports.answers(), "the answer")
        answer = reports.answers()[0]
        assert (answer["seen"], answer["expected"]) == (21, 23)
        assert [m["token"] for m in answer["missing"]] == ["favor.21", "favor.22"]
        assert answer["extra"] == [{"uid": UNKNOWN, "token": None}]
        assert [(o["token"], o["bag"]) for o in answer["others"]] == [("aria.weight.0", "aria")]
        assert svc.alerts["audit"].startswith("audit of the Favor Bag: 21 of 23 seen, 2 missing")
        assert not svc.audits.running
        # not play: the journal holds the two audit_bag commands and no draw
        assert [c["cmd"] for _, c in journal_rows(tmp_path / "state")] == ["audit_bag"] * 2
        assert svc.loop.state.performance is None
    finally:
        table.close()


def test_an_audit_ends_by_itself_once_every_token_is_seen_and_play_goes_on(tmp_path):
    table = InProcess(tmp_path)
    reports = Reports()
    try:
        svc = table.service
        svc.extensions.append(reports)
        table.submit({"cmd": "audit_bag", "bag": "aria"})  # a hero: that hero's Hero Bag
        table.settled(1)
        wait_until(lambda: svc.audits.running, "the audit begun")
        tokens = [t.id for t in svc.loop.state.tokens.values() if t.bag == "aria"]
        pass_over(table, [uid_of(svc, t) for t in tokens])
        wait_until(lambda: reports.answers(), "the answer, with no command to end it")
        answer = reports.answers()[0]
        assert (answer["seen"], answer["expected"], answer["complete"]) == (18, 18, True)
        assert answer["lines"] == [
            "audit of Aria's Hero Bag: 18 of 18 seen, nothing missing, nothing extra"
        ]
        # the audit over, a tag is play's again: laid outside a Performance it is unsync
        table.hub.lay(0, uid_of(svc, "aria.weight.0"))
        wait_until(lambda: "board draw-board channel 0" in svc.alerts, "play's again")
        assert [c["cmd"] for _, c in journal_rows(tmp_path / "state")] == ["audit_bag"]
    finally:
        table.close()


def test_a_button_of_the_wheel_s_starts_and_ends_an_audit(tmp_path):
    """[gpio.buttons] maps a button to a fixed command: audit_bag starts the audit, the same
    button again ends it with the answer (nothing passed: all 23 missing)."""
    table = InProcess(
        tmp_path,
        '[gpio]\npin_factory = "mock"\n[gpio.buttons]\n'
        'audit = { pin = 27, command = { cmd = "audit_bag", bag = "favor" } }\n',
    )
    reports = Reports()
    try:
        svc = table.service
        svc.extensions.append(reports)
        wait_until(lambda: svc.controls is not None, "the service's wheel controls")
        hand = MockHand(svc.pin_factory, svc.config.gpio)
        hand.press("audit")
        wait_until(lambda: svc.audits.running, "the audit begun by the button")
        pass_over(table, [uid_of(svc, "favor.05")])
        hand.press("audit")
        wait_until(lambda: reports.answers(), "the answer, the button pressed again")
        answer = reports.answers()[0]
        assert (answer["seen"], len(answer["missing"])) == (1, 22)
        assert [(s, c["cmd"]) for s, c in _sources(tmp_path)] == [("wheel", "audit_bag")] * 2
    finally:
        table.close()


def _sources(folder: Path) -> list[tuple[str, dict]]:
    """(source, command) of each journal row."""
    db = sqlite3.connect(folder / "state" / JOURNAL)
    try:
        rows = db.execute("SELECT source, command FROM journal ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(s, json.loads(c)) for s, c in rows]
