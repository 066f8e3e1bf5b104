"""What the bridge says, without a broker: topics, command parsing, envelopes, HA discovery.

The Home Assistant templates are rendered with real Jinja (HA's template engine)
against the very payloads the bridge publishes, so a sensor that would show the
wrong number, or fail in HA, fails here.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2.sandbox import ImmutableSandboxedEnvironment

from companion.mqtt import discovery
from companion.mqtt.commands import BadRequest, Request, parse_request
from companion.mqtt.config import HomeAssistantConfig
from companion.mqtt.messages import (
    StateEncoder,
    encode,
    event_message,
    reply_error,
    reply_ok,
    state_messages,
    state_payload,
)
from companion.mqtt.topics import Topics
from engine import CommandRejected
from engine.events import Event
from engine.view import table_view
from tests.harness import ARIA, BEGIN, run
from tests.harness.combat import fight, sheet

T = Topics("rhuna", "example")


# --- commands in ---------------------------------------------------------------------


def test_the_command_topic_takes_the_whole_command_and_the_transaction():
    got = parse_request("", b'{"cmd": "draw", "hero": "aria", "token": "t", "transaction": 9}')
    assert got == Request({"cmd": "draw", "hero": "aria", "token": "t"}, 9)


def test_a_named_topic_takes_the_fields_and_an_empty_payload_means_no_fields():
    assert parse_request("undo", b"") == Request({"cmd": "undo"})
    assert parse_request("resolve", b" {} ") == Request({"cmd": "resolve"})
    assert parse_request("draw", b'{"hero": "aria", "id": "r1"}') == Request(
        {"cmd": "draw", "hero": "aria"}, "r1"
    )


def test_transaction_wins_over_id_and_both_are_removed():
    got = parse_request("", b'{"cmd": "undo", "id": 1, "transaction": 2}')
    assert got == Request({"cmd": "undo"}, 2)


@pytest.mark.parametrize(
    ("name", "payload", "says"),
    [
        ("", b"", "empty"),
        ("", b"{nope", "not JSON (Expecting property name"),
        ("", b"\xff\xfe", "not UTF-8"),
        ("", b'["undo"]', "expected a JSON object, got list"),
        ("", b'"undo"', "expected a JSON object, got str"),
        ("draw", b"7", "expected a JSON object, got int"),
        ("", b'{"cmd": "begin_performance", "difficulty": NaN}', "not JSON"),
    ],
)
def test_a_payload_that_is_no_command_is_answered_as_malformed(name, payload, says):
    got = parse_request(name, payload)
    assert isinstance(got, BadRequest)
    assert got.violation.code == "malformed" and says in got.violation.message
    assert got.violation.fix  # says what to send instead


def test_the_topic_and_the_payload_disagreeing_names_the_field():
    got = parse_request("undo", b'{"cmd": "draw", "transaction": "t1"}')
    assert isinstance(got, BadRequest) and got.transaction == "t1"
    assert got.violation.field == "cmd" and "'undo'" in got.violation.message


@given(st.binary(max_size=64))
def test_no_payload_makes_the_parser_raise(payload):
    for name in ("", "draw"):
        assert isinstance(parse_request(name, payload), Request | BadRequest)


def test_reply_topics_are_never_read_as_commands():
    assert T.command_name(T.reply) is None
    assert T.command_name(f"{T.command}/draw/extra") is None
    assert T.command_name("rhuna/other/command") is None


# --- events, errors and replies out ---------------------------------------------------------


def test_an_event_message_carries_seq_text_source_and_time(example_state):
    state, events = run(example_state, BEGIN, ARIA)
    msg = event_message(7, state, events[1], "mqtt:3", "2024-01-01T00:00:00.000+00:00")
    assert msg["seq"] == 7 and msg["type"] == "declared" and msg["hero"] == "aria"
    assert msg["text"] == "Aria declares Control · skill · Target · Adept — draws 4"
    assert (msg["source"], msg["at"]) == ("mqtt:3", "2024-01-01T00:00:00.000+00:00")


def test_an_event_field_named_like_the_envelope_is_kept_as_event_field(example_state):
    """combatant_injured has its own 'source' (what injured, C8), time_prompt its 'text'."""
    injured = Event("combatant_injured", {"combatant": "orc", "source": "Aria's sword"})
    msg = event_message(1, example_state, injured, "reader:draw-board", "t")
    assert msg["source"] == "reader:draw-board" and msg["event_source"] == "Aria's sword"
    prompt = Event("time_prompt", {"prompt": 1, "text": "A storm gathers"})
    assert event_message(2, example_state, prompt, "wheel", "t")["event_text"] == "A storm gathers"


def test_a_narrator_that_fails_does_not_cost_the_event(example_state):
    broken = Event("token_drawn", {"hero": "aria"})  # its narrator needs more fields
    assert event_message(1, example_state, broken, "s", "t")["text"] == "token drawn"


def test_the_reply_envelope_is_zigbee2mqtt_s(example_state):
    from engine.errors import RuleViolation

    ok = reply_ok("a", {"cmd": "undo"}, [{"seq": 1}])
    assert ok == {
        "status": "ok",
        "data": {"command": {"cmd": "undo"}, "events": [{"seq": 1}]},
        "transaction": "a",
    }
    bad = reply_error(3, RuleViolation("no", rule="P23", field="hero", fix="declare first"))
    assert bad == {
        "status": "error",
        "data": {},
        "error": {
            "code": "illegal",
            "message": "no",
            "rule": "P23",
            "field": "hero",
            "fix": "declare first",
        },
        "transaction": 3,
    }


def test_state_topics_split_the_view_by_section_and_hero(example_state):
    state, _ = run(example_state, BEGIN, ARIA)
    view = table_view(state)
    msgs = state_messages(view, T)
    whole = json.loads(msgs["rhuna/example/state"])
    assert whole == json.loads(json.dumps(state_payload(view)))
    # what is in each bag is on …/bags, not on …/state (BagView): …/state under 8 KB
    bags = json.loads(msgs["rhuna/example/bags"])
    assert bags == json.loads(json.dumps(view["bags"])) and bags["aria"]["tokens"]
    assert all("tokens" not in bag for bag in whole["bags"].values())
    assert len(msgs["rhuna/example/state"]) < 8192 < len(json.dumps(view))
    assert json.loads(msgs["rhuna/example/performance"])["difficulty"] == 5
    assert json.loads(msgs["rhuna/example/combat"]) is None
    assert json.loads(msgs["rhuna/example/heroes/cass"])["fatigue"] == 3
    assert set(msgs) == {
        "rhuna/example/state",
        "rhuna/example/performance",
        "rhuna/example/time",
        "rhuna/example/combat",
        "rhuna/example/odds",
        "rhuna/example/costs",
        "rhuna/example/bags",
        "rhuna/example/heroes/aria",
        "rhuna/example/heroes/bren",
        "rhuna/example/heroes/cass",
    }


def test_p13_the_costs_topic_carries_the_engine_s_costs_section(example_state):
    """…/costs is the view's costs section as the engine keeps it (issue 18 item 1): the
    Fatigue a hero took in the open Performance, with the panel's words."""
    state, _ = run(example_state, BEGIN, ARIA, {"cmd": "adjust_hero", "hero": "aria", "fatigue": 2})
    costs = json.loads(state_messages(table_view(state), T)["rhuna/example/costs"])
    assert costs == json.loads(json.dumps(table_view(state)["costs"]))
    assert costs["aria"]["fatigue"] == 2 and costs["aria"]["text"] == ["+2 Fatigue"]
    state, _ = run(state, {"cmd": "cancel_performance"})
    assert json.loads(state_messages(table_view(state), T)["rhuna/example/costs"]) is None


# --- Home Assistant discovery ------------------------------------------------------------


HA = HomeAssistantConfig(enabled=True)
JINJA = ImmutableSandboxedEnvironment()


def ha_state(view, config):
    """What HA would show: the template rendered on the retained payload of its topic."""
    payload = state_messages(view, T)[config["state_topic"]]
    return JINJA.from_string(config["value_template"]).render(value_json=json.loads(payload))


def configs(view):
    return {
        topic.split("/")[-2]: config
        for topic, config in discovery.discovery_messages(view, T, HA, "1.0").items()
    }


def test_discovery_gives_every_sensor_a_device_and_the_status_topic(example_state):
    found = discovery.discovery_messages(table_view(example_state), T, HA, "1.0")
    assert "homeassistant/sensor/rhuna_example/aria_fatigue/config" in found
    unique = {c["unique_id"] for c in found.values()}
    assert len(unique) == len(found) == 3 * 4 + 9  # best play and as drawn: two odds sensors
    for config in found.values():
        assert config["availability_topic"] == "rhuna/example/status"
        assert config["device"]["identifiers"] == ["rhuna_example"]
        assert config["state_topic"].startswith("rhuna/example/")


def test_ha_hero_sensors_read_fatigue_strain_wounds_favor(example_state):
    view = table_view(example_state)
    c = configs(view)
    assert ha_state(view, c["cass_fatigue"]) == "3"
    assert ha_state(view, c["aria_favor"]) == "2"
    assert ha_state(view, c["bren_wounds"]) == "0"
    assert ha_state(view, c["aria_strain"]) == "0"
    assert c["aria_fatigue"]["name"] == "Aria Fatigue"


def test_ha_table_sensors_are_unknown_when_nothing_is_going_on(example_state):
    view = table_view(example_state)
    c = configs(view)
    keys = ("performance_total", "performance_difficulty", "best_play_odds", "as_drawn_odds")
    for key in (*keys, "weather"):
        assert ha_state(view, c[key]) == "None", key  # HA's MQTT sensor: unknown
    assert ha_state(view, c["combat_round"]) == "None"
    assert ha_state(view, c["time_band"]) == "morning" and ha_state(view, c["day"]) == "1"


def test_ha_performance_sensors_follow_the_draw_p19(example_state):
    """Total vs Difficulty (P19) and the exact odds, as the panel shows them."""
    state, _ = run(
        example_state,
        BEGIN,
        ARIA,
        {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"},
        {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"},
    )
    view = table_view(state)
    c = configs(view)
    assert ha_state(view, c["performance_total"]) == str(
        view["performance"]["contributions"][0]["total"]
    )
    assert ha_state(view, c["performance_total"]) == "2"  # Adept Ember with its Pathway + Weight 0
    assert ha_state(view, c["performance_difficulty"]) == "5"
    for key in ("best_play", "as_drawn"):  # docs/odds.md: the same two names everywhere
        percent = view["odds"]["groups"][0][key]["percent"]
        assert ha_state(view, c[f"{key}_odds"]) == str(percent)
        assert c[f"{key}_odds"]["unit_of_measurement"] == "%"
    assert ha_state(view, c["best_play_odds"]) != ha_state(view, c["as_drawn_odds"])


def test_ha_weather_and_combat_sensors_t1_c1(example_state):
    state, _ = run(example_state, {"cmd": "draw_weather", "token": "weather.underworld.damp.1"})
    state = fight(state, sheet("orc"), sheet("rat"), initiative={"orc": [3], "rat": [5]})
    view = table_view(state)
    c = configs(view)
    assert ha_state(view, c["weather"]) == view["time"]["weather"]["name"]
    assert ha_state(view, c["combat_round"]) == str(view["combat"]["round"])
    assert ha_state(view, c["combat_tick"]) == str(view["combat"]["tick"])
    assert view["combat"]["round"] is not None


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=8))
def test_the_state_encoder_writes_exactly_what_encode_writes_and_reuses_unchanged_bags(
    example_state, seeds
):
    """``…/state`` is encoded with each bag's JSON kept while its bag is unchanged (issue 17
    item 3): byte for byte what ``encode(state_payload(view))`` writes, along a Performance whose draws
    empty Aria's Hero Bag (P6: an Adept draws four, and redraws) and the Favor Bag."""
    encoder = StateEncoder()
    state, _ = run(example_state, BEGIN, ARIA)
    states = [example_state, state]
    for seed in seeds:
        try:
            state, _ = run(state, {"cmd": "draw", "hero": "aria", "seed": seed})
        except CommandRejected:  # the hand is full: the Performance is drawn
            break
        states.append(state)
    for s in states:
        assert encoder.encode(table_view(s), s) == encode(state_payload(table_view(s)))
    assert encoder.hits >= (len(states) - 1) * (len(example_state.bags) - 1)  # one bag moves
    changed = encoder.encode(table_view(state), state)
    assert json.loads(changed) == state_payload(table_view(state))


@pytest.mark.parametrize("where", ["first", "between", "last", "alone"])
def test_the_state_encoder_splices_the_bags_wherever_the_view_has_them(example_state, where):
    """The encoder writes the keys before and after ``bags`` in one call each and the kept
    bag texts between them: the commas are right with ``bags`` first, last or alone."""
    view = dict(table_view(example_state))
    bags = view.pop("bags")
    others = list(view.items())
    layout = {
        "first": [("bags", bags), *others],
        "between": [others[0], ("bags", bags), *others[1:]],
        "last": [*others, ("bags", bags)],
        "alone": [("bags", bags)],
    }[where]
    spliced = dict(layout)
    assert StateEncoder().encode(spliced, example_state) == encode(state_payload(spliced))
    assert StateEncoder().encode(dict(others), example_state) == encode(dict(others))  # no bags
