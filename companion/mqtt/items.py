"""What the bridge's publisher thread is asked to do: the items of its queue.

The loop's turn (companion.mqtt.fast_path), paho's thread (companion.mqtt.intake and
companion.mqtt.identity) and the answers' thread put them; only the publisher
(companion.mqtt.publisher) takes them, in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.mqtt.messages import Reply
from companion.table.loop import Outcome
from engine.state import TableState


@dataclass(frozen=True, slots=True)
class Told:
    """An outcome the loop told the bridge, and what its turn already sent of it."""

    outcome: Outcome
    at: str
    #: the event messages the loop's thread already published (None: the publisher does)
    sent: list[dict[str, Any]] | None = None
    #: the outcome's number (each outcome one more); a state is never published after a newer
    version: int = 0


@dataclass(frozen=True, slots=True)
class SendReply:
    payload: Reply


@dataclass(frozen=True, slots=True)
class Ready:
    """The broker acknowledged ``online`` on connection number ``generation`` (the holder's,
    with the last will), or a standby's claim was decided on it (no will: nothing but the
    clash goes out)."""

    generation: int


@dataclass(frozen=True, slots=True)
class Rewill:
    """The claim was decided on connection number ``generation``: connect again with the last
    will on ``…/status`` if this service holds the table, without it if it stands by."""

    generation: int


@dataclass(frozen=True, slots=True)
class Seen:
    """A retained message on a topic the bridge may have to clear (a hero who left)."""

    topic: str
    empty: bool


@dataclass(frozen=True, slots=True)
class InfoSeen:
    """A retained ``…/info`` (ours, or another instance's with the same table id)."""

    payload: bytes


@dataclass(frozen=True, slots=True)
class SendNotice:
    """A notice for ``…/events`` (no ``seq``: not an engine event; companion.mqtt.messages)."""

    payload: str


@dataclass(frozen=True, slots=True)
class BoardSaid:
    """The table's alert about the board (companion.table.board): said (``text``), or over
    (None); ``token``: the token lying alone on that well, if any."""

    key: str
    text: str | None
    token: str | None = None


@dataclass(frozen=True, slots=True)
class PanelSaid:
    """The display worker's word on the panel (display.worker): not responding (``problem``, in
    words), or responding again (None)."""

    problem: str | None


@dataclass(frozen=True, slots=True)
class AuditSaid:
    """The bag audit's report (companion/table/audit.py): a read, or its answer."""

    report: Mapping[str, Any]


class Refresh:
    """Home Assistant restarted (or a recap was written): send discovery and state again."""


@dataclass(frozen=True, slots=True)
class TakeOver:
    """The holder of this table id went offline: this service, standing by, now acts."""

    other: dict[str, Any] | None


class Stop:
    pass


@dataclass(frozen=True, slots=True)
class Answered:
    """A state's pending answers came (companion.views.answers): publish it whole if still ours."""

    state: TableState


Item = (
    Told
    | SendReply
    | SendNotice
    | Ready
    | Rewill
    | Seen
    | InfoSeen
    | Refresh
    | Stop
    | Answered
    | TakeOver
    | BoardSaid
    | AuditSaid
    | PanelSaid
)
