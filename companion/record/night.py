"""The night on record: one pass over a replayed journal, gathered for the export and recap.

:func:`gather` replays the journal once (the engine is pure, so the states are
exactly those the table had) and collects:

- a row per token laid on the Draw Board (draw, Redraw, Favor call), with the
  engine's exact best-play and as-drawn odds of the hero's group *just before*;
- a row per resolving group of each Performance (P19, I-P10): heroes,
  Difficulty, total, outcome, the odds before its first draw, and the Fatigue,
  Strain and Wounds it cost (P13–P15);
- each hero's luck against the odds: the expected successes (the sum of the
  best-play odds before each group's first draw) against the actual ones;
- the heroes' Fatigue/Strain/Wounds, the Time Board (T3) and the fights' rounds
  (C2, C4) over the night;
- each Rest: who rested and who kept watch (T9), its Minor draws, each resting hero's
  Full Rest choice (T8) and how it ended (T7, I-T10); and each change of the weather,
  drawn or set (T1, T2, T4);
- the narrated journal (time, source, command, events).

Commands later taken back by ``undo`` stay on record, marked ``undone`` (they
happened at the table); the luck figures leave them out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from companion.record.journal import Journal, JournalError, Step, records_history
from companion.record.narrate import Line, Narrator
from companion.record.odds import GroupOdds, group_odds
from engine.contracts import events as ev
from engine.contracts.terms import BandName, SizeName
from engine.events import Event
from engine.luck import percentile
from engine.performance.commands import groups
from engine.state import TableState
from settings.errors import ConfigError
from settings.textfile import read_text

#: events that lay a token on the Draw Board (one draws.csv row each)
DRAW_EVENTS = {"token_drawn": "draw", "token_replaced": "redraw", "favor_called": "favor"}


@dataclass
class DrawRow:
    seq: int
    at: float
    source: str
    performance: int
    hero: str
    shade: str
    capability: str
    action: str
    training: str
    kind: str
    token: str
    name: str
    value: int
    total: int
    group: tuple[str, ...]
    best_play_before: Fraction | None
    as_drawn_before: Fraction | None
    undone: bool = False


@dataclass
class GroupRow:
    performance: int
    seq_start: int
    seq_end: int
    difficulty: int
    weight: str
    heroes: tuple[str, ...]
    total: int | None = None
    success: bool | None = None
    cancelled: bool = False
    best_play_first: Fraction | None = None
    as_drawn_first: Fraction | None = None
    fatigue: int = 0
    strain: int = 0
    wounds: int = 0
    undone: bool = False
    #: a Gain (P7): no draw and no check, resolved all the same
    gain: bool = False

    @property
    def outcome(self) -> str:
        if self.cancelled:
            return "cancelled"
        if self.success is None:
            return "gain" if self.gain else "unresolved"
        return "success" if self.success else "failure"


@dataclass
class Luck:
    hero: str
    name: str
    checks: int = 0
    expected: Fraction = Fraction(0)
    expected_as_drawn: Fraction = Fraction(0)
    actual: int = 0
    #: (best-play odds before the first draw, succeeded) per check, for the calibration picture
    points: list[tuple[Fraction, bool]] = field(default_factory=list)
    #: where ``actual`` falls among the nights these odds allow, 0 to 1 (engine.luck: the exact
    #: Poisson-binomial mid-rank percentile); None without a check
    percentile: Fraction | None = None


@dataclass(frozen=True, slots=True)
class Health:
    seq: int
    fatigue: int
    strain: int
    wounds: int


@dataclass(frozen=True, slots=True)
class TimePoint:
    seq: int
    day: int
    band: BandName
    minor_done: int
    face: str | None = None
    size: SizeName | None = None


@dataclass
class Fight:
    number: int
    seq_start: int
    combatants: list[str]
    seq_end: int | None = None
    rounds: int = 1
    #: (round, combatant, action) for every action taken
    actions: list[tuple[int, str, str]] = field(default_factory=list)
    injuries: dict[str, int] = field(default_factory=dict)
    dead: list[str] = field(default_factory=list)


@dataclass
class RestRow:
    """One Rest (T7–T10): whose it was, and how it went."""

    seq: int
    kind: str
    resting: list[str]
    watch: list[str]
    minor_draws: int = 0
    #: hero → "fatigue" (all Fatigue) or "strain" (1 Strain) when the Full Rest came (T8)
    full_rest: dict[str, str] = field(default_factory=dict)
    #: "ended", "interrupted" (I-T10), "full_rest"; None: still resting at the night's end
    ended: str | None = None


@dataclass(frozen=True, slots=True)
class WeatherRow:
    """The weather becoming ``name`` (T1, T2, T4): ``cause`` is the event's (``session
    start``, ``weather result``, ``worldkeeper``) or ``held`` (a session begun under it)."""

    seq: int
    name: str
    cause: str


@dataclass(frozen=True, slots=True)
class Note:
    """A WorldKeeper's note (I-T13) and who may read it."""

    seq: int
    at: float
    text: str
    audience: str


@dataclass
class Night:
    """Everything the export and the recap tell, gathered in one replay."""

    journal: str
    session: str
    table_id: str
    meta: dict[str, str]
    names: dict[str, str]
    #: the table file's [table] name ("The example table"); the id when it has none
    table_name: str = ""
    #: the Time Board's session number (T1, start_session) at the night's end; None: no board
    session_number: int | None = None
    #: every combatant's name by id (the roster, the night's own additions too)
    combatant_names: dict[str, str] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    first_at: float | None = None
    last_at: float | None = None
    commands: int = 0
    lines: list[Line] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    draws: list[DrawRow] = field(default_factory=list)
    groups: list[GroupRow] = field(default_factory=list)
    luck: dict[str, Luck] = field(default_factory=dict)
    health: dict[str, list[Health]] = field(default_factory=dict)
    time: list[TimePoint] = field(default_factory=list)
    fights: list[Fight] = field(default_factory=list)
    rests: list[RestRow] = field(default_factory=list)
    weather: list[WeatherRow] = field(default_factory=list)
    #: odds of each group before and after each of its draws: (performance, heroes) → [(seq, p)]
    curves: dict[tuple[int, tuple[str, ...]], list[tuple[int, Fraction, Fraction]]] = field(
        default_factory=dict
    )
    final: TableState | None = None
    undone: set[int] = field(default_factory=set)
    odds_cache: dict[tuple[int, str], tuple[TableState, GroupOdds | None]] = field(
        default_factory=dict, repr=False
    )


@dataclass
class _Open:
    """The Performance on the Draw Board while it is played."""

    number: int
    seq_start: int
    difficulty: int
    weight: str
    health: dict[str, tuple[int, int, int]]
    first: dict[str, GroupOdds] = field(default_factory=dict)
    cancelled: bool = False
    closed_at: int | None = None
    results: tuple[tuple[tuple[str, ...], int, bool], ...] = ()
    heroes: tuple[str, ...] = ()
    gains: set[str] = field(default_factory=set)


def _table_name(journal: Journal, table: str | None, fallback: str) -> str:
    import tomllib

    try:
        data = tomllib.loads(read_text(journal.table_file(table)))
    except (OSError, ValueError, JournalError, ConfigError):  # a name only: the id will do
        return fallback
    name = data.get("table", {}).get("name")
    return name if isinstance(name, str) and name.strip() else fallback


def _tracks(state: TableState) -> dict[str, tuple[int, int, int]]:
    return {h.id: (h.fatigue, h.strain, h.wounds) for h in state.heroes.values()}


def gather(journal: Journal, table: str | None = None, *, odds: bool = True) -> Night:
    """Replay ``journal`` once and gather the night (``odds=False``: skip the odds columns)."""
    initial = journal.initial_state(table)
    night = Night(
        journal=str(journal.path),
        session=journal.session_id,
        table_id=initial.table_id,
        meta=dict(journal.meta),
        names={h.id: h.name for h in initial.heroes.values()},
        table_name=_table_name(journal, table, initial.table_id),
    )
    _combatant_names(night, initial)
    for hero, (f, s, w) in _tracks(initial).items():
        night.health[hero] = [Health(0, f, s, w)]
    _time_point(night, 0, initial)
    stack: list[int] = []
    perfs: dict[int, _Open] = {}
    fight: Fight | None = None
    state = initial
    narrate_step = Narrator()
    for step in journal.replay(table):
        entry = step.entry
        state = step.after
        night.commands += 1
        night.first_at = entry.at if night.first_at is None else night.first_at
        night.last_at = entry.at
        night.lines.append(narrate_step(step))
        for event in entry.events:
            night.events.append(
                {"seq": entry.seq, "at": entry.at, "source": entry.source, **event.to_json()}
            )
            if (note := ev.note.of(event)) is not None:
                night.notes.append(Note(entry.seq, entry.at, note["text"], note["audience"]))
        _combatant_names(night, state)
        if entry.command.get("cmd") == "undo" and stack:
            night.undone.add(stack.pop())
        elif records_history(entry.command):
            stack.append(entry.seq)
        _performance(night, perfs, step, odds)
        fight = _combat(night, fight, step)
        _health(night, step)
        _time(night, step)
        _rest_and_weather(night, step)
    night.final = state
    board = state.time
    night.session_number = board.session if board is not None and board.session else None
    for perf in perfs.values():
        _close(night, perf, state)
    for key, curve in night.curves.items():
        night.curves[key] = [p for p in curve if p[0] not in night.undone]
    for row in night.draws:
        row.undone = row.seq in night.undone
    for g in night.groups:
        g.undone = g.seq_start in night.undone
    night.groups.sort(key=lambda g: (g.performance, g.seq_start))
    _luck(night)
    return night


def _performance(night: Night, perfs: dict[int, _Open], step: Step, odds: bool) -> None:
    before, after, entry = step.before, step.after, step.entry
    for event in entry.events:
        if (started := ev.performance_started.of(event)) is not None:
            number = started["number"]
            if number in perfs:  # the number again: the earlier one was undone
                _close(night, perfs.pop(number), before)
            perfs[number] = _Open(
                number,
                entry.seq,
                started["difficulty"],
                started["weight"],
                _tracks(before),
            )
        elif (cancelled := ev.performance_cancelled.of(event)) is not None:
            perf = perfs.get(cancelled["number"])
            if perf is not None:
                perf.cancelled = True
        elif (drawn := _laid(event)) is not None:
            _draw_row(night, perfs, step, event.type, drawn, odds)
        elif (gain := ev.gain_resolved.of(event)) is not None and after.performance is not None:
            perf = perfs.get(after.performance.number)
            if perf is not None:
                perf.gains.add(gain["hero"])
    current = after.performance
    if current is not None and current.number in perfs:
        perf = perfs[current.number]
        perf.heroes = tuple(c.hero for c in current.contributions)
        perf.difficulty = current.difficulty
        perf.results = tuple((r.heroes, r.total, r.success) for r in current.results)
        if perf.cancelled and entry.command.get("cmd") == "undo":
            perf.cancelled = False
    if before.performance is not None and (
        current is None or current.number != before.performance.number
    ):
        perf = perfs.pop(before.performance.number, None)
        if perf is not None:
            perf.closed_at = entry.seq
            _close(night, perf, after)


def _laid(event: Event) -> ev.TokenDrawn | None:
    """A token laid on the Draw Board (DRAW_EVENTS): a draw, a Redraw's or a Favor call's
    payload (each a TokenDrawn), else None."""
    for kind in (ev.token_drawn, ev.token_replaced, ev.favor_called):
        if (drawn := kind.of(event)) is not None:
            return drawn
    return None


def _draw_row(
    night: Night,
    perfs: dict[int, _Open],
    step: Step,
    kind: str,
    data: ev.TokenDrawn,
    odds: bool,
) -> None:
    before, entry = step.before, step.entry
    perf = before.performance
    hero = data["hero"]
    if perf is None or perf.number not in perfs:
        return
    c = perf.contribution(hero)
    if c is None:
        return
    mine = next((g for g in groups(perf, before.rules["intersect"]["mode"]) if hero in g), (hero,))
    seen = _odds(night, before, hero) if odds else None
    open_ = perfs[perf.number]
    if seen is not None and DRAW_EVENTS[kind] == "draw":
        for h in seen.heroes:
            open_.first.setdefault(h, seen)
    token = data["token"]
    night.draws.append(
        DrawRow(
            seq=entry.seq,
            at=entry.at,
            source=entry.source,
            performance=perf.number,
            hero=hero,
            shade=c.shade.value,
            capability=c.capability,
            action=c.action.value,
            training=c.training.value,
            kind=DRAW_EVENTS[kind],
            token=token,
            name=data["name"],
            value=data["value"],
            total=data["total"],
            group=mine,
            best_play_before=None if seen is None else seen.best_play,
            as_drawn_before=None if seen is None else seen.as_drawn,
        )
    )
    if odds:
        after_odds = _odds(night, step.after, hero)
        curve = night.curves.setdefault((perf.number, mine), [])
        if not curve and seen is not None:
            curve.append((entry.seq - 1, seen.best_play, seen.as_drawn))
        if after_odds is not None:
            curve.append((entry.seq, after_odds.best_play, after_odds.as_drawn))


def _odds(night: Night, state: TableState, hero: str) -> GroupOdds | None:
    """The engine's odds, asked once per state: the odds after one draw are the odds
    before the next when nothing came between."""
    key = (id(state), hero)
    hit = night.odds_cache.get(key)
    if hit is not None and hit[0] is state:
        return hit[1]
    found = group_odds(state, hero)
    if len(night.odds_cache) > 16:
        night.odds_cache.clear()
    night.odds_cache[key] = (state, found)
    return found


def _close(night: Night, perf: _Open, state: TableState) -> None:
    end = perf.closed_at if perf.closed_at is not None else night.commands
    now = _tracks(state)
    results = {heroes: (total, success) for heroes, total, success in perf.results}
    resolving: list[tuple[str, ...]] = list(results)
    seen = {h for g in resolving for h in g}
    resolving += [(h,) for h in perf.heroes if h not in seen]
    if not resolving:
        resolving = [()]
    for heroes in resolving:
        total, success = results.get(heroes, (None, None))
        first = next((perf.first[h] for h in heroes if h in perf.first), None)
        row = GroupRow(
            performance=perf.number,
            seq_start=perf.seq_start,
            seq_end=end,
            difficulty=perf.difficulty,
            weight=perf.weight,
            heroes=heroes,
            total=total,
            success=success,
            cancelled=perf.cancelled,
            best_play_first=None if first is None else first.best_play,
            as_drawn_first=None if first is None else first.as_drawn,
            gain=bool(heroes) and all(h in perf.gains for h in heroes),
        )
        for h in heroes:
            if h in perf.health and h in now:
                row.fatigue += now[h][0] - perf.health[h][0]
                row.strain += now[h][1] - perf.health[h][1]
                row.wounds += now[h][2] - perf.health[h][2]
        night.groups.append(row)


def _luck(night: Night) -> None:
    for hero, name in night.names.items():
        night.luck[hero] = Luck(hero, name)
    for g in night.groups:
        if g.undone or g.success is None or g.best_play_first is None:
            continue
        for hero in g.heroes:
            luck = night.luck.setdefault(hero, Luck(hero, night.names.get(hero, hero)))
            luck.checks += 1
            luck.expected += g.best_play_first
            luck.expected_as_drawn += g.as_drawn_first or Fraction(0)
            luck.actual += int(g.success)
            luck.points.append((g.best_play_first, g.success))
    for luck in night.luck.values():
        luck.percentile = percentile([p for p, _ in luck.points], luck.actual)


def _combatant_names(night: Night, state: TableState) -> None:
    combat = state.combat
    if combat is not None:
        for c in combat.roster.values():
            night.combatant_names.setdefault(c.id, c.name)


def _health(night: Night, step: Step) -> None:
    for hero, (f, s, w) in _tracks(step.after).items():
        series = night.health.setdefault(hero, [])
        if not series or (series[-1].fatigue, series[-1].strain, series[-1].wounds) != (f, s, w):
            series.append(Health(step.entry.seq, f, s, w))


def _time_point(
    night: Night, seq: int, state: TableState, draw: ev.TimeDrawn | None = None
) -> None:
    b = state.time
    if b is None:
        return
    night.time.append(
        TimePoint(
            seq,
            b.day,
            b.band.value,
            b.minor_done,
            None if draw is None else draw["face"],
            None if draw is None else draw["size"],
        )
    )


def _time(night: Night, step: Step) -> None:
    drawn = [d for e in step.entry.events if (d := ev.time_drawn.of(e)) is not None]
    a, b = step.before.time, step.after.time
    moved = a is None or b is None or (a.day, a.band, a.minor_done) != (b.day, b.band, b.minor_done)
    if drawn or moved:
        _time_point(night, step.entry.seq, step.after, drawn[0] if drawn else None)


def _rest_and_weather(night: Night, step: Step) -> None:
    seq = step.entry.seq
    rest = night.rests[-1] if night.rests and night.rests[-1].ended is None else None
    for event in step.entry.events:
        if (began := ev.rest_started.of(event)) is not None:
            rest = RestRow(seq, began["kind"], list(began["resting"]), list(began["watch"]))
            night.rests.append(rest)
        elif (done := ev.full_rest_completed.of(event)) is not None and rest is not None:
            rest.full_rest = {h: c["choice"] for h, c in done["heroes"].items()}
        elif (ended := ev.rest_ended.of(event)) is not None and rest is not None:
            rest.ended, rest.minor_draws = ended["reason"], ended["minor_draws"]
        elif (drawn := ev.weather_drawn.of(event)) is not None:
            night.weather.append(WeatherRow(seq, drawn["name"], drawn["cause"]))
        elif (changed := ev.weather_changed.of(event)) is not None:
            night.weather.append(WeatherRow(seq, changed["name"], changed["cause"]))
        elif (began_session := ev.session_started.of(event)) is not None:
            held = began_session["weather"]
            drawn_now = any(ev.weather_drawn.of(e) is not None for e in step.entry.events)
            if held is not None and not drawn_now:
                night.weather.append(WeatherRow(seq, held, "held"))
    b = step.after.time
    if rest is not None and rest.ended is None and b is not None and b.rest is not None:
        rest.minor_draws = b.rest.minor_draws


def _combat(night: Night, fight: Fight | None, step: Step) -> Fight | None:
    entry = step.entry
    for event in entry.events:
        if (started := ev.combat_started.of(event)) is not None:
            fight = Fight(started["fight"], entry.seq, list(started["combatants"]))
            night.fights.append(fight)
        elif fight is None:
            continue
        elif (round_ := ev.combat_round.of(event)) is not None:
            fight.rounds = max(fight.rounds, round_["round"])
        elif (injured := ev.combatant_injured.of(event)) is not None:
            who = injured["combatant"]
            fight.injuries[who] = fight.injuries.get(who, 0) + injured["hits"]
        elif (died := ev.combatant_died.of(event)) is not None:
            fight.dead.append(died["combatant"])
        elif (ended := ev.combat_ended.of(event)) is not None:
            fight.rounds = ended["rounds"]
            fight.seq_end = entry.seq
    if fight is not None and entry.command.get("cmd") == "act":
        fight.actions.append(
            (fight.rounds, str(entry.command.get("combatant")), str(entry.command.get("action")))
        )
    if fight is not None and fight.seq_end is not None:
        return None
    return fight


def percent(p: Fraction | None) -> str:
    return "" if p is None else f"{float(p) * 100:.2f}"


def fraction_text(p: Fraction | None) -> str:
    return "" if p is None else f"{p.numerator}/{p.denominator}"


def names(night: Night, heroes: Iterable[str]) -> str:
    return " + ".join(night.names.get(h, h) for h in heroes)


def combatant(night: Night, cid: str) -> str:
    """A combatant's name (a hero's too), the id only for one never named."""
    return night.combatant_names.get(cid) or night.names.get(cid, cid)
