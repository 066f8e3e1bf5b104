"""The Performance Wheel: turns, pushes and buttons in, commands out, and what the panel shows.

:class:`Wheel` is the adapter between the pins and the wheel's pure parts. It holds
one :class:`~hardware.moves.WheelState` (a frozen value), reads the table once per
input through a callable returning the latest TableState (or ``table_view`` dict),
steps the value and keeps the next one, and returns the commands of the one
vocabulary (``docs/commands.md``) for the table loop; the wheel never changes the
table itself. :mod:`hardware.controls` feeds it from gpiozero; the tests and the
demo feed it directly or through mock pins.

The parts, each one job (``docs/controls.md``): :mod:`hardware.dial` (the rings as a
value, and what the table offers them), :mod:`hardware.picks` (the Redraw pick, the
armed Call Favor), :mod:`hardware.notices` (the engine's answers worded for the
panel), :class:`hardware.encoder.Detents` (encoder steps to whole positions) and
:mod:`hardware.moves` (every input as a step of the whole state). None of them
keeps a rule: what is legal is the engine's answer (:mod:`hardware.facts`).

The rings are dialled outside-in (P4): Hero → Shade → Capability → Action →
Training, then Reserve (Gain and Spend, P8/P17) and Intersect (when a partner is
eligible, P10). Turn = choose, push = confirm this ring and go to the next; the
push on the last ring declares. With no Performance running the one ring is the
Difficulty, and its push begins one (P19).

>>> from engine import apply, load_table
>>> state = load_table("examples/table.toml")
>>> wheel = Wheel(lambda: state)  # the service passes ``lambda: loop.state``
>>> wheel.turn(+2)  # Difficulty 3 → 5
[]
>>> begin = wheel.push()
>>> begin
[{'cmd': 'begin_performance', 'difficulty': 5, 'weight': 'off'}]
>>> state, events = apply(state, begin[0])  # the table loop's job
>>> [wheel.push() for ring in ("hero", "shade", "capability", "action")]  # the defaults
[[], [], [], []]
>>> wheel.selection()["ring"], wheel.selection()["sheet_training"]
('training', 'adept')
>>> wheel.push()  # Aria, Control, Skill, Target; Adept from the sheet
[{'cmd': 'declare', 'hero': 'aria', 'shade': 'control', 'capability': 'skill', 'action': 'target'}]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.state import TableState
from hardware.config import GpioConfig
from hardware.dial import RINGS, Command
from hardware.facts import TableFacts, table_facts
from hardware.moves import Selection, Step, WheelState
from hardware.notices import Notice

__all__ = ["RINGS", "Command", "Notice", "Selection", "TableSource", "Wheel"]

TableSource = Callable[[], TableState | Mapping[str, Any]]
_SEED_LIMIT = 2**31


class Wheel:
    """One encoder with a push switch, plus the table's buttons, holding the wheel's state.

    Not thread-safe by itself: :class:`hardware.controls.TableControls` holds a
    lock around every call, because gpiozero calls handlers from its own threads.
    """

    def __init__(
        self,
        table: TableSource,
        config: GpioConfig | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._table = table
        self.config = config or GpioConfig()
        self._rng = rng or random.Random()
        self._now = WheelState.start(self.config)

    @property
    def state(self) -> WheelState:
        """The wheel's state now (a frozen value: keep it, compare it, replay from it)."""
        return self._now

    # --- inputs: each returns the commands to submit ------------------------------

    def turn(self, steps: int) -> list[Command]:
        """The encoder moved ``steps`` (clockwise +, counter-clockwise −)."""
        return self._step(lambda s, f: s.turned(f, self.config, steps))

    def push(self) -> list[Command]:
        """The encoder's push: confirm this ring and go to the next; the last one declares."""
        return self._step(lambda s, f: s.pushed(f, self.config))

    def press(self, action: str) -> list[Command]:
        """A named button (see :data:`hardware.config.ACTIONS`) was pressed."""
        return self._step(lambda s, f: s.pressed(f, self.config, action, self._seed))

    # --- what the panel shows ----------------------------------------------------

    def selection(self) -> Selection:
        """The wheel's state as plain JSON data: the ring, every choice so far, the hint.

        Pure: reading it changes nothing. The state is brought in line with the table (a
        new phase, a declaration taken back) for the view only; the next input does it
        for real.
        """
        return self._now.selection(self._facts(), self.config)

    # --- plumbing ------------------------------------------------------------------

    def _step(self, move: Callable[[WheelState, TableFacts], Step]) -> list[Command]:
        self._now, commands = move(self._now, self._facts())
        return commands

    def _facts(self) -> TableFacts:
        return table_facts(self._table())

    def _seed(self) -> int:
        """A seed for a random draw: the command carries it, so replays draw the same token."""
        return self._rng.randrange(_SEED_LIMIT)
