"""``apply(state, command) -> (state, events)``: the one place the table changes.

Pure: no I/O, no clock, no randomness that the command does not carry. A refused
command raises :class:`~engine.errors.CommandRejected`; since states are values,
the caller's state is untouched. Every state-changing command pushes the state
it replaced onto ``history`` (bounded by the rules' Undo depth), so ``undo`` is
itself a command and can be repeated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import UndoArgs
from engine.errors import CommandRejected, RuleViolation
from engine.events import Event
from engine.immutable import replace
from engine.state import TableState
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
    depth = state.rulebook.undo_depth
    history = (*state.history, base)
    if len(history) > depth:
        history = history[len(history) - depth :]
    return replace(new, history=history), events


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
        raise CommandRejected("nothing to undo", code="illegal", fix="nothing has changed yet")
    previous = replace(state.history[-1], history=state.history[:-1])
    return previous, [ev.undone({"remaining": len(previous.history)})]


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
