"""The Performance's events in plain words (P1–P23): declarations, draws, Favor, outcomes, health."""

from __future__ import annotations

from collections.abc import Callable

from engine.contracts import events as ev
from engine.narrate import hero_name, say, signed
from engine.state import TableState

say(
    ev.performance_started,
    lambda s, d: (
        f"Performance {d['number']} begins: Difficulty {d['difficulty']}, WEIGHT {d['weight'].upper()}"
    ),
)
say(
    ev.declared,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} declares {d['shade'].title()} · {d['capability']} · "
        f"{d['action'].title()} · {d['training'].title()}"
        + (" · Exert" if d["exert"] else "")
        + (f" · {d['moment'].title()}" if d["moment"] else "")
        + (f" · Intersect with {hero_name(s, d['intersect'])}" if d["intersect"] else "")
        + (f" — draws {d['draws']}" if d["action"] != "gain" else "")
    ),
)
say(
    ev.gain_resolved,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} Gains with {d['capability']}: no draw, costs {d['fatigue_cost']} Fatigue"
    ),
)
say(
    ev.token_drawn,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} draws {d['name']}: {signed(d['value'])} → total {d['total']}"
        f" ({d['draws_left']} left)"
    ),
)
say(
    ev.token_replaced,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} redraws {d['name']}: {signed(d['value'])} → total {d['total']}"
    ),
)
say(
    ev.redraw_started,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} spends a Redraw: {d['name']} "
        + (
            "is set aside until Reset"
            if s.rules["redraw"]["set_aside"]
            else "goes back into the bag"
        )
        + f" ({d['redraws_left']} Redraws left)"
    ),
)
say(
    ev.favor_called,
    lambda s, d: (
        # the Favor Bag's tokens are named "Favor: The Judge (control)": no second "Favor:"
        f"{hero_name(s, d['hero'])} calls Favor: {d['name'].removeprefix('Favor: ')} answers,"
        f" {signed(d['value'])}"
        f" → total {d['total']}"
    ),
)
say(ev.deity_awakened, lambda s, d: f"{d['deity']} is Awakened on the Star Grid")


def _group(s: TableState, heroes: list[str]) -> str:
    """A Performance's heroes by name, an Intersect group joined: "Aria + Bren"."""
    return " + ".join(hero_name(s, h) for h in heroes)


say(
    ev.performance_resolved,
    lambda s, d: (
        f"{_group(s, d['heroes'])}: {d['total']} vs {d['difficulty']} — "
        + ("SUCCESS" if d["success"] else "FAILURE")
    ),
)


def _p20(outcome: str, what: str) -> Callable[[TableState, ev.Prompt], str]:
    """P20 in the table's words: whose outcome, and that the WorldKeeper decides what applies."""
    return lambda s, d: (
        f"  {_group(s, d['heroes'])} {outcome}: the WorldKeeper resolves any {what} that applies"
        f" ({d['rule']})"
    )


say(ev.wear_prompt, _p20("succeeded", "Wear"))
say(ev.impact_prompt, _p20("failed", "Impact"))
say(
    ev.escalation_prompt,
    lambda s, d: (
        f"  Escalation: {hero_name(s, d['hero'])}'s {d['moment'].title()} "
        + ("succeeded" if d["success"] else "failed")
        + (f", shift {signed(d['shift'])}" if d["shift"] else ": shift FOR or AGAINST?")
    ),
)
say(
    ev.fatigue_gained,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} gains {d['amount']} Fatigue ({d['cause']}) → {d['fatigue']}"
    ),
)
say(
    ev.fatigue_overflow,
    lambda s, d: (
        f"{hero_name(s, d['hero'])}'s Fatigue overflows: all Fatigue cleared, 1 Strain instead"
    ),
)
say(
    ev.strain_gained,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} gains Strain → {d.get('strain', '?')}:"
        f" put {_names(s, [d['token']]) if d['token'] else 'a Strain token'} into the Hero Bag"
    ),
)
say(
    ev.strain_overflow,
    lambda s, d: (
        f"{hero_name(s, d['hero'])}'s Strain overflows: take out {_names(s, d['removed_tokens'])}"
    ),
)
say(ev.wound_gained, lambda s, d: f"{hero_name(s, d['hero'])} takes a Wound → {d['wounds']}")
say(
    ev.fatigue_recovered,
    lambda s, d: f"{hero_name(s, d['hero'])} recovers {d['amount']} Fatigue → {d['fatigue']}",
)
say(
    ev.strain_recovered,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} recovers 1 Strain → {d['strain']}:"
        # None: the sheet held no Strain token to take out (was printed "take out None")
        f" take out {_names(s, [d['token']]) if d['token'] else 'a Strain token'}"
    ),
)
say(ev.reserve_activated, lambda s, d: f"{_names(s, [d['token']])} becomes Active Reserve")
say(ev.reserve_returned, lambda s, d: f"{_names(s, [d['token']])} is Potential again")
say(
    ev.performance_reset,
    lambda s, d: (
        f"Reset: {len(d['returned'])} tokens back to their bags"
        + (_leave(s, d["removed"]) if d["removed"] else "")
    ),
)
say(ev.performance_cancelled, lambda s, d: f"Performance {d['number']} cancelled; tokens returned")
say(
    ev.training_changed,
    lambda s, d: (
        f"{hero_name(s, d['hero'])} is now {d['to'].title()} in {d['capability']}"
        f" (was {d['from'].title()})"
    ),
)
say(ev.bag_changed, lambda s, d: f"{hero_name(s, d['hero'])}'s bag changes: {d['say']}")
say(
    ev.escalation_shifted,
    lambda s, d: (
        f"Escalation shifts {'FOR' if d['shift'] > 0 else 'AGAINST'} → {d['escalation']:+d}"
    ),
)
say(
    ev.strain_tokens_set,
    lambda s, d: (
        f"{hero_name(s, d['hero'])}'s Strain tokens in the bag: {', '.join(d['tokens']) or 'none'}"
    ),
)
say(
    ev.hero_adjusted,
    lambda s, d: f"{hero_name(s, d['hero'])} now has {d['favor']} Favor, {d['redraws']} Redraws",
)
say(ev.wound_recovered, lambda s, d: f"{hero_name(s, d['hero'])} heals → {d['wounds']} Wounds")


def _names(s: TableState, tokens: list[str]) -> str:
    """Tokens by name, not id: ``Aria's Strain 1 and Aria's Strain 2``."""
    names = [s.tokens[t].name if t in s.tokens else t for t in tokens]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _leave(s: TableState, removed: list[str]) -> str:
    """``, Purity (temporary) leaves the game`` — one verb for one token or several."""
    return f", {_names(s, removed)} {'leaves' if len(removed) == 1 else 'leave'} the game"
