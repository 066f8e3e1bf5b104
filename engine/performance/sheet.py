"""The WorldKeeper's hand on the hero sheets: health, Favor, Redraws, Training, Escalation.

Mastery is physical (P12): becoming Master makes the Pathway's Ember a Master
Ember (its value follows from the Training); becoming Exemplar takes one
plain Potential of that Pathway out of the bag (Active Reserve stays)
and puts a second mastery Ember in.
"""

from __future__ import annotations

from engine.contracts import events as ev
from engine.contracts.commands import (
    AdjustHeroArgs,
    SetReserveArgs,
    SetStrainTokensArgs,
    SetTrainingArgs,
    ShiftEscalationArgs,
)
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.performance import health
from engine.performance.commands import check_in_play, out_of_play
from engine.picking import known_hero
from engine.state import Applied, TableState
from engine.tokens import TokenKind, Training
from engine.vocabulary import CommandSpec, Field, command


@command(
    CommandSpec(
        "adjust_hero",
        "Change a hero's tracks by signed amounts. Gains run the Fatigue → Strain → Wound cascade;"
        " losses are recovery. Favor and Redraws are set by delta too.",
        "sheet",
        ("P13", "P14", "P15", "P18", "P11"),
        {
            "hero": Field("string", "hero id", True),
            "fatigue": Field(
                "integer", "Fatigue to add (+) or recover (−)", default=0, limit="amount"
            ),
            "strain": Field(
                "integer", "Strain to add (+) or recover (−)", default=0, limit="amount"
            ),
            "wounds": Field("integer", "Wounds to add (+) or heal (−)", default=0, limit="amount"),
            "favor": Field("integer", "Favor to add (+) or remove (−)", default=0, limit="amount"),
            "redraws": Field(
                "integer", "Redraws to add (+) or remove (−)", default=0, limit="amount"
            ),
            "cause": Field("string", "why, for the log", default="worldkeeper"),
        },
    )
)
def adjust_hero(state: TableState, args: AdjustHeroArgs) -> Applied:
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    for key in ("favor", "redraws"):
        if getattr(hero, key) + args[key] < 0:
            raise CommandRejected(
                f"{hero.name} has {getattr(hero, key)} {key}; cannot remove {-args[key]}",
                rule="P18" if key == "favor" else "P11",
                field=key,
            )
    cause = args["cause"]
    events: list[Event] = []
    if args["favor"] or args["redraws"]:
        hero = replace(
            hero, favor=hero.favor + args["favor"], redraws=hero.redraws + args["redraws"]
        )
        state = state.with_hero(hero)
        events.append(
            ev.hero_adjusted({"hero": hero_id, "favor": hero.favor, "redraws": hero.redraws})
        )
    steps = (
        ("wounds", health.add_wound, health.recover_wounds),
        ("strain", health.add_strain, health.recover_strain),
        ("fatigue", health.add_fatigue, health.recover_fatigue),
    )
    amounts = {"wounds": args["wounds"], "strain": args["strain"], "fatigue": args["fatigue"]}
    for key, gain, lose in steps:
        amount = amounts[key]
        if amount > 0:
            state, more = gain(state, hero_id, amount, cause)
        elif amount < 0:
            state, more = lose(state, hero_id, -amount, cause)
        else:
            continue
        events += more
    if not events:
        asked = [k for k in ("fatigue", "strain", "wounds") if amounts[k]]
        if asked:  # a recovery below 0 (or nothing to recover): say what stayed where
            before = state.heroes[hero_id]
            now = ", ".join(f"{k.title()} {getattr(before, k)}" for k in asked)
            wanted = ", ".join(f"{k} {amounts[k]:+d}" for k in asked)
            raise CommandRejected(
                f"{before.name} is at {now}: {wanted} changes nothing (it cannot go below 0)",
                field=asked[0],
                fix=f"to add, give a positive number (e.g. {asked[0]}: 1)",
            )
        raise CommandRejected(
            "adjust_hero changes nothing",
            field="hero",
            code="malformed",
            fix="give a non-zero fatigue, strain, wounds, favor or redraws",
        )
    return state, events


@command(
    CommandSpec(
        "set_training",
        "Set a hero's Training in a capability. Master and Exemplar change the Ember tokens (P12).",
        "sheet",
        ("P4", "P12"),
        {
            "hero": Field("string", "hero id", True),
            "capability": Field("string", "Pathway, Presence or Sense", True),
            "level": Field("string", "Training level", True, enum=tuple(Training)),
        },
    )
)
def set_training(state: TableState, args: SetTrainingArgs) -> Applied:
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    capability = args["capability"]
    if capability not in state.capabilities:
        raise CommandRejected(
            f"unknown capability {capability!r}", rule="P2", field="capability", code="unknown"
        )
    level = Training(args["level"])
    old = hero.training_in(capability)
    if level is old:
        raise CommandRejected(
            f"{hero.name} is already {level.value} in {capability}", field="level"
        )
    events = [
        ev.training_changed(
            {"hero": hero_id, "capability": capability, "from": old.value, "to": level.value},
        )
    ]
    if capability in hero.pathways and (old is Training.EXEMPLAR) != (level is Training.EXEMPLAR):
        if state.performance is not None:
            raise CommandRejected(
                "Exemplar swaps tokens in the Hero Bag",
                rule="P12",
                field="level",
                fix="reset the Performance first",
            )
        state, swap = _exemplar_swap(state, hero_id, capability, level is Training.EXEMPLAR)
        events.append(swap)
    training = dict(hero.training)
    training[capability] = level
    state = state.with_hero(replace(state.heroes[hero_id], training=training))
    return state, events


def _exemplar_swap(
    state: TableState, hero_id: str, pathway: str, becoming: bool
) -> tuple[TableState, Event]:
    """P12: an Exemplar's second mastery Ember replaces one *plain* Potential of that Pathway;
    the hero's Active Reserve stays as it is (P17). Leaving Exemplar puts that Potential back."""
    hero = state.heroes[hero_id]
    mine = [t for t in state.tokens.values() if t.bag == hero.bag and t.pathway == pathway]
    second = [t.id for t in mine if t.kind is TokenKind.EMBER and t.ordinal == 2]
    potentials = [t.id for t in mine if t.kind is TokenKind.POTENTIAL]
    if not second or not potentials:
        raise CommandRejected(
            f"{hero.name}'s bag has no second {pathway} Ember to swap in",
            rule="P12",
            fix="list it in the table file (the loader adds one per starting Pathway)",
        )
    ember = second[0]
    if becoming:
        plain = [
            t
            for t in potentials
            if t in state.bags[hero.bag].contents and t not in state.active_reserve
        ]
        if not plain:
            raise CommandRejected(
                f"every {pathway} Potential of {hero.name} is Active Reserve: the second"
                f" {pathway} Ember replaces a plain Potential (P12) and Active Reserve stays (P17)",
                rule="P12",
                field="level",
                fix=f"return one {pathway} Potential to Potential first (set_reserve active=false)",
            )
        out, into = plain[-1], ember
        say = (
            f"take {state.tokens[out].name} out (the second {pathway} Ember replaces it, P12);"
            f" put {state.tokens[into].name} in"
        )
    else:
        gone = [t for t in potentials if out_of_play(state, t)]
        if not gone:
            raise CommandRejected(
                f"no {pathway} Potential of {hero.name} is out of play to come back",
                rule="P12",
                field="level",
            )
        out, into = ember, gone[0]
        say = f"take {state.tokens[out].name} out; put {state.tokens[into].name} back in"
    state = state.take_from_bag(out).put_in_bag(into)
    return state, ev.bag_changed(
        {"hero": hero_id, "removed": out, "added": into, "rule": "P12", "say": say},
    )


@command(
    CommandSpec(
        "set_reserve",
        "Make a Potential token Active Reserve, or return it to Potential (P17).",
        "sheet",
        ("P17",),
        {
            "hero": Field("string", "hero id", True),
            "token": Field("string", "the hero's Potential token", True),
            "active": Field("boolean", "true: Active Reserve; false: back to Potential", True),
        },
    )
)
def set_reserve(state: TableState, args: SetReserveArgs) -> Applied:
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    token = state.tokens.get(args["token"])
    if token is None or token.kind is not TokenKind.POTENTIAL or token.bag != hero.bag:
        raise CommandRejected(
            f"{args['token']!r} is not one of {hero.name}'s Potential tokens",
            rule="P17",
            field="token",
            code="unknown",
        )
    active = args["active"]
    if active:
        check_in_play(state, token.id, "token")
    if (token.id in state.active_reserve) == active:
        raise CommandRejected(
            f"{token.name} is already {'Active Reserve' if active else 'Potential'}",
            rule="P17",
            field="active",
        )
    reserve = state.active_reserve | {token.id} if active else state.active_reserve - {token.id}
    state = replace(state, active_reserve=reserve)
    kind = ev.reserve_activated if active else ev.reserve_returned
    return state, [kind({"hero": hero_id, "token": token.id, "rule": "P17"})]


@command(
    CommandSpec(
        "shift_escalation",
        "The WorldKeeper shifts the Moment's Escalation toward FOR or AGAINST (P21).",
        "sheet",
        ("P21",),
        {
            "direction": Field("string", "which way", True, enum=("for", "against")),
            "steps": Field("integer", "how far", default=1, bound="escalation"),
        },
    )
)
def shift_escalation(state: TableState, args: ShiftEscalationArgs) -> Applied:
    delta = args["steps"] if args["direction"] == "for" else -args["steps"]
    state = replace(state, escalation=state.escalation + delta)
    return state, [
        ev.escalation_shifted({"shift": delta, "escalation": state.escalation, "rule": "P21"})
    ]


@command(
    CommandSpec(
        "set_strain_tokens",
        "Say which of the hero's Strain tokens are the ones in play (P14): each physical token"
        " has its own tag, so a session carried on, or a mix-up at the table, names them."
        " The Strain count stays; the named tokens go into the Hero Bag, the others out.",
        "sheet",
        ("P14",),
        {
            "hero": Field("string", "hero id", True),
            "tokens": Field(
                "array",
                "the hero's Strain token ids, one per point of Strain",
                True,
                items="string",
            ),
        },
    )
)
def set_strain_tokens(state: TableState, args: SetStrainTokensArgs) -> Applied:
    hero_id = known_hero(state, args)
    hero = state.heroes[hero_id]
    tokens = tuple(str(t) for t in args["tokens"])
    mine = {t.id for t in state.tokens.values() if t.kind is TokenKind.STRAIN and t.bag == hero.bag}
    wrong = [t for t in tokens if t not in mine]
    if wrong or len(set(tokens)) != len(tokens):
        raise CommandRejected(
            f"{wrong[0] if wrong else 'a token named twice'}: give {hero.name}'s Strain tokens,"
            f" each once ({', '.join(sorted(mine))})",
            rule="P14",
            field="tokens",
            code="unknown" if wrong else "malformed",
        )
    if len(tokens) != hero.strain:
        raise CommandRejected(
            f"{hero.name} has {hero.strain} Strain: name {hero.strain} Strain token(s), not"
            f" {len(tokens)}",
            rule="P14",
            field="tokens",
            fix="adjust_hero strain first",
        )
    if state.performance is not None:
        raise CommandRejected(
            "a Performance is on the Draw Board: its tokens may be Strain tokens",
            rule="P14",
            field="tokens",
            fix="Reset first",
        )
    for t in hero.strain_tokens:
        if t not in tokens:
            state = state.take_from_bag(t)
    state = state.with_hero(replace(state.heroes[hero_id], strain_tokens=tokens))
    for t in tokens:
        state = replace(state, retiring=state.retiring - {t}).put_in_bag(t)
    return state, [ev.strain_tokens_set({"hero": hero_id, "tokens": list(tokens), "rule": "P14"})]
