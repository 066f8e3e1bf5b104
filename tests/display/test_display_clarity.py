"""What the WorldKeeper must act on is never cut or hidden, and outcomes cannot be mistaken.

Each test renders real engine views (tests/harness/views.py) and reads the
canvas's record of every string drawn, or the pixels of the picture.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from display.canvas import Canvas
from display.panels import ACCENT, BLACK, PANELS
from display.render import draw
from display.screens.banner import Banner
from display.text import ELLIPSIS
from engine import apply
from engine.view import table_view
from tests.harness import views as dv
from tests.harness.canvas import assert_texts_fit

STRIPS = ("2.13", "2.9")
ROOMY = ("4.2", "7.5")
BANNER = Banner("Unknown tag 04:A2:19:7B: enrol it or check the reader")


def _shown(c: Canvas) -> str:
    return " ".join(t.shown for t in c.texts)


def _record(c: Canvas, needle: str) -> Any:
    found = [t for t in c.texts if needle in t.shown]
    assert found, f"{needle!r} not drawn on {c.spec.name}: {_shown(c)!r}"
    return found[0]


def _colours_in(c: Canvas, ink: tuple[int, int, int, int]) -> set[int]:
    x0, y0, x1, y1 = ink
    return set(c.image.crop((x0, y0, x1 + 1, y1 + 1)).tobytes())


def _success_view() -> dict[str, Any]:
    view = copy.deepcopy(dv.performance_failed())
    for r in view["performance"]["results"]:
        r["success"] = True
        r["outcome"] = "success"  # the typed outcome the panel reads (82d59d1)
        r["consequence"] = "wear"  # P20: success resolves Wear
    return view


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_p20_success_and_failure_differ_by_glyph_on_black_and_white(panel: str) -> None:
    """P20: on a black/white panel ✔ SUCCESS is solid black, ✘ FAILURE a frame on white."""
    failed = draw(dv.performance_failed(), panel, "bw")
    success = draw(_success_view(), panel, "bw")
    f = _record(failed, "✘ FAILURE")
    s = _record(success, "✔ SUCCESS")
    assert "FAILURE" not in _shown(success) and "SUCCESS" not in _shown(failed)
    # the letters of FAILURE are black on white; those of SUCCESS white on black
    assert failed.image.getpixel((f.ink[0] - 2, (f.ink[1] + f.ink[3]) // 2)) != BLACK
    assert success.image.getpixel((s.ink[0] - 2, (s.ink[1] + s.ink[3]) // 2)) == BLACK


@pytest.mark.parametrize("panel", tuple(PANELS))
@pytest.mark.parametrize("colour", ["bwr", "bwy"])
def test_p20_failure_is_coloured_success_is_black_on_colour_panels(panel: str, colour: str) -> None:
    failed = draw(dv.performance_failed(), panel, colour)
    success = draw(_success_view(), panel, colour)
    f = _record(failed, "✘ FAILURE")
    s = _record(success, "✔ SUCCESS")
    assert ACCENT in _colours_in(failed, f.ink)
    assert ACCENT not in _colours_in(success, s.ink)


@pytest.mark.parametrize("panel", STRIPS)
def test_ip16_the_strips_show_the_weight_mode_while_it_changes_the_draws(panel: str) -> None:
    c = draw(dv.performance_mid(), panel, "bw")
    assert "WEIGHT MASS" in _shown(c)
    assert ELLIPSIS not in _record(c, "WEIGHT").shown
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", ROOMY)
def test_ip16_weight_mode_is_never_cut_on_roomy_panels(panel: str) -> None:
    """I-P16: the WEIGHT mode is shown whole, beside the name or on a line of its own."""
    c = draw(dv.performance_mid(), panel, "bw")
    assert "WEIGHT MASS" in _record(c, "WEIGHT").shown
    long = dv.performance_long_names()
    c = draw(long, panel, "bw")
    assert "WEIGHT MASS" in _record(c, "WEIGHT").shown
    assert_texts_fit(c)


def _time_view(resolved: bool = True) -> dict[str, Any]:
    view = copy.deepcopy(dv.between_time())
    view["time"]["last"]["resolved"] = resolved
    return view


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_t10_a_pending_question_is_shown_whole_on_every_panel(panel: str) -> None:
    """I-T10: the Unsafe Rest question blocks the next draw, so even a strip shows all of it."""
    c = draw(_time_view(), panel, "bw")
    prompt = dv.between_time()["time"]["prompts"][0]["text"]
    lines = [t for t in c.texts if len(t.full) > 3 and t.full in f"▸ {prompt}"]
    assert " ".join(t.shown for t in lines) == f"▸ {prompt}"
    assert not any(ELLIPSIS in t.shown for t in lines)
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_t3_an_unresolved_time_token_is_shown_on_every_panel(panel: str) -> None:
    """T3: a Time token drawn and not resolved blocks the next draw: it is on every panel."""
    c = draw(_time_view(resolved=False), panel, "bw")
    assert "Resolve Day Minor Time: Event" in _shown(c)


@pytest.mark.parametrize("panel", STRIPS)
@pytest.mark.parametrize("build", [dv.between_plain, dv.between_time])
def test_a_banner_does_not_hide_every_hero(panel: str, build: Any) -> None:
    c = draw(build(), panel, "bw", banner=BANNER)
    shown = _shown(c)
    for name in ("Aria", "Bren", "Cass"):
        assert name in shown, f"{name} hidden under the banner on {panel}: {shown!r}"
    assert "more" not in shown
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", STRIPS)
def test_a_banner_keeps_the_strip_total_and_status(panel: str) -> None:
    c = draw(dv.performance_mid(), panel, "bw", banner=BANNER)
    shown = _shown(c)
    assert "Unknown tag" in shown and "enrol it" in shown
    assert "/6" in shown and "draws left" in shown
    assert "ARIA" in shown  # who is drawing stays, on the status line when it must (P2)


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_p23_every_hero_in_the_performance_shows_their_part(panel: str) -> None:
    """P23: Bren's tokens and total are on the panel beside Aria's, on every size."""
    c = draw(dv.performance_success_group(), panel, "bw")
    bren = _record(c, "Bren")
    shown = _shown(c)
    assert "Bren" in bren.shown
    assert "1P" in shown and "1V" in shown


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_c9_the_combat_wheel_never_shows_a_bare_plus_count(panel: str) -> None:
    """C9: "+2" means Aim; a count of combatants on a tick is never written that way."""
    c = draw(dv.combat(), panel, "bw")
    assert not [t.shown for t in c.texts if re.fullmatch(r"\+\d+", t.shown.strip())]


@pytest.mark.parametrize("panel", ROOMY)
def test_c6_the_forecast_says_injuries_expected_and_is_not_cut(panel: str) -> None:
    c = draw(dv.combat(), panel, "bw")
    text = " ".join(
        t.shown for t in c.texts if "hurt" in t.full or "expected" in t.full or "kill" in t.full
    )
    assert "62% hurt" in text and "injuries expected" in text and "14% kill" in text
    assert ELLIPSIS not in text
    assert "Acting: Aria, Orc Chieftain" in _shown(c)


@pytest.mark.parametrize("panel", ROOMY)
def test_p11_p18_p21_roomy_panels_show_redraw_spent_escalation_and_awakened(panel: str) -> None:
    view = copy.deepcopy(dv.performance_redraw())
    view["escalation"] = 2
    c = draw(view, panel, "bw")
    shown = _shown(c)
    assert "Redraw spent: Ember Wild set aside" in shown
    assert "Escalation +2" in shown and "Awakened: Xantyr" in shown
    assert_texts_fit(c)


def _intersect_view() -> dict[str, Any]:
    state = dv.example_state()
    for c in (
        {"cmd": "begin_performance", "difficulty": 7},
        {
            "cmd": "declare",
            "hero": "bren",
            "shade": "impulse",
            "capability": "steel",
            "action": "target",
        },
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
            "intersect": "bren",
        },
        *({"cmd": "draw", "hero": "bren", "seed": i} for i in range(3)),
        *({"cmd": "draw", "hero": "aria", "seed": 10 + i} for i in range(2)),
    ):
        state, _ = apply(state, c)
    view = table_view(state)
    assert view["performance"]["groups"] == [["bren", "aria"]]
    return view


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_p23_an_intersect_shows_each_heros_part_on_every_size(panel: str) -> None:
    """I-P10/P23: the group's total is huge; Aria's own tokens and total are there too."""
    c = draw(_intersect_view(), panel, "bw")
    shown = _shown(c)
    assert "BREN + ARIA" in shown and "/7" in shown
    aria = _record(c, "Aria")
    assert "0W0 1P" in aria.shown or "0W0 1P" in shown
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", ROOMY)
@pytest.mark.parametrize("build", [dv.between_plain, dv.between_time])
def test_p18_p21_the_between_screen_shows_escalation_and_awakened_where_there_is_room(
    panel: str, build: Any
) -> None:
    view = copy.deepcopy(build())
    view["escalation"], view["awakened"] = -1, ["Xantyr"]
    c = draw(view, panel, "bw")
    assert "Escalation −1 · Awakened: Xantyr" in _shown(c)
    for name in ("Aria", "Bren", "Cass"):
        assert name in _shown(c)
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", ROOMY)
def test_p11_p18_the_advice_wraps_before_it_is_cut_on_roomy_panels(panel: str) -> None:
    view = dv.performance_mid()
    advice = [a["text"] for a in view["odds"]["groups"][0]["advice"]][:2]
    c = draw(view, panel, "bw")
    for text in advice:
        parts = [t for t in c.texts if len(t.full) > 3 and t.full in text]
        assert " ".join(t.shown for t in parts) == text, (text, [t.shown for t in parts])
    assert_texts_fit(c)


@pytest.mark.parametrize("panel", STRIPS)
def test_c6_c9_the_strips_keep_the_forecast_whole(panel: str) -> None:
    """No room for the whole sentence: the chances to hurt and to kill, not a cut sentence."""
    c = draw(dv.combat(), panel, "bw")
    line = _record(c, "hurt")
    assert line.shown == "Orc Chieftain → Aria: 62% hurt · 14% kill"
    assert ELLIPSIS not in _shown(c).split("Next:")[1]
