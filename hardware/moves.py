"""Every input to the wheel as a pure step: (the wheel's state, the table's facts) in, (the next
state, the commands to send) out.

:class:`WheelState` is the whole of what the wheel holds between inputs, as one frozen
value made of the small ones: the :class:`~hardware.dial.Dial`, the encoder's
:class:`~hardware.encoder.Detents` remainder, a :class:`~hardware.picks.RedrawPick` or an
armed :class:`~hardware.picks.FavorArm`, the :class:`~hardware.notices.Notice` of the last
input and the :class:`~hardware.dial.DialMemory` between declarations. Nothing here reads
pins or the table: :class:`hardware.wheel.Wheel` reads the table once per input, steps the
value and keeps the new one, so a replayed hand gives the same commands and reading the
selection can change nothing.

Before each step the state is brought in line with the table (:meth:`WheelState.followed`):
the table moves on without the wheel (a token drawn, a command over MQTT, an Undo).

>>> from engine import apply, load_table
>>> from hardware.config import GpioConfig
>>> from hardware.facts import table_facts
>>> cfg, state = GpioConfig(), load_table("examples/table.toml")
>>> wheel = WheelState.start(cfg)
>>> wheel, sent = wheel.turned(table_facts(state), cfg, +2)   # Difficulty 3 → 5
>>> wheel, sent = wheel.pushed(table_facts(state), cfg)
>>> sent
[{'cmd': 'begin_performance', 'difficulty': 5, 'weight': 'off'}]
>>> wheel.selection(table_facts(state), cfg)["difficulty"]   # the table has not moved yet
5
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict

from engine.contracts import commands
from hardware.config import GpioConfig
from hardware.dial import (
    ACTION,
    CAPABILITY,
    DIFFICULTY,
    HERO,
    INTERSECT,
    RESERVE,
    SHADE,
    TRAINING,
    Command,
    Dial,
    DialMemory,
    Offer,
)
from hardware.encoder import Detents
from hardware.facts import TableFacts
from hardware.notices import Notice, exert_problem, idle, leaving, refusal, warning
from hardware.picks import (
    FavorArm,
    FavorView,
    RedrawPick,
    RedrawView,
    focus_hero,
    lowest,
    redraw_candidates,
)

#: a seed for a random draw; the command carries it, so a replay draws the same token
Seed = Callable[[], int]


class Selection(TypedDict):
    """What the panel shows of the wheel (``docs/controls.md``, "The selection"): plain JSON.

    ``mode`` is ``dial``, ``redraw`` (a Redraw pick) or ``idle`` (nothing to dial); the rings
    not reached yet are None; ``warning`` is a standing problem with the dial, ``message``
    what the last input did not do and why, ``rule`` the rule id of either.
    """

    mode: Literal["dial", "redraw", "idle"]
    ring: str | None
    rings: list[str]
    options: list[str]
    position: int | None
    difficulty: int | None
    hero: str | None
    shade: str | None
    capability: str | None
    action: str | None
    training: str | None
    reserve: str | None
    intersect: str | None
    hero_name: str | None
    sheet_training: str | None
    exert: bool
    redraw: RedrawView | None
    favor: FavorView | None
    warning: str | None
    message: str | None
    rule: str | None


Step = tuple["WheelState", list[Command]]


@dataclass(frozen=True, slots=True)
class WheelState:
    """What the wheel holds between inputs: each part a small frozen value of its own."""

    dial: Dial = field(default_factory=Dial)
    detents: Detents = field(default_factory=Detents)
    #: while picking the token a Redraw replaces (P11)
    redraw: RedrawPick | None = None
    #: Call Favor armed, until its token is laid (P18)
    favor: FavorArm | None = None
    #: why the last input did nothing, or what to do next
    notice: Notice | None = None
    memory: DialMemory = field(default_factory=DialMemory)

    @staticmethod
    def start(config: GpioConfig) -> WheelState:
        return WheelState(detents=Detents(config.steps_per_choice))

    def offer(self, f: TableFacts, config: GpioConfig) -> Offer:
        return Offer(f, config.hero_ring, self.memory)

    # --- the table moved ---------------------------------------------------------------

    def followed(self, f: TableFacts, config: GpioConfig) -> WheelState:
        """In line with the table: a new phase, a Redraw pick's token undone, the Favor token
        arrived, a declaration taken back by the engine's Undo (it comes back on the wheel)."""
        s = self
        if f.phase != "open":
            s = replace(s, memory=s.memory.forgot_the_performance())
        if s.redraw is not None:
            focus = focus_hero(f, s.dial.choices.get(HERO), s.memory.last_declared)
            candidates, _ = redraw_candidates(f, focus)
            at = lowest(candidates, f, focus) if candidates else 0
            s = replace(s, redraw=s.redraw.followed(candidates, at))
        if s.favor is not None and s.favor.done(f):
            s = replace(s, favor=None)  # the Favor token arrived (or the Performance ended)
        restore = s.memory.restore_after_undo
        if restore is not None and f.phase == "open" and f.contribution(restore[HERO]) is None:
            s = replace(s, memory=replace(s.memory, restore_after_undo=None))
            s = s._restored(restore, f, config)
        return replace(s, dial=s.dial.followed(s.offer(f, config)))

    def _restored(
        self, snapshot: Mapping[str, Any], f: TableFacts, config: GpioConfig
    ) -> WheelState:
        """A declaration put back on the wheel, on its last ring, to fix and push again."""
        memory = replace(self.memory, last_declared=None)
        dial = Dial.restored(snapshot, Offer(f, config.hero_ring, memory))
        hero = f.hero(snapshot[HERO])
        name = hero.name if hero else snapshot[HERO]
        notice = Notice(f"{name}'s declaration is back on the wheel: turn, fix, push")
        return replace(self, dial=dial, memory=memory, notice=notice)

    # --- inputs --------------------------------------------------------------------------

    def turned(self, f: TableFacts, config: GpioConfig, steps: int) -> Step:
        """The encoder moved ``steps`` (clockwise +): the ring, or the Redraw pick, turns."""
        s = replace(self, notice=None).followed(f, config)
        moves, detents = s.detents.turned(steps)
        s = replace(s, detents=detents)
        if moves == 0:
            return s, []
        if s.redraw is not None:
            return replace(s, redraw=s.redraw.turned(moves)), []
        if s.dial.ring is None:
            return replace(s, notice=idle(f)), []
        return replace(s, dial=s.dial.turned(moves, s.offer(f, config))), []

    def pushed(self, f: TableFacts, config: GpioConfig) -> Step:
        """The encoder's push: confirm this ring and go on; the last ring declares."""
        s = replace(self, notice=None).followed(f, config)
        s = replace(
            s, detents=s.detents.cleared(), memory=replace(s.memory, restore_after_undo=None)
        )
        if s.redraw is not None:
            return s._send_redraw()
        ring = s.dial.ring
        if ring is None:
            return replace(s, notice=idle(f)), []
        offer = s.offer(f, config)
        refused = leaving(s.dial, offer, config.training_mismatch)
        if refused is not None:
            return replace(s, notice=refused), []
        if ring == DIFFICULTY:
            difficulty = int(offer.value(DIFFICULTY, s.dial))
            choices = {k: v for k, v in s.dial.choices.items() if k != DIFFICULTY}
            s = replace(
                s,
                dial=replace(s.dial, choices=choices),
                memory=replace(s.memory, last_difficulty=difficulty),
            )
            return s, [commands.begin_performance(difficulty=difficulty, weight=config.weight)]
        dial = s.dial.pushed(offer)
        if dial.ring != ring:
            return replace(s, dial=dial), []
        return replace(s, dial=dial)._declare(offer)

    def pressed(self, f: TableFacts, config: GpioConfig, action: str, seed: Seed) -> Step:
        """A named button (:data:`hardware.config.ACTIONS`) was pressed."""
        if action == "confirm":
            return self.pushed(f, config)
        button = _BUTTONS.get(action)
        if button is None:
            raise ValueError(f"no button action {action!r}")
        s = replace(self, notice=None).followed(f, config)
        s = replace(s, detents=s.detents.cleared())
        if action != "undo":
            s = replace(s, memory=replace(s.memory, restore_after_undo=None))
        return button(s, f, config, seed)

    # --- what the panel shows ------------------------------------------------------------

    def selection(self, f: TableFacts, config: GpioConfig) -> Selection:
        """The wheel as plain JSON data: the ring, every choice so far, the hint (pure: the
        state brought in line with the table is shown, not kept)."""
        s = self.followed(f, config)
        offer, dial = s.offer(f, config), s.dial
        rings = offer.rings(dial)
        ring = dial.ring
        shown = rings[: rings.index(ring) + 1] if ring in rings else []

        def reached(name: str) -> Any:
            return offer.value(name, dial) if name in shown else None

        options = offer.options(ring, dial) if ring is not None else []
        value = offer.value(ring, dial) if ring is not None else None
        hero = offer.value(HERO, dial) if f.phase == "open" else None
        h = f.hero(hero)
        cap = reached(CAPABILITY)
        standing = warning(dial, offer)
        said = s.notice or standing
        return {
            "mode": "redraw" if s.redraw is not None else "dial" if ring else "idle",
            "ring": ring,
            "rings": rings,
            "options": [_label(v) for v in options],
            "position": options.index(value) if ring is not None and value in options else None,
            "difficulty": reached(DIFFICULTY),
            "hero": hero,
            "shade": reached(SHADE),
            "capability": cap,
            "action": reached(ACTION),
            "training": reached(TRAINING),
            "reserve": reached(RESERVE),
            "intersect": reached(INTERSECT),
            "hero_name": h.name if h else None,
            "sheet_training": h.training_in(cap) if h and cap else None,
            "exert": dial.exert,
            "redraw": None if s.redraw is None else s.redraw.view(f),
            "favor": None if s.favor is None else s.favor.view(f),
            "warning": standing.text if standing else None,
            "message": s.notice.text if s.notice else None,
            "rule": said.rule if said else None,
        }

    # --- helpers -------------------------------------------------------------------------

    def _declare(self, offer: Offer) -> Step:
        """The declare the dial shows; the dial starts afresh, Undo can put this one back."""
        snapshot = self.dial.snapshot(offer)
        cmd = commands.declare(
            hero=snapshot[HERO],
            shade=snapshot["shade"],
            capability=snapshot["capability"],
            action=snapshot["action"],
        )
        if self.dial.exert:
            cmd["exert"] = True
        if snapshot.get(RESERVE) is not None:
            cmd["reserve"] = snapshot[RESERVE]
        if snapshot.get(INTERSECT) is not None:
            cmd["intersect"] = snapshot[INTERSECT]
        memory = replace(self.memory, last_dial=snapshot, last_declared=snapshot[HERO])
        return replace(self, dial=Dial(), memory=memory), [cmd]

    def _send_redraw(self) -> Step:
        assert self.redraw is not None
        return replace(self, redraw=None), [self.redraw.command()]

    def _focus(self, f: TableFacts) -> str | None:
        return focus_hero(f, self.dial.choices.get(HERO), self.memory.last_declared)


# --- the buttons: each (state, facts, config, seed) → (state, commands) ----------------------


def _undo(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """Back one step: out of a Redraw pick, back one ring, the last declaration, then undo."""
    if s.redraw is not None:
        return replace(s, redraw=None, notice=Notice("Redraw cancelled")), []
    back = s.dial.backed(s.offer(f, config))
    if back is not None:
        return replace(s, dial=back), []
    last = s.memory.last_dial
    if last is not None and f.phase == "open":
        s = replace(s, memory=replace(s.memory, last_dial=None))
        if f.contribution(last[HERO]) is None:
            # refused by the engine (or not applied yet): nothing to undo, dial it again
            return s._restored(last, f, config), []
        s = replace(
            s,
            memory=replace(s.memory, restore_after_undo=last),
            notice=Notice("Undo: the last command is taken back"),
        )
    choices = {k: v for k, v in s.dial.choices.items() if k != (s.dial.ring or "")}
    return replace(s, dial=replace(s.dial, choices=choices)), [commands.undo()]


def _hero(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """The next hero on the wheel (with or without a Hero ring)."""
    ids = [h.id for h in f.heroes]
    if not ids:
        return s, []
    current = s.offer(f, config).value(HERO, s.dial)
    at = ids.index(current) if current in ids else -1
    return replace(s, dial=s.dial.chose(HERO, ids[(at + 1) % len(ids)])), []


def _exert(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """Exert on or off for the declaration being dialled; the engine's objection shown."""
    if f.phase != "open":
        notice = Notice("Exert is part of a declaration: begin a Performance first", "P9")
        return replace(s, notice=notice), []
    dial = s.dial.exerted()
    s = replace(s, dial=dial)
    if dial.exert and dial.ring in (TRAINING, RESERVE, INTERSECT):
        s = replace(s, notice=exert_problem(dial, s.offer(f, config)))
    return s, []


def _resolve(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    return replace(s, redraw=None), [commands.resolve()]


def _reset(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    memory = replace(s.memory, last_dial=None, last_declared=None)
    return replace(s, redraw=None, favor=None, dial=Dial(), memory=memory), [commands.reset()]


def _redraw(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """Open the Redraw pick on the focus hero's lowest token; a second press takes it."""
    if s.redraw is not None:
        return s._send_redraw()
    pick = RedrawPick.start(f, s._focus(f))
    if isinstance(pick, Notice):
        return replace(s, notice=pick), []
    return replace(s, redraw=pick), []


def _call_favor(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """Call Favor for the focus hero: arm it (the Favor token laid calls) or draw at random."""
    hero_id = s._focus(f)
    if f.phase != "open" or hero_id is None:
        notice = Notice(
            "which hero calls Favor? Turn the Hero ring (or press Hero) to a hero who"
            " has declared, then press Call Favor"
            if f.phase == "open" and f.contributions
            else "Call Favor during a Performance, after declaring",
            "P18",
        )
        return replace(s, notice=notice), []
    refused = refusal(f, commands.call_favor(hero=hero_id, seed=0), "P18")
    if refused is not None:  # the engine's answer: no Favor left, or already called (P18)
        return replace(s, notice=Notice(refused.message, refused.rule)), []
    if config.call_favor == "random":
        return s, [commands.call_favor(hero=hero_id, seed=seed())]
    if s.favor is not None and s.favor.hero == hero_id:
        return replace(s, favor=None, notice=Notice("Call Favor put down")), []
    c = f.contribution(hero_id)
    return replace(s, favor=FavorArm(hero_id, c.favor if c else 0)), []


def _time(s: WheelState, f: TableFacts, config: GpioConfig, seed: Seed) -> Step:
    """One Time step (T3): resolve the token drawn, draw the due one, or say which to lay."""
    if f.time_pending is None:
        return replace(s, notice=Notice("this table has no Time Board", "T3")), []
    if f.time_pending:
        return s, [commands.resolve_time()]
    if config.time == "random":
        return s, [commands.draw_time(seed=seed(), resolve=True)]
    notice = Notice(
        f"draw a {str(f.time_due).title()} Time token from the {str(f.time_band).title()}"
        " Time Bag and lay it on the Time reader",
        "T3",
    )
    return replace(s, notice=notice), []


_BUTTONS: dict[str, Callable[[WheelState, TableFacts, GpioConfig, Seed], Step]] = {
    "undo": _undo,
    "hero": _hero,
    "exert": _exert,
    "resolve": _resolve,
    "reset": _reset,
    "redraw": _redraw,
    "call_favor": _call_favor,
    "time": _time,
}


def _label(value: Any) -> str:
    return "none" if value is None else str(value)
