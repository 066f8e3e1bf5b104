"""Time, Weather, Rest and temporary-token events in plain words (replay log, demo, console)."""

from __future__ import annotations

from engine.contracts import events as ev
from engine.narrate import hero_name, narrator
from engine.state import TableState
from engine.time.board import face_title


def _names(state: TableState, heroes: list[str]) -> str:
    return ", ".join(hero_name(state, h) for h in heroes) or "nobody"


def _verb(heroes: list[str], one: str, many: str) -> str:
    return one if len(heroes) == 1 else many


@narrator(ev.session_started)
def _session(s: TableState, d: ev.SessionStarted) -> str:
    weather = d["weather"] or "unknown"
    return f"Session {d['session']} begins: day {d['day']}, {d['band'].title()}; weather {weather}"


@narrator(ev.weather_drawn)
def _weather_drawn(s: TableState, d: ev.WeatherDrawn) -> str:
    back = f" ({s.tokens[d['replaced']].name} goes back)" if d["replaced"] else ""
    return f"Weather ({d['bag'].title()}, {d['cause']}): {d['name']}{back}"


@narrator(ev.weather_changed)
def _weather_changed(s: TableState, d: ev.WeatherChanged) -> str:
    return f"The WorldKeeper changes the weather: {d['name']}"


@narrator(ev.time_drawn)
def _time_drawn(s: TableState, d: ev.TimeDrawn) -> str:
    return (
        f"Day {d['day']}, {d['band'].title()} band, {d['size'].title()} draw {d['step']}:"
        f" {face_title(d['face'])}"
    )


@narrator(ev.time_resolved)
def _time_resolved(s: TableState, d: ev.TimeResolved) -> str:
    return f"  resolved: {d['size'].title()} {face_title(d['face'])}"


@narrator(ev.time_draw_cancelled)
def _cancelled(s: TableState, d: ev.TimeDrawCancelled) -> str:
    return f"Time draw cancelled: {s.tokens[d['token']].name} goes back; nothing advances"


@narrator(ev.time_prompt)
def _prompt(s: TableState, d: ev.TimePrompt) -> str:
    return f"  WorldKeeper [{d['prompt']}]: {d['text']}"


@narrator(ev.prompt_acknowledged)
def _ack(s: TableState, d: ev.PromptAcknowledged) -> str:
    # "The WorldKeeper dealt with prompt 2 (Opportunity)", never "prompt(s) 2"
    said = [
        f"{n} ({k.replace('_', ' ').title()})"
        for n, k in zip(d["prompts"], d["kinds"], strict=True)
    ]
    listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else "".join(said)
    return f"The WorldKeeper dealt with prompt{'s' if len(said) > 1 else ''} {listed}"


@narrator(ev.time_fatigue_ignored)
def _ignored(s: TableState, d: ev.TimeFatigueIgnored) -> str:
    heroes = d["heroes"]
    return f"  {_names(s, heroes)} {_verb(heroes, 'rests', 'rest')}: no Fatigue from Time"


@narrator(ev.band_started)
def _band(s: TableState, d: ev.BandStarted) -> str:
    lead = f"A new day dawns: day {d['day']}. " if d["new_day"] else ""
    return f"{lead}{d['band'].title()} begins (Time tokens back to their bags)"


@narrator(ev.time_set)
def _set(s: TableState, d: ev.TimeSet) -> str:
    return f"Time Board set: day {d['day']}, {d['band'].title()}, {d['minor_done']} Minor done"


@narrator(ev.rest_started)
def _rest(s: TableState, d: ev.RestStarted) -> str:
    w, r = d["watch"], d["resting"]
    watch = f"; {_names(s, w)} {_verb(w, 'keeps', 'keep')} watch" if w else ""
    return f"{d['kind'].title()} Rest: {_names(s, r)} {_verb(r, 'rests', 'rest')}{watch}"


@narrator(ev.rest_step)
def _rest_step(s: TableState, d: ev.RestStep) -> str:
    return f"  Rest: Minor draw {d['minor_draws']} of {d['full_rest_at']} for a Full Rest"


@narrator(ev.full_rest_chosen)
def _chosen(s: TableState, d: ev.FullRestChosen) -> str:
    return f"{hero_name(s, d['hero'])} will recover {d['choice']} at the Full Rest"


@narrator(ev.full_rest_completed)
def _full(s: TableState, d: ev.FullRestCompleted) -> str:
    parts = [
        f"{hero_name(s, h)} {c['choice']}" + (" (default)" if c["default"] else "")
        for h, c in d["heroes"].items()
    ]
    return f"Full Rest complete: {', '.join(parts)}"


@narrator(ev.rest_ended)
def _ended(s: TableState, d: ev.RestEnded) -> str:
    return f"The Rest ends ({d['reason'].replace('_', ' ')}) after {d['minor_draws']} Minor draws"


@narrator(ev.rest_interrupted)
def _interrupted(s: TableState, d: ev.RuleOnly) -> str:
    return "The Event interrupts the Rest"


@narrator(ev.rest_not_interrupted)
def _not_interrupted(s: TableState, d: ev.RuleOnly) -> str:
    return "The Event does not interrupt the Rest"


@narrator(ev.temporary_granted)
def _granted(s: TableState, d: ev.TemporaryGranted) -> str:
    return f"{d['name']} goes into {hero_name(s, d['hero'])}'s bag (expires: {d['expires']})"


@narrator(ev.temporary_timer)
def _timer(s: TableState, d: ev.TemporaryTimer) -> str:
    return f"  {s.tokens[d['token']].name}: {d['expires']} left"


@narrator(ev.temporary_expired)
def _expired(s: TableState, d: ev.TemporaryExpired) -> str:
    when = {
        "now": "leaves the bag",
        "at_reset": "is on the Draw Board: it leaves at Reset",
        "gone": "was already out of play",
    }[d["leaves"]]
    return f"  {d['name']} ({hero_name(s, d['hero'])}) expires and {when}"
