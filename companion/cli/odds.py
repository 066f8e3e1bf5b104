"""``rhuna-table odds``: exact odds, best play first, for a declaration or the Performance on the table.

The state comes from a table file (``TABLE.toml``), a state JSON (``--state FILE``,
what ``rhuna-table replay … --json`` prints), or the running service (``--live
CONFIG``: its journal, read as the service would restore it, without its lock).

When the hero has already declared in the open Performance of that state, the odds
are those of the Draw Board as it is now. Otherwise ``--shade`` and ``--capability``
(and ``--action``, ``--reserve``, ``--exert``) declare through the engine's own
commands (begin_performance, declare), so Training, Exertion, Wounds, the Weight mode
and the Reserve count exactly as at the table, and a declaration the rules refuse is
refused here with the same message and rule id. Without ``--difficulty`` every
Difficulty the rules allow is listed (the Performance's own for a live Performance).

Two numbers, the same names as everywhere (docs/odds.md): **best play** (the Redraws
used well, Favor called only if still short after the draw) and **as drawn** (no more
choices).
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from engine import CommandRejected, ConfigError, apply, load_table
from engine.contracts import commands
from engine.contracts.view import Advice
from engine.performance.combinatorics import Dist
from engine.performance.odds import PlanOdds, advice, fraction_json, plan_odds
from engine.state import Contribution, TableState
from engine.tokens import Action, Shade, WeightMode


def register(sub: Any) -> None:
    p = sub.add_parser(
        "odds",
        help="exact odds (best play, as drawn) from a table file, a state JSON or the service",
    )
    p.add_argument("table", nargs="?", help="table TOML file (or give --state / --live)")
    p.add_argument("--state", help="a state JSON (rhuna-table replay TABLE SCRIPT --json)")
    p.add_argument(
        "--live", metavar="CONFIG", help="the running service's state, from its rhuna.toml"
    )
    p.add_argument("--hero", required=True, help="hero id from the table file")
    p.add_argument("--shade", choices=[s.value for s in Shade], help="declared Shade (P1)")
    p.add_argument("--capability", help="Pathway, Presence or Sense used (P2)")
    p.add_argument(
        "--action",
        default=Action.TARGET.value,
        choices=[a.value for a in Action],
        help="action icon (default target; Gain draws nothing)",
    )
    p.add_argument("--reserve", help="Spend: the Active Reserve token spent (P8, P17)")
    p.add_argument("--exert", action="store_true", help="Exert (Untrained only, P9)")
    p.add_argument("--difficulty", type=int, help="one Difficulty (default: every one, P19)")
    p.add_argument(
        "--weight",
        default=WeightMode.OFF.value,
        choices=[w.value for w in WeightMode],
        help="WEIGHT mode for this Performance (P16, I-P16)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"rhuna-table odds: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    sources = [x for x in (args.table, args.state, args.live) if x]
    if len(sources) != 1:
        return _fail("give one of: a table file, --state FILE.json, --live CONFIG")
    state = load_state(args)
    found = hero_id(state, args.hero)
    if found is None:
        known = ", ".join(sorted(state.heroes))
        return _fail(f"unknown hero {args.hero!r} [field: hero] — one of: {known}")
    args.hero = found
    perf = state.performance
    current = _declared(state, args.hero)
    lo, hi = state.rulebook.difficulty_range
    if args.difficulty is not None:
        difficulties: tuple[int, ...] = (args.difficulty,)
    elif current is not None and perf is not None:
        difficulties = (perf.difficulty,)
    else:
        difficulties = tuple(range(lo, hi + 1))
    try:
        if current is None or args.shade or args.capability:
            state = _declare(state, args, difficulties[0])
        elif not lo <= difficulties[0] <= hi:
            raise CommandRejected(
                f"Difficulty {difficulties[0]} is outside {lo}–{hi}",
                rule="P19",
                field="difficulty",
                fix=f"choose a Difficulty from {lo} to {hi}",
            )
        odds = plan_odds(state, args.hero, difficulties)
    except CommandRejected as e:
        return _fail(str(e.violation))
    c = _declared(state, args.hero)
    assert c is not None
    moves = advice(state, odds.heroes, difficulties[0]) if len(difficulties) == 1 else []
    if args.json:
        json.dump(to_json(state, c, odds, moves), sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        print(render(state, c, odds, moves))
    return 0


def load_state(args: argparse.Namespace) -> TableState:
    """The state the odds are for: a table file's, a state JSON, or the live service's."""
    if args.table:
        return load_table(args.table)
    if args.state:
        path = Path(args.state)
        try:
            data = json.loads(path.read_text("utf-8"))
            return TableState.from_json(data)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the state file ({e.strerror})") from None
        except (ValueError, TypeError, KeyError) as e:
            raise ConfigError(
                f"{path}: not a state JSON ({e}) — write one with"
                " `rhuna-table replay TABLE.toml SCRIPT.jsonl --json`"
            ) from None
    return live_state(Path(args.live))


def live_state(config_file: Path) -> TableState:
    """The running service's state: its table file plus its journal (snapshot + replay), read
    without taking the state directory's lock (the service holds it)."""
    from companion.config import load_config
    from companion.table.store import Store, inspect

    config = load_config(config_file)
    if inspect(config.state_dir) is None:
        raise ConfigError(
            f"{config_file}: no journal in {config.state_dir} yet — start the service"
            f" (rhuna-table run --config {config_file}), or give the table file instead"
        )
    initial = load_table(config.table_file)
    with Store.open(config.state_dir, lock=False) as store:
        return store.restore(initial, config.table_file).state


def hero_id(state: TableState, given: str) -> str | None:
    """The hero ``given`` names at the command line: its id in any case (``Aria``, ``ARIA``),
    or its name; None when no hero (or more than one) answers to it."""
    if given in state.heroes:
        return given
    folded = given.casefold()
    matches = {
        hero.id
        for hero in state.heroes.values()
        if folded in (hero.id.casefold(), hero.name.casefold())
    }
    return matches.pop() if len(matches) == 1 else None


def _declared(state: TableState, hero: str) -> Contribution | None:
    perf = state.performance
    if perf is None or perf.resolved:
        return None
    return perf.contribution(hero)


def _declare(state: TableState, args: argparse.Namespace, difficulty: int) -> TableState:
    """begin_performance (unless one is open) and declare, through the engine."""
    if not args.shade or not args.capability:
        raise CommandRejected(
            f"{args.hero} has not declared in an open Performance",
            rule="P23",
            field="shade" if not args.shade else "capability",
            fix="give --shade and --capability (and --action) to declare",
        )
    perf = state.performance
    if perf is not None and perf.resolved:
        raise CommandRejected(
            "the Performance is already resolved",
            rule="P22",
            fix="reset it at the table, or ask about the table file instead",
        )
    if perf is None:
        begin = commands.begin_performance(difficulty=difficulty, weight=args.weight)
        state, _ = apply(state, begin)
    declaration = commands.declare(
        hero=args.hero,
        shade=args.shade,
        capability=args.capability,
        action=args.action,
        exert=args.exert,
    )
    if args.reserve:
        declaration["reserve"] = args.reserve
    state, _ = apply(state, declaration)
    return state


def _dist_json(d: Dist) -> list[list[Any]]:
    return [[t, float(p)] for t, p in d.probabilities()]


def to_json(
    state: TableState, c: Contribution, odds: PlanOdds, moves: list[Advice]
) -> dict[str, Any]:
    perf = state.performance
    assert perf is not None
    return {
        "hero": odds.hero,
        "heroes": list(odds.heroes),
        "shade": c.shade.value,
        "capability": c.capability,
        "action": c.action.value,
        "reserve": c.reserve,
        "weight": perf.weight.value,
        "exert": c.exert,
        "drawn": list(c.drawn),
        "draws": odds.draws,
        "bag": odds.bag,
        "redraws": odds.redraws,
        "favor_calls": odds.favor_calls,
        "difficulties": [
            {
                "difficulty": d,
                "best_play": fraction_json(odds.best_play[d]),
                "as_drawn": fraction_json(odds.as_drawn[d]),
            }
            for d in odds.best_play
        ],
        "advice": moves,
        "distribution": _dist_json(odds.distribution),
        "expected_fatigue": float(odds.cost.fatigue),
        "expected_strain": float(odds.cost.strain),
        "expected_wounds": float(odds.cost.wounds),
    }


def _pct(p: Fraction) -> str:
    if 0 < p < Fraction(1, 20000):  # never show a possible total as 0.00%
        return " <0.01%"
    return f"{float(p) * 100:6.2f}%"


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def render(state: TableState, c: Contribution, odds: PlanOdds, moves: list[Advice]) -> str:
    """A plain-text report: who, what is left, best play and as drawn per Difficulty, the
    advice, the total's bar chart (as drawn)."""
    perf = state.performance
    assert perf is not None
    names = " + ".join(state.heroes[h].name for h in odds.heroes)
    left = [f"draw {odds.draws} of {odds.bag}"]
    if c.drawn:
        left.insert(0, f"{len(c.drawn)} on the Draw Board")
    if odds.redraws:
        left.append(f"{odds.redraws} Redraw{'s' if odds.redraws > 1 else ''}")
    if odds.favor_calls:
        left.append("Favor")
    lines = [
        f"{names} · {c.capability} · {c.shade.value} · {c.action.value}"
        f"{' · Exert' if c.exert else ''} · WEIGHT {perf.weight.value}",
        " · ".join(left),
        "best play: every Redraw used well, Favor called only if still short (P11, P18);"
        " as drawn: no more choices",
        "",
        f"{'Difficulty':>10}  {'best play':>22}  {'as drawn':>22}",
    ]
    for d in odds.best_play:
        b, a = odds.best_play[d], odds.as_drawn[d]
        lines.append(f"{d:>10}  {_frac(b):>14} {_pct(b)}  {_frac(a):>14} {_pct(a)}")
    if moves:
        lines.append("")
        for i, m in enumerate(moves[:2]):
            lines.append(f"{'best move' if i == 0 else 'runner-up'}: {m['text']}")
    lines += ["", "total (as drawn):"]
    probs = odds.distribution.probabilities()
    top = max(p for _, p in probs)
    for t, p in probs:
        bar = "█" * max(1, round(float(p / top) * 30)) if p else ""
        lines.append(f"{t:>5} {_pct(p)} {bar}")
    cost = odds.cost
    lines += [
        "",
        f"cost after resolution: {cost.fatigue} Fatigue, {cost.strain} Strain,"
        f" {cost.wounds} Wounds (P9)",
    ]
    return "\n".join(lines)
