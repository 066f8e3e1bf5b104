"""Events and token kinds are typed where they are read (issue 40 item 2): in a copy of the
product, an event field renamed in engine/contracts/events.py is a mypy error in every narrator
and record handler that reads it, and a token kind added to engine/contracts/terms.py is one in
display/viewmodel.py, which must learn its mark. The odds' advice and the Time Board's prompts
likewise: a field of ``Advice`` or ``PromptView`` renamed in engine/contracts/view.py is a mypy
error where it is built and where it is read.

One copy, every change, one strict mypy run (the project's own settings) over every package
the typecheck covers; each test reads its errors from that run."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.harness.contract_copies import (
    PACKAGES,
    copy_product,
    mypy_cache,
    renamed,
    with_kind,
)

#: (payload TypedDict, field) → the modules that read it (not those that build it)
RENAMES = {
    ("Undone", "remaining"): {"engine/narrate.py", "companion/record/narrate.py"},
    ("PerformanceResolved", "success"): {
        "engine/performance/narrate.py",
        "companion/record/narrate.py",
    },
    ("PerformanceStarted", "difficulty"): {
        "engine/performance/narrate.py",
        "companion/record/night.py",
    },
    ("TokenDrawn", "total"): {"engine/performance/narrate.py", "companion/record/night.py"},
    ("TimeDrawn", "face"): {"engine/time/narrate.py", "companion/record/night.py"},
    ("CombatantInjured", "hits"): {"engine/combat/narrate.py", "companion/record/night.py"},
    ("NoteTaken", "text"): {"companion/record/night.py"},
}
#: (view TypedDict, field) → the modules that build it or read it
VIEW_RENAMES = {
    ("Advice", "text"): {"engine/performance/odds.py", "companion/cli/odds.py"},
    ("Advice", "command"): {"engine/performance/odds.py"},
    ("PromptView", "kind"): {"engine/time/view.py"},
}
#: the kind added, and the modules that must learn it
NEW_KIND = "relic"
KIND_READERS = {"display/viewmodel.py"}

_ERROR = re.compile(r"^([\w/]+\.py):(\d+): error: (.*)$", re.M)


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory) -> list[tuple[str, int, str]]:
    copy = copy_product(tmp_path_factory.mktemp("typed_readers"))
    events = copy / "engine" / "contracts" / "events.py"
    source = events.read_text("utf-8")
    for typed, field in RENAMES:
        source = renamed(source, typed, field)
    events.write_text(source, "utf-8")
    view = copy / "engine" / "contracts" / "view.py"
    source = view.read_text("utf-8")
    for typed, field in VIEW_RENAMES:
        source = renamed(source, typed, field)
    view.write_text(source, "utf-8")
    terms = copy / "engine" / "contracts" / "terms.py"
    terms.write_text(with_kind(terms.read_text("utf-8"), NEW_KIND), "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(mypy_cache(copy)), *PACKAGES],
        cwd=copy, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode != 0, result.stdout
    return [(m, int(n), msg) for m, n, msg in _ERROR.findall(result.stdout)]


@pytest.mark.parametrize("rename", sorted(RENAMES), ids=lambda r: ".".join(r))
def test_a_renamed_event_field_is_a_mypy_error_in_each_reader(mypy_errors, rename) -> None:
    typed, field = rename
    said = {m for m, _, msg in mypy_errors if f'"{typed}" has no key "{field}"' in msg}
    missing = RENAMES[rename] - said
    assert not missing, (typed, field, sorted(said), mypy_errors)


@pytest.mark.parametrize("rename", sorted(VIEW_RENAMES), ids=lambda r: ".".join(r))
def test_a_renamed_advice_or_prompt_field_is_a_mypy_error_where_it_is_built_or_read(
    mypy_errors, rename
) -> None:
    typed, field = rename
    # built: 'Extra key "text" for TypedDict "Advice"' (or keys, listed); read: 'has no key'
    said = {m for m, _, msg in mypy_errors if f'"{typed}"' in msg and f'"{field}"' in msg}
    assert said == VIEW_RENAMES[rename], (typed, field, sorted(said), mypy_errors)


def test_a_new_token_kind_is_a_mypy_error_where_a_kind_is_matched(mypy_errors) -> None:
    said = {m for m, _, msg in mypy_errors if f"\"Literal['{NEW_KIND}']\"" in msg}
    assert said == KIND_READERS, mypy_errors


def test_every_event_kind_has_its_narrator_and_every_narrator_an_event() -> None:
    """The narrators register by EventKind (engine.narrate.narrator / say), so each is an
    event's; and none is missing, so describe() never falls back to an event's raw data."""
    import engine  # noqa: F401  (the families register their narrators)
    from engine.contracts.events import EVENTS
    from engine.narrate import NARRATORS

    assert set(NARRATORS) == set(EVENTS), set(EVENTS) ^ set(NARRATORS)
