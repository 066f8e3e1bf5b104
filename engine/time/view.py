"""The Time Board in the table view: the ``time`` key the display and MQTT read.

Keys (kept stable for the display and MQTT): ``day``, ``band``, ``minor_done``,
``due``, ``weather``, ``rest``, ``temporary``, ``last``, ``prompts``.
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.contracts.events import AUDIENCE
from engine.contracts.view import (
    PromptView,
    RestView,
    TimeDrawView,
    TimeView,
    WeatherView,
)
from engine.state import TableState
from engine.time.board import Prompt, TimeDraw
from engine.time.temporary import expires_text
from engine.view import view_section


def _draw(state: TableState, d: TimeDraw, resolved: bool) -> TimeDrawView:
    return {
        "token": d.token,
        "name": state.tokens[d.token].name,
        "size": d.size.value,
        "face": d.face,
        "band": d.band.value,
        "day": d.day,
        "step": d.step,
        "resolved": resolved,
    }


def _prompt(p: Prompt) -> PromptView:
    return {
        "id": p.id,
        "kind": p.kind.value,
        "text": p.text,
        "face": p.face,
        "size": p.size.value if p.size else None,
        "day": p.day,
        "band": p.band.value,
        "blocking": p.blocking,
        # the same audience as the prompt's event (engine.contracts.events.AUDIENCE)
        "audience": AUDIENCE[ev.time_prompt.name],
    }


@view_section("time")
def time_view(state: TableState) -> TimeView | None:
    """Day, band, cadence, weather, Rest, temporary tokens, the last draw and open prompts."""
    b = state.time
    if b is None:
        return None
    minor_per_band = int(state.rules["time"]["minor_per_band"])
    weather: WeatherView | None = None
    if b.weather is not None:
        weather = {"bag": b.weather.bag, "token": b.weather.token, "name": b.weather.name}
    rest: RestView | None = None
    if b.rest is not None:
        rest = {
            "kind": b.rest.kind.value,
            "minor_draws": b.rest.minor_draws,
            "full_rest_at": int(state.rules["rest"]["full_rest_draws"]),
            "heroes": {h: r.value for h, r in b.rest.roles.items()},
        }
    last: TimeDrawView | None = None
    if b.pending is not None:
        last = _draw(state, b.pending, False)
    elif b.last is not None:
        last = _draw(state, b.last, True)
    return {
        "day": b.day,
        "band": b.band.value,
        "minor_done": b.minor_done,
        "due": b.due(minor_per_band).value,
        "weather": weather,
        "rest": rest,
        "temporary": [
            {
                "token": t.token,
                "hero": t.hero,
                "face": t.face,
                "expires": expires_text(t),
                "on": t.on.value,
                "remaining": t.remaining,
            }
            for t in b.timers
        ],
        "last": last,
        "prompts": [_prompt(p) for p in b.prompts],
    }
