"""The closed vocabularies (engine/contracts/terms.py) are their enums' values, in order (issue
40 item 2): the Literal the view, the events, the schemas and the pages' types say is what the
engine has, so a member added to one without the other fails here, not on a page."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, get_args

import pytest

from engine.combat.state import ActionKind
from engine.contracts import terms
from engine.performance import combinatorics
from engine.time.board import Band, PromptKind, RestKind, Role, Size
from engine.tokens import Action, Moment, Shade, TokenKind, Training, WeightMode

PAIRS: dict[str, type[StrEnum]] = {
    "TokenKindName": TokenKind,
    "ShadeName": Shade,
    "TrainingName": Training,
    "ActionName": Action,
    "MomentName": Moment,
    "WeightName": WeightMode,
    "BandName": Band,
    "SizeName": Size,
    "RestKindName": RestKind,
    "RoleName": Role,
    "PromptKindName": PromptKind,
    "CombatActionName": ActionKind,
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_each_closed_vocabulary_is_its_enums_values(name: str) -> None:
    literal: Any = getattr(terms, name)
    assert get_args(literal) == tuple(m.value for m in PAIRS[name]), name
    # the enum says it: mypy reads `member.value` as the Literal
    assert PAIRS[name].__annotations__["_value_"] in (name, literal), name


def test_the_advised_moves_are_those_the_odds_rank() -> None:
    """No enum: the odds' own tie order (combinatorics._PREFER) is the list."""
    assert get_args(terms.AdviceActionName) == tuple(combinatorics._PREFER)


def test_every_vocabulary_in_terms_is_checked() -> None:
    names = {n for n in vars(terms) if n.endswith("Name")}
    assert names == {*PAIRS, "AdviceActionName"}
