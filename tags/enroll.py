"""Enrolment: walking a table's bags token by token, and what each scanned tag means.

Every physical token carries its own RFID tag, and the tag registry
(:mod:`tags.registry`) says which tag is which token. ``rhuna-table enroll``
(``companion/cli/enroll.py``) fills it: it names one token at a time ("now scan:
Aria's skill Ember (control)"), and the person at the table lays that token on a
reader. This module is the walk itself, with no reader, file or clock, so every
decision is tested without I/O:

- :func:`walk_bags` / :func:`select_bags`: which bags, in which order (each Hero Bag
  in hero order, then Favor, Time, Weather, the temporary tokens);
- :class:`Enrolment`: which token is next (the first of the walk without a tag,
  so an interrupted enrolment goes on where it stopped), and what a scanned UID
  means — accepted, the tag just enrolled laid again, a tag another token has,
  the tag this token already has (``--redo``) or not a UID at all;
- :func:`bag_reports`: what is enrolled and what is missing, bag by bag.

>>> from engine import load_table
>>> state = load_table("examples/table.toml")
>>> walk = Enrolment.for_bags(state, TagRegistry(), ["aria"])
>>> walk.current, walk.position, walk.total
('aria.ember.skill', 1, 18)
>>> walk.scan("04A1B2C3D4E5F6").verdict, walk.current, walk.position
(<Verdict.ACCEPTED: 'accepted'>, 'aria.ember.skill.2', 2)
>>> walk.scan("04a1b2c3d4e5f6").verdict   # the same tag again: refused
<Verdict.REPEAT: 'repeat'>
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.state import TableState
from engine.tokens import TokenKind
from firmware_bridge.uid import UidError, normalise_uid
from settings.errors import ConfigError
from tags.registry import TagRegistry

#: the order bags are walked in by kind of token, after the Hero Bags
_KIND_ORDER = (TokenKind.FAVOR, TokenKind.TIME, TokenKind.WEATHER, TokenKind.TEMPORARY)


def walk_bags(state: TableState) -> list[str]:
    """Every bag with tokens, in enrolment order: each Hero Bag in the table's hero order,
    then Favor, the Time Bags, the Weather Bags, the temporary tokens, anything else."""
    kinds: dict[str, set[TokenKind]] = {}
    for token in state.tokens.values():
        kinds.setdefault(token.bag, set()).add(token.kind)
    heroes = [h.bag for h in state.heroes.values() if h.bag in kinds]

    def rank(bag: str) -> int:
        for i, kind in enumerate(_KIND_ORDER):
            if kind in kinds[bag]:
                return i
        return len(_KIND_ORDER)

    others = [b for b in state.bags if b in kinds and b not in heroes]
    others += [b for b in kinds if b not in state.bags and b not in heroes]
    return heroes + sorted(others, key=rank)  # sorted is stable: table order within a kind


def select_bags(state: TableState, names: Sequence[str]) -> list[str]:
    """The bags ``--bag`` names, in the order given (none: every bag, :func:`walk_bags`).

    A name is a bag id (``aria``, ``favor``, ``time.morning``), a hero id (that hero's
    bag), or the part before the dot (``time``: every Time Bag, in walk order).
    """
    order = walk_bags(state)
    if not names:
        return order
    heroes = {h.id: h.bag for h in state.heroes.values()}
    out: list[str] = []
    for name in names:
        if name in order:
            found = [name]
        elif name in heroes and heroes[name] in order:
            found = [heroes[name]]
        else:
            found = [b for b in order if b.partition(".")[0] == name]
        if not found:
            groups = sorted({b.partition(".")[0] for b in order if "." in b})
            known = ", ".join([*order, *groups])
            close = difflib.get_close_matches(name, [*order, *groups], n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"--bag {name}: this table has no such bag{hint} — its bags: {known}")
        out += [b for b in found if b not in out]
    return out


def tokens_in(state: TableState, bags: Iterable[str]) -> list[str]:
    """The tokens whose home is each bag, bag by bag, in the table's own token order (a
    token's home bag, wherever it lies now: Strain tokens, temporary tokens in the box)."""
    out: list[str] = []
    for bag in bags:
        out += [t.id for t in state.tokens.values() if t.bag == bag]
    return out


class Verdict(StrEnum):
    """What a tag scanned for the current token means."""

    #: a new tag: it is now this token's (saved before the next prompt)
    ACCEPTED = "accepted"
    #: ``--redo``: the token already has this very tag; nothing changes
    UNCHANGED = "unchanged"
    #: the tag enrolled a moment ago, laid (or read) again: lift it, lay the next token
    REPEAT = "repeat"
    #: the tag belongs to another token: refused, naming it
    TAKEN = "taken"
    #: not a 4-, 7- or 10-byte UID (a reader printing something odd)
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Scan:
    """One scanned tag and what it meant for ``token`` (the token asked for)."""

    verdict: Verdict
    uid: str
    token: str
    #: the token that has this tag (TAKEN, REPEAT, UNCHANGED)
    holder: str | None = None
    #: the tag ``token`` had before a ``--redo`` replaced it
    replaced: str | None = None

    @property
    def moves_on(self) -> bool:
        """True when the walk goes on to the next token."""
        return self.verdict in (Verdict.ACCEPTED, Verdict.UNCHANGED)


class Enrolment:
    """A walk through some tokens, giving each a tag; owns (and changes) ``registry``.

    ``plan`` is the walk in order. A token is *pending* when it has no tag yet, or is
    being re-enrolled (``redo``) and has not had a tag scanned in this walk; the
    :attr:`current` token is the first pending one. So a new walk over a registry
    saved halfway through an earlier one starts where that one stopped.
    """

    def __init__(
        self,
        plan: Sequence[str],
        registry: TagRegistry,
        names: Mapping[str, str],
        redo: Iterable[str] = (),
    ) -> None:
        self.plan = tuple(plan)
        self.registry = registry
        self.names = dict(names)
        self._redo = set(redo)
        self._index = {token: i for i, token in enumerate(self.plan)}
        #: the tags accepted in this walk, in order: (token, uid)
        self.accepted: list[tuple[str, str]] = []
        self._last: str | None = None

    @classmethod
    def for_bags(
        cls, state: TableState, registry: TagRegistry, bags: Sequence[str] = ()
    ) -> Enrolment:
        """The walk over ``bags`` (``--bag`` names; none: every bag)."""
        plan = tokens_in(state, select_bags(state, bags))
        return cls(plan, registry, {t.id: t.name for t in state.tokens.values()})

    @classmethod
    def for_redo(cls, state: TableState, registry: TagRegistry, token: str) -> Enrolment:
        """One token, enrolled again (a lost, broken or swapped tag); its old tag is kept
        until a new one is accepted."""
        if token not in state.tokens:
            close = difflib.get_close_matches(token, list(state.tokens), n=3)
            hint = f" — did you mean {' or '.join(close)}?" if close else ""
            raise ConfigError(
                f"--redo {token}: this table has no such token{hint} (rhuna-table enroll --list"
                " shows every token id)"
            )
        return cls([token], registry, {t.id: t.name for t in state.tokens.values()}, [token])

    # --- where the walk is ----------------------------------------------------------

    def pending(self, token: str) -> bool:
        return token in self._redo or self.registry.uid(token) is None

    @property
    def current(self) -> str | None:
        """The token to scan now; None when every token of the walk has a tag."""
        return next((t for t in self.plan if self.pending(t)), None)

    @property
    def position(self) -> int:
        """The current token's place in the walk, from 1 (``[12/163]``); total+1 when done."""
        token = self.current
        return self.total + 1 if token is None else self._index[token] + 1

    @property
    def total(self) -> int:
        return len(self.plan)

    @property
    def done(self) -> int:
        """Tokens of the walk that have their tag."""
        return sum(1 for t in self.plan if not self.pending(t))

    @property
    def finished(self) -> bool:
        return self.current is None

    def name(self, token: str) -> str:
        return self.names.get(token, token)

    # --- a scanned tag ----------------------------------------------------------------

    def scan(self, uid: str) -> Scan:
        """What ``uid``, laid while :attr:`current` is asked for, means; an accepted tag is
        added to the registry (the caller saves it). Raises if the walk is finished."""
        token = self.current
        if token is None:
            raise ValueError("every token of this walk has a tag already")
        try:
            key = normalise_uid(uid)
        except UidError:
            return Scan(Verdict.INVALID, uid, token)
        holder = self.registry.token_id(key)
        if holder == token:
            self._redo.discard(token)
            self._last = key
            return Scan(Verdict.UNCHANGED, key, token, holder=holder)
        if holder is not None:
            verdict = Verdict.REPEAT if key == self._last else Verdict.TAKEN
            return Scan(verdict, key, token, holder=holder)
        replaced = self.registry.remove(token)
        self.registry.add(key, token)
        self._redo.discard(token)
        self._last = key
        self.accepted.append((token, key))
        return Scan(Verdict.ACCEPTED, key, token, replaced=replaced)

    # --- words ----------------------------------------------------------------------

    def prompt(self) -> str:
        """``now scan: Aria's skill Ember (control) (aria.ember.skill) [12/163]``."""
        token = self.current
        if token is None:
            return f"every token of this walk has a tag [{self.total}/{self.total}]"
        return f"now scan: {self.name(token)} ({token}) [{self.position}/{self.total}]"

    def explain(self, scan: Scan) -> str:
        """One line for the person at the reader: what happened and what to do."""
        what = f"{self.name(scan.token)} ({scan.token})"
        if scan.verdict is Verdict.ACCEPTED:
            was = f", replacing {scan.replaced}" if scan.replaced else ""
            return f"  ok: tag {scan.uid} is {what}{was}"
        if scan.verdict is Verdict.UNCHANGED:
            return f"  ok: tag {scan.uid} already is {what}; nothing changed"
        if scan.verdict is Verdict.REPEAT:
            return (
                f"  refused: tag {scan.uid} is the one just enrolled, {self._holder(scan)} — lift"
                f" it and lay {what}"
            )
        if scan.verdict is Verdict.TAKEN:
            return (
                f"  refused: tag {scan.uid} is already {self._holder(scan)} — every token has its"
                f" own tag: lay {what} (to move a tag: rhuna-table enroll --redo {scan.holder})"
            )
        return (
            f"  refused: {scan.uid!r} is not a 4-, 7- or 10-byte tag UID — check the reader's"
            " uid_format / pattern (docs/readers.md) and lay the token again"
        )

    def _holder(self, scan: Scan) -> str:
        assert scan.holder is not None
        if scan.holder in self.names:
            return f"{self.name(scan.holder)} ({scan.holder})"
        return f"{scan.holder}, a token this table does not have"

    def summary(self) -> str:
        """What this walk did and what is left."""
        left = self.total - self.done
        did = f"{len(self.accepted)} tag(s) enrolled this time"
        if left == 0:
            return f"{did}; all {self.total} token(s) of this walk have a tag"
        return (
            f"{did}; {self.done} of {self.total} token(s) have a tag, {left} to go — run the"
            " same command again to go on from the next one"
        )


@dataclass(frozen=True, slots=True)
class BagReport:
    """One bag's enrolment: which of its tokens have a tag and which do not."""

    bag: str
    name: str
    enrolled: tuple[str, ...]
    missing: tuple[str, ...]


def bag_reports(state: TableState, registry: TagRegistry, bags: Sequence[str]) -> list[BagReport]:
    """Per bag of ``select_bags(state, bags)``: the tokens with a tag and those without."""
    out = []
    for bag in select_bags(state, bags):
        tokens = tokens_in(state, [bag])
        have = tuple(t for t in tokens if registry.uid(t) is not None)
        name = state.bags[bag].name if bag in state.bags else bag
        out.append(BagReport(bag, name, have, tuple(t for t in tokens if t not in have)))
    return out


def strangers(state: TableState, registry: TagRegistry) -> list[tuple[str, str]]:
    """Registry entries for tokens this table does not have: (uid, token id)."""
    return [(uid, token) for uid, token in registry.items() if token not in state.tokens]
