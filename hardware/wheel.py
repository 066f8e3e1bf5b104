"""The Performance Wheel as a state machine: turns, pushes and buttons in, commands out.

Pure logic, no pins: :mod:`hardware.controls` feeds it from gpiozero, the tests
and the demo feed it directly or through mock pins. Every input returns the
commands of the one vocabulary (``docs/commands.md``) to hand to the table loop;
the wheel never changes the table itself. It reads the table through a callable
returning the latest TableState (or ``table_view`` dict), so it offers the right
choices: the heroes, the table's capabilities, the hero's Training from the sheet.

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

import copy
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from engine.errors import RuleViolation
from engine.state import TableState
from engine.tokens import Action, Shade, Training
from hardware.config import GpioConfig
from hardware.facts import TableFacts, table_facts
from hardware.picks import DialMemory, FavorArm, RedrawPick

Command = dict[str, Any]
TableSource = Callable[[], TableState | Mapping[str, Any]]

DIFFICULTY = "difficulty"
HERO, SHADE, CAPABILITY, ACTION, TRAINING = "hero", "shade", "capability", "action", "training"
RESERVE, INTERSECT = "reserve", "intersect"
#: every ring, in dialling order (P4: Shade → Capability → Action → Training, outside-in)
RINGS = (DIFFICULTY, HERO, SHADE, CAPABILITY, ACTION, TRAINING, RESERVE, INTERSECT)
_SEED_LIMIT = 2**31


@dataclass(frozen=True, slots=True)
class Notice:
    """Why the last input did nothing (or what to do next), for the panel."""

    text: str
    rule: str | None = None


class Wheel:
    """One encoder with a push switch, plus the table's buttons, as a state machine.

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
        self._ring: str | None = None
        #: ring → the value turned to or confirmed; a ring not here shows its default
        self._choice: dict[str, Any] = {}
        self._exert = False
        self._partial = 0  # encoder steps not yet a whole position
        self._redraw: RedrawPick | None = None  # while picking the token a Redraw replaces
        self._favor: FavorArm | None = None  # Call Favor armed, until its token is laid
        self._notice: Notice | None = None
        self._memory = DialMemory()  # what the wheel remembers between declarations

    # --- inputs: each returns the commands to submit ------------------------------

    def turn(self, steps: int) -> list[Command]:
        """The encoder moved ``steps`` (clockwise +, counter-clockwise −)."""
        self._notice = None
        f = self._facts()
        self._partial += steps
        spc = self.config.steps_per_choice
        moves = int(self._partial / spc)  # towards zero, so a jiggle does not move
        self._partial -= moves * spc
        if moves == 0:
            return []
        if self._redraw is not None:
            self._redraw = self._redraw.turned(moves)
            return []
        ring = self._ring
        if ring is None:
            self._notice = self._idle_notice(f)
            return []
        options = self._options(ring, f)
        if not options:
            return []
        current = self._value(ring, f)
        at = options.index(current) if current in options else 0
        self._set(ring, options[(at + moves) % len(options)])
        return []

    def push(self) -> list[Command]:
        """The encoder's push: confirm this ring and go to the next; the last one declares."""
        self._notice = None
        f = self._facts()
        self._partial = 0
        self._memory = replace(self._memory, restore_after_undo=None)
        if self._redraw is not None:
            return self._send_redraw()
        ring = self._ring
        if ring is None:
            self._notice = self._idle_notice(f)
            return []
        refusal = self._refuse_leaving(ring, f)
        if refusal is not None:
            self._notice = refusal
            return []
        self._choice[ring] = self._value(ring, f)
        if ring == DIFFICULTY:
            difficulty = int(self._choice.pop(DIFFICULTY))
            self._memory = replace(self._memory, last_difficulty=difficulty)
            return [{"cmd": "begin_performance", "difficulty": difficulty, "weight": self._weight}]
        rings = self._rings(f)
        if ring != rings[-1]:
            self._ring = rings[rings.index(ring) + 1]
            return []
        return self._declare(f)

    def press(self, action: str) -> list[Command]:
        """A named button (see :data:`hardware.config.ACTIONS`) was pressed."""
        if action == "confirm":
            return self.push()
        self._notice = None
        f = self._facts()
        self._partial = 0
        if action != "undo":
            self._memory = replace(self._memory, restore_after_undo=None)
        handler = self._buttons.get(action)
        if handler is None:
            raise ValueError(f"no button action {action!r}")
        return handler(self, f)

    # --- what the panel shows ----------------------------------------------------

    def selection(self) -> dict[str, Any]:
        """The wheel's state as plain JSON data: the ring, every choice so far, the hint.

        Pure: reading it changes nothing. The dial is brought in line with the table
        (a new phase, a declaration taken back) on a copy; the next input does it for real.
        """
        return self._copy()._show()

    def _copy(self) -> Wheel:
        shadow = copy.copy(self)
        shadow._choice = dict(self._choice)
        return shadow

    def _show(self) -> dict[str, Any]:
        f = self._facts()
        rings = self._rings(f)
        ring = self._ring
        shown = rings[: rings.index(ring) + 1] if ring in rings else []
        out: dict[str, Any] = {
            "mode": "redraw" if self._redraw is not None else "dial" if ring else "idle",
            "ring": ring,
            "rings": rings,
            "options": [],
            "position": None,
        }
        for name in RINGS:
            out[name] = self._value(name, f) if name in shown else None
        if ring is not None:
            options = self._options(ring, f)
            out["options"] = [_label(v) for v in options]
            value = self._value(ring, f)
            out["position"] = options.index(value) if value in options else None
        hero = self._value(HERO, f) if f.phase == "open" else None
        h = f.hero(hero)
        cap = self._value(CAPABILITY, f) if CAPABILITY in shown else None
        out["hero"] = hero
        out["hero_name"] = h.name if h else None
        out["sheet_training"] = h.training_in(cap) if h and cap else None
        out["exert"] = self._exert
        out["redraw"] = self._redraw_view(f)
        out["favor"] = self._favor_view(f)
        warning = self._warning(f)
        out["warning"] = warning.text if warning else None
        notice = self._notice
        out["message"] = notice.text if notice else None
        shown_notice = notice or warning
        out["rule"] = shown_notice.rule if shown_notice else None
        return out

    # --- the facts and the rings --------------------------------------------------

    def _facts(self) -> TableFacts:
        """Read the table and bring the dial in line with it (new phase, taken-back declare)."""
        f = table_facts(self._table())
        rings = self._rings(f)
        if f.phase != "open":
            # a new Performance starts at the first hero, with nothing to put back
            self._memory = replace(
                self._memory, last_dial=None, restore_after_undo=None, last_declared=None
            )
        if self._redraw is not None:
            self._follow_redraw(f)
        if self._favor is not None and self._favor.done(f):
            self._favor = None  # the Favor token arrived (or the Performance ended)
        restore = self._memory.restore_after_undo
        if restore is not None and f.phase == "open" and f.contribution(restore[HERO]) is None:
            self._memory = replace(self._memory, restore_after_undo=None)
            self._restore(restore, f)
            rings = self._rings(f)
        if self._ring not in rings:
            if self._ring in (RESERVE, INTERSECT) and rings and rings[0] != DIFFICULTY:
                self._ring = rings[-1]  # a partner left: the dial stays, one ring shorter
            else:
                self._ring = rings[0] if rings else None  # a new phase starts a fresh dial
                self._choice = {}
                self._exert = False
        return f

    def _follow_redraw(self, f: TableFacts) -> None:
        """Keep a Redraw pick in step with the board (a token undone, a Reset elsewhere)."""
        assert self._redraw is not None
        candidates, _ = self._redraw_candidates(f)
        lowest = self._lowest(candidates, f) if candidates else 0
        self._redraw = self._redraw.followed(candidates, lowest)

    def _rings(self, f: TableFacts) -> list[str]:
        if f.phase == "none":
            return [DIFFICULTY]
        if f.phase == "resolved":
            return []
        rings = [HERO] if self.config.hero_ring else []
        rings += [SHADE, CAPABILITY, ACTION, TRAINING]
        if self._value(ACTION, f) in (Action.GAIN, Action.SPEND):
            rings.append(RESERVE)
        if self._partners(f):
            rings.append(INTERSECT)
        return rings

    def _options(self, ring: str, f: TableFacts) -> list[Any]:
        if ring == DIFFICULTY:
            lo, hi = f.difficulty_range
            return list(range(lo, hi + 1))
        if ring == HERO:
            return [h.id for h in f.heroes]
        if ring == SHADE:
            return [s.value for s in Shade]
        if ring == CAPABILITY:
            return list(f.capabilities)
        if ring == ACTION:
            return [a.value for a in Action]
        if ring == TRAINING:
            return [t.value for t in Training]
        hero = f.hero(self._value(HERO, f))
        if ring == RESERVE:
            if hero is None:
                return []
            if self._value(ACTION, f) == Action.SPEND:
                return list(hero.active_reserve)
            return [None, *hero.potential]
        if ring == INTERSECT:
            return [None, *self._partners(f)]
        raise ValueError(f"no ring {ring!r}")

    def _default(self, ring: str, f: TableFacts) -> Any:
        if ring == DIFFICULTY:
            lo, hi = f.difficulty_range
            last = self._memory.last_difficulty
            return last if last is not None and lo <= last <= hi else lo
        if ring == HERO:
            return self._next_hero(f)
        if ring == SHADE:
            return Shade.CONTROL.value
        if ring == CAPABILITY:
            hero = f.hero(self._value(HERO, f))
            firsts = [p for p in (hero.pathways if hero else ()) if p in f.capabilities]
            return firsts[0] if firsts else (f.capabilities[0] if f.capabilities else None)
        if ring == ACTION:
            return Action.TARGET.value
        if ring == TRAINING:
            return self._sheet_training(f)
        options = self._options(ring, f)
        return options[0] if options else None

    def _value(self, ring: str, f: TableFacts) -> Any:
        if ring in self._choice and (
            ring not in (RESERVE, INTERSECT) or self._choice[ring] in self._options(ring, f)
        ):
            return self._choice[ring]
        return self._default(ring, f)

    def _set(self, ring: str, value: Any) -> None:
        self._choice[ring] = value
        # a later ring's choice depends on this one: let it show its new default
        for later in RINGS[RINGS.index(ring) + 1 :]:
            if later in (TRAINING, RESERVE, INTERSECT) or ring == HERO:
                self._choice.pop(later, None)

    def _next_hero(self, f: TableFacts) -> str | None:
        """The first hero after the last one declared who has not declared yet."""
        ids = [h.id for h in f.heroes]
        if not ids:
            return None
        start = (
            ids.index(self._memory.last_declared) + 1 if self._memory.last_declared in ids else 0
        )
        order = ids[start:] + ids[:start]
        waiting = [
            h for h in order if f.contribution(h) is None and h != self._memory.last_declared
        ]
        return waiting[0] if waiting else order[0]

    def _sheet_training(self, f: TableFacts) -> str | None:
        hero = f.hero(self._value(HERO, f))
        cap = self._value(CAPABILITY, f)
        return hero.training_in(cap) if hero and cap else None

    def _partners(self, f: TableFacts) -> list[str]:
        """Heroes this declaration could Intersect with (P10): the engine's answer."""
        hero = self._value(HERO, f)
        capability = self._value(CAPABILITY, f)
        action = self._choice.get(ACTION)
        if hero is None or capability is None or action in (None, Action.GAIN):
            return []
        return list(f.partners(hero, capability, str(action)))

    # --- pushing -----------------------------------------------------------------------

    def _dialled(self, f: TableFacts, **changes: Any) -> Command:
        """The declare command the wheel shows now (the engine judges it: P7–P10, P17, P23)."""
        cmd: Command = {
            "cmd": "declare",
            "hero": self._value(HERO, f),
            "shade": self._value(SHADE, f),
            "capability": self._value(CAPABILITY, f),
            "action": self._value(ACTION, f),
        }
        if self._exert:
            cmd["exert"] = True
        rings = self._rings(f)
        for ring in (RESERVE, INTERSECT):
            value = self._value(ring, f) if ring in rings else None
            if value is not None:
                cmd[ring] = value
        cmd.update(changes)
        return {k: v for k, v in cmd.items() if v is not None}

    def _refusal(self, f: TableFacts, cmd: Command, *rules: str) -> RuleViolation | None:
        """The engine's refusal of ``cmd`` when it is for one of ``rules`` (else None)."""
        refused = f.check(cmd)
        return refused if refused is not None and refused.rule in rules else None

    def _refuse_leaving(self, ring: str, f: TableFacts) -> Notice | None:
        """What keeps the dial on ``ring`` when pushed (a mismatch it can see), if anything."""
        hero = f.hero(self._value(HERO, f))
        if ring == DIFFICULTY:
            return None
        last = ring == self._rings(f)[-1]
        declared = self._refusal(f, self._dialled(f), "P23") if ring == HERO or last else None
        if declared is not None and hero is not None:
            return Notice(
                f"{hero.name} has declared in this Performance — pick another hero,"
                " or Undo (at the first ring) to take the declaration back",
                declared.rule,
            )
        if ring == CAPABILITY and self._value(CAPABILITY, f) is None:
            return Notice("this table lists no capabilities", "P2")
        if ring == ACTION and hero is not None and self._value(ACTION, f) == Action.SPEND:
            # the Reserve is dialled next: ask with one the hero has, if any (P8)
            reserve = hero.active_reserve[0] if hero.active_reserve else None
            spend = self._refusal(f, self._dialled(f, reserve=reserve, intersect=None), "P8")
            if spend is not None:
                return Notice(
                    f"{hero.name} has no Active Reserve to Spend — choose another action",
                    spend.rule,
                )
        if ring == TRAINING:
            mismatch = self._mismatch(f)
            if mismatch is not None and self.config.training_mismatch == "refuse":
                return mismatch
        return self._exert_problem(f) if last else None

    def _mismatch(self, f: TableFacts) -> Notice | None:
        sheet = self._sheet_training(f)
        dial = self._value(TRAINING, f)
        hero = f.hero(self._value(HERO, f))
        if hero is None or sheet is None or dial == sheet:
            return None
        cap = self._value(CAPABILITY, f)
        return Notice(
            f"{hero.name}'s sheet says {sheet.title()} in {cap}, the wheel says {dial.title()}"
            f" — turn to {sheet.title()}, or change the sheet (set_training)",
            "P2",
        )

    def _exert_problem(self, f: TableFacts) -> Notice | None:
        """The engine's refusal of an Exert (P7, P9), if it refuses it."""
        if not self._exert:
            return None
        refused = f.check(self._dialled(f, reserve=None, intersect=None))
        if refused is None or refused.field != "exert":
            return None
        return Notice(f"{refused.message} — press Exert again to drop it", refused.rule)

    def _declare(self, f: TableFacts) -> list[Command]:
        rings = self._rings(f)
        dial = {ring: self._value(ring, f) for ring in rings}
        dial[HERO] = self._value(HERO, f)
        cmd: Command = {
            "cmd": "declare",
            "hero": dial[HERO],
            "shade": dial[SHADE],
            "capability": dial[CAPABILITY],
            "action": dial[ACTION],
        }
        if self._exert:
            cmd["exert"] = True
        if dial.get(RESERVE) is not None:
            cmd["reserve"] = dial[RESERVE]
        if dial.get(INTERSECT) is not None:
            cmd["intersect"] = dial[INTERSECT]
        self._memory = replace(
            self._memory, last_dial={**dial, "exert": self._exert}, last_declared=dial[HERO]
        )
        self._choice = {}
        self._exert = False
        self._ring = None  # back to the first ring at the next look
        return [cmd]

    def _restore(self, dial: Mapping[str, Any], f: TableFacts) -> None:
        """Put a declaration back on the wheel, on its last ring, to fix and push again."""
        self._choice = {k: v for k, v in dial.items() if k != "exert"}
        self._exert = bool(dial.get("exert"))
        self._memory = replace(self._memory, last_declared=None)
        self._ring = self._rings(f)[-1]
        hero = f.hero(dial[HERO])
        name = hero.name if hero else dial[HERO]
        self._notice = Notice(f"{name}'s declaration is back on the wheel: turn, fix, push")

    def _idle_notice(self, f: TableFacts) -> Notice:
        if f.phase == "resolved":
            return Notice("the Performance is resolved — press Reset to return the tokens", "P22")
        return Notice("nothing to dial")

    @property
    def _weight(self) -> str:
        return self.config.weight

    # --- buttons ---------------------------------------------------------------

    def _undo(self, f: TableFacts) -> list[Command]:
        """Back one step: out of a Redraw pick, back one ring, the last declaration, then undo."""
        if self._redraw is not None:
            self._redraw = None
            self._notice = Notice("Redraw cancelled")
            return []
        rings = self._rings(f)
        ring = self._ring
        if ring in rings and rings.index(ring) > 0:
            self._ring = rings[rings.index(ring) - 1]
            return []
        last = self._memory.last_dial
        if last is not None and f.phase == "open":
            self._memory = replace(self._memory, last_dial=None)
            if f.contribution(last[HERO]) is None:
                # refused by the engine (or not applied yet): nothing to undo, dial it again
                self._restore(last, f)
                return []
            self._memory = replace(self._memory, restore_after_undo=last)
            self._notice = Notice("Undo: the last command is taken back")
        self._choice.pop(ring or "", None)
        return [{"cmd": "undo"}]

    def _hero(self, f: TableFacts) -> list[Command]:
        ids = [h.id for h in f.heroes]
        if not ids:
            return []
        current = self._value(HERO, f)
        at = ids.index(current) if current in ids else -1
        self._set(HERO, ids[(at + 1) % len(ids)])
        return []

    def _toggle_exert(self, f: TableFacts) -> list[Command]:
        if f.phase != "open":
            self._notice = Notice("Exert is part of a declaration: begin a Performance first", "P9")
            return []
        self._exert = not self._exert
        if self._exert and self._ring in (TRAINING, RESERVE, INTERSECT):
            self._notice = self._exert_problem(f)
        return []

    def _resolve(self, f: TableFacts) -> list[Command]:
        self._redraw = None
        return [{"cmd": "resolve"}]

    def _reset(self, f: TableFacts) -> list[Command]:
        self._redraw = None
        self._favor = None
        self._choice = {}
        self._exert = False
        self._memory = replace(self._memory, last_dial=None, last_declared=None)
        self._ring = None
        return [{"cmd": "reset"}]

    def _start_redraw(self, f: TableFacts) -> list[Command]:
        if self._redraw is not None:
            return self._send_redraw()  # a second press takes the token shown
        candidates, reason = self._redraw_candidates(f)
        if not candidates:
            self._notice = reason
            return []
        self._redraw = RedrawPick(tuple(candidates), self._lowest(candidates, f))
        return []

    def _lowest(self, candidates: list[tuple[str, str]], f: TableFacts) -> int:
        """The focus hero's lowest-value drawn token (the first of equals): the best Redraw
        for a plain "total ≥ Difficulty"."""
        focus = self._focus(f)
        pool = [i for i, (h, _) in enumerate(candidates) if h == focus] or list(
            range(len(candidates))
        )
        values = {(c.hero, t.id): t.value for c in f.contributions for t in c.drawn}
        return min(pool, key=lambda i: (values[candidates[i]], i))

    def _redraw_candidates(self, f: TableFacts) -> tuple[list[tuple[str, str]], Notice]:
        """Drawn tokens a Redraw may replace (P11: the engine's answer), focus hero first; or
        why there are none."""
        if f.phase != "open":
            return [], Notice("no Performance is running: nothing to Redraw", "P11")
        focus = self._focus(f)
        out = sorted(f.redraws, key=lambda c: c[0] != focus)  # stable: board order kept
        reason = Notice("nothing drawn yet to Redraw", "P11")
        refused = sorted(f.redraw_refusals.items(), key=lambda r: r[0] == focus)
        if refused:  # the focus hero's reason last, so it is the one shown
            why = refused[-1][1]
            reason = Notice(f"{why.message} — {why.fix}" if why.fix else why.message, why.rule)
        return out, reason

    def _send_redraw(self) -> list[Command]:
        assert self._redraw is not None
        command = self._redraw.command()
        self._redraw = None
        return [command]

    def _focus(self, f: TableFacts) -> str | None:
        """The hero a Redraw or a Favor call is for: chosen on the wheel, last declared, or the
        only one drawing."""
        checking = [c.hero for c in f.contributions if c.checks]
        for hero in (self._choice.get(HERO), self._memory.last_declared):
            if hero in checking:
                return hero
        return checking[0] if len(checking) == 1 else None

    def _call_favor(self, f: TableFacts) -> list[Command]:
        hero_id = self._focus(f)
        if f.phase != "open" or hero_id is None:
            self._notice = Notice(
                "which hero calls Favor? Turn the Hero ring (or press Hero) to a hero who"
                " has declared, then press Call Favor"
                if f.phase == "open" and f.contributions
                else "Call Favor during a Performance, after declaring",
                "P18",
            )
            return []
        hero = f.hero(hero_id)
        assert hero is not None
        refused = self._refusal(f, {"cmd": "call_favor", "hero": hero_id, "seed": 0}, "P18")
        if refused is not None:  # the engine's answer: no Favor left, or already called (P18)
            self._notice = Notice(refused.message, refused.rule)
            return []
        if self.config.call_favor == "random":
            return [{"cmd": "call_favor", "hero": hero_id, "seed": self._seed()}]
        if self._favor is not None and self._favor.hero == hero_id:
            self._favor = None
            self._notice = Notice("Call Favor put down")
            return []
        c = f.contribution(hero_id)
        self._favor = FavorArm(hero_id, c.favor if c else 0)
        return []

    def _time(self, f: TableFacts) -> list[Command]:
        if f.time_pending is None:
            self._notice = Notice("this table has no Time Board", "T3")
            return []
        if f.time_pending:
            return [{"cmd": "resolve_time"}]
        if self.config.time == "random":
            return [{"cmd": "draw_time", "seed": self._seed(), "resolve": True}]
        self._notice = Notice(
            f"draw a {str(f.time_due).title()} Time token from the {str(f.time_band).title()}"
            " Time Bag and lay it on the Time reader",
            "T3",
        )
        return []

    def _seed(self) -> int:
        """A seed for a random draw: the command carries it, so replays draw the same token."""
        return self._rng.randrange(_SEED_LIMIT)

    _buttons: ClassVar[dict[str, Callable[[Wheel, TableFacts], list[Command]]]] = {
        "undo": _undo,
        "hero": _hero,
        "exert": _toggle_exert,
        "resolve": _resolve,
        "reset": _reset,
        "redraw": _start_redraw,
        "call_favor": _call_favor,
        "time": _time,
    }

    # --- views ------------------------------------------------------------------------

    def _warning(self, f: TableFacts) -> Notice | None:
        if self._ring in (TRAINING, RESERVE, INTERSECT):
            return self._mismatch(f) or self._exert_problem(f)
        return None

    def _redraw_view(self, f: TableFacts) -> dict[str, Any] | None:
        return None if self._redraw is None else self._redraw.view(f)

    def _favor_view(self, f: TableFacts) -> dict[str, Any] | None:
        return None if self._favor is None else self._favor.view(f)


def _label(value: Any) -> str:
    return "none" if value is None else str(value)
