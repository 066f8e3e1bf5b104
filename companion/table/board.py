"""The board as a state: what each well holds, as the readers report it, beside what the engine
drew (issue 43, item 1; docs/readers.md, "The board, in sync or not").

The engine knows what was drawn; the readers know what lies on each well. :class:`Board` keeps
the second and compares it with the first after every input, the way the open Chess Peripheral
Protocol reports ``sync`` or ``unsync``: a well whose content the engine does not account for
makes the table **unsync**, said in words (where, what, and how to resolve it) until it is
resolved. Nothing is counted from such a well: the engine has already refused what lies there
(that is why it disagrees), and the notice stays until the token is taken away.

A well holds one of: nothing, a known token, an unknown tag. Two or more tags on a well are the
readers' own notice ("one token per well", :mod:`firmware_bridge.hub`), not repeated here.

Kept so far (the rest of item 1 is not built yet: a drawn token that lies on no well, "accept
as drawn"): an unknown tag on a well, and a known token on a well that the engine has not drawn
(another hero's token, one refused, one laid while no Performance runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.state import TableState
from firmware_bridge.events import TagEvent

#: the alert keys of an unsync well start with this
KEY = "board "


@dataclass(frozen=True, slots=True)
class Holding:
    """What one well holds: ``token`` (a token id) or, for a tag nobody enrolled, only ``uid``."""

    uid: str
    token: str | None


class Board:
    """What each well holds, by ``(reader, channel)``; ``token_id`` is the registry's lookup."""

    def __init__(self, token_id: Callable[[str], str | None]) -> None:
        self._token_id = token_id
        self.wells: dict[tuple[str, int], Holding] = {}

    def tag(self, event: TagEvent) -> None:
        """A reader's report: the well holds this tag now, or nothing."""
        well = (event.reader, event.channel)
        if event.present:
            self.wells[well] = Holding(event.uid, self._token_id(event.uid))
        else:
            self.wells.pop(well, None)

    def unsync(self, state: TableState) -> dict[str, str]:
        """Every well the engine does not account for: alert key -> what to say, in words."""
        out: dict[str, str] = {}
        for (reader, channel), held in sorted(self.wells.items()):
            where = f"{reader} channel {channel}"
            if held.token is None or held.token not in state.tokens:
                out[KEY + where] = (
                    f"unsync: {where} holds an unknown tag ({held.uid}): take it away"
                )
                continue
            loc = state.location(held.token)
            if not loc.startswith("board:"):
                name = state.tokens[held.token].name
                out[KEY + where] = (
                    f"unsync: {where} holds {name}, not drawn ({_said(loc)}): take it away"
                )
        return out


def _said(location: str) -> str:
    kind, _, rest = location.partition(":")
    if kind == "bag":
        return f"it belongs in bag {rest}"
    if kind == "aside":
        return f"set aside for {rest} until Reset"
    return "not in any bag"
