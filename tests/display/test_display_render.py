"""Rendering: which screen the moment calls for, optional view sections, costs, the preview command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.cli import main
from display.panels import ACCENT, BLACK, PANELS, WHITE, panel_spec
from display.render import Frame, Renderer, draw, render, screen_of
from display.screens.banner import Banner
from display.source import load_view
from display.viewmodel import focus, next_move, percent, short_advice, token_code
from engine.view import table_view
from settings.errors import ConfigError
from tests.harness import BEGIN, ROOT
from tests.harness import views as dv


def _shown(view: dict[str, Any], panel: str = "4.2", **kw: Any) -> str:
    return " | ".join(t.shown for t in draw(view, panel, "bw", **kw).texts)


# --- which screen ---------------------------------------------------------------------


def test_p19_a_performance_on_the_board_comes_first() -> None:
    view = dv.performance_mid()
    view["combat"] = dv.COMBAT
    assert screen_of(view) == "performance"


def test_c2_combat_shows_when_no_performance_runs() -> None:
    assert screen_of(dv.combat()) == "combat"
    assert "ROUND 2" in _shown(dv.combat())


def test_t3_between_performances_shows_the_time_board() -> None:
    view = dv.between_time()
    assert screen_of(view) == "between"
    text = _shown(view)
    assert "DAY 2" in text and "MAJOR due" in text and "Storm" in text


@pytest.mark.parametrize("key", ["odds", "time", "combat"])
@pytest.mark.parametrize("value", ["absent", None])
def test_optional_sections_may_be_absent_or_null(key: str, value: Any) -> None:
    for build in (dv.performance_mid, dv.between_time, dv.combat):
        view = build()
        if value == "absent":
            view.pop(key, None)
        else:
            view[key] = None
        for panel in PANELS:
            assert render(view, panel, "bwr").size == panel_spec(panel).size


def test_a_bare_view_renders() -> None:
    assert render({"heroes": {}}, "2.13").size == (250, 122)


def test_p19_waiting_for_a_declaration_shows_the_difficulty() -> None:
    state = dv.example_state()
    from engine import apply

    state, _ = apply(state, {"cmd": "begin_performance", "difficulty": 7})
    text = _shown(table_view(state), "2.13")
    assert "Difficulty" in text and "7" in text


# --- what the Performance screen says ---------------------------------------------------


def test_p6_p19_mid_performance_shows_total_difficulty_draws_left_and_odds() -> None:
    texts = draw(dv.performance_mid(), "2.13", "bw").texts
    shown = [t.shown for t in texts]
    assert "ARIA" in shown and "1" in shown and "/6" in shown
    line = " ".join(shown)
    assert "2 draws left" in line and "best play 71%" in line and "Redraw W0" in line


@pytest.mark.parametrize("panel", ["4.2", "7.5"])
def test_p11_p18_roomy_panels_show_both_names_and_the_advice(panel: str) -> None:
    """docs/odds.md: best play is the headline, as drawn the secondary figure, the advice in
    full (best move first, then the runner-up)."""
    line = " ".join(t.shown for t in draw(dv.performance_mid(), panel, "bw").texts)
    assert "best play 71%" in line and "as drawn 31%" in line
    assert "Redraw Aria's Weight 0, then Favor if still short → 71%" in line


def test_p16_weight_token_values_are_shown_signed() -> None:
    shown = [t.shown for t in draw(dv.performance_mid(), "4.2", "bw").texts]
    assert "−1" in shown and "W0" in shown  # WEIGHT MASS: weight 0 gives −1V


def test_p20_failure_shows_impact_and_the_cost_p13() -> None:
    view = dv.performance_failed()
    for panel in PANELS:
        text = _shown(view, panel)
        assert "FAILURE" in text and "Impact" in text
        assert "+2 Fatigue → 1 Strain" in text
        assert "Favor −1" in text


def test_p7_gain_says_no_check() -> None:
    from engine import apply

    state, _ = apply(dv.example_state(), {"cmd": "begin_performance", "difficulty": 4})
    state, _events = apply(
        state,
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "gain",
            "reserve": "aria.potential.skill.1",
        },
    )
    text = _shown(table_view(state), "2.9")
    assert "GAIN" in text and "no check" in text and "+1 Fatigue" in text


def test_p23_roomy_panel_lists_the_other_heroes() -> None:
    view = dv.performance_success_group()
    text = _shown(view, "7.5")
    assert "Bren" in text and "ARIA" in text


def test_focus_is_the_hero_still_drawing() -> None:
    view = dv.performance_success_group()
    perf = view["performance"]
    perf["resolved"] = False
    perf["contributions"][0]["draws_left"] = 2
    current = focus(perf)
    assert current is not None and current["hero"] == "bren"


def test_error_banner_is_drawn_and_the_screen_keeps_its_total() -> None:
    banner = Banner("Unknown tag 04:A2:19:7B: enrol it or check the reader")
    for panel in PANELS:
        c = draw(dv.performance_mid(), panel, "bwr", banner=banner)
        shown = [t.shown for t in c.texts]
        assert "1" in shown, f"the total is gone under the banner on {panel}"
        assert any("Unknown" in s for s in shown)
        # the banner is solid red: a third of a strip, a quarter of a roomy panel at least
        band = c.image.crop((0, 0, c.spec.width, c.spec.height // 4)).tobytes()
        assert band.count(ACCENT) > len(band) // 3


def test_colours_use_only_their_inks() -> None:
    for colour, inks in (("bw", {WHITE, BLACK}), ("bwr", {WHITE, BLACK, ACCENT})):
        view = dv.performance_failed()
        image = render(view, "7.5", colour, banner=Banner("Broker down"))
        assert set(image.tobytes()) == inks


def test_rendering_is_deterministic() -> None:
    """Same view, same bytes: what golden images and the worker's skip rely on."""
    one = Renderer("2.9", "bwr")(Frame(dv.combat()))
    two = Renderer("2.9", "bwr")(Frame(dv.combat()))
    assert one.tobytes() == two.tobytes()
    assert one.tobytes() != Renderer("2.9", "bw")(Frame(dv.combat())).tobytes()


# --- costs: the engine's costs section, shown (P9, P13, P14, P15, P18) ------------------


def _costs_text(*commands: dict[str, Any]) -> dict[str, list[str]]:
    from engine import apply

    state = dv.example_state()
    for cmd in commands:
        state, _ = apply(state, cmd)
    view = table_view(state)
    return {hero: cost["text"] for hero, cost in (view["costs"] or {}).items()}


def test_p13_fatigue_overflow_reads_as_a_chain() -> None:
    shown = _costs_text(
        {"cmd": "adjust_hero", "hero": "cass", "fatigue": 1},  # 3 + 1: one short of full
        BEGIN,
        {"cmd": "adjust_hero", "hero": "cass", "fatigue": 2, "cause": "exertion"},
    )
    assert shown == {"cass": ["+2 Fatigue → 1 Strain"]}


def test_p14_strain_overflow_into_a_wound() -> None:
    shown = _costs_text(
        {"cmd": "adjust_hero", "hero": "bren", "fatigue": 5, "strain": 3},
        BEGIN,
        {"cmd": "adjust_hero", "hero": "bren", "fatigue": 2},
    )
    assert shown == {"bren": ["+2 Fatigue → Strain full → 1 Wound"]}


def test_p15_direct_strain_and_wounds() -> None:
    shown = _costs_text(BEGIN, {"cmd": "adjust_hero", "hero": "aria", "strain": 1, "wounds": 1})
    assert shown == {"aria": ["+1 Strain", "+1 Wound"]}


def test_p9_real_exertion_events_give_the_cost() -> None:
    cost = dv.performance_failed()["costs"]["cass"]
    assert (cost["fatigue"], cost["fatigue_overflows"], cost["chained_wounds"]) == (2, 1, 0)


def test_costs_start_over_with_each_performance() -> None:
    assert _costs_text(BEGIN, {"cmd": "adjust_hero", "hero": "aria", "fatigue": 2}) == {
        "aria": ["+2 Fatigue"]
    }
    assert _costs_text(
        BEGIN,
        {"cmd": "adjust_hero", "hero": "aria", "fatigue": 2},
        {"cmd": "cancel_performance"},
        BEGIN,
        {"cmd": "adjust_hero", "hero": "aria", "fatigue": 1},
    ) == {"aria": ["+1 Fatigue"]}


# --- small readings of the view -------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"), [(58.0, "58%"), (0.2, "<1%"), (99.6, ">99%"), (100, "100%"), (0, "0%")]
)
def test_percent_never_rounds_to_certainty(value: float, text: str) -> None:
    assert percent(value) == text


def test_short_advice_for_a_strip() -> None:
    assert short_advice(dv.ODDS_MID["groups"][0]) == ["Redraw → 71%", "Draw → 58%"]


def test_next_move_names_the_token_to_redraw() -> None:
    """The strip shows the best move only when it is a choice (docs/odds.md)."""
    view = dv.performance_mid()
    group = view["odds"]["groups"][0]
    cur = view["performance"]["contributions"][0]
    assert next_move(group, cur) == "Redraw W0"
    group["advice"] = group["advice"][1:]  # drawing on is best: nothing to say
    assert next_move(group, cur) is None


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ({"kind": "ember", "shade": "versatility"}, "V"),
        ({"kind": "potential"}, "P"),
        ({"kind": "weight", "weight": 2}, "W2"),
        ({"kind": "strain"}, "S"),
        ({"kind": "favor", "shade": "xantyr"}, "Xa"),
        ({"kind": "temporary", "name": "Purity"}, "P"),
    ],
)
def test_p12_p18_token_marks(token: dict[str, Any], code: str) -> None:
    assert token_code(token) == code


# --- preview: view or state JSON in, PNG out ----------------------------------------------


def test_preview_renders_a_view_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "view.json"
    src.write_text(json.dumps(dv.combat()), "utf-8")
    out = tmp_path / "out.png"
    assert main(["preview", str(src), "--panel", "2.9", "--colour", "bwr", "-o", str(out)]) == 0
    with Image.open(out) as image:
        assert image.size == (296, 128)
        assert image.tobytes() == render(dv.combat(), "2.9", "bwr").tobytes()
    assert "wrote" in capsys.readouterr().out


def test_preview_converts_a_full_state_and_shows_its_costs(tmp_path: Path) -> None:
    """P9, P13: the costs are part of the state, so preview shows what the resolve cost."""
    state = dv.example_state()
    from engine import apply

    for cmd in dv.TIRE_CASS[:-1]:  # Cass Exerts through one Performance, resolved, not reset
        state, _ = apply(state, cmd)
    view = load_view(state.to_json())
    assert view == table_view(state)
    assert view["costs"]["cass"]["fatigue"] == 2
    src = tmp_path / "state.json"
    src.write_text(json.dumps(state.to_json()), "utf-8")
    out = tmp_path / "state.png"
    assert (
        main(
            [
                "preview",
                str(src),
                "--panel",
                "4.2",
                "-o",
                str(out),
                "--banner",
                "Broker down",
                "--severity",
                "warning",
            ]
        )
        == 0
    )
    with Image.open(out) as image:
        assert (
            image.tobytes()
            == render(view, "4.2", "bw", banner=Banner("Broker down", "warning")).tobytes()
        )


def test_preview_of_something_else_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "x.json"
    src.write_text('{"cmd": "draw"}', "utf-8")
    assert main(["preview", str(src), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "neither a table view" in err and "Traceback" not in err
    src.write_text("{not json", "utf-8")
    assert main(["preview", str(src)]) == 2
    assert "not JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    [
        '{"heroes": 5}',
        '{"heroes": {}, "performance": {"contributions": "x"}}',
        '{"heroes": {}, "performance": {"contributions": [{"draws_left": "two"}]}}',
    ],
)
def test_preview_of_a_view_with_the_wrong_shape_is_a_clear_error(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad-view.json"
    src.write_text(text, "utf-8")
    assert main(["preview", str(src), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "bad-view.json: this view does not have the shape table_view writes" in err
    assert "replay TABLE SESSION --json" in err


def test_unknown_panel_and_colour_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="is not a panel — use one of"):
        render({"heroes": {}}, "3.7")
    with pytest.raises(ConfigError, match="bwy"):
        render({"heroes": {}}, "2.13", "rgb")


def test_any_other_panel_size_uses_the_nearest_metrics() -> None:
    """An old 212×104 Inky pHAT still gets the strip layout."""
    assert render(dv.performance_mid(), "212x104").size == (212, 104)
    with pytest.raises(ConfigError, match="too small"):
        panel_spec("100x50")


# --- the whole example session, as the table would see it ---------------------------------


def test_every_state_of_the_example_session_renders_and_fits() -> None:
    """Real views, sections and costs from examples/session.jsonl (P1–P23, T1–T12) on every panel."""
    import engine
    from companion.cli.replay import read_session
    from tests.harness.canvas import assert_texts_fit

    state = dv.example_state()
    seen = set()
    for _, cmd in read_session(ROOT / "examples" / "session.jsonl"):
        try:
            state, _events = engine.apply(state, cmd)
        except engine.CommandRejected:
            continue  # the session shows refusals too; they change nothing
        view = table_view(state)
        seen.add(screen_of(view))
        for panel in PANELS:
            canvas = draw(view, panel, "bwr")
            assert_texts_fit(canvas)
            raw = [t.full for t in canvas.texts if "{" in t.full or "['" in t.full]
            assert not raw, raw  # the engine's objects are shown as words, never as Python
    assert seen >= {"performance", "between"}


def test_every_state_of_the_example_fight_renders_the_engines_own_shapes() -> None:
    """Real combat views from examples/fight.jsonl (C1–C11): every panel shows the armour,
    injuries and conditions as words, never as Python dicts, and the attack forecast."""
    import engine
    from companion.cli.replay import read_session
    from tests.harness.canvas import assert_texts_fit

    state = engine.load_table(ROOT / "examples" / "fight.toml")
    forecasts = 0
    for _, cmd in read_session(ROOT / "examples" / "fight.jsonl"):
        state, _ = engine.apply(state, cmd)
        view = table_view(state)
        if view["combat"] is None:
            continue
        for panel in PANELS:
            canvas = draw(view, panel, "bwr")
            assert_texts_fit(canvas)
            texts = [t.full for t in canvas.texts]
            assert not [t for t in texts if "{" in t or "'" in t], texts
            if view["combat"]["forecast"] and panel in ("4.2", "7.5"):
                assert any(" → " in t and "hurt" in t for t in texts)
                forecasts += 1
    assert forecasts > 0
