"""Rest and Full Rest (T7–T10, I-T8, I-T10).

A Rest runs alongside the ordinary Time cadence (it adds no draw, T8). Each hero
rests or keeps watch (T9). After each resolved Minor draw the resting heroes
recover Fatigue (T7); Time Fatigue reaches only the watchers (I-T4). The fifth
Minor draw completes a Full Rest: each resting hero gets all Fatigue or 1 Strain
back, as chosen, or by the I-T8 default. In an Unsafe Rest an Event asks the
WorldKeeper whether it interrupts the Rest, and that draw's recovery waits for
the answer (I-T10).

:func:`after_minor` and :func:`after_major` are called by the Time draw once
the token's own effects are resolved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.contracts import events as ev
from engine.contracts.commands import (
    AnswerInterruptionArgs,
    BeginRestArgs,
    ChooseFullRestArgs,
    EndRestArgs,
)
from engine.contracts.events import FullRestChoice
from engine.errors import CommandRejected
from engine.events import Event
from engine.immutable import replace
from engine.narrate import hero_name
from engine.performance import health
from engine.picking import known_hero
from engine.state import Applied, TableState
from engine.time.board import PromptKind, Rest, RestKind, Role, Size, face_title
from engine.time.common import (
    FULL_REST,
    add_prompt,
    board,
    no_pending,
    with_board,
)
from engine.vocabulary import CommandSpec, Field, command

CHOICES = ("fatigue", "strain")


def resting_heroes(state: TableState) -> frozenset[str]:
    """Heroes resting right now (they ignore Time Fatigue, I-T4)."""
    rest = board(state).rest
    return frozenset(rest.resting()) if rest else frozenset()


def default_choice(state: TableState, hero_id: str) -> str:
    """I-T8: Strain when the hero has Strain and no Fatigue, else Fatigue (or a fixed choice)."""
    mode = state.rules["rest"]["default_choice"]
    if mode in CHOICES:
        return str(mode)
    hero = state.heroes[hero_id]
    return "strain" if hero.strain > 0 and hero.fatigue == 0 else "fatigue"


def _rest(state: TableState, doing: str) -> Rest:
    rest = board(state).rest
    if rest is None:
        raise CommandRejected(
            f"cannot {doing}: no Rest has started",
            rule="T7",
            fix="begin_rest first (kind safe or unsafe)",
        )
    return rest


def _choices(state: TableState, rest: Rest, value: Any) -> dict[str, str]:
    """Validate ``{"hero": "fatigue"|"strain"}`` against the resting heroes (T8, T9)."""
    if value is None:
        return dict(rest.choices)
    if not isinstance(value, Mapping):
        raise CommandRejected(
            "full_rest must be an object of hero → choice",
            field="full_rest",
            code="malformed",
            fix='e.g. {"aria": "fatigue", "cass": "strain"}',
        )
    out = dict(rest.choices)
    for hero_id, choice in value.items():
        if hero_id not in state.heroes:
            raise CommandRejected(
                f"unknown hero {hero_id!r}",
                field="full_rest",
                code="unknown",
                fix=f"heroes: {', '.join(sorted(state.heroes))}",
            )
        if choice not in CHOICES:
            raise CommandRejected(
                f"{hero_name(state, hero_id)}'s Full Rest choice {choice!r}: all Fatigue or"
                " 1 Strain",
                rule="T8",
                field="full_rest",
                fix='use "fatigue" or "strain"',
            )
        if rest.roles.get(hero_id) is not Role.RESTING:
            raise CommandRejected(
                f"{hero_name(state, hero_id)} keeps watch: only resting heroes recover",
                rule="T9",
                field="full_rest",
                fix="give choices for resting heroes only",
            )
        out[hero_id] = str(choice)
    return out


@command(
    CommandSpec(
        "begin_rest",
        "The heroes Rest: Safe or Unsafe, who keeps watch, and (optionally) their Full Rest"
        " choices. Time goes on with the ordinary cadence.",
        "time",
        ("T7", "T8", "T9", "T10"),
        {
            "kind": Field(
                "string", "safe (settlement …) or unsafe (wilderness …)", True, enum=tuple(RestKind)
            ),
            "watch": Field("array", "heroes keeping watch (the rest rest)", items="string"),
            "full_rest": FULL_REST,
        },
    )
)
def begin_rest(state: TableState, args: BeginRestArgs) -> Applied:
    if board(state).rest is not None:
        raise CommandRejected(
            "a Rest is already running", rule="T7", fix="end_rest first to start another"
        )
    no_pending(state, "T7", "begin a Rest")
    watch = tuple(args.get("watch") or ())
    for hero_id in watch:
        if hero_id not in state.heroes:
            raise CommandRejected(
                f"unknown hero {hero_id!r}",
                field="watch",
                code="unknown",
                fix=f"heroes: {', '.join(sorted(state.heroes))}",
            )
    roles = {h: Role.WATCH if h in watch else Role.RESTING for h in state.heroes}
    if Role.RESTING not in roles.values():
        raise CommandRejected(
            "everybody keeps watch: nobody would rest",
            rule="T9",
            field="watch",
            fix="let at least one hero rest",
        )
    rest = Rest(RestKind(args["kind"]), roles)
    rest = replace(rest, choices=_choices(state, rest, args.get("full_rest")))
    state = with_board(state, replace(board(state), rest=rest))
    return state, [
        ev.rest_started(
            {
                "kind": rest.kind.value,
                "resting": list(rest.resting()),
                "watch": [h for h, r in roles.items() if r is Role.WATCH],
                "full_rest_at": int(state.rules["rest"]["full_rest_draws"]),
                "rule": "T7",
            },
        )
    ]


@command(
    CommandSpec(
        "choose_full_rest",
        "A resting hero's Full Rest choice: recover all Fatigue, or 1 Strain (T8, I-T8).",
        "time",
        ("T8", "I-T8"),
        {
            "hero": Field("string", "hero id", True),
            "choice": Field("string", "what to recover", True, enum=CHOICES),
        },
    )
)
def choose_full_rest(state: TableState, args: ChooseFullRestArgs) -> Applied:
    hero_id = known_hero(state, args)
    rest = _rest(state, "choose a Full Rest recovery")
    choices = _choices(state, rest, {hero_id: args["choice"]})
    state = with_board(state, replace(board(state), rest=replace(rest, choices=choices)))
    return state, [ev.full_rest_chosen({"hero": hero_id, "choice": args["choice"], "rule": "T8"})]


@command(
    CommandSpec(
        "end_rest",
        "End the Rest (allowed after any Minor draw resolves, T7); no Full Rest unless completed.",
        "time",
        ("T7",),
    )
)
def end_rest(state: TableState, args: EndRestArgs) -> Applied:
    _rest(state, "end the Rest")  # refuses when no Rest has started (T7)
    no_pending(state, "T7", "end the Rest")
    if board(state).blocking_prompt() is not None:
        raise CommandRejected(
            "an Event may have interrupted the Rest: answer that first",
            rule="I-T10",
            fix="answer_interruption with interrupts true or false",
        )
    return _finish(state, "ended")


def _finish(state: TableState, reason: str) -> Applied:
    rest = board(state).rest
    assert rest is not None
    b = board(state).without_prompts(PromptKind.FULL_REST, PromptKind.INTERRUPT)
    state = with_board(state, replace(b, rest=None))
    return state, [
        ev.rest_ended(
            {"reason": reason, "minor_draws": rest.minor_draws, "kind": rest.kind.value},
        )
    ]


@command(
    CommandSpec(
        "answer_interruption",
        "The WorldKeeper says whether the Event drawn in an Unsafe Rest interrupts it (I-T10).",
        "time",
        ("T10", "I-T10"),
        {
            "interrupts": Field(
                "boolean", "true: the Rest ends now, without this draw's recovery", True
            ),
            "full_rest": FULL_REST,
        },
    )
)
def answer_interruption(state: TableState, args: AnswerInterruptionArgs) -> Applied:
    rest = _rest(state, "answer an interruption")
    if board(state).blocking_prompt() is None:
        raise CommandRejected(
            "no Event is waiting to interrupt the Rest",
            rule="I-T10",
            field="interrupts",
            fix="only an Event in an Unsafe Rest asks this",
        )
    choices = _choices(state, rest, args.get("full_rest"))
    state = with_board(state, board(state).without_prompts(PromptKind.INTERRUPT))
    if args["interrupts"]:
        state, events = _finish(state, "interrupted")
        return state, [ev.rest_interrupted({"rule": "I-T10"}), *events]
    held = rest.held
    rest = replace(rest, held=False, choices=choices)
    state = with_board(state, replace(board(state), rest=rest))
    events = [ev.rest_not_interrupted({"rule": "I-T10"})]
    if held:  # a Minor draw's recovery was waiting for this answer
        state, more = _recover(state)
        events += more
    return state, events


def after_minor(state: TableState, face: str, choices: Any) -> Applied:
    """T7 after a resolved Minor draw: recovery, or an interruption question (I-T10)."""
    rest = board(state).rest
    if rest is None:
        return state, []
    rest = replace(rest, choices=_choices(state, rest, choices))
    state = with_board(state, replace(board(state), rest=rest))
    if _interrupts(state, rest, face):
        state = with_board(state, replace(board(state), rest=replace(rest, held=True)))
        state, event = _ask(state, face, Size.MINOR)
        return state, [event]
    return _recover(state)


def after_major(state: TableState, face: str, choices: Any) -> Applied:
    """A Major Event in an Unsafe Rest may interrupt it too; Majors give no recovery (T7)."""
    rest = board(state).rest
    if rest is None:
        return state, []
    rest = replace(rest, choices=_choices(state, rest, choices))
    state = with_board(state, replace(board(state), rest=rest))
    if not _interrupts(state, rest, face):
        return state, []
    state, event = _ask(state, face, Size.MAJOR)
    return state, [event]


def _interrupts(state: TableState, rest: Rest, face: str) -> bool:
    return rest.kind is RestKind.UNSAFE and face in state.rules["rest"]["interrupt_faces"]


def _ask(state: TableState, face: str, size: Size) -> tuple[TableState, Event]:
    return add_prompt(
        state,
        PromptKind.INTERRUPT,
        f"Unsafe Rest: does this {size.value.title()} {face_title(face)} interrupt the Rest?"
        " (answer_interruption)",
        face=face,
        size=size,
        blocking=True,
    )


def _recover(state: TableState) -> Applied:
    """One Minor draw of Rest: resting heroes recover; the fifth completes a Full Rest (T7, T8)."""
    rest = board(state).rest
    assert rest is not None
    r = state.rules["rest"]
    rest = replace(rest, minor_draws=rest.minor_draws + 1, held=False)
    state = with_board(state, replace(board(state), rest=rest))
    full_at = int(r["full_rest_draws"])
    events = [
        ev.rest_step(
            {"minor_draws": rest.minor_draws, "full_rest_at": full_at, "rule": "T7"},
        )
    ]
    for hero_id in rest.resting():
        state, more = health.recover_fatigue(state, hero_id, int(r["recover_per_minor"]), "rest")
        events += more
    # every ``full_at`` Minor draws complete a Full Rest (a Rest that goes on past one, when
    # the table does not end it there, starts counting towards the next)
    done = rest.minor_draws % full_at
    if full_at > 1 and done == full_at - 1:
        defaults = ", ".join(
            f"{hero_name(state, h)} {rest.choices.get(h) or default_choice(state, h)}"
            for h in rest.resting()
        )
        state, event = add_prompt(
            state,
            PromptKind.FULL_REST,
            f"The next Minor draw completes a Full Rest: all Fatigue or 1 Strain back"
            f" ({defaults}; choose_full_rest to change)",
        )
        events.append(event)
    if done == 0:
        state, more = _full_rest(state, rest)
        events += more
    return state, events


def _full_rest(state: TableState, rest: Rest) -> Applied:
    """T8: each resting hero recovers all Fatigue or 1 Strain (I-T8 default if not chosen)."""
    events: list[Event] = []
    chosen: dict[str, FullRestChoice] = {}
    for hero_id in rest.resting():
        choice = rest.choices.get(hero_id)
        by_default = choice is None
        choice = choice or default_choice(state, hero_id)
        chosen[hero_id] = {"choice": choice, "default": by_default}
        if choice == "fatigue":
            state, more = health.recover_fatigue(state, hero_id, None, "full rest")
        else:
            amount = int(state.rules["rest"]["full_rest_strain"])
            state, more = health.recover_strain(state, hero_id, amount, "full rest")
        events += more
    events.insert(0, ev.full_rest_completed({"heroes": chosen, "rule": "T8"}))
    state = with_board(state, board(state).without_prompts(PromptKind.FULL_REST))
    if state.rules["rest"]["end_at_full_rest"]:
        state, more = _finish(state, "full_rest")
        events += more
    return state, events
