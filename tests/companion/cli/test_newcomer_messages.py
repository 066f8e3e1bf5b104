"""Messages a new user reads: each says what happened and what to do, once, in the table's words.

Real commands on the example table, the real CLI, the real loop's log.
"""

from __future__ import annotations

import logging

import pytest

from companion.cli import main
from companion.table.loop import TableLoop
from engine import CommandRejected, apply
from engine.narrate import describe
from engine.state import TableState
from firmware_bridge.cli import ScriptError, make_emulator, run_command
from hardware.config import GpioConfig
from tags.registry import TagRegistry
from tests.harness import ROOT

TABLE = str(ROOT / "examples" / "table.toml")


def _refusal(state: TableState, command: dict) -> CommandRejected:
    with pytest.raises(CommandRejected) as e:
        apply(state, command)
    return e.value


def test_p8_spend_without_an_active_reserve_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["odds", TABLE, "--hero", "aria", "--shade", "control", "--capability", "skill"]
    assert main([*argv, "--action", "spend"]) == 2
    err = capsys.readouterr().err
    assert "none is not" not in err
    assert "Spend uses a token of Aria's Active Reserve, and Aria has none [P8]" in err
    assert "Gain first" in err


def test_undo_on_a_fresh_table_says_nothing_to_undo(example_state: TableState) -> None:
    assert _refusal(example_state, {"cmd": "undo"}).violation.message == "nothing to undo"


def test_p13_a_recovery_below_zero_says_what_happened(example_state: TableState) -> None:
    e = _refusal(example_state, {"cmd": "adjust_hero", "hero": "aria", "fatigue": -20})
    v = e.violation
    assert v.message == "Aria is at Fatigue 0: fatigue -20 changes nothing (it cannot go below 0)"
    assert v.field == "fatigue"


def test_a_type_error_names_the_expected_type(example_state: TableState) -> None:
    e = _refusal(example_state, {"cmd": "begin_performance", "difficulty": "6"})
    assert e.violation.fix is not None
    assert e.violation.fix.startswith("give difficulty as a whole number without quotes, e.g. 5")


def test_a_button_command_prints_its_fix_once() -> None:
    with pytest.raises(Exception) as e:
        GpioConfig.from_toml_text(
            '[gpio.buttons.fly]\npin = 7\ncommand = { cmd = "fly" }\n', "r.toml"
        )
    message = str(e.value)
    assert message.startswith("r.toml: gpio.buttons.fly.command: unknown command 'fly'")
    assert message.count("docs/commands.md") == 1 and message.count(" — ") == 1


def test_t12_narration_names_tokens_with_the_right_verb(example_state: TableState) -> None:
    from engine.events import Event

    one = Event(
        "performance_reset", {"returned": ["aria.ember.skill"], "removed": ["aria.weight.0"]}
    )
    two = Event(
        "performance_reset", {"returned": [], "removed": ["aria.weight.0", "aria.weight.1"]}
    )
    assert describe(example_state, one).endswith(", Aria's Weight 0 leaves the game")
    assert describe(example_state, two).endswith(
        ", Aria's Weight 0 and Aria's Weight 1 leave the game"
    )


def test_the_log_shows_commands_as_json(
    example_state: TableState, caplog: pytest.LogCaptureFixture
) -> None:
    loop = TableLoop(example_state, TagRegistry())
    caplog.set_level(logging.INFO, logger="rhuna")
    loop.submit({"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}, "mqtt")
    assert loop.step(5) is not None
    line = next(r.getMessage() for r in caplog.records if "refused" in r.getMessage())
    assert 'mqtt: refused {"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}' in line
    assert "{'cmd'" not in line


def test_the_emulator_cli_explains_a_channel_that_is_not_a_number() -> None:
    hub = make_emulator("hub")
    with pytest.raises(ScriptError) as e:
        run_command(hub, "lay two 04")
    assert (
        str(e.value)
        == "lay two 04: the channel is a number from 0 to 5, not two — e.g. lay 2 04A1B2C3"
    )


def test_a_table_file_typo_says_which_key_was_meant(tmp_path) -> None:
    from engine import load_table
    from settings.errors import ConfigError

    table = tmp_path / "t.toml"
    table.write_text((ROOT / "examples" / "table.toml").read_text("utf-8") + "\n[heros]\n")
    with pytest.raises(ConfigError) as e:
        load_table(table)
    assert str(e.value).startswith(f"{table}: unknown section 'heros' — did you mean heroes?")
    table.write_text('[table]\nid = "t"\nnmae = "x"\n')
    with pytest.raises(ConfigError) as e:
        load_table(table)
    assert str(e.value) == (
        f"{table}: table.nmae: unknown key — did you mean name? [table] takes: id, name, rules_file"
    )


def test_strain_narration_names_the_token(example_state: TableState) -> None:
    from engine.events import Event

    event = Event("strain_gained", {"hero": "cass", "strain": 1, "token": "cass.strain.1"})
    assert describe(example_state, event) == (
        "Cass gains Strain → 1: put Cass's Strain 1 into the Hero Bag"
    )
