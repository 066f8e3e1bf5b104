"""The bag audit's command: the WorldKeeper checks a bag before play (docs/readers.md).

``{"cmd": "audit_bag", "bag": "favor"}`` asks the table to start an audit of one bag: its
tokens are passed over a reader one after another, and the table says what is missing, what
is extra and what belongs to another bag, against the table file. The audit is not play: it
changes nothing in the game, so the engine only checks the bag's name here (a bag id, or a
hero's id for that hero's Hero Bag) and journals that an audit was asked for (Undo does not
reach it: ``records_history`` is False). The reads and the answer are the service's
(:mod:`tags.audit` decides them; docs/readers.md, "A bag audit before play").

The command is in the one vocabulary so that every input can ask for it: the remote, a
button of the wheel's (``[gpio.buttons] audit = { pin = …, command = { cmd = "audit_bag",
bag = "favor" } }``), ``--commands -``. The same command while that bag's audit runs ends it
(one button starts and ends it); ``{"cmd": "audit_bag"}`` with no bag ends whatever audit
runs.
"""

from __future__ import annotations

import difflib

from engine.contracts.commands import AuditBagArgs
from engine.errors import CommandRejected
from engine.events import Event
from engine.state import TableState
from engine.vocabulary import CommandSpec, Field, command


def bags_with_tokens(state: TableState) -> list[str]:
    """Every bag some token calls home, in the table's bag order (then any other)."""
    homes = {t.bag for t in state.tokens.values()}
    return [b for b in state.bags if b in homes] + sorted(homes - set(state.bags))


def bag_named(state: TableState, name: str) -> str | None:
    """The bag ``name`` means: a bag id (``favor``, ``time.morning``) or a hero's id (that
    hero's Hero Bag); None when it means none of this table's bags with tokens."""
    bags = bags_with_tokens(state)
    if name in bags:
        return name
    hero = state.heroes.get(name)
    if hero is not None and hero.bag in bags:
        return hero.bag
    return None


@command(
    CommandSpec(
        "audit_bag",
        "Start an audit of one bag before play: its tokens passed over any reader, one after"
        " another, are counted (not drawn), and the table says what is missing, what is extra"
        " and what belongs to another bag. The same command again ends it; without bag it ends"
        " the audit that runs.",
        "table",
        (),
        {
            "bag": Field(
                "string",
                "the bag to audit: a bag id (favor, time.morning …) or a hero id (that hero's"
                " Hero Bag); omit to end the audit that runs",
            ),
        },
        records_history=False,
    )
)
def audit_bag(state: TableState, args: AuditBagArgs) -> tuple[TableState, list[Event]]:
    name = args["bag"]
    if name is not None and bag_named(state, name) is None:
        bags = bags_with_tokens(state)
        close = difflib.get_close_matches(name, [*bags, *state.heroes], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CommandRejected(
            f"audit_bag: this table has no bag {name!r}{hint}",
            field="bag",
            code="unknown",
            fix=f"name a bag ({', '.join(bags)}) or a hero ({', '.join(state.heroes)})",
        )
    return state, []
