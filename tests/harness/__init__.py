"""The test harness the tests and the benchmarks share: one way to wait, the commands every
Performance test starts with, and the loop's job in one call.

Benchmarks import it as ``tests.harness`` (the repository root on ``sys.path``), so a
benchmark and the test of the same behaviour play the same commands.

>>> import engine
>>> state, events = run(engine.load_table("examples/table.toml"), BEGIN, ARIA)
>>> [e.type for e in events]
['performance_started', 'declared']
>>> wait_until(lambda: True, "nothing") >= 0
True
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.state import TableState

#: the repository root, and the example table most tests play on
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_TABLE = ROOT / "examples" / "table.toml"

#: P19: a Performance against Difficulty 5
BEGIN: Mapping[str, Any] = {"cmd": "begin_performance", "difficulty": 5}
#: the example table's heroes declaring: Aria Adept in Skill, Bren Master in Steel, Cass
#: Trained in Shadow (examples/table.toml)
ARIA: Mapping[str, Any] = {
    "cmd": "declare",
    "hero": "aria",
    "shade": "control",
    "capability": "skill",
    "action": "target",
}
BREN: Mapping[str, Any] = {
    "cmd": "declare",
    "hero": "bren",
    "shade": "impulse",
    "capability": "steel",
    "action": "target",
}
CASS: Mapping[str, Any] = {
    "cmd": "declare",
    "hero": "cass",
    "shade": "impulse",
    "capability": "shadow",
    "action": "target",
}


def draw(hero: str, token: str | None = None, seed: int | None = None) -> dict[str, Any]:
    """A ``draw`` naming the token laid, or drawing at random with ``seed``."""
    return {"cmd": "draw", "hero": hero, **({"token": token} if token else {"seed": seed or 0})}


def run(state: TableState, *commands: Mapping[str, Any]) -> tuple[TableState, list[engine.Event]]:
    """Apply commands in order; the final state and every event (a refusal raises)."""
    events: list[engine.Event] = []
    for c in commands:
        state, more = engine.apply(state, c)
        events += more
    return state, events


#: seconds any wait gives up after: generous, for a shared CI machine may be loaded far past
#: its cores (make test-loaded met load 25-35 on two cores, where 10 s failed four waits on
#: work that was slow, not wrong); every wait returns as soon as what it waits for holds, so
#: only a failing test waits this long
WAIT = 60.0


def wait_until(
    condition: Callable[[], Any],
    what: str | Callable[[], str] = "condition",
    timeout: float = WAIT,
    poll: float = 0.005,
) -> float:
    """The one wait of the tests and benchmarks: poll a condition nothing signals (another
    thread's counter, a pty, a broker) until it holds; the seconds it took. Fails naming
    ``what`` after ``timeout`` seconds (a wait, never a timing assert: figures are benchmarks');
    ``what`` may be a callable, asked only then, to say what was seen instead.

    >>> wait_until(lambda: False, lambda: "a light; it is off", timeout=0)
    Traceback (most recent call last):
    AssertionError: timed out after 0 s waiting for a light; it is off
    """
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout} s waiting for {said}")
        time.sleep(poll)
    return time.monotonic() - started


def missing_real_part(what: str) -> None:
    """A real part this machine lacks: skip on a developer's machine, fail in CI."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing in CI; `make test` (scripts/bootstrap) should install it")
    pytest.skip(f"{what} not available on this machine", allow_module_level=True)
