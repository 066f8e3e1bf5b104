"""A quadrature decoder for encoders with half a cycle per detent (common 30-detent EC11 parts).

gpiozero's ``RotaryEncoder`` counts one step per *full* quadrature cycle: A and B
both idle → A → both → B → both idle again. A 30-detent EC11 with 15 pulses per
turn rests after *half* a cycle, alternately with both contacts open and both
closed, so ``RotaryEncoder`` sees every other click and the wheel moved on
every second one. :class:`HalfStepEncoder` counts a step at both resting
positions. It is built like ``RotaryEncoder`` (two pulled-up ``InputDevice``
pins, ``edges = "both"``, ``pin.when_changed``), so it runs on every gpiozero
pin factory, MockFactory included, and offers the same callbacks the controls
use: ``when_rotated_clockwise`` / ``when_rotated_counter_clockwise``.

The decoding is a pure function of the pin levels (:class:`QuadratureDecoder`):
the four (A, B) states form a Gray-code cycle, 00 → 10 → 11 → 01 → 00 clockwise
(gpiozero's convention: a clockwise detent is ``a.drive_low(); b.drive_low();
a.drive_high(); b.drive_high()`` on pulled-up pins). Each edge moves a quarter
step one way or the other; contact bounce moves back and forth and adds up to
nothing; arriving at a resting position two quarter steps away from the last
one is a detent. A jump of two states at once (an edge missed) is ignored, as
its direction cannot be known.

>>> d = QuadratureDecoder(half_step=True)
>>> [d.update(a, b) for a, b in [(1, 0), (1, 1), (0, 1), (0, 0)]]
[0, 1, 0, 1]
>>> [d.update(a, b) for a, b in [(0, 1), (0, 0), (0, 1), (1, 1)]]  # bounce, then back
[0, 0, 0, -1]
>>> full = QuadratureDecoder(half_step=False)
>>> [full.update(a, b) for a, b in [(1, 0), (1, 1), (0, 1), (0, 0)]]
[0, 0, 0, 1]

Encoders that give two (or more) steps per detent need that many steps for one
position on the wheel (``steps_per_choice``): :class:`Detents` keeps the steps
that are not a whole position yet, as a value.

>>> moves, left = Detents(per_choice=2).turned(+3)
>>> moves, left.partial
(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import CompositeDevice, InputDevice  # type: ignore[import-untyped]

#: the Gray-code position of each (A active, B active): clockwise is +1
_PHASE = {(0, 0): 0, (1, 0): 1, (1, 1): 2, (0, 1): 3}


@dataclass(frozen=True, slots=True)
class Detents:
    """Encoder steps → whole positions on the wheel, ``per_choice`` steps to a position.

    The steps that do not make a whole position wait in ``partial``, and count towards
    zero: half a position one way and back again never moves the ring (a hand resting on
    the knob jiggles it). A push or a button drops them (:meth:`cleared`), so a half turn
    before a push is not carried into the next ring.
    """

    per_choice: int = 1
    partial: int = 0

    def turned(self, steps: int) -> tuple[int, Detents]:
        """The whole positions ``steps`` more make (signed), and the remainder left."""
        total = self.partial + steps
        moves = int(total / self.per_choice)  # towards zero, so a jiggle does not move
        return moves, Detents(self.per_choice, total - moves * self.per_choice)

    def cleared(self) -> Detents:
        return Detents(self.per_choice) if self.partial else self


class QuadratureDecoder:
    """(A, B) levels in, detents out: ``update`` returns +1, -1 or 0."""

    def __init__(self, half_step: bool = True) -> None:
        self.half_step = half_step
        #: quarter steps a detent takes: 2 for half-step parts, 4 for full-step ones
        self.detent = 2 if half_step else 4
        self._phase = 0
        self._quarters = 0

    def reset(self, a: int, b: int) -> None:
        """Take the current levels as a resting position (at start-up)."""
        self._phase = _PHASE[(int(bool(a)), int(bool(b)))]
        self._quarters = 0

    def update(self, a: int, b: int) -> int:
        phase = _PHASE[(int(bool(a)), int(bool(b)))]
        move = (phase - self._phase) % 4
        self._phase = phase
        if move == 1:
            self._quarters += 1
        elif move == 3:
            self._quarters -= 1
        else:
            return 0  # no change, or a missed edge: direction unknown
        resting = phase % 2 == 0 if self.half_step else phase == 0
        if not resting:
            return 0
        step = 0
        if self._quarters >= self.detent:
            step = 1
        elif self._quarters <= -self.detent:
            step = -1
        if step or self._quarters == 0:
            self._quarters = 0
        return step


class HalfStepEncoder(CompositeDevice):  # type: ignore[misc]
    """A two-pin encoder decoded by :class:`QuadratureDecoder`, with RotaryEncoder's callbacks.

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory, seen = MockFactory(), []
    >>> enc = HalfStepEncoder(5, 6, pin_factory=factory)
    >>> enc.when_rotated_clockwise = lambda: seen.append(+1)
    >>> a, b = factory.pin(5), factory.pin(6)
    >>> a.drive_low(); b.drive_low()     # one click of a 30-detent EC11
    >>> b.drive_high(); a.drive_high()   # one click back
    >>> enc.steps, seen
    (0, [1])
    >>> enc.close()
    """

    def __init__(
        self,
        a: int | str,
        b: int | str,
        *,
        bounce_time: float | None = None,
        half_step: bool = True,
        pin_factory: Any = None,
    ) -> None:
        self.decoder = QuadratureDecoder(half_step)
        self.steps = 0
        self.when_rotated_clockwise: Callable[[], object] | None = None
        self.when_rotated_counter_clockwise: Callable[[], object] | None = None
        super().__init__(
            a=InputDevice(a, pull_up=True, pin_factory=pin_factory),
            b=InputDevice(b, pull_up=True, pin_factory=pin_factory),
            _order=("a", "b"),
            pin_factory=pin_factory,
        )
        for pin in (self.a.pin, self.b.pin):
            pin.bounce_time = bounce_time
            pin.edges = "both"
        # as RotaryEncoder does: each pin's callback brings its own new level
        self.a.pin.when_changed = self._a_changed
        self.b.pin.when_changed = self._b_changed
        self._levels = [int(self.a.value), int(self.b.value)]
        self.decoder.reset(*self._levels)

    def _a_changed(self, ticks: int, state: int) -> None:
        self._levels[0] = int(self.a._state_to_value(state))
        self._step()

    def _b_changed(self, ticks: int, state: int) -> None:
        self._levels[1] = int(self.b._state_to_value(state))
        self._step()

    def _step(self) -> None:
        step = self.decoder.update(*self._levels)
        if step == 0:
            return
        self.steps += step
        handler = self.when_rotated_clockwise if step > 0 else self.when_rotated_counter_clockwise
        if handler is not None:
            handler()
