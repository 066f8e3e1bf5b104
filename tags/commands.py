"""From a tag laid on a reader to a command of the vocabulary.

The UID says which token it is (the registry); the token says whose bag it came
from; the reader's role says what laying it there means. So a Hero Bag token on
the Draw Board is that hero's ``draw``, a Favor token is ``call_favor`` for the
hero drawing now, a Time token is ``draw_time``, a Weather token ``draw_weather``.
Whether that is *legal* is the engine's business: a token from the wrong bag is
refused there, with the rule id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.contracts import commands
from engine.contracts.commands import AnyCommand
from engine.errors import RuleViolation
from engine.picking import hero_meant
from engine.state import TableState
from engine.tokens import TokenKind
from firmware_bridge.events import TagEvent
from tags.registry import TagRegistry

#: what a reader channel is for; ``enroll``: the reader ``rhuna-table enroll`` uses, which the
#: running table ignores
ROLES = ("board", "favor", "time", "weather", "enroll")


@dataclass(frozen=True, slots=True)
class ReaderRoles:
    """Role of each reader channel: ``{"draw-board": "board", "bags": {0: "favor", 1: "time"}}``.

    A reader named with one role string serves it on every channel; readers not
    listed are Draw Board readers.
    """

    roles: Mapping[str, str | Mapping[int, str]] = field(default_factory=dict)
    default: str = "board"

    def role(self, reader: str, channel: int) -> str:
        r = self.roles.get(reader, self.default)
        if isinstance(r, str):
            return r
        return r.get(channel, self.default)


def command_for_tag(
    state: TableState,
    registry: TagRegistry,
    event: TagEvent,
    roles: ReaderRoles,
) -> AnyCommand | RuleViolation | None:
    """The command a tag event means, a violation to show, or None (nothing to do)."""
    if event.presence != "present":
        return None  # lifting a token off the Draw Board changes nothing by itself
    role = roles.role(event.reader, event.channel)
    if role == "enroll":
        return None  # the enrolment reader is for ``rhuna-table enroll``, not for play
    token_id = registry.token_id(event.uid)
    where = f"{event.reader} channel {event.channel}"
    if token_id is None:
        return RuleViolation(
            f"unknown tag {event.uid} on {where}",
            code="unknown",
            fix="enrol it (rhuna-table enroll) or check the token",
        )
    return command_for_token(state, token_id, role, event.uid, where)


def command_for_token(
    state: TableState,
    token_id: str,
    role: str,
    uid: str = "",
    where: str = "the Draw Board",
) -> AnyCommand | RuleViolation:
    """The command laying the token ``token_id`` on a reader of ``role`` means, or the
    violation to show (:mod:`companion.table.ponder` asks it of every token that may come next)."""
    token = state.tokens.get(token_id)
    if token is None:
        return RuleViolation(
            f"tag {uid} is enrolled as {token_id!r}, which this table does not have",
            code="unknown",
            fix="re-enrol the tag for this table",
        )
    kind = token.kind
    if kind is TokenKind.FAVOR and role in ("board", "favor"):
        hero = _favor_hero(state)
        if hero is None:
            return RuleViolation(
                f"{token.name}: which hero calls Favor?",
                rule="P18",
                fix="declare and draw for the hero first, then lay the Favor token",
            )
        return commands.call_favor(hero=hero, token=token_id)
    if kind is TokenKind.TIME and role in ("board", "time"):
        return commands.draw_time(token=token_id, resolve=True)
    if kind is TokenKind.WEATHER and role in ("board", "weather", "time"):
        # the Weather Bag is named by the token's own bag (weather.overworld → overworld)
        return commands.draw_weather(bag=token.bag.rpartition(".")[2], token=token_id)
    owner = state.bags[token.bag].owner if token.bag in state.bags else None
    if owner is not None and role == "board":
        return commands.draw(hero=owner, token=token_id)
    return RuleViolation(
        f"{token.name} laid on the {role} reader ({where})",
        field="token",
        fix=f"lay it on {'the Draw Board' if owner else f'the {kind.value} reader'}",
    )


def _favor_hero(state: TableState) -> str | None:
    """The hero drawing now (the engine keeps it in the Performance), else the only one."""
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    return hero_meant([c.hero for c in perf.contributions if c.checks], [perf.drawing])
