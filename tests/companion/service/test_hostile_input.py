"""Every input answered: hostile payloads on MQTT and hostile lines on ``--commands -``.

Each hostile input gets exactly one answer — a ``malformed`` reply on MQTT, a
``refused`` line on standard input, in its turn — and none kills a reader
thread, none is reported as a ``store`` error, none changes the table. The
state afterwards equals a replay of the journal (docs/commands.md, "Limits").
"""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest

from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.service import Service
from companion.table import inputs
from companion.table.command_source import JsonLinesCommands
from companion.table.loop import TableLoop
from companion.table.store import Store
from engine import CommandRejected, apply, load_table
from tags.registry import TagRegistry
from tests.harness import wait_until
from tests.harness.broker import WAIT, Watcher, running_broker
from tests.harness.service import (
    ServiceProcess,
    as_json,
    journal_count,
    journal_rows,
    replay,
    write_config,
)

R = "rhuna/example"
FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18: always accepted

#: (what, payload bytes, the words the refusal must hold)
HOSTILE: list[tuple[str, bytes, str]] = [
    ("5,000 [ deep", b"[" * 5000, "limits.depth"),
    ("2,500 { deep", b'{"a":' * 2500 + b"1" + b"}" * 2500, "limits.depth"),
    ("7 deep, legal JSON", b'{"cmd":"undo","x":[[[[[[1]]]]]]}', "limits.depth"),
    ("a lone surrogate in cmd", b'{"cmd":"\\ud83d"}', "surrogate"),
    ("a lone surrogate in a field", b'{"cmd":"draw","hero":"\\udfff"}', "surrogate"),
    ("a lone surrogate in source", b'{"cmd":"undo","source":"\\ud800x"}', "surrogate"),
    ("a lone surrogate as a key", b'{"cmd":"undo","\\ud83d":1}', "surrogate"),
    ("not UTF-8", b'{"cmd":"\xff\xfe"}', "not UTF-8"),
    ("20 kB", b'{"cmd":"undo","cause":"' + b"x" * 20_000 + b'"}', "limits.payload_bytes"),
    (
        "a 1 MB token id",
        b'{"cmd":"draw","hero":"aria","token":"' + b"t" * 1_000_000 + b'"}',
        "limits.payload_bytes",
    ),
    (
        "a 300-character token id",
        b'{"cmd":"draw","hero":"aria","token":"' + b"t" * 300 + b'"}',
        "limits.string_length",
    ),
    ("NaN", b'{"cmd":"adjust_hero","hero":"aria","favor":NaN}', "NaN"),
    ("5,000 digits", b'{"cmd":"draw_time","seed":' + b"9" * 5000 + b"}", "digits"),
    ("2^60", b'{"cmd":"draw_time","seed":1152921504606846976}', "limits.integer"),
    ("100 items", b'{"cmd":"undo","x":[' + b",".join([b"1"] * 100) + b"]}", "limits.array_items"),
    (
        "strain 100000 (P14)",
        b'{"cmd":"adjust_hero","hero":"cass","strain":100000}',
        "limits.amount",
    ),
    ("favor -100 (P18)", b'{"cmd":"adjust_hero","hero":"cass","favor":-100}', "limits.amount"),
    ("not JSON", b"{cmd: undo}", "not JSON"),
]


@pytest.mark.parametrize(("what", "payload", "says"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_guard_refuses_each_hostile_input_as_malformed(what, payload, says, example_state):
    """The guard (or, for an amount, the engine's vocabulary) refuses; nothing raises."""
    value = inputs.parse(payload)
    if isinstance(value, inputs.Malformed):
        violation = value.violation
    else:
        with pytest.raises(CommandRejected) as info:
            apply(example_state, value)
        violation = info.value.violation
    assert violation.code == "malformed" and says in violation.message + (violation.fix or "")


def test_adjust_hero_strain_100000_is_refused_citing_the_limit_and_why(example_state):
    with pytest.raises(CommandRejected) as info:
        apply(example_state, {"cmd": "adjust_hero", "hero": "cass", "strain": 100_000})
    v = info.value.violation
    assert (v.code, v.field) == ("malformed", "strain")
    assert "≤ 20 (limits.amount)" in v.message and "P13–P15" in (v.fix or "")
    apply(example_state, {"cmd": "adjust_hero", "hero": "cass", "strain": 20})  # at the limit


def test_a_table_cannot_change_the_limits(tmp_path):
    table = tmp_path / "t.toml"
    from tests.harness import EXAMPLE_TABLE

    table.write_text(EXAMPLE_TABLE.read_text() + "\n[rules.limits]\namount = 100000\n")
    with pytest.raises(Exception, match=r"rules\.limits cannot be changed"):
        load_table(table)


def test_a_script_s_command_the_guard_refuses_never_reaches_the_journal(tmp_path, example_state):
    """A command built in Python (a script, an extension) is checked by the loop itself; one
    the journal cannot store as JSON is ``malformed``, never a ``store`` error."""
    with Store.open(tmp_path) as store:
        store.restore(example_state, "t.toml")
        loop = TableLoop(
            example_state, TagRegistry.synthetic(example_state.tokens), journal=store.append
        )
        for bad in (
            {"cmd": "adjust_hero", "hero": "aria", "favor": 1, "cause": "\ud83d"},
            {"cmd": "adjust_hero", "hero": "aria", "favor": 1, "cause": object()},
            {"cmd": "undo", "source": [[[[[[["deep"]]]]]]]},
        ):
            loop.submit(bad)
            outcome = loop.step(1)
            assert outcome is not None and outcome.error is not None
            assert outcome.error.code == "malformed", outcome.error
        assert store.seq == 0 and loop.state is example_state


def test_every_hostile_mqtt_payload_gets_one_malformed_reply_and_the_table_goes_on(tmp_path):
    with running_broker(tmp_path / "broker") as broker:
        config = load_config(
            write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
        )
        service = Service(config)
        stop = threading.Event()
        thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
        thread.start()
        watcher = Watcher(broker.port, [f"{R}/reply"])
        try:
            [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
            assert bridge.wait_ready(WAIT)
            for n, (what, payload, says) in enumerate(HOSTILE, 1):
                watcher.send(f"{R}/command", payload)
                reply = watcher.wait(
                    lambda ms, n=n: [m.json() for m in ms if m.topic == f"{R}/reply"][n - 1 :],
                    f"the reply to {what}",
                )[0]
                assert reply["status"] == "error", what
                assert reply["error"]["code"] == "malformed", (what, reply)
                assert says in reply["error"]["message"] + reply["error"].get("fix", ""), what
            # a lone surrogate in the transaction: refused, not echoed
            watcher.send(f"{R}/command", b'{"cmd":"undo","transaction":"\\ud83d"}')
            bad_id = watcher.wait(
                lambda ms: [m.json() for m in ms if m.topic == f"{R}/reply"][len(HOSTILE) :],
                "the reply to a surrogate transaction",
            )[0]
            assert bad_id["error"]["field"] == "transaction" and "transaction" not in bad_id
            # the table goes on: the same bridge and loop take a command
            watcher.send(f"{R}/command", {**FAVOR, "transaction": "after"})
            assert watcher.reply(f"{R}/reply", "after")["status"] == "ok"
            assert service.store.seq == 1
        finally:
            watcher.close()
            stop.set()
            thread.join(WAIT)
    initial = load_table(tmp_path / "table.toml")
    with Store.open(tmp_path / "state") as store:
        restored = store.restore(initial, tmp_path / "table.toml")
    assert as_json(restored.state) == as_json(replay(initial, [FAVOR]))


def test_every_hostile_stdin_line_gets_one_refused_line_in_its_turn(tmp_path):
    """A real ``rhuna-table run --commands -``: hostile lines between good ones; every line is
    answered once, in order, and the reader thread reads on to the last line."""
    config = write_config(tmp_path)
    service = ServiceProcess(config)
    good = json.dumps(FAVOR).encode()
    lines: list[bytes] = []
    for _, payload, _ in HOSTILE:
        lines += [good, payload.replace(b"\n", b" ")]
    lines += [b"# a comment is no command", b"", good]
    assert service.proc.stdin is not None
    raw = service.proc.stdin.buffer
    raw.write(b"\n".join(lines) + b"\n")
    raw.flush()
    answers = [service.answer() for _ in range(2 * len(HOSTILE) + 1)]
    service.proc.send_signal(signal.SIGTERM)
    assert service.proc.wait(WAIT) == 0
    assert service.rest() == []
    for n, (what, _, says) in enumerate(HOSTILE):
        assert answers[2 * n] == f"ack {n + 1}", what
        word, _, body = (answers[2 * n + 1] or "").partition(" ")
        error = json.loads(body)
        assert word == "refused" and error["code"] == "malformed", (what, answers[2 * n + 1])
        assert says in error["message"] + error.get("fix", ""), (what, error)
    assert answers[-1] == f"ack {len(HOSTILE) + 1}"
    initial = load_table(tmp_path / "table.toml")
    rows = journal_rows(tmp_path / "state")
    assert [c for _, c in rows] == [FAVOR] * (len(HOSTILE) + 1)
    with Store.open(tmp_path / "state") as store:
        restored = store.restore(initial, tmp_path / "table.toml")
    assert as_json(restored.state) == as_json(replay(initial, [c for _, c in rows]))


def test_the_command_reader_pauses_when_the_table_falls_behind(example_state):
    """Back-pressure: with the loop not stepping, the reader takes ``max_pending`` lines and
    waits; the pipe (not the service's memory) holds the rest. Stepping lets it go on."""
    loop = TableLoop(example_state, TagRegistry.synthetic(example_state.tokens))
    r, w = os.pipe()
    reading = os.fdopen(r, "rb")
    writer = threading.Thread(
        target=lambda: (os.write(w, (json.dumps(FAVOR) + "\n").encode() * 2000), os.close(w)),
        daemon=True,
    )
    writer.start()
    out = _Lines()
    source = JsonLinesCommands(reading, out, max_pending=32)
    source.start(loop)
    try:
        wait_until(lambda: source.pending == 32, "32 lines waiting")
        threading.Event().wait(0.2)  # it stays paused
        assert source.pending == 32 and loop.pending == 32
        assert source.lines == 33  # the 33rd in hand, waiting for room
        done = 0
        while done < 2000:
            if loop.step(1) is not None:
                done += 1
            assert loop.pending <= 32
        source.join(WAIT)
        assert source.drain(WAIT)  # the answers are written by the source's own thread
        assert out.lines == ["ack -"] * 2000
    finally:
        source.stop()
        reading.close()


class _Lines:
    """A text stream that keeps the lines written to it."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._part = ""

    def write(self, text: str) -> int:
        self._part += text
        *done, self._part = self._part.split("\n")
        self.lines += done
        return len(text)

    def flush(self) -> None:
        pass


def test_the_longest_token_id_the_limits_allow_still_renders_on_every_panel(example_state):
    """A 1 MB token id once made the panel fail to render; now it is refused at the door, and
    the longest one let through (limits.string_length) is refused by the engine in words
    that every panel size shows (cut with an ellipsis), in a banner."""
    from display.render import Frame, Renderer
    from display.screens.banner import Banner
    from engine.view import table_view

    state, _ = apply(example_state, {"cmd": "begin_performance", "difficulty": 5})
    longest = "t" * inputs.LIMITS.string_length
    assert inputs.check({"cmd": "draw", "hero": "aria", "token": longest}) is None
    with pytest.raises(CommandRejected) as info:
        apply(state, {"cmd": "draw", "hero": "aria", "token": longest})
    banner = Banner(info.value.violation.message, "error")
    for size in ("2.13", "2.9", "4.2", "7.5"):
        image = Renderer(size, "bwr")(Frame(table_view(state), banner))
        assert image.getbbox() is not None


def test_json_that_is_no_object_gets_one_malformed_answer(tmp_path):
    """Issue 29: ``null`` lines were skipped, unanswered; every line that is not a command
    gets exactly one ``malformed`` answer in its place, and the next command is answered.
    One service takes every kind of line in turn (a service each cost a start each)."""
    lines = [b"null", b"[]", b"1", b'"x"', b"true"]
    service = ServiceProcess(write_config(tmp_path))
    assert service.proc.stdin is not None
    raw = service.proc.stdin.buffer
    raw.write(b"".join(line + b"\n" + json.dumps(FAVOR).encode() + b"\n" for line in lines))
    raw.flush()
    for n, line in enumerate(lines, 1):
        word, _, body = (service.answer() or "").partition(" ")
        assert word == "refused" and json.loads(body)["code"] == "malformed", (line, body)
        assert service.answer() == f"ack {n}", line
    service.proc.send_signal(signal.SIGTERM)
    assert service.proc.wait(WAIT) == 0
    assert service.rest() == []


def test_an_unread_stdout_never_stops_the_table(tmp_path):
    """Issue 29: with nobody reading ``--commands -``'s answers the pipe fills; the answers
    beyond the bounded queue are dropped and counted, the table goes on committing and the
    watchdog stays fed (before: the loop wedged once the pipe and the queue were full).

    The answers' pipe is shrunk to one page (``F_SETPIPE_SZ``), so a few thousand commands
    overfill it and the queue: a loaded CI machine commits them well inside the deadline
    (12,000 against a 64 kB pipe once took more than 120 s there). A service that dies is
    said at once, with its log, instead of waiting out the deadline."""
    import fcntl
    import subprocess
    import sys

    from companion.table.command_source import MAX_UNWRITTEN
    from tests.harness import ROOT
    from tests.harness.sdnotify import Systemd

    systemd = Systemd(str(tmp_path / "notify"))
    config = write_config(tmp_path)
    log_path = tmp_path / "service.log"
    log = log_path.open("w")
    env = {**os.environ, "NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "1000000"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(config), "--commands", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,  # never read
        stderr=log,
        cwd=ROOT,
        env={**env, "TMPDIR": str(tmp_path)},
    )
    assert proc.stdout is not None and proc.stdin is not None
    pipe_bytes = fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)
    # "ack N\n" is at least 6 bytes: the pipe holds at most pipe_bytes // 6 answers, the
    # queue MAX_UNWRITTEN more, the writer one in hand; 256 more are sure to overfill them
    # (the log's "nobody reads the answers", asserted below, says they did). Not twice both:
    # at load 20 the service committed 1,436 in 240 s, and every command costs a commit
    n = pipe_bytes // 6 + MAX_UNWRITTEN + 256
    written: list[BaseException] = []

    def write() -> None:
        try:
            proc.stdin.write((json.dumps(FAVOR) + "\n").encode() * n)
            proc.stdin.flush()
        except OSError as e:  # the service went away: said below, with its log
            written.append(e)

    def committed() -> bool:
        if proc.poll() is not None:
            raise AssertionError(
                f"the service exited ({proc.returncode}) after"
                f" {journal_count(tmp_path / 'state')} of {n} commands:\n"
                + log_path.read_text("utf-8")[-3000:]
            )
        return journal_count(tmp_path / "state") >= n

    try:
        systemd.until("READY")
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        wait_until(
            committed,
            lambda: (
                f"every one of {n} commands committed though nobody reads the answers"
                f" ({journal_count(tmp_path / 'state')} so far)"
            ),
            timeout=WAIT * 4,
            poll=0.1,
        )
        writer.join(WAIT)
        assert not written, written
        assert "WATCHDOG" in systemd.until("WATCHDOG")  # still fed after it all
    finally:
        proc.kill()
        proc.wait(WAIT)
        log.close()
        systemd.close()
    assert "nobody reads the answers" in log_path.read_text("utf-8")


def test_a_drain_leaves_no_thread_behind_even_when_nobody_reads():
    """``drain`` waits on the answers' queue itself: it used to start a helper thread blocked
    in ``Queue.join()``, which a drain that timed out (a reader that never reads) left alive
    for good, and which the soak then counted as a leak (``threads grew 9 → 10``)."""
    import io

    class Stuck(io.StringIO):
        """An ``out`` whose reader never reads: every write blocks until released."""

        def __init__(self) -> None:
            super().__init__()
            self.release = threading.Event()

        def write(self, s: str) -> int:
            self.release.wait(WAIT)
            return super().write(s)

    out = Stuck()
    loop = TableLoop(load_table("examples/table.toml"), TagRegistry(), journal=lambda o: 1)
    source = JsonLinesCommands(io.BytesIO(json.dumps(FAVOR).encode() + b"\n"), out)
    source.start(loop)
    try:
        source.join(WAIT)
        wait_until(lambda: loop.step(0.1) is not None, "the command's turn")
        before = threading.active_count()
        assert source.drain(0.05) is False  # the writer is stuck: not drained
        assert threading.active_count() == before, [t.name for t in threading.enumerate()]
        out.release.set()
        assert source.drain(WAIT) is True
        assert threading.active_count() == before
    finally:
        out.release.set()
        source.stop()
