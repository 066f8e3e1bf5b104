"""The board as a state: what each well holds, as the readers report it, beside what the engine
drew (issue 43, item 1; docs/readers.md, "The board, in sync or not").

The engine knows what was drawn; the readers know what lies on each well. :class:`Board` keeps
the second and compares it with the first after every input, the way the open Chess Peripheral
Protocol reports ``sync`` or ``unsync``: a well whose content the engine does not account for
makes the table **unsync**, said in words (where, what, and how to resolve it) until it is
resolved. Nothing is counted from such a well: the engine has already refused what lies there
(that is why it disagrees), and the notice stays until the token is taken away.

A well holds one of: nothing, a known token, an unknown tag, two or more tags (the readers'
"one token per well", :mod:`firmware_bridge.hub`), or a tag that reads poorly (the hub's
"reads poorly": read now and then, never steadily enough to count; unsync until it reads
steadily, then counted as usual, or is taken away). A well is in sync when what lies there is
where the engine says laying it put it (:func:`placed`), per kind:

- a hero's token (Ember, Potential, Weight, Strain, a temporary token in a hero's bag) and a
  Favor token: while the engine has it on the Draw Board (drawn, or called as Favor);
- a Weather token: while it is the current weather;
- a Time token: while it is the drawn one (pending or the last resolved) or lies on the Time
  Board's spaces.

Reader channels with the ``enroll`` role never feed the board (``rhuna-table enroll`` uses
them, the table ignores them). A token drawn or called on a well and lifted before the
Performance is resolved is unsync too ("drawn but lies on no well"); after the Performance is
resolved, lifting tokens is clearing the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.state import TableState
from engine.tokens import TokenKind
from firmware_bridge.events import TagEvent
from tags.commands import ReaderRoles

#: the alert keys of an unsync well or token start with this
KEY = "board "
#: the alert key of a well with two or more tags on it (the readers' own notice's key)
CROWDED_KEY = "well "

Well = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Holding:
    """What one well holds: ``token`` (a token id) or, for a tag nobody enrolled, only ``uid``;
    ``counted``: the engine has had the token where laying it puts it while it lay here."""

    uid: str
    token: str | None
    counted: bool = False


class Board:
    """What each well holds, by ``(reader, channel)``; ``token_id`` is the registry's lookup,
    ``roles`` the readers' channel roles (an ``enroll`` channel is not a well of the board)."""

    def __init__(
        self, token_id: Callable[[str], str | None], roles: ReaderRoles | None = None
    ) -> None:
        self._token_id = token_id
        self._roles = roles or ReaderRoles()
        self.wells: dict[Well, Holding] = {}
        #: wells the readers say hold two or more tags
        self.crowded: set[Well] = set()
        #: wells the readers say hold a tag read poorly, never steadily enough to count: its UID
        self.poorly: dict[Well, str | None] = {}
        #: tokens drawn or called on a well in the running, unresolved Performance
        self.laid: set[str] = set()
        #: the last :meth:`unsync`'s wells that hold one known token alone: key -> token
        self.accepting: dict[str, str] = {}

    def feeds(self, reader: str, channel: int) -> bool:
        """Whether this reader channel is a well of the board (every role but ``enroll``)."""
        return self._roles.role(reader, channel) != "enroll"

    def tag(self, event: TagEvent) -> None:
        """A reader's report: the well holds this tag now, or nothing."""
        if not self.feeds(event.reader, event.channel):
            return
        well = (event.reader, event.channel)
        if event.present:
            self.wells[well] = Holding(event.uid, self._token_id(event.uid))
        else:
            self.wells.pop(well, None)

    def crowd(self, reader: str, channel: int, active: bool) -> None:
        """A reader's "one token per well": two or more tags on this well, or one again."""
        if not self.feeds(reader, channel):
            return
        if active:
            self.crowded.add((reader, channel))
        else:
            self.crowded.discard((reader, channel))

    def reads_poorly(self, reader: str, channel: int, uid: str | None, active: bool) -> None:
        """A hub's "reads poorly": a tag (``uid``, when the hub said it) read on this well now
        and then, never steadily enough to count; or read steadily again, or gone."""
        if not self.feeds(reader, channel):
            return
        if active:
            self.poorly[(reader, channel)] = uid
        else:
            self.poorly.pop((reader, channel), None)

    def lying(self, key: str) -> str | None:
        """The token the last :meth:`unsync` said under ``key`` lies alone on that well (a
        token of the table, named in its words): what the WorldKeeper's "accept as drawn"
        would count (``accept_as_drawn``). None for an unknown tag (or one enrolled for another
        table), two or more tags, a tag that reads poorly, a token lifted."""
        return self.accepting.get(key)

    def unsync(self, state: TableState) -> dict[str, str]:
        """Every well or token the engine does not account for: alert key -> what to say."""
        out: dict[str, str] = {}
        accepting: dict[str, str] = {}
        perf = state.performance
        running = perf is not None and not perf.resolved
        lying: set[str] = set()
        for well, held in sorted(self.wells.items()):
            reader, channel = well
            where = f"{reader} channel {channel}"
            if well in self.crowded:
                continue  # said below, whatever lies under the extra token
            if held.token is None or held.token not in state.tokens:
                out[KEY + where] = (
                    f"unsync: {where} holds an unknown tag ({held.uid}): take it away"
                )
                continue
            token = held.token
            lying.add(token)
            if placed(state, token):
                if not held.counted:
                    self.wells[well] = replace(held, counted=True)
                if running and state.location(token).startswith("board:"):
                    self.laid.add(token)
                continue
            name = state.tokens[token].name
            loc = state.location(token)
            accepting[KEY + where] = token
            if held.counted:
                out[KEY + where] = f"unsync: {where} holds {name}, {_gone(state, loc)}"
            else:
                out[KEY + where] = (
                    f"unsync: {where} holds {name}, not drawn: take it away ({_said(state, loc)})"
                )
        for well in sorted(self.crowded):
            reader, channel = well
            where = f"{reader} channel {channel}"
            under = self.wells.get(well)
            if under is not None and under.token is not None:
                lying.add(under.token)
            # the readers' own words (the MQTT ``notice`` says the same, docs/mqtt.md)
            out[CROWDED_KEY + where] = f"one token per well: lift the extra token ({where})"
        for well, uid in sorted(self.poorly.items()):
            reader, channel = well
            where = f"{reader} channel {channel}"
            read = self._token_id(uid) if uid is not None else None
            if read is not None and read in state.tokens:
                which = f" ({state.tokens[read].name}?)"
            else:
                which = f" ({uid}?)" if uid is not None else ""
            out[KEY + "poorly " + where] = (
                f"unsync: {where}: a token reads poorly{which}: lay it flat in the middle of"
                " the well"
            )
        for token in sorted(self.laid):
            loc = state.location(token) if token in state.tokens else "supply"
            if not running or not loc.startswith("board:"):
                self.laid.discard(token)  # resolved, reset, cancelled, undone, set aside
            elif token not in lying:
                name = state.tokens[token].name
                how = "called" if state.tokens[token].kind is TokenKind.FAVOR else "drawn"
                out[KEY + "lifted " + token] = (
                    f"unsync: {name} was {how} but lies on no well: put it back, or Undo"
                )
        self.accepting = accepting
        return out


def placed(state: TableState, token_id: str) -> bool:
    """Whether the engine has the token where laying it on a reader puts it, by its kind."""
    kind = state.tokens[token_id].kind
    board = state.time
    if kind is TokenKind.WEATHER:
        return board is not None and board.weather is not None and board.weather.token == token_id
    if kind is TokenKind.TIME:
        if board is None:
            return False
        drawn = [d.token for d in (board.pending, board.last) if d is not None]
        return token_id in drawn or token_id in board.spaces
    return state.location(token_id).startswith("board:")


def _said(state: TableState, location: str) -> str:
    kind, _, rest = location.partition(":")
    if kind == "bag":
        return f"it belongs in {state.bags[rest].name}"
    if kind == "aside":
        return f"set aside for {_hero(state, rest)} until Reset"
    return "not in any bag"


def _gone(state: TableState, location: str) -> str:
    """Where a token counted on its well has gone since, and what to do with it."""
    kind, _, rest = location.partition(":")
    if kind == "bag":
        return "back in its bag now: put it there"
    if kind == "aside":
        return f"set aside for {_hero(state, rest)} until Reset: take it away"
    return "out of play now: take it away"


def _hero(state: TableState, hero_id: str) -> str:
    hero = state.heroes.get(hero_id)
    return hero.name if hero is not None else hero_id
