"""A misread soak, with faults, in emulation: every read a true read (issue 43, item 6).

    .venv/bin/python -m benchmarks.reads [--draws 10000] [--quick] [--seed 0] [--dir /dev/shm]

The real service (``rhuna-table run --commands -``, its own process) on an emulated token hub
(the firmware's own ``hubcore`` on a real pty) and an emulated PN532 (on another pty), both Draw
Board readers. Cass declares (three draws), three of her tokens are laid one by one, the
Performance is resolved, the tokens lifted, Reset; again, until ``--draws`` tokens have been
laid. Reset waits until each reader has decided its wells empty (the hub's trackers; the
PN532's ``remove_misses`` "no card" answers taken by the reader, ``PN532Emulator.empty_polls``):
a token laid again before its reader saw it lifted never left, as far as the table can know,
and is rightly "back in its bag now: put it there", not a draw. While they are laid the
emulators inject the faults a table meets, in turn:

- ``bounce``: laid, lifted after one poll, laid again;
- ``flicker``: the reader misses half the polls of a token lying still;
- ``two tokens``: a second token stacked over it in the well (the hub's REQA after HLTA,
  ``HubEmulator.stack``), or a second card on the PN532 (``lay_second``, NbTg 2): must be
  flagged, never counted, then counted once the extra token is lifted;
- ``detuned``: the tag read on one poll in three (``HubEmulator.detune``);
- ``bad CRC``: the hub's next frame (the token's PRESENT) with a flipped bit, the PN532's next
  answer with a wrong DCS;
- ``hub reset``: the hub reboots after its first read of the token (before it is counted);
- ``unplug``: the hub's cable pulled after the token is laid and plugged back in;
- ``unknown tag``: a tag nobody enrolled laid on a spare well: flagged, never counted;
- ``other bag``: a token of another hero's bag (Aria's, Bren's) on a spare well: the same.

It counts, from outside: what the journal recorded (its SQLite file, read-only, as
``rhuna-table history`` reads it) and what the status line said (``STATUS=`` on the service's
``$NOTIFY_SOCKET``, what ``systemctl status`` shows; the same text the panel's banner shows,
both from ``Service.alert``):

- **phantoms**: a draw recorded of a token not laid;
- **duplicates**: a token recorded twice in one Performance;
- **silent swaps**: a well's draw recorded as another token, with no unsync said;
- **misses**: a token laid and, within the window, neither recorded nor flagged (unsync said);
- **unsync shown**: from the fault (the emulator's call) to the first ``STATUS=`` that says it
  (``unsync: …`` or ``one token per well …``).

Targets: 0 / 0 / 0 / 0 in 10,000 draws and unsync shown p99 ≤ 500 ms. ``--quick`` lays a few
draws (every fault kind at least once) and judges nothing: it prints the figures. ``--seed``
draws the plan (the kinds, the tokens); the same seed lays the same tokens with the same faults
in the same order (the polls that meet them are the machine's). ``--kinds "pn clean,bounce"``
lays only those kinds (and clean draws between), e.g. the PN532's path alone. A token that is
never recorded stops the run, saying whether the table said an unsync meanwhile (flagged) or
nothing (a silent miss), what the readers' emulators held, and the service log's tail. A fault
kind that misses (the detuned tag: the hub counts a token after 2 reads in a row, so one read in
three never is) is printed with its figures, never hidden.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import queue
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import positive
from companion.table.store import JOURNAL
from engine import load_table
from firmware_bridge.emulator import HubEmulator, PN532Emulator
from firmware_bridge.pn532 import IN_LIST_PASSIVE_TARGET, PN532Reader
from tags.registry import TagRegistry
from tests.harness.service import write_config

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "examples" / "table.toml"

BEGIN = {"cmd": "begin_performance", "difficulty": 5}
CASS = {"cmd": "declare", "hero": "cass", "shade": "impulse", "capability": "shadow",
        "action": "target"}  # fmt: skip
HERO = "cass"
UNKNOWN = "04DEADBEEF{:04X}"  # a tag nobody enrolled (the low bytes vary)

#: the hub's wells: three for the draws, one spare for the tags that must not count
DRAW_WELLS = (0, 1, 2)
SPARE = 3
#: the PN532's one well (reader "pn", channel 0)
PN = "pn"
#: the "no card" polls in a row after which the service's PN532 reader says a card removed
PN_REMOVE_MISSES: int = inspect.signature(PN532Reader).parameters["remove_misses"].default

#: the fault kinds, in the order they come round (a quick run meets each once);
#: on the PN532 for the ``pn`` kinds
KINDS = (
    "clean",
    "bounce",
    "pn clean",
    "flicker",
    "two tokens",
    "pn two cards",
    "detuned",
    "bad CRC",
    "pn bad CRC",
    "hub reset",
    "unknown tag",
    "other bag",
    "pn flicker",
    "unplug",
)
#: kinds that are no draw of the Performance: a tag laid on the spare well, which must be flagged
SPARE_KINDS = ("unknown tag", "other bag")
#: kinds that must be flagged (unsync said) before anything is counted
FLAGGED = ("two tokens", "pn two cards", *SPARE_KINDS)

#: how long a laid token may take to be recorded or flagged before it is a miss (s): a table's
#: patience, not a figure; the unplug's window covers the reader's reconnection
WINDOW = 3.0
UNPLUG_WINDOW = 15.0
#: how long any one wait for the service gives up after (s): a liveness bound
LIVENESS = 120.0

ALERT_WORDS = ("unsync", "one token per well")


def pn_lifted(pn: PN532Emulator, timeout: float, misses: int = PN_REMOVE_MISSES) -> bool:
    """Wait until the PN532's reader has decided its well empty: it has taken ``misses``
    "no card" answers in a row since the lift (each taken before it sends its next command, so
    its removal is in its sink, ahead of anything sent to the service after). False on timeout.
    """
    deadline = time.monotonic() + timeout
    while pn.empty_polls < misses:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


class Status:
    """The service's ``$NOTIFY_SOCKET``: every ``STATUS=`` line, with its arrival time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.cond = threading.Condition()
        self.lines: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="notify", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            now = time.perf_counter()
            for line in data.decode("utf-8", "replace").split("\n"):
                if line.startswith("STATUS="):
                    with self.cond:
                        self.lines.append((now, line[len("STATUS=") :]))
                        self.cond.notify_all()

    def said_after(self, t0: float, timeout: float) -> float | None:
        """The arrival of the first status after ``t0`` that says an unsync, or None."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                hits = [t for t, text in self.lines if t >= t0 and _alerting(text)]
                if hits:
                    return min(hits)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def clear(self, timeout: float) -> bool:
        """Wait until the latest status says no unsync (every alert resolved)."""
        with self.cond:
            return self.cond.wait_for(
                lambda: bool(self.lines) and not _alerting(self.lines[-1][1]), timeout
            )

    def alerting(self) -> bool:
        with self.cond:
            return bool(self.lines) and _alerting(self.lines[-1][1])

    def since(self, t0: float) -> list[str]:
        """Every status said after ``t0`` (perf_counter), the latest last."""
        with self.cond:
            return [text for t, text in self.lines if t >= t0]

    def last(self) -> str:
        with self.cond:
            return self.lines[-1][1] if self.lines else "(none yet)"

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        self._thread.join(2)


def _alerting(text: str) -> bool:
    return any(w in text for w in ALERT_WORDS)


class Journal:
    """The service's journal, read-only: the draws recorded since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seq = 0
        self.db: sqlite3.Connection | None = None

    def new(self) -> list[tuple[int, dict[str, Any]]]:
        if self.db is None:
            if not self.path.exists():
                return []
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        rows = self.db.execute(
            "SELECT seq, command FROM journal WHERE seq > ? ORDER BY seq", (self.seq,)
        ).fetchall()
        if rows:
            self.seq = rows[-1][0]
        return [(s, json.loads(c)) for s, c in rows]

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


@dataclass
class Tally:
    draws: int = 0
    phantoms: int = 0
    duplicates: int = 0
    swaps: int = 0
    misses: int = 0
    shown: list[float] = field(default_factory=list)  # fault → unsync said (s)
    by_kind: Counter[str] = field(default_factory=Counter)
    missed_by_kind: Counter[str] = field(default_factory=Counter)
    late: Counter[str] = field(default_factory=Counter)  # recorded, but after its window
    notes: list[str] = field(default_factory=list)


class Soak:
    """One run: the service, the emulators, the journal and the status line."""

    def __init__(
        self, folder: Path, hub: HubEmulator, pn: PN532Emulator, status: Status, seed: int
    ) -> None:
        self.folder = folder
        self.hub = hub
        self.pn = pn
        self.status = status
        self.rng = random.Random(seed)
        initial = load_table(TABLE)
        self.registry = TagRegistry.synthetic(initial.tokens)
        self.bag = [t for t in initial.tokens if initial.location(t) == f"bag:{HERO}"]
        others = {f"bag:{h}" for h in initial.heroes if h != HERO}
        self.others = [t for t in initial.tokens if initial.location(t) in others]
        self.journal = Journal(folder / "table" / "state" / JOURNAL)
        self.tally = Tally()
        self.recorded: list[str] = []  # the draws recorded in this Performance, in order
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.service: subprocess.Popen[str] | None = None
        self._unknown = 0

    # -- the service --------------------------------------------------------------

    def start(self, config: Path, log: Path) -> None:
        self.log = log.open("w")
        self.service = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--config", str(config),
             "--commands", "-", "--keep-running"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            bufsize=1,
            env={**os.environ, "TMPDIR": str(self.folder), "NOTIFY_SOCKET": str(self.status.path)},
        )  # fmt: skip
        threading.Thread(target=self._read_answers, daemon=True).start()
        # READY: the first status line (sd_notify READY=1 carries it)
        deadline = time.monotonic() + LIVENESS
        with self.status.cond:
            while not self.status.lines:
                if self.service.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"reads: the service did not come up: {self._tail()}")
                self.status.cond.wait(0.2)

    def _tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / "service.log").read_text()[-2000:]
        return ""

    def _read_answers(self) -> None:
        assert self.service is not None and self.service.stdout is not None
        for line in self.service.stdout:
            self.answers.put(line.strip())
        self.answers.put(None)

    def command(self, cmd: dict[str, Any]) -> None:
        assert self.service is not None and self.service.stdin is not None
        self.service.stdin.write(json.dumps(cmd) + "\n")
        self.service.stdin.flush()
        try:
            answer = self.answers.get(timeout=LIVENESS)
        except queue.Empty:
            raise SystemExit(f"reads: no answer to {cmd['cmd']}: {self._tail()}") from None
        if answer is None:
            raise SystemExit(f"reads: the service ended: {self._tail()}")
        if not answer.startswith("ack"):
            raise SystemExit(f"reads: {cmd['cmd']} refused: {answer}")
        self._look()

    def stop(self) -> None:
        self.journal.close()
        if self.service is None:
            return
        with contextlib.suppress(OSError):
            assert self.service.stdin is not None
            self.service.stdin.close()
        self.service.send_signal(signal.SIGTERM)
        try:
            self.service.wait(30)
        except subprocess.TimeoutExpired:  # ours, by its pid
            self.service.kill()
            self.service.wait(10)
        self.log.close()

    # -- reading the record ---------------------------------------------------------

    def _look(self) -> list[str]:
        """The draws recorded since the last look (this Performance's, kept in order)."""
        new = [
            c["token"]
            for _, c in self.journal.new()
            if c.get("cmd") in ("draw", "call_favor", "draw_time", "draw_weather") and "token" in c
        ]
        self.recorded += new
        return new

    def _recorded(self, token: str, timeout: float) -> list[str]:
        """Wait until ``token`` is recorded, or ``timeout``; every draw recorded meanwhile."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            seen += self._look()
            if token in seen or time.monotonic() > deadline:
                return seen
            time.sleep(0.002)

    def _quiet(self, polls: int = 4) -> None:
        """A few poll rounds of the hub (what it decides in them is on the wire)."""
        if not self.hub.wait_polls(polls, LIVENESS):
            raise SystemExit("reads: the hub stopped polling")

    def _lifted(self, channels: tuple[int, ...]) -> None:
        """Wait until the hub has decided each of ``channels`` empty (its REMOVED is on the
        wire), then a few poll rounds more."""

        def empty() -> bool:
            with self.hub._lock:
                core = self.hub.core
                return core is not None and all(core.trackers[c].uid is None for c in channels)

        deadline = time.monotonic() + LIVENESS
        while not empty():
            if time.monotonic() > deadline:
                with self.hub._lock:
                    core = self.hub.core
                    held = [None if core is None else core.trackers[c].uid for c in channels]
                raise SystemExit(
                    f"reads: the hub never decided {channels} empty (it holds {held},"
                    f" silent={self.hub.silent}, boots={self.hub.boots}): {self._tail()}"
                )
            time.sleep(0.002)
        self._quiet(2)

    def _pn_lifted(self) -> None:
        if not pn_lifted(self.pn, LIVENESS):
            raise SystemExit(
                f"reads: the PN532 reader never saw its card lifted ({self.pn.empty_polls}"
                f" empty polls taken of {PN_REMOVE_MISSES}): {self._tail()}"
            )

    def _held(self, channel: int) -> str:
        """What the emulators hold and have told, for a failure's words."""
        with self.hub._lock:
            core = self.hub.core
            tracked = None if core is None else core.trackers[channel].uid
            laid = self.hub.readers[channel].uid
        with self.pn._lock:
            pn_uid = self.pn.uid
            empty = self.pn.empty_polls
            polls = sum(1 for c in self.pn.commands if c == IN_LIST_PASSIVE_TARGET)

        def hx(b: bytes | None) -> str:
            return "nothing" if b is None else b.hex().upper()

        return (
            f"hub channel {channel}: laid {hx(laid)}, decided {hx(tracked)};"
            f" PN532: laid {hx(pn_uid)}, {polls} InListPassiveTarget so far,"
            f" {empty} empty taken since the last card"
        )

    # -- one Performance --------------------------------------------------------------

    def performance(self, kinds: list[str]) -> None:
        if not self.status.clear(LIVENESS):
            raise SystemExit("reads: the board stayed unsync after Reset")
        self.command(BEGIN)
        self.command(CASS)
        self.recorded = []
        laid: list[str] = []
        tokens = self.rng.sample(self.bag, 3)
        draw_kinds = [k for k in kinds if k not in SPARE_KINDS]
        spare_kinds = [k for k in kinds if k in SPARE_KINDS]
        pn_used = False
        for i, (token, kind) in enumerate(zip(tokens, draw_kinds, strict=True)):
            if kind.startswith("pn") and not pn_used:
                pn_used = True
                where = "pn"
            else:
                where = f"hub {DRAW_WELLS[i]}"
                if kind.startswith("pn"):
                    kind = "clean"  # one PN532 well: the second PN kind of a Performance
            laid.append(token)
            self._draw(token, kind, where, DRAW_WELLS[i])
            # a spare-well fault between the draws, once the board is in sync again
            if spare_kinds:
                self._spare(spare_kinds.pop())
        # what the Performance recorded, beyond what each lay expected
        counts = Counter(self.recorded)
        self.tally.duplicates += sum(n - 1 for n in counts.values() if n > 1)
        self.tally.phantoms += sum(n for t, n in counts.items() if t not in laid)
        self.command({"cmd": "resolve"})
        for ch in DRAW_WELLS:
            self.hub.lift(ch)
        if pn_used:
            self.pn.lift()
        self._lifted(DRAW_WELLS)
        if pn_used:
            self._pn_lifted()
        if not self.status.clear(LIVENESS):  # the lifts seen by the board before Reset
            raise SystemExit("reads: the board stayed unsync after the tokens were lifted")
        self.command({"cmd": "reset"})

    def _draw(self, token: str, kind: str, where: str, channel: int) -> None:
        """Lay ``token`` with the fault ``kind``; count what comes of it."""
        t = self.tally
        t.draws += 1
        t.by_kind[kind] += 1
        uid = self.registry.uid(token)
        assert uid is not None
        hub, pn = self.hub, self.pn
        window = WINDOW
        if kind in FLAGGED and not self.status.clear(LIVENESS):  # its own unsync, timed
            raise SystemExit(f"reads: the board stayed unsync before {kind}")
        fault_at = time.perf_counter()
        if kind == "bounce":
            hub.lay(channel, uid)
            self._quiet(1)
            hub.lift(channel)
            self._quiet(1)
            hub.lay(channel, uid)
        elif kind == "flicker":
            hub.flicker(channel, 0.5)
            hub.lay(channel, uid)
        elif kind == "two tokens":
            hub.stack(channel)
            fault_at = time.perf_counter()
            hub.lay(channel, uid)
        elif kind == "detuned":
            hub.detune(channel, 3)
            hub.lay(channel, uid)
        elif kind == "bad CRC":
            hub.corrupt_next(1)
            hub.lay(channel, uid)
        elif kind == "hub reset":
            hub.lay(channel, uid)
            self._quiet(1)  # one read: not yet counted (two in a row are)
            hub.reset()
        elif kind == "unplug":
            hub.lay(channel, uid)
            self._quiet(1)
            hub.unplug()
            time.sleep(0.3)
            hub.replug()
            window = UNPLUG_WINDOW
        elif kind == "pn two cards":
            pn.lay_second(UNKNOWN.format(0xFFFF))
            fault_at = time.perf_counter()
            pn.lay(uid)
        elif kind == "pn bad CRC":
            pn.corrupt_next(1)
            pn.lay(uid)
        elif kind == "pn flicker":
            pn.miss_rate = 0.5
            pn.lay(uid)
        elif kind == "pn clean":
            pn.lay(uid)
        else:
            hub.lay(channel, uid)
        if kind in FLAGGED:
            self._flagged(token, kind, fault_at, window)
            # resolved: the extra token lifted; now the one laid is counted
            if kind == "two tokens":
                hub.stack(channel, False)
            else:
                pn.lay_second(None)
        laid_at = time.perf_counter()
        seen = self._recorded(token, window)
        if token not in seen:
            t.missed_by_kind[kind] += 1
            if kind not in FLAGGED and not self.status.alerting():
                t.misses += 1
            # tuned again, steady again: the token is read, the Performance goes on
            hub.detune(channel, 1)
            hub.flicker(channel, 0.0)
            pn.miss_rate = 0.0
            seen += self._recorded(token, LIVENESS)
            if token not in seen:
                said = [x for x in self.status.since(laid_at) if _alerting(x)]
                verdict = (
                    f"flagged: the table said {said[0]!r} (latest: {self.status.last()!r})"
                    if said or self.status.alerting()
                    else f"a SILENT miss: no unsync said (status: {self.status.last()!r})"
                )
                raise SystemExit(
                    f"reads: {token} ({kind}, {where}) never recorded in"
                    f" {window + LIVENESS:.0f} s, {verdict}; {self._held(channel)};"
                    f" the service's log:\n{self._tail()}"
                )
            t.late[kind] += 1
        elif kind not in FLAGGED:
            others = [x for x in seen if x != token]
            if others and not self.status.alerting():
                t.swaps += len(others)
        hub.detune(channel, 1)
        hub.flicker(channel, 0.0)
        pn.miss_rate = 0.0
        if kind in ("hub reset", "unplug"):
            self._quiet(4)  # the boot scan's inventory of the other wells, seen
            self._look()

    def _flagged(self, token: str, kind: str, fault_at: float, window: float) -> None:
        """A fault that must be said (unsync) and never counted: when it was said."""
        said = self.status.said_after(fault_at, window)
        seen = self._look()
        if token in seen or (kind in SPARE_KINDS and seen):
            # counted while it should have been flagged: what lies there is not what was laid
            if said is None:
                self.tally.swaps += 1
            else:
                self.tally.phantoms += len(seen)
        if said is None:
            self.tally.misses += 1
            self.tally.missed_by_kind[kind] += 1
        else:
            self.tally.shown.append(said - fault_at)

    def _spare(self, kind: str) -> None:
        """A tag that must not count, laid on the spare well: flagged, then taken away."""
        t = self.tally
        t.by_kind[kind] += 1
        if not self.status.clear(LIVENESS):
            raise SystemExit("reads: the board stayed unsync before a spare-well fault")
        if kind == "unknown tag":
            self._unknown = (self._unknown + 1) % 0xFFFF
            uid: str | None = UNKNOWN.format(self._unknown)
            token = "unknown"
        else:
            token = self.rng.choice(self.others)
            uid = self.registry.uid(token)
        assert uid is not None
        fault_at = time.perf_counter()
        self.hub.lay(SPARE, uid)
        self._flagged(token, kind, fault_at, WINDOW)
        self.hub.lift(SPARE)
        self._lifted((SPARE,))
        if not self.status.clear(LIVENESS):
            raise SystemExit(f"reads: the board stayed unsync after the {kind} was taken away")


def schedule(draws: int, rng: random.Random, kinds: tuple[str, ...] = KINDS) -> list[list[str]]:
    """The fault kinds of each Performance: three draws each (``clean`` where no fault comes),
    every kind in turn so that a short run meets each once; spare-well kinds ride along.
    ``kinds``: only those (``clean`` alone: every draw clean, on the hub)."""
    turns = [k for k in KINDS if k != "clean" and k in kinds] or ["clean"]
    out: list[list[str]] = []
    i = 0
    laid = 0
    while laid < draws:
        kinds: list[str] = []
        draw_kinds: list[str] = []
        while len(draw_kinds) < 3:
            k = turns[i % len(turns)]
            i += 1
            if k in SPARE_KINDS:
                kinds.append(k)
            elif k == "unplug" and (i // len(turns)) % 10 and draws > 50:
                draw_kinds.append("clean")  # the slowest: one round in ten of a long run
            else:
                draw_kinds.append(k if rng.random() < 0.5 or draws <= 50 else "clean")
        out.append(draw_kinds + kinds)
        laid += 3
    return out


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def run(
    draws: int,
    seed: int,
    where: str | None,
    progress: Callable[[str], None],
    kinds: tuple[str, ...] = KINDS,
) -> Tally:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        folder = Path(tmp)
        hub = HubEmulator(channels=4, hub_id="EMU-reads", poll_ms=2.0).start()
        pn = PN532Emulator(seed=seed).start()
        status = Status(folder / "notify")
        readers = (
            f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
            f'[[readers]]\nbackend = "pn532"\nname = "{PN}"\nport = "{pn.link}"\nrole = "board"\n'
        )
        config = write_config(folder / "table", readers=readers)
        config.write_text(config.read_text().replace('driver = "png"', 'driver = "none"'))
        soak = Soak(folder, hub, pn, status, seed)
        try:
            soak.start(config, folder / "service.log")
            t0 = time.monotonic()
            plan = schedule(draws, random.Random(seed), kinds)
            for n, performance in enumerate(plan, 1):
                soak.performance(performance)
                if n % 100 == 0:
                    progress(f"  … {soak.tally.draws} draws, {time.monotonic() - t0:.0f} s")
            soak.tally.notes.append(f"{time.monotonic() - t0:.0f} s for the draws")
        finally:
            soak.stop()
            status.close()
            hub.stop()
            pn.stop()
        return soak.tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=positive, default=10_000)
    parser.add_argument("--quick", action="store_true", help="a few draws, every fault once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", help="put the state directory there (e.g. /dev/shm)")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"only these fault kinds, comma-separated (of: {', '.join(KINDS)})",
    )
    args = parser.parse_args()
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"--kinds: no kind {', '.join(map(repr, unknown))}: of {', '.join(KINDS)}")
    draws = 42 if args.quick else args.draws
    print(f"seed: {args.seed}", file=sys.stderr, flush=True)
    t = run(draws, args.seed, args.dir, lambda s: print(s, file=sys.stderr, flush=True), kinds)
    print(f"draws: {t.draws}")
    print(f"phantoms: {t.phantoms}")
    print(f"duplicates: {t.duplicates}")
    print(f"silent swaps: {t.swaps}")
    print(f"misses: {t.misses}")
    p99 = pct(t.shown, 0.99) * 1e3
    print(f"unsync shown p99: {p99:.0f} ms")
    print(
        f"unsync shown p50: {pct(t.shown, 0.5) * 1e3:.0f} ms, max"
        f" {max(t.shown, default=float('nan')) * 1e3:.0f} ms, n={len(t.shown)}"
        " (fault → STATUS= on $NOTIFY_SOCKET)"
    )
    for kind in KINDS:
        if t.by_kind[kind]:
            missed = t.missed_by_kind[kind]
            said = f", {missed} not recorded within {WINDOW:g} s" if missed else ""
            late = f" ({t.late[kind]} recorded once tuned/steady again)" if t.late[kind] else ""
            print(f"  {kind}: {t.by_kind[kind]}{said}{late}")
    for note in t.notes:
        print(f"  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
