"""A WorldKeeper's note (I-T13): a line of what happened at the table, journaled with the night.

``{"cmd": "note", "text": "the lich heard them", "audience": "worldkeeper"}`` changes nothing
in the game: it is one event, ``note``, with its words and who may read them. ``audience`` is
the one the engine gives every event (engine.contracts.events.Audience): ``worldkeeper`` (the
default: the remote, the CLI, the history and the recap the WorldKeeper keeps; never on a page
the players or a stream see), ``table`` (the table display too) or ``public`` (the overlay and
the wall as well). The text is at most ``limits.string_length`` characters, like every string.
Undo does not take a note back (it changes no state: records_history is False); a wrong one is
followed by another.
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.contracts.commands import NoteArgs
from engine.contracts.events import AUDIENCES
from engine.errors import CommandRejected
from engine.events import Event
from engine.narrate import NARRATORS
from engine.state import TableState
from engine.vocabulary import CommandSpec, Field, command


@command(
    CommandSpec(
        "note",
        "A WorldKeeper's note: words kept in the night's history and recap, changing nothing in"
        " the game; worldkeeper-only unless marked table or public.",
        "table",
        ("I-T13",),
        {
            "text": Field("string", "the note's words (one line or two)", True),
            "audience": Field(
                "string",
                "who may read it: worldkeeper (the WorldKeeper only), table (the table display"
                " too) or public (the overlay and the wall as well)",
                enum=AUDIENCES,
                default="worldkeeper",
            ),
        },
        records_history=False,
    )
)
def note(state: TableState, args: NoteArgs) -> tuple[TableState, list[Event]]:
    text = " ".join(str(args["text"]).split())
    if not text:
        raise CommandRejected(
            "note: the text is empty",
            rule="I-T13",
            field="text",
            code="malformed",
            fix='give the note\'s words, e.g. "text": "the lich heard them"',
        )
    return state, [ev.note({"text": text, "audience": args["audience"]})]


NARRATORS.add("note", lambda s, d: f"Note: {d['text']}")
