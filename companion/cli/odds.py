"""``rhuna-table odds TABLE.toml --hero … --shade … --capability …``: exact odds before a draw.

The declaration goes through the engine's own commands (begin_performance,
declare), so Training, Exertion, Wounds and the Weight mode count exactly as
at the table, and a declaration the rules refuse is refused here with the
same message. Without ``--difficulty`` every Difficulty the rules allow is listed.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from engine import CommandRejected, apply, load_table
from engine.performance.combinatorics import Dist
from engine.performance.odds import PlanOdds, fraction_json, plan_odds
from engine.tokens import Action, Shade, WeightMode


def register(sub: Any) -> None:
    p = sub.add_parser(
        "odds",
        help="exact odds of a Performance from the hero's bag as it is in the table file",
    )
    p.add_argument("table", help="table TOML file")
    p.add_argument("--hero", required=True, help="hero id from the table file")
    p.add_argument("--shade", required=True, choices=[s.value for s in Shade])
    p.add_argument("--capability", required=True, help="Pathway, Presence or Sense used")
    p.add_argument(
        "--action",
        default=Action.TARGET.value,
        choices=[a.value for a in Action],
        help="action icon (default target; Gain draws nothing)",
    )
    p.add_argument("--exert", action="store_true", help="Exert (Untrained only, P9)")
    p.add_argument("--favor", action="store_true", help="the hero Calls Favor (P18)")
    p.add_argument(
        "--redraw",
        action="store_true",
        help="use the hero's Redraws with the best replace-or-keep decisions (P11, Adept+)",
    )
    p.add_argument("--difficulty", type=int, help="one Difficulty (default: every one, P19)")
    p.add_argument(
        "--weight",
        default=WeightMode.OFF.value,
        choices=[w.value for w in WeightMode],
        help="WEIGHT mode for this Performance (P16, I-P16)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    state = load_table(args.table)
    lo, hi = state.rulebook.difficulty_range
    difficulties = (args.difficulty,) if args.difficulty is not None else tuple(range(lo, hi + 1))
    declaration = {
        "cmd": "declare",
        "hero": args.hero,
        "shade": args.shade,
        "capability": args.capability,
        "action": args.action,
        "exert": args.exert,
    }
    try:
        begin = {"cmd": "begin_performance", "difficulty": difficulties[0], "weight": args.weight}
        state, _ = apply(state, begin)
        state, _ = apply(state, declaration)
        odds = plan_odds(state, args.hero, difficulties, redraw=args.redraw, favor=args.favor)
    except CommandRejected as e:
        print(f"rhuna-table odds: {e.violation}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(to_json(odds, args), sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        name = state.heroes[args.hero].name
        print(render(odds, name, args))
    return 0


def _dist_json(d: Dist | None) -> list[list[Any]] | None:
    if d is None:
        return None
    return [[t, float(p)] for t, p in d.probabilities()]


def to_json(odds: PlanOdds, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "hero": odds.hero,
        "shade": args.shade,
        "capability": args.capability,
        "action": args.action,
        "weight": args.weight,
        "exert": args.exert,
        "draws": odds.draws,
        "bag": odds.bag,
        "plan": {"redraws": odds.redraws, "favor": odds.favor},
        "difficulties": [
            {
                "difficulty": d,
                "as_drawn": fraction_json(odds.as_drawn[d]),
                "success": fraction_json(odds.with_plan[d]),
            }
            for d in odds.as_drawn
        ],
        "distribution": _dist_json(odds.distribution),
        "plan_distribution": _dist_json(odds.plan_distribution),
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


def render(odds: PlanOdds, name: str, args: argparse.Namespace) -> str:
    """A plain-text report: who, the plan, success per Difficulty, the total's bar chart."""
    plan = ["Call Favor"] if odds.favor else []  # first, so the Redraws know its value
    plan.append(f"draw {odds.draws} of {odds.bag}")
    if odds.redraws:
        plan.append(f"Redraw up to {odds.redraws} while short (best replace-or-keep)")
    lines = [
        f"{name} · {args.capability} · {args.shade} · {args.action}"
        f"{' · Exert' if args.exert else ''} · WEIGHT {args.weight}",
        "plan: " + ", then ".join(plan),
        "",
    ]
    planned = odds.redraws or odds.favor
    head = f"{'Difficulty':>10}  {'as drawn':>22}"
    lines.append(head + (f"  {'with plan':>22}" if planned else ""))
    for d in odds.as_drawn:
        a = odds.as_drawn[d]
        row = f"{d:>10}  {_frac(a):>14} {_pct(a)}"
        if planned:
            b = odds.with_plan[d]
            row += f"  {_frac(b):>14} {_pct(b)}"
        lines.append(row)
    dist = odds.plan_distribution if odds.plan_distribution is not None else odds.distribution
    label = "with plan" if odds.plan_distribution is not None and planned else "as drawn"
    if odds.redraws and len(odds.as_drawn) == 1:
        label += f", aiming at {next(iter(odds.as_drawn))}"
    lines += ["", f"total ({label}):"]
    probs = dist.probabilities()
    top = max(p for _, p in probs)
    for t, p in probs:
        bar = "█" * max(1, round(float(p / top) * 30)) if p else ""
        lines.append(f"{t:>5} {_pct(p)} {bar}")
    c = odds.cost
    lines += [
        "",
        f"cost after resolution: {c.fatigue} Fatigue, {c.strain} Strain, {c.wounds} Wounds (P9)",
    ]
    return "\n".join(lines)
