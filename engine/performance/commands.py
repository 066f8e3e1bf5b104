"""The Performance: declare, draw, Redraw, Call Favor, resolve, Reset (P1–P23).

Each command here is a handler registered in the vocabulary. Handlers check
legality first and raise :class:`CommandRejected` naming the rule; only then do
they build the new state, so a refused command changes nothing.
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.contracts.commands import (
    AcceptAsDrawnArgs,
    BeginPerformanceArgs,
    CallFavorArgs,
    CancelPerformanceArgs,
    DeclareArgs,
    DrawArgs,
    RedrawArgs,
    ResetArgs,
    ResolveArgs,
)
from engine.contracts.events import TokenDrawn
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.performance.health import add_fatigue
from engine.picking import SEED, TOKEN, known_hero, known_token, seeded, token_or_seed
from engine.state import Applied, Contribution, Performance, Result, TableState
from engine.table import FAVOR_BAG
from engine.tokens import (
    Action,
    Moment,
    Shade,
    TokenKind,
    Training,
    ValueContext,
    WeightMode,
    token_value,
)
from engine.vocabulary import CommandSpec, Field, command

_HERO = Field("string", "hero id from the table file", required=True)


# --- queries -------------------------------------------------------------


def draw_total(state: TableState, hero_id: str, training: Training, exert: bool) -> int:
    """How many tokens the hero draws (P6, P9, P15), never more than the maximum (P11)."""
    d = state.rules["draws"]
    base = int(d["exert_total"]) if exert else int(d[training.value])
    hero = state.heroes[hero_id]
    total = max(int(d["minimum"]), base - int(d["wound_penalty"]) * hero.wounds)
    return min(int(d["maximum"]), total)


def value_of(state: TableState, c: Contribution, token_id: str) -> int:
    """What a token on the Draw Board adds to ``c``'s total.

    The Reserve a Spend uses is Active for that whole Performance: it goes back to Potential
    at resolution (P17), after the totals are fixed, and the resolved draw keeps its value.
    """
    perf = state.performance
    assert perf is not None
    spent = token_id == c.reserve and c.action is Action.SPEND  # reserve is mostly None
    ctx = ValueContext(
        shade=c.shade,
        capability=c.capability,
        weight_mode=perf.weight,
        training=c.training,
        active_reserve=spent or token_id in state.active_reserve,
    )
    return token_value(state.tokens[token_id], ctx, state.rules)


def contribution_total(state: TableState, c: Contribution) -> int:
    """The running Performance Total of one contribution (P19)."""
    return sum(value_of(state, c, t) for t in (*c.drawn, *c.favor))


def groups(perf: Performance, mode: str) -> list[tuple[str, ...]]:
    """Resolving groups: Intersecting heroes together when the table sums them (I-P10)."""
    checking = [c for c in perf.contributions if c.checks]
    parent = {c.hero: c.hero for c in checking}

    def root(h: str) -> str:
        while parent[h] != h:
            h = parent[h]
        return h

    if mode == "sum":
        for c in checking:
            if c.intersect and c.intersect in parent:
                parent[root(c.hero)] = root(c.intersect)
    out: dict[str, list[str]] = {}
    for c in checking:
        out.setdefault(root(c.hero), []).append(c.hero)
    return [tuple(v) for v in out.values()]


# --- helpers -------------------------------------------------------------


def _perf(state: TableState, *, open_: bool = True) -> Performance:
    perf = state.performance
    if perf is None:
        raise CommandRejected(
            "no Performance is running", rule="P19", fix="start one with begin_performance"
        )
    if open_ and perf.resolved:
        raise CommandRejected(
            "the Performance is already resolved",
            rule="P22",
            fix="reset to return the tokens, then begin a new Performance",
        )
    return perf


def _contribution(state: TableState, perf: Performance, hero_id: str) -> Contribution:
    c = perf.contribution(hero_id)
    if c is None:
        raise CommandRejected(
            f"{state.heroes[hero_id].name} has not declared in this Performance",
            rule="P23",
            field="hero",
            fix="declare first (Shade, Capability, Action)",
        )
    return c


def _pick(
    state: TableState, bag_id: str, args: DrawArgs | RedrawArgs | CallFavorArgs, rule: str, who: str
) -> str:
    """The token a draw takes: the one named (checked against the bag) or a seeded random one."""
    bag = state.bags[bag_id]
    token_or_seed(args)
    token_id = args.get("token")
    if token_id is None:
        if not bag.contents:
            raise CommandRejected(f"{bag.name} is empty", rule=rule, field="seed")
        seed = args["seed"]
        assert seed is not None  # token_or_seed: a token or a seed
        return seeded(bag.contents, int(seed))
    known_token(state, token_id)
    if token_id not in bag.contents:
        raise CommandRejected(
            f"{state.tokens[token_id].name} is not in {bag.name} ({_where(state, token_id)})",
            rule=rule,
            field="token",
            fix=f"draw a token from {bag.name} for {who}",
        )
    return str(token_id)


def _where(state: TableState, token_id: str) -> str:
    loc = state.location(token_id)
    home = state.bags[state.tokens[token_id].bag].name
    if loc.startswith("board:"):
        return "already on the Draw Board"
    if loc.startswith("aside:"):
        return "set aside after a Redraw until Reset"
    if loc == "supply":
        return "not in play"
    return f"it belongs in {home}"


def _drawn(state: TableState, c: Contribution, token_id: str) -> TokenDrawn:
    """What every draw tells (a draw, a Redraw's replacement, a Favor): the token and the
    contribution's total after it."""
    token = state.tokens[token_id]
    return {
        "hero": c.hero,
        "token": token_id,
        "name": token.name,
        "token_kind": token.kind.value,
        "value": value_of(state, c, token_id),
        "total": contribution_total(state, c),
        "draws_left": c.draws_left,
    }


# --- commands ------------------------------------------------------------


@command(
    CommandSpec(
        "begin_performance",
        "Start a Performance against a Difficulty, with the Weight mode for it.",
        "performance",
        ("P19", "I-P16"),
        {
            "difficulty": Field(
                "integer", "Difficulty set by the WorldKeeper (3–8)", True, bound="difficulty"
            ),
            "weight": Field("string", "WEIGHT mode", enum=tuple(WeightMode), default="off"),
        },
    )
)
def begin_performance(state: TableState, args: BeginPerformanceArgs) -> Applied:
    if state.performance is not None:
        raise CommandRejected(
            "a Performance is already on the Draw Board",
            rule="P22",
            fix="resolve and reset it (or cancel_performance) first",
        )
    lo, hi = state.rulebook.difficulty_range
    difficulty = args["difficulty"]
    if not lo <= difficulty <= hi:
        raise CommandRejected(
            f"Difficulty {difficulty} is outside {lo}–{hi}",
            rule="P19",
            field="difficulty",
            fix=f"choose a Difficulty from {lo} to {hi}",
        )
    number = state.performances + 1
    perf = Performance(number=number, difficulty=difficulty, weight=WeightMode(args["weight"]))
    state = replace(state, performance=perf, performances=number)
    return state, [
        ev.performance_started(
            {"number": number, "difficulty": difficulty, "weight": perf.weight.value},
        )
    ]


@command(
    CommandSpec(
        "declare",
        "A hero dials the Performance Wheel: Shade, Capability, Action (Training comes from the"
        " sheet), with Exert, a Moment commitment, Intersect or the Reserve token used.",
        "performance",
        ("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P17", "P23"),
        {
            "hero": _HERO,
            "shade": Field("string", "declared Shade", True, enum=tuple(Shade)),
            "capability": Field("string", "Pathway, Presence or Sense", True),
            "action": Field("string", "action icon", True, enum=tuple(Action)),
            "exert": Field("boolean", "Exert (Untrained only)", default=False),
            "moment": Field("string", "Moment Board commitment", enum=tuple(Moment)),
            "intersect": Field("string", "hero to Intersect with (Trained or higher)"),
            "reserve": Field(
                "string", "Gain: Potential token to make Active Reserve; Spend: Reserve spent"
            ),
        },
    )
)
def declare(state: TableState, args: DeclareArgs) -> Applied:
    perf = _perf(state)
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    if perf.contribution(hero_id) is not None:
        raise CommandRejected(
            f"{hero.name} has already declared in this Performance",
            rule="P23",
            field="hero",
            fix="undo the declaration to change it",
        )
    capability = args["capability"]
    if capability not in state.capabilities:
        raise CommandRejected(
            f"unknown capability {capability!r}",
            rule="P2",
            field="capability",
            code="unknown",
            fix=f"one of: {', '.join(sorted(state.capabilities))}",
        )
    action = Action(args["action"])
    training = hero.training_in(capability)
    exert = bool(args["exert"])
    if exert and action is Action.GAIN:
        raise CommandRejected(
            "Gain is not Exertion: a Gain cannot be Exerted",
            rule="P7",
            field="exert",
            fix="declare without exert",
        )
    if exert and training is not Training(state.rules["training"]["exert_only"]):
        raise CommandRejected(
            f"{hero.name} is {training.value} in {capability}: only Untrained heroes Exert",
            rule="P9",
            field="exert",
            fix="declare without exert",
        )
    partner = args.get("intersect")
    if partner is not None:
        _check_intersect(state, perf, hero_id, training, str(partner), action)
    reserve = args.get("reserve")
    check_reserve(state, hero_id, capability, action, reserve)
    allowed = 0 if action is Action.GAIN else draw_total(state, hero_id, training, exert)
    c = Contribution(
        hero=hero_id,
        shade=Shade(args["shade"]),
        capability=capability,
        action=action,
        training=training,
        allowed=allowed,
        exert=exert,
        moment=Moment(m) if (m := args.get("moment")) else None,
        intersect=partner,
        reserve=reserve,
    )
    state = replace(state, performance=replace(perf.with_contribution(c), drawing=hero_id))
    events = [
        ev.declared(
            {
                "hero": hero_id,
                "shade": c.shade.value,
                "capability": capability,
                "action": action.value,
                "training": training.value,
                "exert": exert,
                "draws": allowed,
                "moment": c.moment.value if c.moment else None,
                "intersect": partner,
            },
        )
    ]
    if action is Action.GAIN:
        state, more = _gain(state, c)
        events += more
    return state, events


def _check_intersect(
    state: TableState,
    perf: Performance,
    hero_id: str,
    training: Training,
    partner: str,
    action: Action,
) -> None:
    minimum = state.rules["training"]["intersect_minimum"]
    name = state.heroes[hero_id].name
    if not training.at_least(minimum):
        raise CommandRejected(
            f"{name} is {training.value}: Intersect needs {minimum} or higher",
            rule="P10",
            field="intersect",
            fix="declare without intersect",
        )
    if action is Action.GAIN:
        raise CommandRejected(
            "a Gain makes no check and cannot Intersect", rule="P7", field="intersect"
        )
    if partner == hero_id or partner not in state.heroes:
        raise CommandRejected(
            f"cannot Intersect with {partner!r}",
            rule="P10",
            field="intersect",
            fix="name another hero in this Performance",
        )
    other = perf.contribution(partner)
    if other is None or not other.checks or not other.training.at_least(minimum):
        raise CommandRejected(
            f"{state.heroes[partner].name} is not an eligible hero in this Performance",
            rule="P10",
            field="intersect",
            fix=f"{state.heroes[partner].name} must declare first, {minimum} or higher, not Gain",
        )


def check_reserve(
    state: TableState, hero_id: str, capability: str, action: Action, reserve: str | None
) -> None:
    """A declaration's ``reserve`` as ``declare`` judges it: a Spend must name one of the hero's
    Active Reserve tokens (P8); a Gain may name a Potential token in play (P17, P12) or none;
    Target and Defend name none (P3). Raises :class:`CommandRejected`."""
    if reserve is not None or action is Action.SPEND:
        _check_reserve(state, hero_id, capability, action, reserve)


def _check_reserve(
    state: TableState, hero_id: str, capability: str, action: Action, reserve: str | None
) -> None:
    hero = state.heroes[hero_id]
    if not action.names_reserve:
        raise CommandRejected(
            "only Gain and Spend name a Reserve token", rule="P3", field="reserve"
        )
    if action is Action.SPEND:
        if reserve is None or reserve not in state.active_reserve:
            mine = sorted(t for t in state.active_reserve if state.tokens[t].bag == hero.bag)
            if not mine:
                raise CommandRejected(
                    f"Spend uses a token of {hero.name}'s Active Reserve, and {hero.name} has none",
                    rule="P8",
                    field="reserve",
                    fix="Gain first (a Gain can make a Potential token Active Reserve, P17),"
                    " or declare another Action",
                )
            problem = (
                f"Spend names the Active Reserve token it uses ({hero.name} has {len(mine)})"
                if reserve is None
                else f"{reserve} is not in {hero.name}'s Active Reserve"
            )
            raise CommandRejected(
                problem,
                rule="P8",
                field="reserve",
                fix=f"name one of {hero.name}'s Active Reserve tokens: {', '.join(mine)}",
            )
    elif action is Action.GAIN:
        token = state.tokens.get(reserve or "")
        if (
            token is None
            or token.kind is not TokenKind.POTENTIAL
            or token.bag != hero.bag
            or reserve in state.active_reserve
        ):
            raise CommandRejected(
                f"{reserve!r} is not one of {hero.name}'s Potential tokens",
                rule="P17",
                field="reserve",
                fix="name a Potential token that is not already Active Reserve",
            )
        check_in_play(state, str(reserve), "reserve")
    if state.tokens[reserve or ""].bag != hero.bag:
        raise CommandRejected(f"{reserve} is another hero's token", rule="P17", field="reserve")


def out_of_play(state: TableState, token_id: str) -> bool:
    """A Potential an Exemplar's second Ember replaced (P12): in no bag, on no board."""
    token = state.tokens[token_id]
    return token.kind is TokenKind.POTENTIAL and state.location(token_id) == "supply"


def check_in_play(state: TableState, token_id: str, field: str) -> None:
    """P12 / P17: a Potential out of play (replaced by an Exemplar's second Ember) cannot be
    made Active Reserve, by a Gain or by the WorldKeeper."""
    if out_of_play(state, token_id):
        token = state.tokens[token_id]
        raise CommandRejected(
            f"{token.name} is out of play: an Exemplar's second {token.pathway} Ember replaced"
            " it (P12), and only a Potential in play can become Active Reserve (P17)",
            rule="P12",
            field=field,
            fix=f"name another {token.pathway} Potential",
        )


def _gain(state: TableState, c: Contribution) -> Applied:
    """P7: no draw, no check, no Wear/Impact; Fatigue by Training, ordinary cascade."""
    cost = state.rulebook.gain_fatigue(c.training.value)
    events = [
        ev.gain_resolved(
            {"hero": c.hero, "capability": c.capability, "fatigue_cost": cost, "rule": "P7"},
        )
    ]
    if c.reserve is not None:
        state = replace(state, active_reserve=state.active_reserve | {c.reserve})
        events.append(ev.reserve_activated({"hero": c.hero, "token": c.reserve}))
    state, more = add_fatigue(state, c.hero, cost, "gain")
    return state, events + more


@command(
    CommandSpec(
        "draw",
        "A token drawn from the hero's own bag is laid on the Draw Board (or fills a Redraw).",
        "performance",
        ("P6", "P9", "P11", "P15"),
        {"hero": _HERO, "token": TOKEN, "seed": SEED},
    )
)
def draw(state: TableState, args: DrawArgs) -> Applied:
    perf = _perf(state)
    hero_id = known_hero(state, args)
    c = _contribution(state, perf, hero_id)
    name = state.heroes[hero_id].name
    if not c.checks:
        raise CommandRejected(
            f"{name} declared Gain: Gain draws nothing",
            rule="P7",
            field="hero",
            fix="a Gain is already resolved; undo it to declare another action",
        )
    if c.pending_redraw is None and c.draws_left <= 0:
        raise CommandRejected(
            f"{name} has drawn all {c.allowed} tokens",
            rule="P6",
            field="token",
            fix="put the token back; resolve, or Redraw (Adept+) to replace one",
        )
    token_id = _pick(state, state.heroes[hero_id].bag, args, "P6", name)
    state = state.take_from_bag(token_id)
    pending = c.pending_redraw
    c = replace(c, drawn=(*c.drawn, token_id), pending_redraw=None)
    state = replace(state, performance=replace(perf.with_contribution(c), drawing=hero_id))
    if pending is not None:
        return state, [ev.token_replaced({**_drawn(state, c, token_id), "replaced": pending})]
    return state, [ev.token_drawn(_drawn(state, c, token_id))]


@command(
    CommandSpec(
        "redraw",
        "Refinement: spend 1 Redraw to replace one drawn token; the old one is set aside until"
        " Reset. Without token or seed, the next draw for the hero fills the slot.",
        "performance",
        ("P11", "I-P11"),
        {
            "hero": _HERO,
            "replace": Field("string", "the drawn token to replace", True),
            "token": TOKEN,
            "seed": SEED,
        },
    )
)
def redraw(state: TableState, args: RedrawArgs) -> Applied:
    perf = _perf(state)
    hero_id = known_hero(state, args)
    c = _contribution(state, perf, hero_id)
    hero = state.heroes[hero_id]
    minimum = state.rules["training"]["redraw_minimum"]
    if not c.training.at_least(minimum):
        raise CommandRejected(
            f"{hero.name} is {c.training.value.title()} in {c.capability}: Redraw needs"
            f" {str(minimum).title()}",
            rule="P11",
            field="hero",
        )
    if hero.redraws <= 0:
        raise CommandRejected(
            f"{hero.name} has no Redraws left", rule="P11", field="hero", fix="resolve as drawn"
        )
    if c.pending_redraw is not None:
        raise CommandRejected(
            "a Redraw is already waiting for its token",
            rule="P11",
            field="replace",
            fix="draw the replacement token first",
        )
    old = args["replace"]
    if old not in c.drawn:
        raise CommandRejected(
            f"{old!r} is not on {hero.name}'s Draw Board",
            rule="P11",
            field="replace",
            fix=f"replace one of: {', '.join(c.drawn) or 'nothing drawn yet'}",
        )
    immediate = args.get("token") is not None or args.get("seed") is not None
    set_aside_rule = bool(state.rules["redraw"]["set_aside"])
    if set_aside_rule and not state.bags[hero.bag].contents:
        # the replaced token is set aside (I-P11), so the replacement must come from the bag:
        # an empty bag would leave a Redraw that no draw can fill, and nothing to resolve
        raise CommandRejected(
            f"{state.bags[hero.bag].name} is empty: a Redraw would have no token to replace"
            f" {state.tokens[old].name}",
            rule="P11",
            field="replace",
            fix="resolve as drawn",
        )
    if immediate:
        # validate the new token against the bag as it will be: without the replaced token
        # when it is set aside (I-P11), with it when the table returns it to the bag
        _pick(state if set_aside_rule else state.put_in_bag(old), hero.bag, args, "P11", hero.name)
    drawn = tuple(t for t in c.drawn if t != old)
    set_aside = (*c.set_aside, old) if set_aside_rule else c.set_aside
    if not set_aside_rule:
        state = state.put_in_bag(old)
    c = replace(
        c, drawn=drawn, set_aside=set_aside, pending_redraw=old, redraws_used=c.redraws_used + 1
    )
    state = state.with_hero(replace(hero, redraws=hero.redraws - 1))
    state = replace(state, performance=replace(perf.with_contribution(c), drawing=hero_id))
    events = [
        ev.redraw_started(
            {
                "hero": hero_id,
                "set_aside": old,
                "name": state.tokens[old].name,
                "redraws_left": hero.redraws - 1,
                "rule": "P11",
            },
        )
    ]
    if immediate:
        state, more = draw(state, {"hero": hero_id, "token": args["token"], "seed": args["seed"]})
        events += more
    return state, events


@command(
    CommandSpec(
        "call_favor",
        "Spend 1 Favor: one random token from the Favor Bag, valued against the declared Shade;"
        " the answering deity may be Awakened on the Star Grid.",
        "performance",
        ("P18", "I-P18"),
        {"hero": _HERO, "token": TOKEN, "seed": SEED},
    )
)
def call_favor(state: TableState, args: CallFavorArgs) -> Applied:
    perf = _perf(state)
    hero_id = known_hero(state, args)
    c = _contribution(state, perf, hero_id)
    hero = state.heroes[hero_id]
    if not c.checks:
        raise CommandRejected("a Gain makes no check to call Favor into", rule="P7")
    if hero.favor <= 0:
        raise CommandRejected(
            f"{hero.name} has no Favor to spend", rule="P18", field="hero", fix="resolve as drawn"
        )
    limit = int(state.rules["favor"]["calls_per_performance"])
    if len(c.favor) >= limit:
        raise CommandRejected(
            f"{hero.name} has already called Favor in this Performance", rule="P18", field="hero"
        )
    token_id = _pick(state, FAVOR_BAG, args, "P18", hero.name)
    state = state.take_from_bag(token_id).with_hero(replace(hero, favor=hero.favor - 1))
    c = replace(c, favor=(*c.favor, token_id))
    state = replace(state, performance=perf.with_contribution(c))
    token = state.tokens[token_id]
    events = [ev.favor_called({**_drawn(state, c, token_id), "favor_left": hero.favor - 1})]
    deity = token.deity or token.name
    if state.rules["favor"]["awaken_deity"] and deity not in state.awakened:
        state = replace(state, awakened=(*state.awakened, deity))
        events.append(ev.deity_awakened({"deity": deity, "hero": hero_id, "rule": "P18"}))
    return state, events


@command(
    CommandSpec(
        "accept_as_drawn",
        "The WorldKeeper accepts the token lying on an unsync well as drawn: counted as laying"
        " it on the Draw Board counts it (a hero's token drawn for its owner, a Favor token"
        " called for the hero drawing), where the rules allow it now; else refused, naming the"
        " rule.",
        "performance",
        ("P6", "P18", "P22", "I-P11"),
        {
            "token": Field("string", "the token lying on the unsync well (…/board names it)", True),
            "hero": Field(
                "string",
                "a hero's token: its owner (any other is refused); a Favor token: the hero who"
                " calls it (default: the hero drawing now)",
            ),
        },
    )
)
def accept_as_drawn(state: TableState, args: AcceptAsDrawnArgs) -> Applied:
    """What lies on the well counted as drawn by the ordinary draw (P6) or Call Favor (P18):
    the same checks, refusals and events as laying it there when the rules allow it."""
    token_id = args["token"]
    known_token(state, token_id)
    token = state.tokens[token_id]
    where = state.location(token_id)
    if where.startswith("board:"):
        raise CommandRejected(
            f"{token.name} is already on the Draw Board: a token counts once",
            rule="P6",
            field="token",
            fix="lay it back on a well, or Undo its draw",
        )
    if where.startswith("aside:"):
        raise CommandRejected(
            f"{token.name} is set aside after a Redraw until Reset",
            rule="I-P11",
            field="token",
            fix="take it away: it cannot be drawn again in this Performance",
        )
    hero = args["hero"]
    if token.kind is TokenKind.FAVOR:
        perf = _perf(state)
        caller = hero or perf.drawing
        if caller is None:
            raise CommandRejected(
                f"{token.name}: which hero calls Favor?",
                rule="P18",
                field="hero",
                fix="name the hero who calls it",
            )
        return call_favor(state, {"hero": caller, "token": token_id, "seed": None})
    owner = state.bags[token.bag].owner if token.bag in state.bags else None
    if owner is None:
        raise CommandRejected(
            f"{token.name} is in no hero's bag: only a hero's token is drawn on the Draw Board",
            rule="P6",
            field="token",
            fix="take it away (a Weather or Time token is drawn on its own reader)",
        )
    if hero is not None and hero != owner:
        raise CommandRejected(
            f"{token.name} is {state.heroes[owner].name}'s: a hero draws from their own bag",
            rule="P6",
            field="hero",
            fix=f"take it away, or accept it for {state.heroes[owner].name}",
        )
    return draw(state, {"hero": owner, "token": token_id, "seed": None})


def _unfinished(state: TableState, c: Contribution) -> bool:
    if not c.checks:
        return False
    if c.pending_redraw is not None:
        return True
    return c.draws_left > 0 and bool(state.bags[state.heroes[c.hero].bag].contents)


@command(
    CommandSpec(
        "resolve",
        "Compare each total with the Difficulty; Exertion Fatigue, Reserve returned,"
        " Wear / Impact and Escalation prompts.",
        "performance",
        ("P9", "P10", "P17", "P19", "P20", "P21", "P23"),
    )
)
def resolve(state: TableState, args: ResolveArgs) -> Applied:
    perf = _perf(state)
    if not perf.contributions:
        raise CommandRejected("nobody has declared yet", rule="P23", fix="declare first")
    for c in perf.contributions:
        if _unfinished(state, c):
            name = state.heroes[c.hero].name
            raise CommandRejected(
                f"{name} has drawn {len(c.drawn)} of {c.allowed}",
                rule="P6",
                field="hero",
                fix=f"draw {c.draws_left or 1} more for {name} before resolving",
            )
    events: list[Event] = []
    results = []
    by_hero = {c.hero: c for c in perf.contributions}
    escalation = state.escalation
    for group in groups(perf, state.rules["intersect"]["mode"]):
        total = sum(contribution_total(state, by_hero[h]) for h in group)
        success = total >= perf.difficulty
        results.append(Result(group, total, perf.difficulty, success))
        events.append(
            ev.performance_resolved(
                {
                    "performance": perf.number,
                    "heroes": list(group),
                    "total": total,
                    "difficulty": perf.difficulty,
                    "success": success,
                    "rule": "P19",
                },
            )
        )
        prompt = ev.wear_prompt if success else ev.impact_prompt
        events.append(prompt({"heroes": list(group), "rule": "P20"}))
        for h in group:
            moment = by_hero[h].moment
            if moment is None:
                continue
            shift = int(state.rules["escalation"]["success" if success else "failure"][moment])
            escalation += shift
            events.append(
                ev.escalation_prompt(
                    {
                        "hero": h,
                        "moment": moment.value,
                        "success": success,
                        "shift": shift,
                        "escalation": escalation,
                        "rule": "P21",
                    },
                )
            )
    state = replace(
        state,
        performance=replace(perf, resolved=True, results=tuple(results)),
        escalation=escalation,
    )
    for c in perf.contributions:
        if c.exert:
            ex = state.rules["exertion"]
            cost = int(ex["wounded_fatigue"] if state.heroes[c.hero].wounds else ex["fatigue"])
            state, more = add_fatigue(state, c.hero, cost, "exertion")
            events += more
        if c.action is Action.SPEND and c.reserve is not None:
            state = replace(state, active_reserve=state.active_reserve - {c.reserve})
            events.append(ev.reserve_returned({"hero": c.hero, "token": c.reserve, "rule": "P17"}))
    return state, events


def _return_tokens(state: TableState, perf: Performance) -> tuple[TableState, list[str], list[str]]:
    back, gone = [], []
    for c in perf.contributions:
        for t in (*c.drawn, *c.set_aside, *c.favor):
            if t in state.retiring:
                gone.append(t)
            else:
                state = state.put_in_bag(t)
                back.append(t)
    state = replace(state, retiring=state.retiring - set(gone), performance=None)
    return state, back, gone


@command(
    CommandSpec(
        "reset",
        "End of the Performance: the drawn, set-aside and Favor tokens go back to their bags.",
        "performance",
        ("P22",),
    )
)
def reset(state: TableState, args: ResetArgs) -> Applied:
    perf = _perf(state, open_=False)
    if not perf.resolved:
        raise CommandRejected(
            "the Performance is not resolved yet",
            rule="P22",
            fix="resolve it first, or cancel_performance to abandon it",
        )
    state, back, gone = _return_tokens(state, perf)
    return state, [
        ev.performance_reset(
            {"number": perf.number, "returned": back, "removed": gone, "rule": "P22"},
        )
    ]


@command(
    CommandSpec(
        "cancel_performance",
        "Abandon an unresolved Performance: tokens go back; Favor and Redraws spent are refunded.",
        "performance",
        ("P22",),
    )
)
def cancel_performance(state: TableState, args: CancelPerformanceArgs) -> Applied:
    perf = _perf(state)
    for c in perf.contributions:
        hero = state.heroes[c.hero]
        state = state.with_hero(
            replace(hero, favor=hero.favor + len(c.favor), redraws=hero.redraws + c.redraws_used)
        )
    state, back, gone = _return_tokens(state, perf)
    return state, [
        ev.performance_cancelled({"number": perf.number, "returned": back, "removed": gone})
    ]
