"""A bag audit before play: a bag's tokens passed over a reader, checked against the table file.

A mis-packed bag (a token missing, one from another hero's bag, a spare tag) is otherwise
found, if ever, when it is drawn (issue 43, item 4). The WorldKeeper starts an audit of one
bag (the Favor Bag's 23 tokens, a hero's 18), passes each of its tokens over any reader, one
after another, and the table answers: seen N of M, what is missing (named), what is extra
(a tag nobody enrolled, a tag enrolled as a token this table does not have) and what belongs
to another bag (named, with that bag).

It lives here, beside enrolment, because it is the same question asked the other way round
(which token is this tag, and whose bag is its home) and needs only the registry and the
table's tokens: a pure state machine over reads, with no reader, clock or file, so every
decision is tested without I/O. Who feeds it is theirs: ``rhuna-table audit`` (its readers'
events) and the service (its tag sink, while an audit runs: ``companion/table/audit.py``).

Each read is a UID the reader has already counted as present (the settle rule of
docs/readers.md: a bounce or a re-read is one ``present``); a token passed twice is counted
once and said "already seen".

>>> from engine import load_table
>>> state = load_table("examples/table.toml")
>>> registry = TagRegistry.synthetic(state.tokens)
>>> audit = Audit(state, registry, "favor")
>>> audit.expected[:1], len(audit.expected)
(('favor.01',), 23)
>>> audit.read(registry.uid("favor.01")).text
'1 of 23: Favor: The Warden (control)'
>>> audit.read(registry.uid("favor.01")).verdict
<Heard.AGAIN: 'already seen'>
>>> audit.read(registry.uid("aria.ember.skill")).text
"Aria's skill Ember (control): from another bag, it belongs in Aria's Hero Bag"
>>> audit.read("04DEADBEEF0001").text
'04DEADBEEF0001: an unknown tag (no token has it)'
>>> print("\\n".join(audit.result().lines()[:2]))
audit of the Favor Bag: 1 of 23 seen, 22 missing, 1 extra, 1 from another bag
  missing: Favor: The Warden (control) (favor.02)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.audit import bag_named, bags_with_tokens
from engine.state import TableState
from firmware_bridge.uid import Uid, UidError, normalise_uid
from settings.errors import ConfigError
from tags.registry import TagRegistry

__all__ = ["Audit", "AuditResult", "Heard", "Read", "audit_bag_of"]


class Heard(StrEnum):
    """What one read meant for the audit."""

    #: a token of the audited bag, seen for the first time: counted
    COUNTED = "counted"
    #: a tag already seen in this audit (a token passed twice): said, not counted again
    AGAIN = "already seen"
    #: a token this table has, whose home is another bag
    OTHER_BAG = "other bag"
    #: a tag nobody enrolled, or enrolled as a token this table does not have: extra
    EXTRA = "extra"
    #: not a UID at all (a line reader printing something odd): said, never counted
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Read:
    """One read and what it meant: its words are what the audit says for it."""

    verdict: Heard
    uid: str
    text: str
    #: the token the tag is (None: an unknown tag)
    token: str | None = None
    #: the token's home bag, when it is another bag's
    bag: str | None = None


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What the audit found, at any moment (its end's is the answer)."""

    bag: str
    bag_name: str
    #: every token of the bag, in the table's order
    expected: tuple[str, ...]
    #: the bag's tokens seen, in the order they were passed
    seen: tuple[str, ...]
    #: the bag's tokens not seen, in the table's order
    missing: tuple[str, ...]
    #: tags that are no token of this table: (UID, the token id a registry gave it, or None)
    extra: tuple[tuple[str, str | None], ...]
    #: tokens of this table whose home is another bag: (token id, its bag)
    others: tuple[tuple[str, str], ...]
    #: every token's name and every bag's, for the words
    names: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def complete(self) -> bool:
        """Every token of the bag seen, and nothing else passed over the reader."""
        return not self.missing and not self.extra and not self.others

    def summary(self) -> str:
        """One line: ``audit of the Favor Bag: 23 of 23 seen, nothing missing``."""
        head = f"audit of {self.bag_name}: {len(self.seen)} of {len(self.expected)} seen"
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} missing")
        if self.extra:
            parts.append(f"{len(self.extra)} extra")
        if self.others:
            parts.append(f"{len(self.others)} from another bag")
        if not parts:
            return f"{head}, nothing missing, nothing extra"
        return f"{head}, {', '.join(parts)}"

    def lines(self) -> list[str]:
        """The answer in words: the summary, then each token missing, each extra tag and
        each token of another bag, one a line."""
        out = [self.summary()]
        out += [f"  missing: {self._name(t)} ({t})" for t in self.missing]
        for uid, token in self.extra:
            what = f"enrolled as {token}, a token this table does not have" if token else "unknown"
            out.append(f"  extra: tag {uid} ({what})")
        for token, bag in self.others:
            out.append(
                f"  from another bag: {self._name(token)} ({token}), it belongs in"
                f" {self._name(bag)}"
            )
        return out

    def _name(self, key: str) -> str:
        return self.names.get(key, key)

    def to_json(self) -> dict[str, Any]:
        """The answer as the remote reads it: ids, names and the words."""
        return {
            "bag": self.bag,
            "bag_name": self.bag_name,
            "expected": len(self.expected),
            "seen": len(self.seen),
            "complete": self.complete,
            "missing": [{"token": t, "name": self._name(t)} for t in self.missing],
            "extra": [{"uid": u, "token": t} for u, t in self.extra],
            "others": [
                {"token": t, "name": self._name(t), "bag": b, "bag_name": self._name(b)}
                for t, b in self.others
            ],
            "lines": self.lines(),
        }


def audit_bag_of(state: TableState, name: str) -> str:
    """The bag ``name`` means (a bag id, or a hero's id for that hero's Hero Bag); a
    :class:`ConfigError` naming this table's bags when it means none."""
    bag = bag_named(state, name)
    if bag is None:
        bags = ", ".join(bags_with_tokens(state))
        raise ConfigError(
            f"{name}: this table has no such bag — its bags: {bags} (or a hero: "
            f"{', '.join(state.heroes)})"
        )
    return bag


class Audit:
    """One bag's audit: :meth:`read` each UID a reader counts, :meth:`result` at any time.

    ``state`` gives the table file's tokens and their home bags (a token's home bag,
    wherever it lies now); ``registry`` which tag is which token.
    """

    def __init__(self, state: TableState, registry: TagRegistry, bag: str) -> None:
        self.bag = audit_bag_of(state, bag)
        self.registry = registry
        self.homes = {t.id: t.bag for t in state.tokens.values()}
        self.names = {t.id: t.name for t in state.tokens.values()}
        self.names.update({b.id: b.name for b in state.bags.values()})
        self.bag_name = self.names.get(self.bag, self.bag)
        self.expected = tuple(t for t, home in self.homes.items() if home == self.bag)
        self._seen: list[str] = []
        self._heard: set[Uid] = set()
        self._extra: list[tuple[str, str | None]] = []
        self._others: list[tuple[str, str]] = []

    @property
    def finished(self) -> bool:
        """Every token of the bag has been seen (the audit may end by itself)."""
        return len(self._seen) == len(self.expected)

    def read(self, uid: Uid | str) -> Read:
        """What one read means; the audit counts it (once) and says it."""
        try:
            key = uid if isinstance(uid, Uid) else normalise_uid(uid)
        except UidError:
            return Read(Heard.INVALID, str(uid), f"{uid!r}: not a tag's UID, ignored")
        text = str(key)
        token = self.registry.token_id(key)
        if key in self._heard:
            what = self.names.get(token, token) if token is not None else f"tag {text}"
            return Read(Heard.AGAIN, text, f"already seen: {what}", token)
        self._heard.add(key)
        if token is None or token not in self.homes:
            self._extra.append((text, token))
            why = "an unknown tag (no token has it)"
            if token is not None:
                why = f"enrolled as {token}, a token this table does not have"
            return Read(Heard.EXTRA, text, f"{text}: {why}", token)
        home = self.homes[token]
        name = self.names[token]
        if home != self.bag:
            self._others.append((token, home))
            where = self.names.get(home, home)
            return Read(
                Heard.OTHER_BAG,
                text,
                f"{name}: from another bag, it belongs in {where}",
                token,
                home,
            )
        self._seen.append(token)
        return Read(
            Heard.COUNTED, text, f"{len(self._seen)} of {len(self.expected)}: {name}", token
        )

    def result(self) -> AuditResult:
        seen = set(self._seen)
        return AuditResult(
            self.bag,
            self.bag_name,
            self.expected,
            tuple(self._seen),
            tuple(t for t in self.expected if t not in seen),
            tuple(self._extra),
            tuple(self._others),
            self.names,
        )
