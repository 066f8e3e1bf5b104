"""``apply(state, command) -> (state, events)``: the one place the table changes.

Pure: no I/O, no clock, no randomness that the command does not carry. A refused
command raises :class:`~engine.errors.CommandRejected`; since states are values,
the caller's state is untouched. Every state-changing command pushes the state
it replaced onto ``history`` (bounded by the rules' Undo depth), so ``undo`` is
itself a command and can be repeated. The new state keeps, as ``change``, that command
in words: what the next Undo takes back, published in the view (``undo``) so that a
remote's Undo button names it. A command that records no history (a note) is skipped
by Undo; one marked ``undo_floor`` (``start_session``) is where Undo stops.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import UndoArgs
from engine.errors import CommandRejected, RuleViolation
from engine.events import Event
from engine.immutable import replace
from engine.state import Change, TableState
from engine.vocabulary import REGISTRY, Command, CommandSpec, command, parse_command


def apply(state: TableState, cmd: Command | Mapping[str, Any]) -> tuple[TableState, list[Event]]:
    """Apply one command (a :class:`Command` or its JSON object) and say what happened."""
    parsed = parse_command(cmd, state.rules)
    spec, handler = REGISTRY[parsed.name]
    if parsed.name == "undo":
        return handler(state, parsed.args)
    base = state.without_history()
    new, events = handler(base, parsed.args)
    if not spec.records_history:
        return replace(new, history=state.history), events
    change = Change(parsed.name, _in_words(new, parsed.name, events))
    if spec.undo_floor:
        return replace(new, history=(), change=change), events
    depth = state.rulebook.undo_depth
    history = (*state.history, base)
    if len(history) > depth:
        history = history[len(history) - depth :]
    return replace(new, history=history, change=change), events


def _in_words(state: TableState, name: str, events: list[Event]) -> str:
    """A command's events as the history tells them (the first two), or its name."""
    from engine.narrate import describe  # the narrators import the state; not at load

    texts = [t for t in (describe(state, e) for e in events) if t]
    if not texts:
        return name.replace("_", " ")
    return "; ".join(texts[:2]) + (" …" if len(texts) > 2 else "")


@command(
    CommandSpec(
        "undo",
        "Take back the last state-changing command (repeatable, up to the rules' Undo depth).",
        "table",
        (),
        records_history=False,
    )
)
def undo(state: TableState, args: UndoArgs) -> tuple[TableState, list[Event]]:
    if not state.history:
        floor = state.change is not None and REGISTRY[state.change.cmd][0].undo_floor
        if floor and state.change is not None:
            raise CommandRejected(
                f"nothing to undo since {state.change.cmd}: a session's start is the floor of"
                " Undo (what it carried from the last session comes before it)",
                rule="T1",
                code="illegal",
                fix="change a carried value with its own command (adjust_hero, heal_injuries,"
                " set_time …), or start the session again with --new-session --carry --reset"
                " <part>",
            )
        raise CommandRejected("nothing to undo", code="illegal", fix="nothing has changed yet")
    taken = state.change
    previous = replace(state.history[-1], history=state.history[:-1])
    done: ev.Undone = {"remaining": len(previous.history)}
    if taken is not None:
        done["cmd"] = taken.cmd
        done["what"] = taken.text
    return previous, [ev.undone(done)]


def replay(state: TableState, commands: list[Mapping[str, Any]]) -> tuple[TableState, list[Event]]:
    """Apply commands in order, stopping at the first refusal (which is raised)."""
    events: list[Event] = []
    for c in commands:
        state, more = apply(state, c)
        events += more
    return state, events


def check(state: TableState, cmd: Command | Mapping[str, Any]) -> RuleViolation | None:
    """Would :func:`apply` refuse ``cmd`` now? Its refusal, or None; nothing is applied.

    The adapters ask this instead of re-checking a rule themselves (the wheel warns
    before a push, a page greys out a button): the answer is the engine's own.

    >>> from engine import load_table
    >>> state = load_table("examples/table.toml")
    >>> check(state, {"cmd": "draw", "hero": "aria", "seed": 1}).rule
    'P19'
    >>> check(state, {"cmd": "begin_performance", "difficulty": 5}) is None
    True
    """
    try:
        apply(state, cmd)
    except CommandRejected as e:
        return e.violation
    return None
