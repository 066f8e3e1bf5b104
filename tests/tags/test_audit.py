"""The bag audit's decisions (issue 43, item 4), with no reader: tags.audit over the example
table and a synthetic registry."""

from __future__ import annotations

import pytest

from engine import CommandRejected, apply, load_table
from settings.errors import ConfigError
from tags.audit import Audit, Heard
from tags.registry import TagRegistry
from tests.harness import EXAMPLE_TABLE

STATE = load_table(EXAMPLE_TABLE)
REGISTRY = TagRegistry.synthetic(STATE.tokens)
UNKNOWN = "04DEADBEEF0001"


def uid(token: str) -> str:
    found = REGISTRY.uid(token)
    assert found is not None
    return found


def test_a_favor_bag_with_one_missing_one_spare_and_one_of_aria_s():
    audit = Audit(STATE, REGISTRY, "favor")
    favor = [f"favor.{n:02}" for n in range(1, 24)]
    assert audit.expected == tuple(favor)
    heard = [audit.read(uid(t)).verdict for t in favor[:22]]
    assert heard == [Heard.COUNTED] * 22
    assert audit.read(uid("favor.03")).verdict is Heard.AGAIN  # passed twice: said once
    assert audit.read(uid("aria.weight.0")).verdict is Heard.OTHER_BAG
    assert audit.read(UNKNOWN).verdict is Heard.EXTRA
    assert audit.read(UNKNOWN).verdict is Heard.AGAIN  # the same spare again: not twice extra
    assert not audit.finished
    result = audit.result()
    assert result.seen == tuple(favor[:22])
    assert result.missing == ("favor.23",)
    assert result.extra == ((UNKNOWN, None),)
    assert result.others == (("aria.weight.0", "aria"),)
    assert not result.complete
    lines = result.lines()
    assert lines[0] == (
        "audit of the Favor Bag: 22 of 23 seen, 1 missing, 1 extra, 1 from another bag"
    )
    assert lines[1].startswith("  missing: ") and lines[1].endswith("(favor.23)")
    assert lines[2] == f"  extra: tag {UNKNOWN} (unknown)"
    assert lines[3].endswith("(aria.weight.0), it belongs in Aria's Hero Bag")
    assert audit.read(uid("favor.23")).text.startswith("23 of 23: ")
    assert audit.finished


def test_a_hero_names_their_bag_and_a_tag_of_a_token_the_table_lacks_is_extra():
    registry = TagRegistry({uid("bren.weight.0"): "bren.weight.0", UNKNOWN: "favor.24"})
    audit = Audit(STATE, registry, "bren")
    assert audit.bag == "bren" and len(audit.expected) == 18
    read = audit.read(UNKNOWN)
    assert read.verdict is Heard.EXTRA and read.token == "favor.24"
    assert audit.read("not a uid").verdict is Heard.INVALID
    assert audit.result().extra == ((UNKNOWN, "favor.24"),)


def test_an_unknown_bag_is_refused_naming_the_bags():
    with pytest.raises(ConfigError, match="favr: this table has no such bag — its bags: aria"):
        Audit(STATE, REGISTRY, "favr")
    with pytest.raises(CommandRejected) as refused:
        apply(STATE, {"cmd": "audit_bag", "bag": "favr"})
    assert refused.value.violation.field == "bag"
    assert "did you mean favor?" in refused.value.violation.message


def test_the_command_changes_nothing_in_the_game():
    for command in ({"cmd": "audit_bag", "bag": "favor"}, {"cmd": "audit_bag"}):
        state, events = apply(STATE, command)
        assert events == [] and state.to_json() == STATE.to_json()
