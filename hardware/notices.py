"""What the panel says about the dial: the engine's answers, worded for the hand on the wheel.

The wheel judges nothing itself. Before a push leaves a ring it asks the engine what
the declaration shown would get (:func:`engine.check`, through
:attr:`~hardware.facts.TableFacts.check`) and, when the engine would refuse it for a
rule the hand can fix on this ring, says so here with the engine's rule id: a hero who
has declared (P23), Spend without an Active Reserve (P8), Exert where the engine refuses
it (P7, P9). The Training ring is compared with the sheet the engine reads (P2): that is
not a rule of the wheel's but a check that the printed wheel and the sheet agree.

>>> from engine import apply, load_table
>>> from hardware.dial import Dial, DialMemory, Offer
>>> from hardware.facts import table_facts
>>> state, _ = apply(load_table("examples/table.toml"),
...                  {"cmd": "begin_performance", "difficulty": 5})
>>> offer = Offer(table_facts(state), memory=DialMemory())
>>> dial = Dial("training", {"training": "master"})     # Aria is Adept in Skill
>>> warning(dial, offer).rule, leaving(dial, offer, "refuse").text[:30]
('P2', "Aria's sheet says Adept in ski")
>>> leaving(dial, offer, "warn") is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import RuleViolation
from hardware.dial import (
    ACTION,
    CAPABILITY,
    DIFFICULTY,
    HERO,
    INTERSECT,
    RESERVE,
    TRAINING,
    Dial,
    Offer,
)
from hardware.facts import TableFacts


@dataclass(frozen=True, slots=True)
class Notice:
    """Why the last input did nothing (or what to do next), for the panel."""

    text: str
    rule: str | None = None


def refusal(f: TableFacts, cmd: Mapping[str, Any], *rules: str) -> RuleViolation | None:
    """The engine's refusal of ``cmd`` when it is for one of ``rules`` (else None)."""
    refused = f.check(cmd)
    return refused if refused is not None and refused.rule in rules else None


def leaving(dial: Dial, offer: Offer, training_mismatch: str) -> Notice | None:
    """What keeps the dial on its ring when pushed (a refusal it can see now), if anything."""
    ring, f = dial.ring, offer.facts
    if ring is None or ring == DIFFICULTY:
        return None
    hero = f.hero(offer.value(HERO, dial))
    last = ring == offer.rings(dial)[-1]
    declared = refusal(f, offer.dialled(dial), "P23") if ring == HERO or last else None
    if declared is not None and hero is not None:
        return Notice(
            f"{hero.name} has declared in this Performance — pick another hero,"
            " or Undo (at the first ring) to take the declaration back",
            declared.rule,
        )
    if ring == CAPABILITY and offer.value(CAPABILITY, dial) is None:
        return Notice("this table lists no capabilities", "P2")
    answer = offer.reserve(dial) if ring == ACTION else None
    if answer is not None and hero is not None:
        # the Reserve is dialled next: ask with the first one the engine offers, if any (P8)
        reserve = answer.choices[0] if answer.choices else None
        spend = refusal(f, offer.dialled(dial, reserve=reserve, intersect=None), "P8")
        if spend is not None:
            return Notice(
                f"{hero.name} has no Active Reserve to Spend — choose another action",
                spend.rule,
            )
    if ring == TRAINING:
        wrong = mismatch(dial, offer)
        if wrong is not None and training_mismatch == "refuse":
            return wrong
    return exert_problem(dial, offer) if last else None


def mismatch(dial: Dial, offer: Offer) -> Notice | None:
    """The Training ring disagrees with the hero's sheet, which the engine uses (P2)."""
    sheet = offer.sheet_training(dial)
    turned = offer.value(TRAINING, dial)
    hero = offer.facts.hero(offer.value(HERO, dial))
    if hero is None or sheet is None or turned == sheet:
        return None
    cap = offer.value(CAPABILITY, dial)
    return Notice(
        f"{hero.name}'s sheet says {sheet.title()} in {cap}, the wheel says {turned.title()}"
        f" — turn to {sheet.title()}, or change the sheet (set_training)",
        "P2",
    )


def exert_problem(dial: Dial, offer: Offer) -> Notice | None:
    """The engine's refusal of an Exert (P7, P9), if it refuses it."""
    if not dial.exert:
        return None
    refused = offer.facts.check(offer.dialled(dial, reserve=None, intersect=None))
    if refused is None or refused.field != "exert":
        return None
    return Notice(f"{refused.message} — press Exert again to drop it", refused.rule)


def warning(dial: Dial, offer: Offer) -> Notice | None:
    """A standing problem with the dial, shown from the Training ring on."""
    if dial.ring in (TRAINING, RESERVE, INTERSECT):
        return mismatch(dial, offer) or exert_problem(dial, offer)
    return None


def idle(f: TableFacts) -> Notice:
    """Why there is no ring to turn or push."""
    if f.phase == "resolved":
        return Notice("the Performance is resolved — press Reset to return the tokens", "P22")
    return Notice("nothing to dial")
