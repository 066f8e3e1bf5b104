"""A night played through the real service for the history / export / recap / carry tests.

:func:`play_night` starts :class:`companion.service.Service` from a config on the
example table (plus the example fight's combatants), with its emulated token hub
on a real pty: Aria's tokens are *laid on the Draw Board* (reader source), the
WorldKeeper's commands come as a remote would send them, some as MQTT does.
Then the service stops, as at the end of an evening.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.config import load_config
from companion.service import Service
from companion.table.loop import Outcome
from engine import apply, load_table_text
from engine.state import TableState
from tests.harness import ROOT, WAIT
from tests.harness.service import write_config

EXAMPLES = ROOT / "examples"


def night_table() -> str:
    """The example table with the example fight's four combatants (Aria and Bren fight)."""
    fight = (EXAMPLES / "fight.toml").read_text("utf-8")
    combatants = fight[fight.index("[[combatants]]") :]
    return (EXAMPLES / "table.toml").read_text("utf-8") + "\n" + combatants


def fight_commands() -> list[dict[str, Any]]:
    """The example fight (examples/fight.jsonl), every die typed in or seeded."""
    out = []
    for line in (EXAMPLES / "fight.jsonl").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            out.append(json.loads(line))
    return out


class Running:
    """A Service running in a thread; ``submit`` waits for the outcome of what it sent."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.outcomes: queue.Queue[Outcome] = queue.Queue()
        service.loop.subscribe(self, self.outcomes.put)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=service.run, args=(self.stop,), daemon=True)
        self.thread.start()

    def wait(self, wanted: Any, timeout: float = 10.0) -> Outcome:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                outcome = self.outcomes.get(timeout=0.1)
            except queue.Empty:
                continue
            if wanted(outcome):
                return outcome
        raise TimeoutError("no such outcome")

    def submit(self, cmd: dict[str, Any], source: str = "worldkeeper") -> Outcome:
        """Send ``cmd`` and return its outcome, accepted or refused."""
        self.service.loop.submit(cmd, source)
        return self.wait(lambda o: o.command is cmd)

    def command(self, cmd: dict[str, Any], source: str = "worldkeeper") -> Outcome:
        outcome = self.submit(cmd, source)
        assert outcome.error is None, (cmd, outcome.error)
        return outcome

    def lay(self, token: str, slot: int = 0) -> Outcome:
        """Lay a token on the Draw Board (the emulated hub's channel ``slot``), then lift it."""
        hub = self.service.emulators["draw-board"]
        hub.lay(slot, self.service.registry.uid(token))
        outcome = self.wait(lambda o: o.tag is not None and o.tag.present)
        hub.lift(slot)
        self.wait(lambda o: o.tag is not None and not o.tag.present)
        assert outcome.error is None, (token, outcome.error)
        return outcome

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


@dataclass
class Night:
    config: Path
    state_dir: Path
    table: Path


def setup_table(folder: Path, table_text: str | None = None) -> Path:
    config = write_config(folder)
    (folder / "table.toml").write_text(table_text or night_table(), "utf-8")
    return config


def start(config: Path, **kwargs: Any) -> Running:
    running = Running(Service(load_config(config), **kwargs))
    if not running.service.readers[0].wait_online(WAIT):
        running.close()  # not left running behind the failure
        raise AssertionError("the night's reader did not come online")
    return running


PERFORMANCES: list[list[dict[str, Any]]] = [
    [
        {"cmd": "begin_performance", "difficulty": 5},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
    ],
    [
        {"cmd": "begin_performance", "difficulty": 6},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
            "exert": False,
        },
    ],
]


def play_night(folder: Path) -> Night:
    """Play an evening through the service and stop it; return where it is."""
    config = setup_table(folder)
    r = start(config)
    try:
        r.command({"cmd": "start_session", "bag": "overworld", "seed": 4})
        # Performance 1: Aria (Adept in skill: 4 draws, P6) lays her tokens on the Draw Board
        for cmd in PERFORMANCES[0]:
            r.command(cmd)
        r.lay("aria.potential.lore.1")
        r.lay("aria.weight.0", slot=1)
        r.command({"cmd": "redraw", "hero": "aria", "replace": "aria.weight.0", "seed": 7})
        r.lay("aria.ember.skill", slot=2)
        r.command({"cmd": "draw", "hero": "aria", "seed": 2}, source="mqtt:1")
        r.command({"cmd": "resolve"})
        r.command({"cmd": "reset"})
        # Performance 2: Bren (Master in steel), drawn by seeds; then Undo a draw and draw again
        for cmd in PERFORMANCES[1]:
            r.command(cmd, source="mqtt:2")
        for seed in (1, 2):
            r.command({"cmd": "draw", "hero": "bren", "seed": seed})
        r.command({"cmd": "undo"})
        for seed in (5, 9, 11):
            r.command({"cmd": "draw", "hero": "bren", "seed": seed})
        r.command({"cmd": "resolve"})
        r.command({"cmd": "reset"})
        # the WorldKeeper's hand, the Time Board, and the fight at the ford
        r.command({"cmd": "adjust_hero", "hero": "cass", "fatigue": 2, "strain": 1})
        r.command({"cmd": "adjust_hero", "hero": "aria", "wounds": 1, "favor": -1})
        r.command({"cmd": "set_training", "hero": "cass", "capability": "shadow", "level": "adept"})
        for seed in (1, 2, 3, 4):
            r.command({"cmd": "draw_time", "seed": seed, "resolve": True})
        for cmd in fight_commands():
            r.command(cmd)
        # Performance 3: Cass, now Adept in shadow, and a cancelled one
        r.command({"cmd": "begin_performance", "difficulty": 4})
        r.command(
            {
                "cmd": "declare",
                "hero": "cass",
                "shade": "impulse",
                "capability": "shadow",
                "action": "target",
            }
        )
        for seed in (3, 4, 5, 6):
            r.command({"cmd": "draw", "hero": "cass", "seed": seed})
        r.command({"cmd": "resolve"})
        r.command({"cmd": "reset"})
    finally:
        r.close()
    cfg = load_config(config)
    return Night(config, cfg.state_dir, cfg.table_file)


def a_bloody_night() -> tuple[str, TableState]:
    """The example fight (the raider dies of Bren's hammer, armour worn, Aria bleeding), then
    the captain, frightened, takes a fatal wound: death, injuries, a condition and worn armour
    (C8–C10, I-C8), as the table file and the state the session left."""
    text = night_table()
    state = load_table_text(text, "table.toml")
    for cmd in [
        *fight_commands(),
        {"cmd": "add_combat_condition", "combatant": "aria", "condition": "fatigued", "level": 2},
        {"cmd": "add_combat_condition", "combatant": "captain", "condition": "frightened"},
        {"cmd": "injure", "combatant": "captain", "type": "burned", "hits": 4, "cause": "fire"},
    ]:
        state, _ = apply(state, cmd)
    assert state.combat is not None
    return text, state


def roster_sheets(state: TableState) -> dict[str, Any]:
    assert state.combat is not None
    return {
        cid: (c.dead, c.injuries, c.conditions, c.armour) for cid, c in state.combat.roster.items()
    }
