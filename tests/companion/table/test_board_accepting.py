"""What the board offers the WorldKeeper's "accept as drawn" (companion/table/board.py,
``Board.lying``; docs/readers.md): the token of the table lying alone on an unsync well, and
nothing for a tag it cannot count."""

from __future__ import annotations

import engine
from companion.table.board import Board
from firmware_bridge.events import Presence, TagEvent, Uid
from tests.harness import EXAMPLE_TABLE

#: UIDs the test's registry knows: one of the table's tokens, one enrolled for another table
TOKENS = {"04A1B2C3": "aria.weight.0", "04B2C3D4": "elsewhere.ember.lore"}


def tag(channel: int, uid: str, presence: Presence = Presence.PRESENT) -> TagEvent:
    return TagEvent("draw-board", channel, Uid(bytes.fromhex(uid)), presence, 0.0)


def laid(board: Board, channel: int, uid: str) -> None:
    board.tag(tag(channel, uid))


def test_only_a_token_of_the_table_alone_on_its_well_is_offered():
    state = engine.load_table(EXAMPLE_TABLE)
    board = Board(TOKENS.get)
    laid(board, 0, "04A1B2C3")  # Aria's, laid while no Performance runs: not drawn
    laid(board, 1, "04B2C3D4")  # enrolled, but for another table: an unknown tag here
    laid(board, 2, "04FFFFFF")  # nobody enrolled it
    laid(board, 3, "04A1B2C3")
    board.crowd("draw-board", 3, True)  # two tokens: the reader cannot say the extra one
    said = board.unsync(state)
    assert said["board draw-board channel 1"].endswith(
        "holds an unknown tag (04B2C3D4): take it away"
    )
    assert board.lying("board draw-board channel 0") == "aria.weight.0"
    assert board.lying("board draw-board channel 1") is None
    assert board.lying("board draw-board channel 2") is None
    assert board.lying("well draw-board channel 3") is None
    assert board.lying("board draw-board channel 3") is None
    # taken away: nothing offered once it is no longer said
    board.tag(tag(0, "04A1B2C3", Presence.REMOVED))
    board.unsync(state)
    assert board.lying("board draw-board channel 0") is None
