"""The table loop end to end: a tag on an emulated reader (real pty) → command → engine → panel.

These run the real HubEmulator and HubReader over a pty and the real PNG panel;
nothing is mocked.
"""

from __future__ import annotations

import json

import pytest
from PIL import Image

from companion.cli import main as cli_main
from companion.record.journal import open_journal
from companion.scripted import ScriptedTable
from companion.table.loop import TableLoop
from engine import apply
from firmware_bridge.events import Presence, TagEvent
from settings.errors import ConfigError
from tags.commands import ReaderRoles, command_for_tag
from tags.registry import TagRegistry
from tests.harness import ARIA, BEGIN, BREN, EXAMPLE_TABLE, run


def tag(uid: str, channel: int = 0, present: bool = True, reader: str = "draw-board") -> TagEvent:
    return TagEvent(reader, channel, uid, Presence.PRESENT if present else Presence.REMOVED, 0.0)


@pytest.fixture
def registry(example_state):
    return TagRegistry.synthetic(example_state.tokens)


def test_a_hero_token_on_the_draw_board_is_that_heros_draw_p6(example_state, registry):
    s, _ = run(example_state, BEGIN, ARIA)
    cmd = command_for_tag(s, registry, tag(registry.uid("aria.weight.1")), ReaderRoles())
    assert cmd == {"cmd": "draw", "hero": "aria", "token": "aria.weight.1"}


def test_a_favor_token_calls_favor_for_the_hero_drawing_now_p18(example_state, registry):
    s, _ = run(
        example_state,
        BEGIN,
        ARIA,
        BREN,
    )
    favor = tag(registry.uid("favor.03"), channel=4)
    roles = ReaderRoles({"draw-board": {4: "favor"}})
    assert s.performance.drawing == "bren"  # the last to declare
    assert command_for_tag(s, registry, favor, roles)["hero"] == "bren"
    s, _ = apply(s, {"cmd": "draw", "hero": "aria", "seed": 1})
    assert command_for_tag(s, registry, favor, roles)["hero"] == "aria"
    # the last to declare made a Gain (no check to call Favor into), two heroes are drawing
    s, _ = apply(
        s,
        {
            "cmd": "declare",
            "hero": "cass",
            "shade": "impulse",
            "capability": "shadow",
            "action": "gain",
        },
    )
    unsure = command_for_tag(s, registry, favor, roles)
    assert unsure.rule == "P18" and "which hero" in unsure.message


def test_time_and_weather_tokens_on_the_time_reader_t3(example_state, registry):
    roles = ReaderRoles({"draw-board": {5: "time"}})
    t = command_for_tag(
        example_state, registry, tag(registry.uid("time.morning.minor.fatigue.1"), 5), roles
    )
    assert t == {"cmd": "draw_time", "token": "time.morning.minor.fatigue.1", "resolve": True}
    w = command_for_tag(
        example_state, registry, tag(registry.uid("weather.overworld.fog.1"), 5), roles
    )
    assert w == {"cmd": "draw_weather", "bag": "overworld", "token": "weather.overworld.fog.1"}


def test_a_hero_token_on_the_favor_reader_is_refused_with_the_fix(example_state, registry):
    roles = ReaderRoles({"draw-board": {4: "favor"}})
    v = command_for_tag(example_state, registry, tag(registry.uid("aria.weight.0"), 4), roles)
    assert "favor reader" in v.message and v.fix == "lay it on the Draw Board"


def test_removal_is_no_command(example_state, registry):
    assert (
        command_for_tag(
            example_state,
            registry,
            tag(registry.uid("aria.weight.0"), present=False),
            ReaderRoles(),
        )
        is None
    )


def test_unknown_tag_and_refused_draw_change_nothing(example_state, registry):
    s, _ = run(example_state, BEGIN, ARIA)
    loop = TableLoop(s, registry)
    loop.submit(tag("04DEADBEEF0001"))
    loop.submit(tag(registry.uid("bren.weight.0")))  # Bren has not declared (P23)
    unknown, refused = loop.step(0), loop.step(0)
    assert unknown.error.code == "unknown" and "04DEADBEEF0001" in unknown.error.message
    assert refused.error.rule == "P23" and refused.command["hero"] == "bren"
    assert loop.state is s


@pytest.mark.error_log  # it provokes the ERROR it is about
def test_a_broken_subscriber_does_not_stop_the_table(example_state, registry):
    loop = TableLoop(example_state, registry)
    seen = []
    loop.subscribe("broken", lambda o: 1 / 0)
    loop.subscribe("test", seen.append)
    loop.submit(BEGIN)
    assert loop.step(0).state.performance is not None and len(seen) == 1


@pytest.mark.error_log  # the broken hint's ERROR is part of it
def test_a_before_commit_hint_sees_the_state_before_the_journal_and_never_stops_it(
    example_state, registry
):
    """``before_commit`` hints see an accepted state just before its commit (so work for it
    can start while the disk syncs): before the journal, not for a refusal, not without a
    journal; one that raises is logged and the commit goes on; ``unsubscribe`` ends them."""
    order = []
    loop = TableLoop(example_state, registry)
    loop.before_commit("hint", lambda state: order.append(("hint", state)))
    loop.submit(BEGIN)
    loop.step(0)
    assert order == []  # no journal: nothing to wait for, no hint

    def journal(outcome):
        order.append(("journal", outcome.state))
        return len(order)

    loop.journal = journal
    loop.before_commit("broken", lambda state: 1 / 0)
    loop.submit(ARIA)
    declared = loop.step(0)
    assert declared.error is None and declared.seq == 2
    assert order == [("hint", declared.state), ("journal", declared.state)]
    loop.submit(BEGIN)  # refused: a Performance is open
    assert loop.step(0).error is not None and len(order) == 2
    assert loop.unsubscribe("hint") == 1 and loop.unsubscribe("broken") == 1
    loop.submit({"cmd": "cancel_performance"})
    loop.step(0)
    assert [what for what, _ in order] == ["hint", "journal", "journal"]


def test_registry_refuses_duplicates_and_names_the_file(tmp_path):
    reg = TagRegistry({"04A1B2C3": "aria.weight.0"})
    with pytest.raises(ConfigError, match="already enrolled"):
        reg.add("04:a1:b2:c3", "aria.weight.1")
    with pytest.raises(ConfigError, match="already has tag"):
        reg.add("04A1B2C4", "aria.weight.0")
    reg.save(tmp_path / "tags.json")
    assert TagRegistry.load(tmp_path / "tags.json").token_id("04a1b2c3") == "aria.weight.0"
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ConfigError, match=r"bad.json: not JSON"):
        TagRegistry.load(tmp_path / "bad.json")
    (tmp_path / "short.json").write_text(json.dumps({"tags": {"04A1": "x"}}))
    with pytest.raises(ConfigError, match="4, 7 or 10 bytes"):
        TagRegistry.load(tmp_path / "short.json")


def table_on_emulated_parts(tmp_path) -> ScriptedTable:
    """The real service on the example table: emulated hub, MockFactory pins, PNG panel in
    ``tmp_path``, journal in ``tmp_path/state``."""
    return ScriptedTable.emulated(EXAMPLE_TABLE, tmp_path, panel="2.13", colour="bw", flipbook=True)


def test_tokens_laid_on_the_emulated_hub_reach_the_engine_and_the_panel(tmp_path):
    with table_on_emulated_parts(tmp_path) as t:
        t.command(BEGIN)
        t.command(ARIA)
        drawn = [
            t.lay(i, token=tok)
            for i, tok in enumerate(["aria.ember.skill", "aria.weight.1", "aria.ember.lore"])
        ]
        assert [o.command["token"] for o in drawn] == [
            "aria.ember.skill",
            "aria.weight.1",
            "aria.ember.lore",
        ]
        assert all(o.error is None for o in drawn)
        stray = t.lay(3, uid="04C0FFEE000001")
        assert stray.error is not None and stray.command is None
        t.lift(3)
        last = t.lay(3, token="aria.potential.skill.1")
        assert last.events[0]["total"] == 2 + 0 + 1 + 1
        state = t.loop.state
        # journaled before the panel heard of it: the stray tag and the lifts are not commands
        assert last.seq == t.service.store.seq == 2 + 4
    with open_journal(tmp_path / "state" / "journal.sqlite") as journal:
        sources = [e.source for e in journal.entries()]
        assert sources == ["worldkeeper"] * 2 + ["reader:draw-board"] * 4
        assert journal.final_state(EXAMPLE_TABLE).to_json() == state.to_json()
    c = state.performance.contribution("aria")
    assert c.drawn == (
        "aria.ember.skill",
        "aria.weight.1",
        "aria.ember.lore",
        "aria.potential.skill.1",
    )
    latest = Image.open(tmp_path / "latest.png")
    assert latest.size == (250, 122)
    from display.render import render
    from engine.view import table_view

    expected = render(table_view(state), "2.13", "bw").convert("RGB")
    assert latest.convert("RGB").tobytes() == expected.tobytes()


def test_make_demo_runs_the_table_and_the_fight_on_emulated_hardware(tmp_path, capsys):
    """The demo on the embedded defaults, publishing on a real Mosquitto of the test's own:
    a late subscriber (an overlay opened afterwards) sees the final table retained."""
    from tests.harness.broker import Watcher, running_broker

    with running_broker(tmp_path / "broker") as broker:
        code = cli_main(["demo", "--out", str(tmp_path), "--mqtt", f"127.0.0.1:{broker.port}"])
        assert code == 0
        late = Watcher(broker.port, ["rhuna/+/state", "rhuna/+/status"])
        state = late.first("rhuna/example/state").json()
        assert state["heroes"]["cass"]["strain"] == 1  # the Morning's Fatigue overflowed (P13)
        assert late.first("rhuna/fight/state").json()["combat"] is None
        assert late.last("rhuna/example/status").payload == b"offline"  # stopped cleanly
        late.close()
    out = capsys.readouterr().out
    assert "MQTT: publishing on 127.0.0.1" in out
    assert "[hub ch0] tag" in out and "unknown tag 04C0FFEE000001" in out
    assert "Aria: 6 vs 6 — SUCCESS" in out and "Fight 1 ends" in out
    for name in ("table", "fight"):
        frames = sorted((tmp_path / name).glob("frame-*.png"))
        assert len(frames) > 10 and (tmp_path / name / "latest.png").exists()


def test_the_wheel_on_mock_gpio_declares_through_the_loop_p4(tmp_path):
    """gpiozero's MockFactory pins: the encoder dials Hero → Shade → Capability → Action →
    Training (the sheet's) and the push sends the one vocabulary's declare (P1–P4)."""
    with table_on_emulated_parts(tmp_path) as t:
        begun = t.dial({"difficulty": 7})
        assert begun.command == {"cmd": "begin_performance", "difficulty": 7, "weight": "off"}
        declared = t.dial(
            {"hero": "bren", "shade": "impulse", "capability": "steel", "action": "defend"}
        )
        assert declared.source == "wheel" and declared.error is None
        assert declared.command == {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "defend",
        }
        assert declared.events[0]["training"] == "master"
        laid = t.lay(0, token="bren.ember.steel")
        assert laid.events[0]["value"] == 3  # a Master Ember with its own Pathway (P12)
        undone = t.button("undo")
        assert undone.command == {"cmd": "undo"}
        assert t.loop.state.performance.contribution("bren").drawn == ()
        with pytest.raises(
            KeyError, match=r"the capability ring has no juggling \(it offers: skill, "
        ):
            t.dial({"hero": "aria", "capability": "juggling"})
        assert t.service.store.seq == 4  # begin, declare, draw, undo: each journaled
    with open_journal(tmp_path / "state" / "journal.sqlite") as journal:
        assert [e.source for e in journal.entries()] == [
            "wheel",
            "wheel",
            "reader:draw-board",
            "wheel",
        ]


def test_the_dial_banner_says_what_is_dialled_so_far():
    from companion.table.panel_output import dial_banner

    sel = {
        "mode": "dial",
        "ring": "action",
        "rings": ["hero", "shade", "capability", "action", "training"],
        "hero": "aria",
        "hero_name": "Aria",
        "shade": "control",
        "capability": "skill",
        "action": "target",
        "options": ["target", "defend", "gain", "spend"],
        "position": 1,
        "exert": True,
        "warning": None,
        "message": None,
    }
    # names as the table says them, not ids (issue 15)
    assert dial_banner(sel).text == "Wheel: Aria · Control · Skill · Action: Defend? · Exert"
    assert dial_banner({**sel, "warning": "the sheet says Adept"}).severity == "warning"
    assert dial_banner({**sel, "mode": "idle", "ring": None}) is None


def test_a_command_that_is_not_an_object_is_refused_not_a_crash(example_state, registry):
    loop = TableLoop(example_state, registry)
    for bad in (["draw"], "resolve", 7, None):
        loop.submit(bad, source="mqtt")
        outcome = loop.step(0)
        assert outcome.error.code == "malformed" and outcome.command is None
    assert loop.state is example_state
