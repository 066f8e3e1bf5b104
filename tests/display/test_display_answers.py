"""Answers computed off the table's turn (issue 27): while the view's odds or attack forecast
are ``pending`` the panel draws a mark in their place, ``too_big`` says so, and no percentage
is ever drawn for them — not even one a view might still carry from another state.

Every view is the real engine's (``engine.view.table_view`` with a ``work`` allowance, as the
service builds a turn's view), drawn by the real renderer into real Pillow images."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import engine
from companion.cli.replay import read_session
from display.panels import PANELS
from display.render import Frame, Renderer, draw
from display.viewmodel import odds_for, odds_mark
from engine.view import table_view
from tests.harness import EXAMPLE_TABLE, ROOT
from tests.harness.answers import INTERSECT, cold
from tests.harness.canvas import assert_texts_fit

#: a state's views by the status of its answers: ``pending``, ``too_big``, ``ready``
Views = dict[str, dict[str, Any]]
#: the turn's allowance that leaves the Intersect group's odds pending (the brief's state)
#: a turn's allowance of steps (engine/data/rules.toml [answers] turn)
TURN_WORK = int(engine.load_table(EXAMPLE_TABLE).rules["answers"]["turn"])


def _cold(state: engine.TableState, **allowance: Any) -> dict[str, Any]:
    """``state``'s view with a turn's allowance, the engine's memoised answers forgotten
    first: an answer it already knows costs no steps and is ready at once (rightly), which
    would make a pending view depend on what ran before in this process."""
    cold()
    return _json(table_view(state, **allowance))


def _json(view: Any) -> dict[str, Any]:
    """The view as the panel gets it: JSON data, as published."""
    return json.loads(json.dumps(view))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def intersect() -> Views:
    """Bren and Aria Intersecting: the odds pending in the turn, too big with no more to
    spend, and the whole answer."""
    state = engine.load_table(EXAMPLE_TABLE)
    for cmd in INTERSECT:
        state, _ = engine.apply(state, cmd)
    views = {
        "pending": _cold(state, work=TURN_WORK),
        "too_big": _cold(state, work=TURN_WORK, final=True),
        "ready": _json(table_view(state)),
    }
    assert views["pending"]["odds"] == {"groups": [], "status": "pending"}
    assert views["too_big"]["odds"] == {"groups": [], "status": "too_big"}
    assert views["ready"]["odds"]["status"] == "ready" and views["ready"]["odds"]["groups"]
    return views


@pytest.fixture(scope="module")
def fight() -> Views:
    """The example fight's first round: the attack forecast with no steps to spend (pending,
    or too big when final) and the whole answer."""
    state = engine.load_table(ROOT / "examples" / "fight.toml")
    for _, cmd in read_session(ROOT / "examples" / "fight.jsonl"):
        state, _ = engine.apply(state, cmd)
        if table_view(state, work=0)["combat"] is not None:
            break
    views = {
        "pending": _cold(state, work=0),
        "too_big": _cold(state, work=0, final=True),
        "ready": _json(table_view(state)),
    }
    assert views["pending"]["combat"]["forecast_status"] == "pending"
    assert views["pending"]["combat"]["forecast"] == []
    assert views["ready"]["combat"]["forecast"], "the example fight offers an attack"
    return views


def _texts(view: dict[str, Any], panel: str) -> list[str]:
    canvas = draw(view, panel, "bw")
    assert_texts_fit(canvas)
    return [t.shown for t in canvas.texts]


def _ink_of(view: dict[str, Any], panel: str, needle: str) -> int:
    """How many black pixels the text containing ``needle`` put on the real frame."""
    canvas = draw(view, panel, "bw")
    [record] = [t for t in canvas.texts if needle in t.shown]
    x0, y0, x1, y1 = record.ink
    image = Renderer(panel, "bw")(Frame(view)).convert("L")
    region = image.crop((x0, y0, x1 + 1, y1 + 1))
    return sum(region.histogram()[:128])


# --- the odds of the open Performance ----------------------------------------------------


@pytest.mark.parametrize("panel", PANELS)
def test_pending_odds_draw_the_mark_and_no_percentage(intersect: Views, panel: str) -> None:
    shown = _texts(intersect["pending"], panel)
    line = " | ".join(shown)
    assert any("odds: counting…" in s for s in shown), line
    assert not [s for s in shown if "%" in s], line
    assert "best play" not in line and "as drawn" not in line
    assert _ink_of(intersect["pending"], panel, "odds: counting…") > 20


@pytest.mark.parametrize("panel", PANELS)
def test_ready_odds_replace_the_mark_with_the_services_figures(
    intersect: Views, panel: str
) -> None:
    shown = _texts(intersect["ready"], panel)
    line = " | ".join(shown)
    [group] = intersect["ready"]["odds"]["groups"]
    best = f"best play {round(group['best_play']['percent'])}%"
    assert best in line, line
    assert "counting" not in line and "too many" not in line
    pending = Renderer(panel, "bw")(Frame(intersect["pending"]))
    ready = Renderer(panel, "bw")(Frame(intersect["ready"]))
    assert pending.size == ready.size and pending.tobytes() != ready.tobytes()


@pytest.mark.parametrize("panel", PANELS)
def test_too_big_odds_say_so_and_show_nothing_approximate(intersect: Views, panel: str) -> None:
    shown = _texts(intersect["too_big"], panel)
    line = " | ".join(shown)
    words = "odds: too many to count exactly" if panel in ("4.2", "7.5") else "odds: too many"
    assert any(words in s for s in shown), line
    assert not [s for s in shown if "%" in s], line


@pytest.mark.parametrize("status", ["pending", "too_big"])
@pytest.mark.parametrize("panel", PANELS)
def test_a_pending_sections_groups_are_never_drawn(
    intersect: Views, panel: str, status: str
) -> None:
    """Whatever groups a view not ready might carry (another state's), the frame is the same
    pixels as with none: the status decides, never the list."""
    stale = copy.deepcopy(intersect[status])
    stale["odds"]["groups"] = copy.deepcopy(intersect["ready"]["odds"]["groups"])
    hero = stale["performance"]["contributions"][0]["hero"]
    assert odds_for(stale, hero) is None and odds_mark(stale) is not None
    clean = Renderer(panel, "bw")(Frame(intersect[status]))
    assert Renderer(panel, "bw")(Frame(stale)).tobytes() == clean.tobytes()


def test_a_view_without_a_status_is_ready() -> None:
    """A view from before the status (a recorded one): its groups are its answer."""
    view = {"odds": {"groups": [{"heroes": ["aria"]}]}}
    assert odds_mark(view) is None and odds_for(view, "aria") == {"heroes": ["aria"]}


# --- the attack forecast -----------------------------------------------------------------


@pytest.mark.parametrize("panel", PANELS)
def test_pending_forecast_draws_the_mark_and_no_percentage(fight: Views, panel: str) -> None:
    shown = _texts(fight["pending"], panel)
    line = " | ".join(shown)
    assert any("forecast: counting…" in s for s in shown), line
    assert not [s for s in shown if "%" in s or "hurt" in s], line
    assert _ink_of(fight["pending"], panel, "forecast: counting…") > 20


@pytest.mark.parametrize("panel", PANELS)
def test_too_big_forecast_says_so(fight: Views, panel: str) -> None:
    shown = _texts(fight["too_big"], panel)
    line = " | ".join(shown)
    assert any("forecast: too many" in s for s in shown), line
    assert not [s for s in shown if "%" in s], line


@pytest.mark.parametrize("panel", PANELS)
def test_ready_forecast_shows_the_services_figures(fight: Views, panel: str) -> None:
    shown = _texts(fight["ready"], panel)
    line = " | ".join(shown)
    assert "hurt" in line and "%" in line, line
    assert "counting" not in line and "too many" not in line
    pending = Renderer(panel, "bw")(Frame(fight["pending"]))
    assert pending.tobytes() != Renderer(panel, "bw")(Frame(fight["ready"])).tobytes()
