"""What the bridge says on MQTT, as plain data: state topics, events, errors, reply envelopes.

Pure functions of the table view and the loop's outcomes, so they are tested
without a broker. Payloads are compact UTF-8 JSON.

>>> reply_ok("7", {"cmd": "undo"}, [])
{'status': 'ok', 'data': {'command': {'cmd': 'undo'}, 'events': []}, 'transaction': '7'}
>>> reply_error(None, RuleViolation("not JSON", code="malformed"))
{'status': 'error', 'data': {}, 'error': {'code': 'malformed', 'message': 'not JSON'}}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, TypedDict, cast

from companion.mqtt.topics import SECTIONS, Topics
from companion.record.narrate import HistoryEntry, command_text, parse_command_text
from companion.record.session import Recap
from engine.codec import dumps
from engine.contracts.events import NoticeMessage, WithheldMessage, audience
from engine.contracts.schema import Ref
from engine.contracts.view import LegalView, RosterEntry, UndoView
from engine.errors import Refusal, RuleViolation
from engine.events import Event
from engine.narrate import describe
from engine.state import TableState

#: keys the bridge adds to every event message; an event field of the same name is kept
#: as ``event_<name>`` (``combatant_injured`` has its own ``source``, ``time_prompt`` a ``text``)
ENVELOPE_KEYS = ("seq", "type", "text", "source", "at")

# --- the messages' types: docs/{history,error,reply,info}.schema.json are generated from these
# (companion/mqtt/schema.py), and the web pages' types from those (web/gen-types.mjs)

#: one ``…/events`` message: its schema is docs/events.schema.json (``oneOf`` by ``type``)
EventMessage = Annotated[dict[str, Any], Ref("events.schema.json")]


class ErrorMessage(Refusal):
    """``…/error``: a refused command or an unknown tag, the refusal plus where it came from."""

    source: str
    #: when (UTC, ISO 8601)
    at: str
    #: the refused command, when there was one
    command: NotRequired[dict[str, Any]]
    #: the unknown tag's UID
    tag: NotRequired[str]
    #: a second service publishing this table id: its retained ``…/info`` (``code`` duplicate)
    other: NotRequired[dict[str, Any]]


class ReplyData(TypedDict):
    """What the table took: the command as the vocabulary read it, and the events it caused."""

    command: dict[str, Any] | None
    events: list[EventMessage]


class NoData(TypedDict):
    """A refusal's ``data``: empty (Zigbee2MQTT's envelope)."""


class ReplyOk(TypedDict):
    """``…/reply`` to a command the table took."""

    status: Literal["ok"]
    data: ReplyData
    #: the command's ``transaction`` (or ``id``), any JSON value, when it had one
    transaction: NotRequired[Any]


class ReplyError(TypedDict):
    """``…/reply`` to a command refused (the rules, the vocabulary, or a full queue)."""

    status: Literal["error"]
    data: NoData
    error: Refusal
    transaction: NotRequired[Any]


#: one ``…/reply`` message
Reply = ReplyOk | ReplyError


class BoardAlert(TypedDict):
    """One thing the board disagrees with the engine about, in the table's words."""

    #: which well or token it is about (the table's alert key: ``board <reader> channel <n>``,
    #: ``board lifted <token>``, ``board poorly <reader> channel <n>``, ``well <reader>
    #: channel <n>``); stable while it lasts
    key: str
    #: where and what, and how to resolve it (the panel's banner says the same)
    text: str
    #: the token lying alone on that well, which the WorldKeeper's ``accept_as_drawn`` would
    #: count (None: nothing it could count: an unknown tag, two tokens, one lifted …)
    token: str | None


class BoardMessage(TypedDict):
    """``…/board``, retained: whether what lies on the readers' wells is what the engine has
    drawn (docs/readers.md, "The board, in sync or not"), and each disagreement in words until
    it is resolved (put back, taken away, accepted as drawn or undone)."""

    #: no alert stands: every well holds what the engine says laying it put there
    sync: bool
    #: what stands, in the order the table said it
    alerts: list[BoardAlert]


class PanelMessage(TypedDict):
    """``…/panel``, retained: whether the table's e-ink panel answers its refreshes (issue 43
    item 5). A refresh past its deadline (a Waveshare BUSY that never clears: a loose ribbon)
    is "not responding", in words, until a refresh returns; the service plays on meanwhile."""

    #: the last refresh came back within its deadline (true too for a table with no panel)
    responding: bool
    #: while it does not: "The panel is not responding: …", what passed its deadline and what
    #: to check (the panel's banner and ``systemctl status`` say the same); null while it does
    text: str | None


class AuditToken(TypedDict):
    """A token of the audited bag (missing)."""

    token: str
    name: str


class AuditExtra(TypedDict):
    """A tag that is no token of this table: nobody enrolled it, or it names a token the table
    file does not have (``token``)."""

    uid: str
    token: str | None


class AuditOther(TypedDict):
    """A token of this table whose home is another bag, and that bag."""

    token: str
    name: str
    bag: str
    bag_name: str


class AuditMessage(TypedDict):
    """``…/audit``, retained, the gm's: the bag audit that runs (``running``) or the last one's
    answer (docs/readers.md, "A bag audit before play"), against the table file."""

    running: bool
    #: the bag audited (its id) and its name
    bag: str
    bag_name: str
    #: how many tokens the bag has, and how many of them were seen
    expected: int
    seen: int
    #: every token seen and nothing else passed over a reader
    complete: bool
    missing: list[AuditToken]
    extra: list[AuditExtra]
    others: list[AuditOther]
    #: the answer in words, one a line (the first: seen N of M, what is missing …)
    lines: list[str]
    #: the last read in words (None: none yet, or the audit is over)
    last: str | None


class HistoryMessage(TypedDict):
    """``…/history``, retained: the newest narrated journal entries, oldest first, and the last
    ended session's recap (None until a session ended with one)."""

    entries: list[HistoryEntry]
    recap: Recap | None


class GmMessage(TypedDict):
    """``…/gm``, retained, readable by the table's gm and service logins only (issue 42 item
    4): the whole roster, an improvised foe not yet in a fight too (``…/state``'s roster is
    the public one: the heroes and the combatants a fight has shown), and the next Undo's
    words."""

    roster: list[RosterEntry]
    #: what the next Undo takes back, in words (``…/state``'s ``undo`` says its command alone)
    undo: UndoView | None
    #: which commands the table would take now, for every combatant of the whole roster
    legal: LegalView | None


class OverlaySettings(TypedDict):
    """``…/overlay``, retained, written by the table's gm login (gm.html's *On air* switches,
    issue 42 item 1) and read by every login of the table: how the stream overlays show the
    roll card. Presentation, not play: no command, never journalled, Undo never takes it back.
    The service publishes none: no retained message means the defaults (the card on, nothing
    held). An overlay whose URL gives ``card=`` or ``alerts=`` keeps its own for that one, and
    an overlay ignores a payload that is not this, keeping the defaults (docs/web.md)."""

    #: ``on``: the roll card while there is a Performance or an outcome to show (invisible
    #: when idle); ``off``: never
    card: Literal["on", "off"]
    #: true: the outcome that is up on the card stays up until released (false); the ones
    #: behind it wait, none is dropped
    hold: bool
    #: how many times Skip was pressed: an overlay that hears it change takes the outcome that
    #: is up down at once (the next one goes up); 0 or more
    skip: int


class InfoMessage(TypedDict):
    """``…/info``, retained: which process publishes this table. A service standing by for
    another with the same table id says so here too, not retained: ``standby``, no ``now``."""

    instance: str
    host: str
    pid: int
    #: when it started (UTC, ISO 8601)
    started: str
    version: str
    #: the table file's ``[table] name`` ("The kitchen table"): the pages show it for the
    #: table, the id where it is absent (the file gives none)
    name: NotRequired[str]
    #: the service's clock when this was published (UTC, ISO 8601, ms): …/info goes out again
    #: every CLOCK_EVERY s, so a page compares a live one with its own clock (docs/mqtt.md);
    #: the holder's only (a standby's word has none)
    now: NotRequired[str]
    #: this service stands by for the holder whose ``instance`` this is: it runs no command
    #: and publishes nothing of the table (docs/mqtt.md); only on the standby's word, again
    #: every CLASH_EVERY s, never retained
    standby: NotRequired[str]
    #: the holder's word that its claim is decided and that it connected with the last will:
    #: true only on the acting holder's ``…/info``. Two services that both came to hold (a
    #: retained claim read as a gone service's) read each other's and settle on one
    #: (docs/mqtt.md, *One table id*); a claim without it is not yet decided
    holding: NotRequired[bool]


def stamped(payload: str, changed_at: str | None) -> str:
    """``…/state``'s JSON (an object) with ``changed_at`` added last, without encoding it again.

    >>> stamped('{"table":"example"}', "2026-12-02T19:00:00.000+00:00")
    '{"table":"example","changed_at":"2026-12-02T19:00:00.000+00:00"}'
    """
    return f'{payload[:-1]},"changed_at":{encode(changed_at)}}}'


def encode(obj: Any) -> str:
    """Compact JSON, non-ASCII kept as is (names like Xantyr's are shown verbatim).

    Text that UTF-8 cannot carry (a lone surrogate the engine quoted back in a refusal)
    is escaped instead, so every message can be published:

    >>> encode({"cmd": "\\ud83d"})
    '{"cmd":"\\\\ud83d"}'
    """
    return dumps(obj, (",", ":"))


class StateEncoder:
    """``…/state``'s JSON, ``encode(state_payload(view))``, with each bag's JSON kept while
    its bag is unchanged.

    A draw changes one bag: the engine's states share the others (the same
    :class:`~engine.state.Bag` objects), and a bag's view is a function of the bag and the
    table's tokens alone. Not thread-safe: the bridge encodes under its state lock.

    >>> from engine import load_table
    >>> from engine.view import table_view
    >>> from tests.harness import EXAMPLE_TABLE
    >>> state = load_table(EXAMPLE_TABLE)
    >>> encoder = StateEncoder()
    >>> encoder.encode(table_view(state), state) == encode(state_payload(table_view(state)))
    True
    >>> _ = encoder.encode(table_view(state), state); encoder.hits == len(state.bags)
    True
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        #: bags whose JSON was reused (diagnostics, tests)
        self.hits = 0
        self._bags: dict[int, tuple[object, object, str]] = {}

    def encode(self, view: Mapping[str, Any], state: TableState) -> str:
        view = public_view(view)
        bags = view.get("bags")
        if not isinstance(bags, Mapping):
            return encode(view)
        # the keys before and after ``bags`` in two calls, the bags' kept texts between them
        keys = list(view)
        at = keys.index("bags")
        head = encode({k: view[k] for k in keys[:at]})[:-1]  # without its closing brace
        tail = encode({k: view[k] for k in keys[at + 1 :]})[1:]  # without its opening brace
        inner = ",".join(self._bag(state, bag_id, bag) for bag_id, bag in bags.items())
        return "".join(
            (
                head,
                "," if at else "",
                f'"bags":{{{inner}}}',
                "," if tail != "}" else "",
                tail,
            )
        )

    def _bag(self, state: TableState, bag_id: str, view: Any) -> str:
        """``"<bag id>":<the bag's JSON>``, kept while the bag and the table's tokens are the
        same objects."""
        bag = state.bags.get(bag_id)
        kept = self._bags.get(id(bag))
        if bag is not None and kept is not None and kept[0] is bag and kept[1] is state.tokens:
            self.hits += 1
            return kept[2]
        text = f"{encode(bag_id)}:{encode(without_tokens(view))}"
        if bag is not None:
            if len(self._bags) >= self.size:
                self._bags.clear()
            self._bags[id(bag)] = (bag, state.tokens, text)  # the bag kept: its id stays its own
        return text


def public_roster(roster: Any) -> Any:
    """The roster as a public login may read it: the heroes, and the combatants a fight has
    shown (in one now, or dead); a foe the WorldKeeper has on the roster but has not brought
    into a fight (an improvised one, issue 42 item 4) is the gm's alone (``…/gm``).

    >>> [c["id"] for c in public_roster([{"id": "aria", "hero": "aria", "in_fight": False},
    ...  {"id": "lich", "hero": None, "in_fight": False, "dead": False},
    ...  {"id": "raider", "hero": None, "in_fight": True, "dead": False}])]
    ['aria', 'raider']
    """
    if not isinstance(roster, list):
        return roster
    return [
        c
        for c in roster
        if not isinstance(c, Mapping) or c.get("hero") or c.get("in_fight") or c.get("dead")
    ]


def public_undo(undo: Any) -> Any:
    """What the next Undo takes back, as a public login may read it: its command's name, not
    its words (they may hold a P20 prompt, a free-text cause, an improvised foe's name).

    >>> public_undo({"cmd": "resolve", "text": "Aria: 3 vs 5 — FAILURE; resolve Impact (P20)"})
    {'cmd': 'resolve', 'text': ''}
    """
    if not isinstance(undo, Mapping):
        return undo
    return {**undo, "text": ""}


def public_combatants(combatants: Any, ids: set[Any]) -> Any:
    """Roster or fight entries with each injury's ``source`` as a public login may read it: an
    attacker's id as it is, a free-text cause (``injure``'s) as :data:`UNSAID`.

    >>> public_combatants([{"id": "aria", "injury_list": [{"type": "bleeding", "hits": 1,
    ...   "detail": None, "source": "the lich's curse"}, {"type": "cut", "hits": 1,
    ...   "detail": None, "source": "raider"}]}], {"aria", "raider"})[0]["injury_list"]
    [{'type': 'bleeding', 'hits': 1, 'detail': None, 'source': '…'}, {'type': 'cut', 'hits': 1, 'detail': None, 'source': 'raider'}]
    """
    if not isinstance(combatants, list):
        return combatants
    out = []
    for c in combatants:
        injuries = c.get("injury_list") if isinstance(c, Mapping) else None
        if isinstance(injuries, list) and any(
            isinstance(i, Mapping) and i.get("source") not in ids and i.get("source") is not None
            for i in injuries
        ):
            said = [
                {**i, "source": UNSAID}
                if isinstance(i, Mapping) and i.get("source") not in ids and i.get("source")
                else i
                for i in injuries
            ]
            c = {**c, "injury_list": said}
        out.append(c)
    return out


def combatant_ids(view: Mapping[str, Any]) -> set[Any]:
    """Every combatant id of the whole roster (an injury's source when an attack caused it)."""
    roster = view.get("roster")
    if not isinstance(roster, list):
        return set()
    return {c.get("id") for c in roster if isinstance(c, Mapping)}


def public_combat(combat: Any, ids: set[Any]) -> Any:
    """``…/combat`` as a public login may read it: its combatants' free-text causes unsaid."""
    if not isinstance(combat, Mapping) or "combatants" not in combat:
        return combat
    said = public_combatants(combat["combatants"], ids)
    return combat if said == combat["combatants"] else {**combat, "combatants": said}


def public_view(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """``view`` as a public login may read it (``…/state``): its roster (and the commands
    legal for each combatant) without the foes no fight has shown (:func:`public_roster`), its
    Undo without words (:func:`public_undo`), no injury's free-text cause
    (:func:`public_combatants`)."""
    if "roster" not in view and "undo" not in view:
        return view
    out = dict(view)
    ids = combatant_ids(view)
    if "combat" in out:
        out["combat"] = public_combat(out["combat"], ids)
    if "roster" in out:
        out["roster"] = public_combatants(public_roster(out["roster"]), ids)
        legal = out.get("legal")
        if isinstance(legal, Mapping) and isinstance(legal.get("combatants"), Mapping):
            shown = {c.get("id") for c in out["roster"] if isinstance(c, Mapping)}
            kept = {k: v for k, v in legal["combatants"].items() if k in shown}
            out["legal"] = {**legal, "combatants": kept}
    if "undo" in out:
        out["undo"] = public_undo(out["undo"])
    return out


def gm_message(view: Mapping[str, Any]) -> GmMessage:
    """The retained ``…/gm``: what of the table only the gm (and the service) may read."""
    return {
        "roster": list(view.get("roster") or []),
        "undo": view.get("undo"),
        "legal": view.get("legal"),
    }


def without_tokens(bag: Any) -> Any:
    """A bag's view as ``…/state`` carries it: what is in it is on ``…/bags`` only."""
    if isinstance(bag, Mapping) and "tokens" in bag:
        return {k: v for k, v in bag.items() if k != "tokens"}
    return bag


def state_payload(view: Mapping[str, Any]) -> dict[str, Any]:
    """The view as ``…/state`` carries it (before its ``changed_at``): each bag without its
    tokens, which ``…/bags`` carries (BagView: a ``…/state`` under Mosquitto's 8 KB a pass).

    >>> state_payload({"bags": {"favor": {"name": "Favor", "count": 1, "tokens": []}}})
    {'bags': {'favor': {'name': 'Favor', 'count': 1}}}
    """
    view = public_view(view)
    bags = view.get("bags")
    if not isinstance(bags, Mapping):
        return dict(view)
    return {**view, "bags": {k: without_tokens(b) for k, b in bags.items()}}


def state_messages(view: Mapping[str, Any], topics: Topics) -> dict[str, str]:
    """Every retained state topic and its payload, from one ``table_view``."""
    return dict(iter_state_messages(view, topics))


def iter_state_messages(
    view: Mapping[str, Any], topics: Topics, *, whole: bool = True
) -> Iterator[tuple[str, str]]:
    """:func:`state_messages` one at a time, ``…/state`` first: the bridge publishes each as
    soon as it is encoded, so the whole table's topic does not wait for the others.
    ``whole=False``: all but ``…/state`` (already published)."""
    if whole:
        yield topics.state, encode(state_payload(view))
    ids = combatant_ids(view)
    for name in SECTIONS:
        value = view.get(name)
        yield topics.section(name), encode(public_combat(value, ids) if name == "combat" else value)
    for hero_id, hero in view["heroes"].items():
        yield topics.hero(hero_id), encode(hero)


def event_message(seq: int, state: TableState, event: Event, source: str, at: str) -> EventMessage:
    """``{seq, type, …the event's fields…, text, source, at}`` for the events stream."""
    out: dict[str, Any] = {"seq": seq, "type": event.type}
    for key, value in event.data.items():
        out[f"event_{key}" if key in ENVELOPE_KEYS else key] = value
    out["text"] = narrate(state, event)
    out["source"] = source
    out["at"] = at
    out["audience"] = audience(event)  # who may read it (issue 31 item 2)
    return out


#: events the engine calls public whose words are still the WorldKeeper's: an improvised foe
#: (``add_combatant``'s ``combatant_added``: the foe the WorldKeeper is setting up in secret;
#: the fight shows it once it joins, ``combatant_joined``)
WITHHELD_EVENTS = frozenset({"combatant_added"})
#: commands whose words are the WorldKeeper's alone: a public ``…/history`` keeps their row
#: (its seq and time) without their words
WITHHELD_COMMANDS = frozenset({"add_combatant"})
#: a command's free-text fields (a cause, a reason, a detail, a note's words): a public
#: ``…/history`` row says the command without them
FREE_TEXT = ("cause", "reason", "detail", "text")
#: the free-text causes of a command (``adjust_hero``'s cause, ``adjust_renown``'s reason,
#: ``injure``'s cause): the WorldKeeper's words, which the events and the narration repeat;
#: a public copy says ``…`` in their place
FREE_CAUSES = ("cause", "reason")
#: what a public copy says in place of a free-text cause
UNSAID = "…"


def free_words(command: Mapping[str, Any] | None) -> list[str]:
    """The free-text causes ``command`` gave, longest first.

    >>> free_words({"cmd": "adjust_hero", "cause": "the lich's whisper", "fatigue": 1})
    ["the lich's whisper"]
    """
    if not command:
        return []
    words = {v for k in FREE_CAUSES if isinstance(v := command.get(k), str) and v.strip()}
    return sorted(words, key=len, reverse=True)


def unsaid(value: Any, words: Sequence[str]) -> Any:
    """``value`` (JSON) with each of ``words`` in its texts replaced by :data:`UNSAID`.

    >>> unsaid({"cause": "a curse", "text": "Aria gains 1 Fatigue (a curse)"}, ["a curse"])
    {'cause': '…', 'text': 'Aria gains 1 Fatigue (…)'}
    """
    if isinstance(value, str):
        for w in words:
            value = value.replace(w, UNSAID)
        return value
    if isinstance(value, Mapping):
        return {k: unsaid(v, words) for k, v in value.items()}
    if isinstance(value, list):
        return [unsaid(v, words) for v in value]
    return value


def withheld(message: Mapping[str, Any]) -> bool:
    """Whether an ``…/events`` message is for the WorldKeeper alone (issue 42 item 4): a
    worldkeeper note or P20 prompt (its ``audience``), or an improvised foe.

    >>> withheld({"type": "note", "audience": "worldkeeper"}), withheld({"type": "token_drawn"})
    (True, False)
    """
    return message.get("audience") == "worldkeeper" or message.get("type") in WITHHELD_EVENTS


def withheld_message(message: Mapping[str, Any]) -> WithheldMessage:
    """The wordless stand-in ``…/events`` carries for a withheld event: its seq, no words.

    >>> withheld_message({"seq": 4, "type": "note", "text": "the lich listens", "source": "cli",
    ...                   "at": "t", "audience": "worldkeeper"})["text"]
    ''
    """
    return {
        "seq": int(message["seq"]),
        "type": "withheld",
        "text": "",
        "source": str(message.get("source", "")),
        "at": str(message.get("at", "")),
        "audience": "worldkeeper",
    }


def event_publications(
    topics: Topics, message: Mapping[str, Any], command: Mapping[str, Any] | None = None
) -> list[tuple[str, str]]:
    """(topic, payload) of one ``…/events`` message, in the order to publish them: a withheld
    one goes whole to ``…/gm_events`` (only the gm and the service may read it, the broker's
    ACL says so) and as its stand-in to ``…/events``; one that repeats a free-text cause of
    its ``command`` whole to ``…/gm_events`` and without it to ``…/events`` (the same seq);
    any other to ``…/events`` alone.

    >>> t = Topics("rhuna", "k")
    >>> [topic for topic, _ in event_publications(t, {"seq": 1, "type": "wear_prompt",
    ...                                                "audience": "worldkeeper"})]
    ['rhuna/k/gm_events', 'rhuna/k/events']
    """
    if withheld(message):
        return [
            (topics.gm_events, encode(message)),
            (topics.events, encode(withheld_message(message))),
        ]
    words = free_words(command)
    if words:
        public = unsaid(message, words)
        if public != message:  # a free-text cause: whole to the gm, said without it to all
            return [(topics.gm_events, encode(message)), (topics.events, encode(public))]
    return [(topics.events, encode(message))]


def public_entry(entry: HistoryEntry) -> HistoryEntry:
    """A ``…/history`` row as a public login may read it: without the worldkeeper lines, the
    command without its free-text fields (a cause, a reason, a note's words), and a withheld
    command (an improvised foe) without any of its words.

    >>> row = {"seq": 3, "at": 0.0, "time": "t", "source": "gm", "events": ["aria: 1 Fatigue",
    ...        "resolve Wear (P20)"], "audiences": ["public", "worldkeeper"], "outcomes": [],
    ...        "command": 'adjust_hero aria fatigue=1 cause="a whisper"'}
    >>> public = public_entry(row); public["command"], public["events"]
    ('adjust_hero aria fatigue=1', ['aria: 1 Fatigue'])
    """
    kept = [
        (e, a)
        for e, a in zip(entry["events"], entry["audiences"], strict=False)
        if a != "worldkeeper"
    ]
    try:
        command = parse_command_text(entry["command"])
    except Exception:  # not a command line: nothing of it is said
        command = {"cmd": "?"}
    if command.get("cmd") in WITHHELD_COMMANDS:
        return {**entry, "command": str(command.get("cmd")), "events": [], "audiences": []}
    said = command_text({k: v for k, v in command.items() if k not in FREE_TEXT})
    words = free_words(command)
    return {
        **entry,
        "command": said,
        "events": [unsaid(e, words) for e, _ in kept],
        "audiences": [a for _, a in kept],
    }


def notice_message(reader: str, channel: int, active: bool, at: str) -> NoticeMessage:
    """Two tokens in one well of ``reader`` (``active``), or one again, for ``…/events``: not an
    engine event, so no ``seq`` (engine/contracts/events.py, NoticeMessage).

    >>> notice_message("draw-board", 0, True, "2026-01-01T00:00:00.000+00:00")["text"]
    'one token per well: lift the extra token (draw-board channel 0)'
    """
    where = f"{reader} channel {channel}"
    text = (
        f"one token per well: lift the extra token ({where})"
        if active
        else f"one token per well again ({where}): the extra token is lifted"
    )
    return {
        "type": "notice",
        "kind": "one_token_per_well",
        "reader": reader,
        "channel": channel,
        "active": active,
        "text": text,
        "source": f"reader:{reader}",
        "at": at,
        "audience": "table",
    }


def narrate(state: TableState, event: Event) -> str:
    """The event in words; a narrator that fails must not cost the message."""
    try:
        return describe(state, event)
    except Exception:
        return event.type.replace("_", " ")


def error_message(
    violation: RuleViolation,
    source: str,
    at: str,
    command: Mapping[str, Any] | None = None,
    tag: str | None = None,
) -> ErrorMessage:
    """A refusal or an unknown tag for ``…/error``: the RuleViolation JSON plus where from."""
    # the refusal's keys first, as ever (mypy does not follow ** into the optional keys)
    out = cast(ErrorMessage, {**violation.to_json(), "source": source, "at": at})
    if command is not None:
        out["command"] = dict(command)
    if tag is not None:
        out["tag"] = tag
    return out


def reply_ok(
    transaction: Any, command: Mapping[str, Any] | None, events: Sequence[EventMessage]
) -> ReplyOk:
    """Zigbee2MQTT's envelope for a command the table took, with the events it caused."""
    out: ReplyOk = {
        "status": "ok",
        "data": {"command": dict(command) if command is not None else None, "events": list(events)},
    }
    if transaction is not None:
        out["transaction"] = transaction
    return out


def reply_error(transaction: Any, violation: RuleViolation) -> ReplyError:
    """Zigbee2MQTT's envelope for a refusal: ``error`` is the RuleViolation JSON."""
    out: ReplyError = {"status": "error", "data": {}, "error": violation.to_json()}
    if transaction is not None:
        out["transaction"] = transaction
    return out


def history_message(entries: Iterable[HistoryEntry], recap: Recap | None) -> HistoryMessage:
    """The retained ``…/history``: ``entries`` oldest first, and the last session's recap;
    each entry as a public login may read it (:func:`public_entry`: ``…/history`` is public)."""
    return {"entries": [public_entry(e) for e in entries], "recap": recap}


def audit_message(report: Mapping[str, Any]) -> AuditMessage:
    """The retained ``…/audit`` from the service's audit report (companion/table/audit.py)."""
    return {
        "running": bool(report["running"]),
        "bag": report["bag"],
        "bag_name": report["bag_name"],
        "expected": report["expected"],
        "seen": report["seen"],
        "complete": report["complete"],
        "missing": list(report["missing"]),
        "extra": list(report["extra"]),
        "others": list(report["others"]),
        "lines": list(report["lines"]),
        "last": report["last"],
    }


def board_message(alerts: Iterable[BoardAlert]) -> BoardMessage:
    """The retained ``…/board`` for the alerts standing now (public words: where and what).

    >>> board_message([])
    {'sync': True, 'alerts': []}
    """
    standing = list(alerts)
    return {"sync": not standing, "alerts": standing}


#: how a page, the remote and ``doctor`` begin the panel's problem (``…/panel``'s ``text``)
PANEL_SAYS = "The panel is not responding: "


def panel_message(problem: str | None) -> PanelMessage:
    """The retained ``…/panel`` for the display worker's ``problem`` (None: it responds).

    >>> panel_message(None)
    {'responding': True, 'text': None}
    >>> panel_message("panel not responding: a full refresh has taken over 15 s")["text"]
    'The panel is not responding: a full refresh has taken over 15 s'
    """
    if problem is None:
        return {"responding": True, "text": None}
    detail = problem.removeprefix("panel not responding: ")
    return {"responding": False, "text": PANEL_SAYS + detail}
