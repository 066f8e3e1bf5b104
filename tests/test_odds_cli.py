"""``rhuna-table odds``: the declaration goes through the engine; refusals name the rule."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from companion.cli import main
from engine.performance.odds import odds_view
from tests.conftest import EXAMPLE_TABLE, run
from tests.test_odds_montecarlo import BIG

ARIA = ["--hero", "aria", "--shade", "control", "--capability", "skill"]


def odds_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["odds", str(EXAMPLE_TABLE), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_p19_cli_lists_every_difficulty_and_agrees_with_the_view(
    capsys: pytest.CaptureFixture[str], example_state
) -> None:
    out = odds_json(capsys, *ARIA, "--weight", "mass")
    assert [d["difficulty"] for d in out["difficulties"]] == [3, 4, 5, 6, 7, 8]
    assert out["draws"] == 4 and out["bag"] == 12
    for row in out["difficulties"]:
        state, _ = run(
            example_state,
            {"cmd": "begin_performance", "difficulty": row["difficulty"], "weight": "mass"},
            {
                "cmd": "declare",
                "hero": "aria",
                "shade": "control",
                "capability": "skill",
                "action": "target",
            },
        )
        view = odds_view(state)
        assert view is not None
        assert row["as_drawn"] == view["groups"][0]["success"] == row["success"]


def test_p11_p18_cli_plan_with_redraw_and_favor(capsys: pytest.CaptureFixture[str]) -> None:
    plain = odds_json(capsys, *ARIA, "--difficulty", "5")
    plan = odds_json(capsys, *ARIA, "--difficulty", "5", "--redraw", "--favor")
    assert plan["plan"] == {"redraws": 2, "favor": True}
    (row,) = plan["difficulties"]
    assert row["as_drawn"] == plain["difficulties"][0]["success"]
    assert Fraction(row["success"]["num"], row["success"]["den"]) > Fraction(
        row["as_drawn"]["num"], row["as_drawn"]["den"]
    )
    # the plan's own distribution (aimed at Difficulty 5) gives the plan's odds
    dist = plan["plan_distribution"]
    exact = row["success"]["num"] / row["success"]["den"]
    assert sum(p for t, p in dist if t >= 5) == pytest.approx(exact, abs=1e-12)


def test_p9_cli_exert_costs_fatigue_and_draws_three(capsys: pytest.CaptureFixture[str]) -> None:
    out = odds_json(
        capsys, "--hero", "cass", "--shade", "impulse", "--capability", "charm", "--exert"
    )
    assert out["draws"] == 3
    assert out["expected_fatigue"] == 2.0


def test_p16_cli_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "odds",
                str(BIG),
                "--hero",
                "vesna",
                "--shade",
                "control",
                "--capability",
                "skill",
                "--weight",
                "mass",
                "--redraw",
                "--difficulty",
                "6",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Vesna · skill · control · target · WEIGHT mass" in text
    assert "Redraw up to 2" in text
    assert "with plan, aiming at 6" in text
    assert "15857/91390" in text  # as drawn, Difficulty 6: exact, as a fraction


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (["--hero", "cass", "--shade", "impulse", "--capability", "charm", "--redraw"], "[P11]"),
        (["--hero", "aria", "--shade", "control", "--capability", "lore", "--redraw"], "[P11]"),
        (["--hero", "bren", "--shade", "control", "--capability", "steel", "--exert"], "[P9]"),
        ([*ARIA, "--action", "gain"], "[P7]"),
        ([*ARIA, "--difficulty", "12"], "[P19]"),
        (["--hero", "nobody", "--shade", "control", "--capability", "skill"], "unknown hero"),
    ],
)
def test_cli_refusals_name_the_rule(
    capsys: pytest.CaptureFixture[str], args: list[str], rule: str
) -> None:
    assert main(["odds", str(EXAMPLE_TABLE), *args]) == 2
    err = capsys.readouterr().err
    assert rule in err and "Traceback" not in err


def test_p18_cli_refuses_favor_without_favor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "t.toml"
    table.write_text(EXAMPLE_TABLE.read_text().replace("favor = 2", "favor = 0"))
    assert main(["odds", str(table), *ARIA, "--favor"]) == 2
    assert "[P18]" in capsys.readouterr().err


def test_cli_broken_table_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["odds", str(tmp_path / "missing.toml"), *ARIA]) == 2
    assert "cannot read the table file" in capsys.readouterr().err
