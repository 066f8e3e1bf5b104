"""``rhuna-table odds``: the declaration goes through the engine; refusals name the rule."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from companion.cli import main
from engine.performance.odds import odds_view
from tests.harness import EXAMPLE_TABLE, run
from tests.harness.big_bag import BIG

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
        group = view["groups"][0]
        assert row["as_drawn"] == group["as_drawn"]
        assert row["best_play"] == group["best_play"]


def test_p11_p18_cli_best_play_first_with_the_issue_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Aria, skill, Control, WEIGHT MASS, Difficulty 5 (issue 13): her 2 Redraws and a Favor
    call made only if still short: 25/33 = 75.8%; as drawn 56/495 = 11.3%."""
    out = odds_json(capsys, *ARIA, "--weight", "mass", "--difficulty", "5")
    (row,) = out["difficulties"]
    assert row["best_play"] == {"num": 25, "den": 33, "percent": 75.76}
    assert row["as_drawn"] == {"num": 56, "den": 495, "percent": 11.31}
    assert (out["redraws"], out["favor_calls"]) == (2, 1)
    assert out["advice"][0]["action"] == "draw"
    assert out["advice"][0]["best_play"] == row["best_play"]


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
                "--difficulty",
                "6",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Vesna · skill · control · target · WEIGHT mass" in text
    assert "draw 4 of 40 · 2 Redraws · Favor" in text
    assert "best play" in text.splitlines()[4] and "as drawn" in text.splitlines()[4]
    assert "15857/91390" in text  # as drawn, Difficulty 6: exact, as a fraction
    assert "537634421/882827400" in text  # best play
    assert "best move: Draw, then Redraw while short, then Favor if still short → 61%" in text


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        ([*ARIA, "--action", "spend"], "[P8]"),
        ([*ARIA, "--action", "spend", "--reserve", "aria.potential.skill.1"], "[P8]"),
        (["--hero", "aria", "--shade", "control"], "[P23]"),
        (["--hero", "bren", "--shade", "control", "--capability", "steel", "--exert"], "[P9]"),
        ([*ARIA, "--action", "gain"], "[P7]"),
        ([*ARIA, "--difficulty", "12"], "[P19]"),
        (["--hero", "nobody", "--shade", "control", "--capability", "skill"], "unknown hero"),
        ([*ARIA, "--state", "x.json"], "give one of"),
    ],
)
def test_cli_refusals_name_the_rule(
    capsys: pytest.CaptureFixture[str], args: list[str], rule: str
) -> None:
    assert main(["odds", str(EXAMPLE_TABLE), *args]) == 2
    err = capsys.readouterr().err
    assert rule in err and "Traceback" not in err


def test_p8_p17_cli_spend_names_the_reserve(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--action spend --reserve TOKEN: the Active Reserve is worth 2V with its own Pathway
    (P17), so the odds rise against the same declaration with a plain Potential."""
    table = tmp_path / "t.toml"
    text = EXAMPLE_TABLE.read_text().replace(
        "favor = 2\nredraws = 2",
        'favor = 2\nredraws = 2\nactive_reserve = ["aria.potential.skill.1"]',
    )
    assert "active_reserve" in text
    table.write_text(text)
    spend = [*ARIA, "--action", "spend", "--reserve", "aria.potential.skill.1"]
    assert main(["odds", str(table), *spend, "--difficulty", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["action"], out["reserve"]) == ("spend", "aria.potential.skill.1")
    plain = odds_json(capsys, *ARIA, "--difficulty", "5")
    spent = Fraction(
        out["difficulties"][0]["as_drawn"]["num"], out["difficulties"][0]["as_drawn"]["den"]
    )
    before = plain["difficulties"][0]["as_drawn"]
    assert spent > Fraction(before["num"], before["den"])


def test_p6_cli_reads_a_state_json_mid_draw(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, example_state
) -> None:
    """--state FILE: the odds of the Draw Board as it is, the same as the view's."""
    state, _ = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 5, "weight": "mass"},
        {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill"}
        | {"action": "target"},
        *(
            {"cmd": "draw", "hero": "aria", "token": t}
            for t in ("aria.weight.0", "aria.potential.lore.1", "aria.weight.1", "aria.ember.wild")
        ),
    )
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state.without_history().to_json()))
    assert main(["odds", "--state", str(path), "--hero", "aria", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    view = odds_view(state)
    assert view is not None
    (row,) = out["difficulties"]
    assert (
        row["best_play"]
        == view["groups"][0]["best_play"]
        == {"num": 43, "den": 92, "percent": 46.74}
    )
    assert row["as_drawn"]["num"] == 0
    assert out["advice"] == view["groups"][0]["advice"]
    assert out["advice"][0]["command"] == {
        "cmd": "redraw",
        "hero": "aria",
        "replace": "aria.weight.0",
    }
    path.write_text("{not json")
    assert main(["odds", "--state", str(path), "--hero", "aria"]) == 2
    err = capsys.readouterr().err
    assert "not a state JSON" in err and "Traceback" not in err


def test_cli_broken_table_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["odds", str(tmp_path / "missing.toml"), *ARIA]) == 2
    assert "cannot read the table file" in capsys.readouterr().err


def test_p6_cli_reads_the_running_services_state(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--live CONFIG: the journal of a service that holds its state directory's lock, read
    as the service restores it (snapshot + replay), with its lock left alone."""
    from companion.config import load_config
    from companion.table.loop import TableLoop
    from companion.table.store import Store
    from engine import load_table
    from tags.registry import TagRegistry
    from tests.harness.service import write_config

    config_file = write_config(tmp_path / "svc")
    assert main(["odds", "--live", str(config_file), "--hero", "aria"]) == 2
    assert "no journal" in capsys.readouterr().err
    config = load_config(config_file)
    initial = load_table(config.table_file)
    with Store.open(config.state_dir) as store:  # the "service": it holds the lock
        store.restore(initial, config.table_file)
        loop = TableLoop(initial, TagRegistry(), journal=store.append)
        for cmd in (
            {"cmd": "begin_performance", "difficulty": 5, "weight": "mass"},
            {"cmd": "declare", "hero": "aria", "shade": "control", "capability": "skill"}
            | {"action": "target"},
            {"cmd": "draw", "hero": "aria", "token": "aria.weight.0"},
        ):
            loop.submit(cmd, "test")
            step = loop.step(0)
            assert step is not None and step.error is None
        assert main(["odds", "--live", str(config_file), "--hero", "aria", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        view = odds_view(loop.state)
        assert view is not None
        assert out["drawn"] == ["aria.weight.0"]
        assert out["difficulties"][0]["best_play"] == view["groups"][0]["best_play"]
        assert out["advice"] == view["groups"][0]["advice"]
        # the service goes on journaling: the lock and the journal are still its own
        loop.submit({"cmd": "draw", "hero": "aria", "token": "aria.weight.1"}, "test")
        done = loop.step(0)
        assert done is not None and done.error is None and done.seq == 4
