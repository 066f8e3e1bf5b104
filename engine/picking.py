"""Which hero a command names and which token a draw takes, for every command that draws.

A draw names the token laid on a reader (the tag registry maps its UID to the id) or, for
scripts and the demo, gives a seed to draw at random; never both. A seeded draw is
deterministic (the same seed and bag give the same token on every replay), so the engine
stays pure. The Performance (Hero Bags, the Favor Bag), Time and Weather draws share this.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.errors import CommandRejected
from engine.state import TableState
from engine.vocabulary import Field

TOKEN = Field("string", "token id (the registry maps a tag UID to it); omit to use seed")
SEED = Field(
    "integer",
    "draw at random with this seed instead of naming a token (scripts, demo)",
    bound="seed",
)


def hero_meant(checking: Sequence[str], hints: Iterable[str | None] = ()) -> str | None:
    """The hero an input that names none is for — a Favor token laid on the board, a Redraw
    dialled on the wheel: the first of ``hints`` (the hero drawing now, the one turned to, the
    last declared) who makes a check in the open Performance, else the only one who does
    (``checking``, in declaration order), else nobody (the input must name one).

    >>> hero_meant(["aria", "bren"], [None, "bren"]), hero_meant(["cass"]), hero_meant(["a", "b"])
    ('bren', 'cass', None)
    """
    for hero in hints:
        if hero is not None and hero in checking:
            return hero
    return checking[0] if len(checking) == 1 else None


def known_hero(state: TableState, args: Mapping[str, Any], key: str = "hero") -> str:
    """The hero id in ``args[key]``, refused when the table has no such hero."""
    hero_id = str(args[key])
    if hero_id not in state.heroes:
        known = ", ".join(sorted(state.heroes))
        raise CommandRejected(
            f"unknown hero {hero_id!r}", field=key, code="unknown", fix=f"heroes: {known}"
        )
    return hero_id


def token_or_seed(args: Mapping[str, Any]) -> None:
    """Refuse a draw that names a token and gives a seed, or does neither."""
    if (args.get("token") is None) == (args.get("seed") is None):
        raise CommandRejected(
            "name the token drawn or give a seed, not both or neither",
            field="token",
            code="malformed",
            fix='add "token": "<id>" (or "seed": <n> to draw at random)',
        )


def seeded(candidates: Sequence[str], seed: int) -> str:
    """A deterministic random pick: the same seed and bag give the same token on every replay."""
    return candidates[random.Random(seed).randrange(len(candidates))]


def known_token(state: TableState, token_id: str) -> None:
    if token_id not in state.tokens:
        raise CommandRejected(
            f"unknown token {token_id!r}",
            field="token",
            code="unknown",
            fix="enrol the tag, or check the token id",
        )
