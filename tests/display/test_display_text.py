"""Text fits: long hero, capability and combatant names are shrunk or cut with "…", never clipped.

Every string a screen draws is recorded by the canvas with its ink box (from
Pillow's ``textbbox``) and the box it was given. These tests render views with
hostile names on every panel and check each record: the ink lies inside its
box and inside the panel, nothing is smaller than the panel's minimum text
size, and a string that was cut is a prefix of the original followed by "…".
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from display import text
from display.panels import PANELS
from display.render import draw
from display.screens.banner import Banner
from display.text import ELLIPSIS, ellipsize, fit, fit_lines, font, wrap
from tests.harness import views as dv
from tests.harness.canvas import assert_texts_fit

PANEL_NAMES = tuple(PANELS)

# names as people type them: letters of several scripts DejaVu covers, spaces, hyphens, apostrophes
NAME_CHARS = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZÀÉÎÕÜßæøåłŒ -'")
)
names = st.text(NAME_CHARS, min_size=1, max_size=70).filter(lambda s: s.strip() != "")


@pytest.mark.parametrize("panel", PANEL_NAMES)
@pytest.mark.parametrize(
    "build",
    [
        dv.performance_mid,
        dv.performance_redraw,
        dv.performance_long_names,
        dv.performance_failed,
        dv.performance_success_group,
        dv.between_time,
        dv.between_plain,
        dv.combat,
    ],
    ids=["mid", "redraw", "long-names", "failed", "group", "between", "plain", "combat"],
)
def test_every_screen_fits_its_text(panel: str, build: Any) -> None:
    assert_texts_fit(draw(build(), panel, "bwr"))


@pytest.mark.parametrize("panel", PANEL_NAMES)
def test_p2_a_long_hero_and_capability_are_cut_visibly_not_clipped(panel: str) -> None:
    """P2: the declared capability is shown; when it cannot fit it ends in "…"."""
    c = draw(dv.performance_long_names(), panel, "bw")
    assert_texts_fit(c)
    shown = " ".join(t.shown for t in c.texts)
    assert "WILHELMINA" in shown or "Wilhelmina" in shown
    cut = [t for t in c.texts if t.shown != t.full]
    assert cut, "nothing was cut, so this view does not test cutting"


_MID = dv.performance_mid()
_BETWEEN = dv.between_time()
_COMBAT = dv.combat()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hero=names, capability=names, panel=st.sampled_from(PANEL_NAMES))
def test_p2_any_hero_and_capability_name_fits(hero: str, capability: str, panel: str) -> None:
    view = copy.deepcopy(_MID)
    c0 = view["performance"]["contributions"][0]
    c0["name"] = hero
    c0["capability"] = capability
    view["heroes"]["aria"]["name"] = hero
    assert_texts_fit(draw(view, panel, "bw"))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hero_names=st.lists(names, min_size=1, max_size=8), panel=st.sampled_from(PANEL_NAMES))
def test_p13_any_number_of_heroes_fits_between_performances(
    hero_names: list[str], panel: str
) -> None:
    """P13–P15: every hero row shows Fatigue/Strain against capacity, or "+ N more"."""
    view = copy.deepcopy(_BETWEEN)
    template = view["heroes"]["aria"]
    view["heroes"] = {
        f"h{i}": {**template, "id": f"h{i}", "name": name} for i, name in enumerate(hero_names)
    }
    assert_texts_fit(draw(view, panel, "bw"))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    people=st.lists(st.tuples(names, st.integers(1, 6), st.booleans()), min_size=1, max_size=10),
    panel=st.sampled_from(PANEL_NAMES),
)
def test_c2_any_combatants_fit_on_the_wheel(
    people: list[tuple[str, int, bool]], panel: str
) -> None:
    view = copy.deepcopy(_COMBAT)
    template = view["combat"]["combatants"][0]
    view["combat"]["combatants"] = [
        {**template, "id": f"c{i}", "name": name, "tick": tick, "dead": dead}
        for i, (name, tick, dead) in enumerate(people)
    ]
    view["combat"]["acting"] = ["c0"]
    assert_texts_fit(draw(view, panel, "bw"))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(NAME_CHARS, min_size=1, max_size=200), panel=st.sampled_from(PANEL_NAMES))
def test_any_banner_text_fits(text: str, panel: str) -> None:
    assert_texts_fit(draw(_MID, panel, "bwr", banner=Banner(text)))


# --- the fitting functions themselves ----------------------------------------------


def test_fit_keeps_the_size_when_the_text_fits() -> None:
    f = fit("Aria", 200, 20, min_size=12)
    assert (f.text, f.size, f.cut) == ("Aria", 20, False)


def test_fit_shrinks_before_it_cuts() -> None:
    width = font(20).getlength("Wilhelmina") - 5
    f = fit("Wilhelmina", width, 20, min_size=12)
    assert not f.cut and 12 <= f.size < 20
    assert f.font.getlength(f.text) <= width


def test_fit_cuts_with_an_ellipsis_at_the_minimum_size() -> None:
    f = fit("Wilhelmina-Josephine of the Seventeenth Lantern", 60, 20, min_size=12)
    assert f.cut and f.size == 12 and f.text.endswith(ELLIPSIS)
    assert f.font.getlength(f.text) <= 60


@given(text=st.text(NAME_CHARS, max_size=80), width=st.integers(0, 300))
def test_ellipsize_always_fits_and_is_a_prefix(text: str, width: int) -> None:
    f = font(14)
    out = ellipsize(text, width, f)
    assert f.getlength(out) <= width
    if out:
        assert out.endswith(ELLIPSIS) and text.startswith(out[:-1].rstrip())


@given(text=st.text(NAME_CHARS, max_size=200), width=st.integers(30, 300))
def test_wrap_lines_fit_and_keep_every_word(text: str, width: int) -> None:
    f = font(14)
    lines = wrap(text, width, f)
    assert all(f.getlength(line) <= width for line in lines)
    if not any(ELLIPSIS in line for line in lines):
        assert " ".join(lines).split() == text.split()


def test_fit_lines_wraps_then_shrinks_then_cuts() -> None:
    text = "Unknown tag 04:A2:19:7B: enrol it or check the reader"
    roomy = fit_lines(text, 400, 100, 20, min_size=12)
    assert not roomy.cut and roomy.size == 20 and len(roomy.lines) == 2
    tight = fit_lines(text, 120, 30, 20, min_size=12)
    assert tight.cut and tight.lines[-1].endswith(ELLIPSIS)


def test_measure_is_cached_for_short_strings_only() -> None:
    """A frame measures the same strings again and again, so short ones are measured once per
    font; a hostile 1 MB token id (issue 17) is measured but never kept."""
    f = text.font(14)
    for s in ("Aria", "Wilhelmina of the Seventeenth Lantern", "ÅJf…"):
        assert text.measure(f, s) == text._measure(f, s)
    before = text._measured.cache_info()
    text.measure(f, "Aria")
    after = text._measured.cache_info()
    assert after.hits == before.hits + 1
    huge = "x" * (text.MEASURE_CACHED + 1)
    assert text.measure(f, huge) == text._measure(f, huge) > text.measure(f, "Aria")
    assert text._measured.cache_info().currsize == after.currsize
