"""Shared by the store, service and config tests: sessions of commands, service configs, the
Service running in process (:class:`InProcess`, for the fault tests and benchmarks/serial_bridge.py) or
as a ``rhuna-table run --commands -`` process (:class:`ServiceProcess`), and the journal read
back (:func:`journal_rows`, :func:`assert_state_is_the_journal_replayed`).

``session`` makes a long, varied and *valid* stream of commands by a random walk
that asks the engine itself which candidates it accepts (Performances, draws by
seed, Redraw-free resolves and resets, Undo, Time draws, sheet adjustments),
with a few refused ones mixed in — the kind of evening a journal must survive.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from companion.config import load_config
from companion.service import Service
from companion.table.store import JOURNAL, Store
from engine import CommandRejected, apply, load_table
from engine.state import TableState
from tests.harness import EXAMPLE_TABLE, ROOT, WAIT, wait_until

EXAMPLES = EXAMPLE_TABLE.parent


def _candidates(state: TableState, rng: random.Random) -> list[dict[str, Any]]:
    heroes = list(state.heroes)
    hero = rng.choice(heroes)
    seed = rng.randrange(1_000_000)
    perf = state.performance
    out: list[dict[str, Any]] = [{"cmd": "undo"}] if rng.random() < 0.1 else []
    if perf is None:
        out += [
            {"cmd": "begin_performance", "difficulty": rng.randint(3, 8)},
            {"cmd": "draw_weather", "bag": rng.choice(["overworld", "underworld"]), "seed": seed},
            {"cmd": "draw_time", "seed": seed, "resolve": True},
            {"cmd": "adjust_hero", "hero": hero, "fatigue": rng.choice([-1, 1])},
        ]
    elif perf.resolved:
        out += [{"cmd": "reset"}] * 3
    else:
        declared = [c.hero for c in perf.contributions]
        if hero not in declared:
            out += [
                {
                    "cmd": "declare",
                    "hero": hero,
                    "shade": rng.choice(["control", "impulse"]),
                    "capability": rng.choice(list(state.capabilities)),
                    "action": rng.choice(["target", "defend"]),
                }
            ] * 2
        if declared:
            out += [{"cmd": "draw", "hero": rng.choice(declared), "seed": seed}] * 4
            out += [{"cmd": "resolve"}]
        out += [{"cmd": "cancel_performance"}] if rng.random() < 0.05 else []
    return out


def session(
    state: TableState, n: int, seed: int = 0, refused: float = 0.05
) -> list[dict[str, Any]]:
    """``n`` commands the engine accepts in order from ``state``, plus about ``refused``×n
    it refuses (a draw for a hero who has not declared), interleaved."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    accepted = 0
    while accepted < n:
        if rng.random() < refused:
            out.append({"cmd": "draw", "hero": "nobody", "seed": 1})
            continue
        options = _candidates(state, rng)
        rng.shuffle(options)
        for cmd in options:
            try:
                state, _ = apply(state, cmd)
            except CommandRejected:
                continue
            out.append(cmd)
            accepted += 1
            break
    return out


def replay(state: TableState, commands: list[dict[str, Any]]) -> TableState:
    """Apply the commands the engine accepts, skipping refused ones (as the loop does)."""
    for cmd in commands:
        with contextlib.suppress(CommandRejected):
            state, _ = apply(state, cmd)
    return state


def as_json(state: TableState) -> str:
    """The state as text, dict order kept: equal text = equal bit for bit."""
    return json.dumps(state.to_json(), ensure_ascii=False)


#: the tests' panel: PNG frames in the state folder (``write_config``'s ``display``)
PNG_PANEL = '[display]\ndriver = "png"\npanel = "2.13"\ncolour = "bwr"\n'


def write_config(
    folder: Path,
    extra: str = "",
    *,
    readers: str | None = None,
    state: str = "",
    display: str = PNG_PANEL,
) -> Path:
    """A service config in ``folder`` on a copy of the example table: state and panel inside
    ``folder``, an emulated hub with Favor on channel 4 and Time on 5, no GPIO and no MQTT
    unless ``extra`` has those sections; ``display``: another ``[display]`` section."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLE_TABLE, folder / "table.toml")
    if readers is None:
        readers = (
            '[[readers]]\nbackend = "emulated-hub"\nname = "draw-board"\nchannels = 6\n'
            'roles = { 4 = "favor", 5 = "time" }\n'
        )
    text = (
        '[table]\nfile = "table.toml"\n'
        f'[state]\ndir = "state"\n{state}'
        f"{readers}"
        "[registry]\nsynthetic = true\n"
        f"{display}"
        f"{extra}"
    )
    if "[gpio]" not in extra:
        text += "[gpio]\nenabled = false\n"
    if "[mqtt]" not in extra:  # on by default (localhost:1883): tests bring their own broker
        text += "[mqtt]\nenabled = false\n"
    path = folder / "rhuna.toml"
    path.write_text(text)
    return path


class InProcess:
    """The Service running on a test thread (the emulated hub is in reach)."""

    def __init__(self, folder: Path, extra: str = "", display: str = PNG_PANEL) -> None:
        self.service = Service(load_config(write_config(folder, extra, display=display)))
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self.service.run, args=(self.stop_flag,))
        self.thread.start()
        self.hub = self.service.emulators["draw-board"]
        self.reader = self.service.readers[0]
        assert self.reader.wait_online(WAIT)

    def submit(self, *commands: dict) -> None:
        for c in commands:
            self.service.loop.submit(c, "script")

    def settled(self, seq: int) -> None:
        wait_until(lambda: self.service.store.seq >= seq, f"commit #{seq}")

    def close(self) -> None:
        """Stop the service and wait for its thread to be gone (each part's stop is bounded:
        this is a deadline for a hang, never a wait given up on silently)."""
        self.stop_flag.set()
        self.thread.join(12 * WAIT)
        assert not self.thread.is_alive(), "the service did not stop"


def uid_of(service: Service, token: str) -> str:
    uid = service.registry.uid(token)
    assert uid is not None
    return uid


def drawn(service: Service) -> list[str]:
    perf = service.loop.state.performance
    return [] if perf is None else [t for c in perf.contributions for t in c.drawn]


#: every ServiceProcess started in this process, until :meth:`ServiceProcess.close`
_STARTED: list[ServiceProcess] = []


def close_service_processes() -> int:
    """Kill and reap every :class:`ServiceProcess` still running (a test that failed before
    it stopped its own; tests/companion/conftest.py calls it after each test); how many."""
    left = [s for s in _STARTED if s.proc.poll() is None]
    for service in list(_STARTED):
        service.close()
    return len(left)


class ServiceProcess:
    """One ``rhuna-table run --commands -`` process and the answers it printed."""

    def __init__(self, config: Path, env: dict[str, str] | None = None) -> None:
        self.log = (config.parent / "service.log").open("a")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion.cli",
                "run",
                "--config",
                str(config),
                "--commands",
                "-",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
            cwd=ROOT,
            # a killed process cannot remove its emulated hub's pty folder: keep it in tmp_path
            env={**os.environ, "TMPDIR": str(config.parent), **(env or {})},
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        self._reading = threading.Thread(target=self._read, daemon=True)
        self._reading.start()
        _STARTED.append(self)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line.strip())
        self.answers.put(None)

    def send(self, commands: list[dict]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(json.dumps(c) + "\n" for c in commands))
        self.proc.stdin.flush()

    def answer(self, timeout: float = WAIT) -> str | None:
        return self.answers.get(timeout=timeout)

    def kill(self) -> list[str]:
        """SIGKILL, then every answer it printed before dying."""
        self.proc.kill()
        self.proc.wait(10)
        return self.rest()

    def rest(self) -> list[str]:
        out = []
        while (line := self.answers.get(timeout=WAIT)) is not None:
            out.append(line)
        self.log.close()
        return out

    def close(self) -> None:
        """Kill it if it still runs, reap it, and close its pipes and log (idempotent)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)
        self._reading.join(WAIT)  # its stdout reached EOF with the process
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self.log.close()
        with contextlib.suppress(ValueError):
            _STARTED.remove(self)


def journal_rows(state_dir: Path) -> list[tuple[int, dict]]:
    db = sqlite3.connect(state_dir / JOURNAL)
    try:
        return [
            (s, json.loads(c))
            for s, c in db.execute("SELECT seq, command FROM journal ORDER BY seq")
        ]
    finally:
        db.close()


def journal_count(state_dir: Path) -> int:
    """How many commands the journal holds, counted by SQLite: cheap enough to poll while a
    service commits thousands (``journal_rows`` parses every row's JSON)."""
    db = sqlite3.connect(state_dir / JOURNAL)
    try:
        return int(db.execute("SELECT count(*) FROM journal").fetchone()[0])
    finally:
        db.close()


def assert_state_is_the_journal_replayed(folder: Path) -> tuple[int, list[dict]]:
    """Restore the state directory as a restart would; it must equal replaying every journal
    row from the table file. Returns (seq, the journal's commands)."""
    initial = load_table(folder / "table.toml")
    with Store.open(folder / "state") as store:  # first: as the service opens it
        restored = store.restore(initial, folder / "table.toml")
    commands = [c for _, c in journal_rows(folder / "state")]
    assert restored.seq == len(commands)
    assert as_json(restored.state) == as_json(replay(initial, commands))
    return restored.seq, commands
