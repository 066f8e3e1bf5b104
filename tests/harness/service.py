"""Shared by the store, service and config tests: sessions of commands, service configs, and
the Service running in process (:class:`InProcess`, for the fault tests and benchmarks/serial.py).

``session`` makes a long, varied and *valid* stream of commands by a random walk
that asks the engine itself which candidates it accepts (Performances, draws by
seed, Redraw-free resolves and resets, Undo, Time draws, sheet adjustments),
with a few refused ones mixed in — the kind of evening a journal must survive.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import threading
from pathlib import Path
from typing import Any

from companion.config import load_config
from companion.service import Service
from engine import CommandRejected, apply
from engine.state import TableState
from tests.harness import EXAMPLE_TABLE, WAIT, wait_until

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


def write_config(
    folder: Path, extra: str = "", *, readers: str | None = None, state: str = ""
) -> Path:
    """A service config in ``folder`` on a copy of the example table: state and panel inside
    ``folder``, an emulated hub with Favor on channel 4 and Time on 5, no GPIO and no MQTT
    unless ``extra`` has those sections."""
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
        '[display]\ndriver = "png"\npanel = "2.13"\ncolour = "bwr"\n'
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

    def __init__(self, folder: Path, extra: str = "") -> None:
        self.service = Service(load_config(write_config(folder, extra)))
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
        self.stop_flag.set()
        self.thread.join(30)


def uid_of(service: Service, token: str) -> str:
    uid = service.registry.uid(token)
    assert uid is not None
    return uid


def drawn(service: Service) -> list[str]:
    perf = service.loop.state.performance
    return [] if perf is None else [t for c in perf.contributions for t in c.drawn]
