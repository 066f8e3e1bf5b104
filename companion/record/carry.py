"""The next session: what the last one leaves on the heroes, the Time Board and the roster.

``rhuna-table run --new-session --carry`` archives the journal as ``--new-session``
does, then starts the new journal with the commands that bring the table file's
starting state to where the last session ended — ordinary commands of the one
vocabulary, journaled with the source ``carry``, so the new session replays and
is narrated like any other. Carried:

- each hero's Fatigue, Strain with its very tokens, Wounds, Favor, Redraws
  (P11, P13–P15, P18), Training and mastery (P4, P12) and Active Reserve (P17);
- the Time Board's day, band and Minor draws done (T3) and the weather (T2, T11);
- the combatants' injuries, conditions, death and renown (C8–C11): the conditions go on
  before the injuries, since the injury that killed comes last and nothing is put on the dead;
- each combatant's worn armour, its durability as the last session left it (I-C8,
  ``set_armour``), as ``rhuna-table sheet`` writes it.

Then ``start_session`` (T1: the weather holds when it is known). What the rules
leave with the old session is not carried: an open Performance (its tokens go
back at Reset, P22), Escalation (P21, it belongs to a Moment), the fight on the
wheel, a pending Time draw, a Rest, prompts and the Undo history. Also not
carried (no command sets them): temporary tokens and their timers (T12), the Star
Grid. A piece of armour the table file changed (another name or reduction) is the
table file's, and said so. The Time tokens lying on the band's spaces go back to
their bags (``set_time`` returns them).

The WorldKeeper resets any carried part with ``--reset`` (see :data:`PARTS`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine import CommandRejected, apply
from engine.combat.state import Combatant
from engine.contracts import commands
from engine.contracts.commands import AnyCommand
from engine.state import TableState
from settings.errors import ConfigError

#: what ``--reset`` can name: each carried part
PARTS = (
    "fatigue",
    "strain",
    "wounds",
    "favor",
    "redraws",
    "training",
    "reserve",
    "time",
    "weather",
    "injuries",
    "conditions",
    "renown",
    "armour",
)

SOURCE = "carry"


@dataclass
class Carry:
    """The commands to journal first, and what could not be carried (said to the user)."""

    commands: list[AnyCommand] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def parse_reset(text: str | None) -> frozenset[str]:
    """``--reset fatigue,strain`` → the parts; an unknown name is one clear line."""
    if not text:
        return frozenset()
    parts = {p.strip() for p in text.split(",") if p.strip()}
    if "all" in parts:
        return frozenset(PARTS)
    unknown = sorted(parts - set(PARTS))
    if unknown:
        raise ConfigError(
            f"--reset {unknown[0]}: not a carried part — use a comma-separated list of"
            f" {', '.join(PARTS)} (or all)"
        )
    return frozenset(parts)


def _hero_commands(start: TableState, last: TableState, reset: frozenset[str], out: Carry) -> None:
    for hero_id, was in last.heroes.items():
        now = start.heroes.get(hero_id)
        if now is None:
            out.skipped.append(f"hero {hero_id!r} is not in the table file")
            continue
        if "training" not in reset:
            for cap in sorted(set(was.training) | set(now.training)):
                if was.training_in(cap) != now.training_in(cap):
                    out.commands.append(
                        commands.set_training(
                            hero=hero_id, capability=cap, level=was.training_in(cap).value
                        )
                    )
        adjust = commands.adjust_hero(hero=hero_id)
        changed = False
        for part in ("wounds", "strain", "fatigue", "favor", "redraws"):
            if part in reset:
                continue
            delta = getattr(was, part) - getattr(now, part)
            if delta:
                adjust[part] = delta
                changed = True
        if changed:
            adjust["cause"] = "carried"
            out.commands.append(adjust)
        if "strain" not in reset and was.strain_tokens and was.strain == len(was.strain_tokens):
            out.commands.append(
                commands.set_strain_tokens(hero=hero_id, tokens=list(was.strain_tokens))
            )


def _reserve_commands(
    start: TableState, last: TableState, reset: frozenset[str], out: Carry
) -> None:
    if "reserve" in reset:
        return
    for token in sorted(last.active_reserve ^ start.active_reserve):
        t = start.tokens.get(token)
        owner = start.bags[t.bag].owner if t is not None and t.bag in start.bags else None
        if owner is None:
            out.skipped.append(f"Active Reserve {token!r}: not a hero's token in the table file")
            continue
        out.commands.append(
            commands.set_reserve(hero=owner, token=token, active=token in last.active_reserve)
        )


def _time_commands(start: TableState, last: TableState, reset: frozenset[str], out: Carry) -> None:
    a, b = start.time, last.time
    if a is None or b is None:
        return
    if "time" not in reset and (a.day, a.band, a.minor_done) != (b.day, b.band, b.minor_done):
        out.commands.append(
            commands.set_time(day=b.day, band=b.band.value, minor_done=b.minor_done)
        )
    w = b.weather
    if "weather" in reset or w is None or w == a.weather:
        return
    if w.token is not None:
        out.commands.append(commands.draw_weather(bag=w.bag, token=w.token))
    else:
        out.commands.append(commands.set_weather(name=w.name, bag=w.bag))


def _combat_commands(
    start: TableState, last: TableState, reset: frozenset[str], out: Carry
) -> None:
    if start.combat is None or last.combat is None:
        return
    for cid, was in last.combat.roster.items():
        now = start.combat.roster.get(cid)
        if now is None:
            if was.injuries or was.conditions:
                out.skipped.append(
                    f"combatant {cid!r} joined during the session and is not in the table file"
                    " (add it to [[combatants]] to carry its injuries)"
                )
            continue
        if "conditions" not in reset and was.conditions != now.conditions:
            for c in now.conditions:
                remove = commands.remove_combat_condition(combatant=cid, condition=c.name)
                if c.attribute:
                    remove["attribute"] = c.attribute
                out.commands.append(remove)
            for c in was.conditions:
                add = commands.add_combat_condition(combatant=cid, condition=c.name, level=c.level)
                if c.attribute is not None:
                    add["attribute"] = c.attribute
                if c.source is not None:
                    add["source"] = c.source
                out.commands.append(add)
        if "injuries" not in reset and was.injuries != now.injuries:
            if now.injuries:
                out.commands.append(commands.heal_injuries(combatant=cid, hits=now.injury_count))
            for i in was.injuries:
                cmd = commands.injure(combatant=cid, type=i.type, hits=i.hits)
                if i.detail is not None:
                    cmd["detail"] = i.detail
                if i.source is not None:
                    cmd["cause"] = i.source
                out.commands.append(cmd)
        if "armour" not in reset and was.armour != now.armour:
            _armour_command(cid, was, now, out)
        if "renown" not in reset and was.renown != now.renown:
            out.commands.append(
                commands.adjust_renown(
                    combatant=cid, change=was.renown - now.renown, reason="carried"
                )
            )


def _armour_command(cid: str, was: Combatant, now: Combatant, out: Carry) -> None:
    """The armour as the last session left it (I-C8): its durability, set on the very piece
    the table file gives; a piece the table file changed (another name or reduction) is the
    table file's, and said so."""
    if (was.armour.name, was.armour.reduction) != (now.armour.name, now.armour.reduction):
        out.skipped.append(
            f"combatant {cid!r}: the table file gives it {now.armour.name} (reduction"
            f" {now.armour.reduction}), not the {was.armour.name} (reduction"
            f" {was.armour.reduction}, durability {was.armour.durability}) it wore (I-C8): the"
            " table file's stands. To keep the worn one: put it back in [[combatants]] armour"
            " and start again with --carry"
        )
        return
    out.commands.append(
        commands.set_armour(combatant=cid, durability=was.armour.durability, cause="carried")
    )


def carry(start: TableState, last: TableState, reset: Iterable[str] = ()) -> Carry:
    """The commands that take ``start`` (the table file's state) to what ``last`` carries,
    then begin the session; those the engine refuses are left out and said in ``skipped``."""
    parts = frozenset(reset)
    out = Carry()
    _hero_commands(start, last, parts, out)
    _reserve_commands(start, last, parts, out)
    _time_commands(start, last, parts, out)
    _combat_commands(start, last, parts, out)
    number = (last.time.session if last.time is not None else 0) + 1
    out.commands.append(commands.start_session(number=number))
    state = start
    kept = []
    for cmd in out.commands:
        try:
            state, _ = apply(state, cmd)
        except CommandRejected as e:
            out.skipped.append(
                f"{cmd['cmd']} {cmd.get('hero') or cmd.get('combatant') or ''}: {e.violation}"
            )
            continue
        kept.append(cmd)
    # each carried value says which session it comes from (a request id, which the engine
    # ignores and the journal keeps): the history reads "carried from session N" (narrate.py)
    came_from = carried_id(number - 1)
    out.commands = []
    for c in kept:
        if c["cmd"] != "start_session":
            c = c.copy()
            c["id"] = came_from
        out.commands.append(c)
    return out


def carried_id(session: int) -> str:
    """The request id of a value carried from ``session`` (0: a session before numbering)."""
    return f"carry:session-{session}" if session > 0 else "carry:last-session"


def carry_from(
    state_dir: str | Path, table_file: str | Path, start: TableState, reset: Iterable[str]
) -> Carry:
    """What the current journal in ``state_dir`` carries onto ``start`` (nothing without one)."""
    from companion.record.journal import open_journal
    from companion.table.journal import JOURNAL

    path = Path(state_dir) / JOURNAL
    if not path.exists():
        return Carry(skipped=[f"{path}: no journal, so no earlier session to carry on from"])
    try:
        with open_journal(path) as journal:
            last = journal.last_state(table_file)
    except ConfigError as e:
        raise ConfigError(
            f"--carry: the last session's state cannot be read: {e}. Without a snapshot at its"
            " last command it is replayed from the table file as it was: put that file back for"
            " this start, or start the new session without --carry"
        ) from None
    return carry(start, last, reset)
