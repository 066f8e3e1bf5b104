"""The Performance Wheel's rings as a value: which ring is up, what each is turned to, Exert.

A :class:`Dial` is where the hand has left the rings. It is frozen: a turn, a push or
an Undo returns a new Dial (as a python-chess move returns a new position), so the
panel can read one while the next input is made, and a test can replay a hand
without pins. What the rings *offer* depends on the table (its heroes, capabilities,
who has declared) and on the engine's answers: an :class:`Offer` holds those facts
for one input and answers for a given Dial. Neither knows a rule: the options are
the vocabulary's and the engine's (:mod:`hardware.facts`), the defaults are only
where the ring starts.

The rings are dialled outside-in (P4): Hero → Shade → Capability → Action →
Training, then Reserve (when the engine says the Action names one: Gain and Spend,
P3/P8/P17) and Intersect (when the engine finds a partner eligible, P10). With no Performance running the one ring is the
Difficulty (P19).

>>> from engine import apply, load_table
>>> from hardware.facts import table_facts
>>> state, _ = apply(load_table("examples/table.toml"),
...                  {"cmd": "begin_performance", "difficulty": 5})
>>> offer = Offer(table_facts(state), hero_ring=True, memory=DialMemory())
>>> dial = Dial().followed(offer)
>>> dial.ring, offer.value(HERO, dial)
('hero', 'aria')
>>> dial = dial.turned(+1, offer).pushed(offer)   # Bren; on to the Shade ring
>>> dial.ring, offer.value(CAPABILITY, dial)      # Bren's first Pathway
('shade', 'steel')
>>> dial.backed(offer).ring, Dial().followed(offer).backed(offer) is None
('hero', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.contracts import commands
from engine.contracts.commands import AnyCommand
from engine.performance.questions import ReserveChoices
from engine.tokens import Action, Shade, Training
from hardware.facts import TableFacts

#: a command the wheel sends (engine/contracts/commands.py)
Command = AnyCommand

DIFFICULTY = "difficulty"
HERO, SHADE, CAPABILITY, ACTION, TRAINING = "hero", "shade", "capability", "action", "training"
RESERVE, INTERSECT = "reserve", "intersect"
#: every ring, in dialling order (P4: Shade → Capability → Action → Training, outside-in)
RINGS = (DIFFICULTY, HERO, SHADE, CAPABILITY, ACTION, TRAINING, RESERVE, INTERSECT)
#: rings whose options follow an earlier ring's choice: a new choice there resets them
_FOLLOWERS = (TRAINING, RESERVE, INTERSECT)


@dataclass(frozen=True, slots=True)
class DialMemory:
    """What the wheel remembers between declarations: who declared last (the next hero is the
    one after), the last declaration sent (Undo puts it back on the wheel), the one waiting for
    the engine's Undo to be restored, and the last Difficulty begun (the ring starts there)."""

    last_declared: str | None = None
    last_dial: Mapping[str, Any] | None = None
    restore_after_undo: Mapping[str, Any] | None = None
    last_difficulty: int | None = None

    def forgot_the_performance(self) -> DialMemory:
        """A new Performance starts at the first hero, with nothing to put back."""
        return DialMemory(last_difficulty=self.last_difficulty)


@dataclass(frozen=True, slots=True)
class Offer:
    """What the table offers the dial now: the rings, each ring's options and where it starts.

    Built per input from the table's facts (the engine's answers), the ``hero_ring``
    setting and what the wheel remembers between declarations (the next hero is the
    one after the last declared; the Difficulty ring starts at the last one begun).
    """

    facts: TableFacts
    hero_ring: bool = True
    memory: DialMemory = field(default_factory=DialMemory)

    def rings(self, dial: Dial) -> list[str]:
        """The rings of ``dial`` in dialling order (none on a resolved Performance)."""
        f = self.facts
        if f.phase == "none":
            return [DIFFICULTY]
        if f.phase == "resolved":
            return []
        rings = [HERO] if self.hero_ring else []
        rings += [SHADE, CAPABILITY, ACTION, TRAINING]
        if self.reserve(dial) is not None:
            rings.append(RESERVE)
        if self.partners(dial):
            rings.append(INTERSECT)
        return rings

    def options(self, ring: str, dial: Dial) -> list[Any]:
        """What ``ring`` offers, in the order it turns through them."""
        f = self.facts
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
        if ring == RESERVE:
            answer = self.reserve(dial)
            return list(answer.choices) if answer is not None else []
        if ring == INTERSECT:
            return [None, *self.partners(dial)]
        raise ValueError(f"no ring {ring!r}")

    def default(self, ring: str, dial: Dial) -> Any:
        """Where ``ring`` starts before it is turned."""
        f = self.facts
        if ring == DIFFICULTY:
            lo, hi = f.difficulty_range
            last = self.memory.last_difficulty
            return last if last is not None and lo <= last <= hi else lo
        if ring == HERO:
            return self.next_hero()
        if ring == SHADE:
            return Shade.CONTROL.value
        if ring == CAPABILITY:
            hero = f.hero(self.value(HERO, dial))
            firsts = [p for p in (hero.pathways if hero else ()) if p in f.capabilities]
            return firsts[0] if firsts else (f.capabilities[0] if f.capabilities else None)
        if ring == ACTION:
            return Action.TARGET.value
        if ring == TRAINING:
            return self.sheet_training(dial)
        options = self.options(ring, dial)
        return options[0] if options else None

    def value(self, ring: str, dial: Dial) -> Any:
        """What ``ring`` shows: its choice, or its default (a Reserve or partner that is no
        longer offered falls back to the default too)."""
        choices = dial.choices
        if ring in choices and (
            ring not in (RESERVE, INTERSECT) or choices[ring] in self.options(ring, dial)
        ):
            return choices[ring]
        return self.default(ring, dial)

    def next_hero(self) -> str | None:
        """The first hero after the last one declared who has not declared yet."""
        f, last = self.facts, self.memory.last_declared
        ids = [h.id for h in f.heroes]
        if not ids:
            return None
        start = ids.index(last) + 1 if last in ids else 0
        order = ids[start:] + ids[:start]
        waiting = [h for h in order if f.contribution(h) is None and h != last]
        return waiting[0] if waiting else order[0]

    def sheet_training(self, dial: Dial) -> str | None:
        """The hero's Training in the capability dialled, from the sheet (the engine uses it)."""
        hero = self.facts.hero(self.value(HERO, dial))
        cap = self.value(CAPABILITY, dial)
        return hero.training_in(cap) if hero and cap else None

    def partners(self, dial: Dial) -> list[str]:
        """Heroes this declaration could Intersect with (P10; none for a Gain, P7): the
        engine's answer, asked once the Action ring has been reached."""
        hero = self.value(HERO, dial)
        capability = self.value(CAPABILITY, dial)
        action = dial.choices.get(ACTION)
        if hero is None or capability is None or action is None:
            return []
        return list(self.facts.partners(hero, capability, str(action)))

    def reserve(self, dial: Dial) -> ReserveChoices | None:
        """What this declaration's Reserve may name (P8, P17): the engine's answer; None when
        its Action names none (P3), and then there is no Reserve ring."""
        hero = self.value(HERO, dial)
        capability = self.value(CAPABILITY, dial)
        if hero is None or capability is None:
            return None
        return self.facts.reserve(hero, capability, str(self.value(ACTION, dial)))

    def dialled(self, dial: Dial, **changes: Any) -> dict[str, Any]:
        """The declare command ``dial`` shows now, with ``changes`` (for the engine to judge:
        P7–P10, P17, P23); a None is left out (so the rings not reached yet too)."""
        cmd = commands.declare(
            hero=self.value(HERO, dial),
            shade=self.value(SHADE, dial),
            capability=self.value(CAPABILITY, dial),
            action=self.value(ACTION, dial),
        )
        if dial.exert:
            cmd["exert"] = True
        rings = self.rings(dial)
        reserve = self.value(RESERVE, dial) if RESERVE in rings else None
        if reserve is not None:
            cmd["reserve"] = reserve
        intersect = self.value(INTERSECT, dial) if INTERSECT in rings else None
        if intersect is not None:
            cmd["intersect"] = intersect
        probe: dict[str, Any] = {**cmd, **changes}
        return {k: v for k, v in probe.items() if v is not None}


@dataclass(frozen=True, slots=True)
class Dial:
    """The rings as the hand left them: the ring up, every ring's choice so far, Exert.

    A ring missing from ``choices`` shows its default (:meth:`Offer.value`). ``ring`` is
    None right after a declaration (and before the first look): :meth:`followed` starts
    the next dial at the first ring.
    """

    ring: str | None = None
    choices: Mapping[str, Any] = field(default_factory=dict)
    exert: bool = False

    def chose(self, ring: str, value: Any) -> Dial:
        """``ring`` set to ``value``; the later rings that depend on it show their defaults."""
        choices = {**self.choices, ring: value}
        for later in RINGS[RINGS.index(ring) + 1 :]:
            if later in _FOLLOWERS or ring == HERO:
                choices.pop(later, None)
        return replace(self, choices=choices)

    def turned(self, moves: int, offer: Offer) -> Dial:
        """The ring up turned ``moves`` positions (clockwise +), wrapping like a printed wheel."""
        if self.ring is None:
            return self
        options = offer.options(self.ring, self)
        if not options:
            return self
        current = offer.value(self.ring, self)
        at = options.index(current) if current in options else 0
        return self.chose(self.ring, options[(at + moves) % len(options)])

    def confirmed(self, offer: Offer) -> Dial:
        """The ring up's value kept as its choice (a push)."""
        if self.ring is None:
            return self
        return replace(self, choices={**self.choices, self.ring: offer.value(self.ring, self)})

    def pushed(self, offer: Offer) -> Dial:
        """Confirmed, and on to the next ring (the last ring stays: its push declares)."""
        dial = self.confirmed(offer)
        rings = offer.rings(dial)  # a confirmed Action can bring the Intersect ring
        if dial.ring in rings and dial.ring != rings[-1]:
            return replace(dial, ring=rings[rings.index(dial.ring) + 1])
        return dial

    def backed(self, offer: Offer) -> Dial | None:
        """Back one ring, the choices kept; None on the first ring (Undo goes to the table)."""
        rings = offer.rings(self)
        if self.ring in rings and rings.index(self.ring) > 0:
            return replace(self, ring=rings[rings.index(self.ring) - 1])
        return None

    def exerted(self) -> Dial:
        """Exert toggled (the Exert button: it belongs to the declaration being dialled)."""
        return replace(self, exert=not self.exert)

    def followed(self, offer: Offer) -> Dial:
        """In line with the table: a ring the table no longer offers moves on.

        A partner who left drops the Intersect ring (or a changed Action the Reserve one):
        the dial stays, on the last ring left. Anything else (a new phase, a declaration
        sent) starts a fresh dial at the first ring.
        """
        rings = offer.rings(self)
        if self.ring in rings:
            return self
        if self.ring in (RESERVE, INTERSECT) and rings and rings[0] != DIFFICULTY:
            return replace(self, ring=rings[-1])
        return Dial(rings[0] if rings else None)

    def snapshot(self, offer: Offer) -> dict[str, Any]:
        """Every ring's value and Exert: what Undo puts back on the wheel (:meth:`restored`)."""
        dial = {ring: offer.value(ring, self) for ring in offer.rings(self)}
        dial[HERO] = offer.value(HERO, self)
        return {**dial, "exert": self.exert}

    @staticmethod
    def restored(snapshot: Mapping[str, Any], offer: Offer) -> Dial:
        """A declaration put back on the wheel, on its last ring, to fix and push again."""
        dial = Dial(None, {k: v for k, v in snapshot.items() if k != "exert"})
        dial = replace(dial, exert=bool(snapshot.get("exert")))
        return replace(dial, ring=offer.rings(dial)[-1])
