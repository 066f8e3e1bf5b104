"""``rhuna-table check-config`` finds what ``rhuna-table run`` would refuse, all of it at once.

Real config files in tmp_path, through ``companion.cli.main``; the same config is
then given to ``run`` where the point is that a start refuses it too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from settings.checker import Key, Problems, Section
from settings.errors import ConfigError
from tests.harness import ROOT
from tests.harness.service import write_config


def _errors(capsys: pytest.CaptureFixture[str]) -> list[str]:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()


def _replace(config: Path, old: str, new: str) -> Path:
    text = config.read_text("utf-8")
    assert old in text
    config.write_text(text.replace(old, new), "utf-8")
    return config


def test_every_mqtt_problem_is_listed_not_only_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path,
        '[mqtt]\nenabeld = true\nport = "1883"\nkeepalive = 1\npassword = "p"\n'
        '[mqtt.tls]\ncafile = "x"\n',
    )
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    keys = [line.split(": ")[1] for line in err[:-1]]
    assert keys == [
        "mqtt.enabeld",
        "mqtt.password",
        "mqtt.port",
        "mqtt.keepalive",
        "mqtt.tls.cafile",
    ]
    assert err[0].endswith(
        "did you mean enabled? [mqtt] takes: enabled, host, port, client_id,"
        " username, password, password_file, keepalive, tls, base_topic,"
        " table_id, max_queued, reconnect_min_delay, reconnect_max_delay,"
        " homeassistant"
    )
    assert "did you mean ca? [mqtt.tls] takes: ca, cert, key, insecure" in err[4]
    assert err[-1] == f"{config}: 5 problem(s); nothing would run"


def test_an_unknown_key_lists_only_its_own_sections_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, '[log]\nlevl = "debug"\n')
    _replace(config, 'colour = "bwr"', 'color = "bwr"')
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0] == (
        f"{config}: display.color: unknown key — did you mean colour? [display] takes: driver,"
        " panel, colour, full_every, out_dir, keep, full_refresh_s, partial_refresh_s"
    )
    assert err[1] == f"{config}: log.levl: unknown key — did you mean level? [log] takes: level"


def test_a_pin_factory_that_cannot_be_imported_here_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, '[gpio]\npin_factory = "rpigpio"\n')
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0].startswith(f"{config}: gpio.pin_factory: 'rpigpio' cannot be imported here")
    assert err[0].endswith('apt install python3-rpi.gpio); off a Pi use pin_factory = "mock"')
    _replace(config, '"rpigpio"', '"mock"')
    assert main(["check-config", str(config)]) == 0


def test_a_state_directory_that_cannot_be_made_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    config = write_config(tmp_path)
    _replace(config, 'dir = "state"', f'dir = "{blocker / "state"}"')
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    # the very line a start refuses it with (issue 32; tests/companion/cli/test_check_config_as_run.py)
    assert err[0].startswith(f"state.dir {blocker / 'state'}: cannot create it (Not a directory)")
    assert main(["run", "--config", str(config)]) == 2  # and a start refuses it as well


def test_a_missing_table_file_names_its_key_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    (tmp_path / "table.toml").unlink()
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0] == (
        f"{config}: table.file: {tmp_path / 'table.toml'} does not exist — write [table] file ="
        ' "…" with the path of your table file (example: examples/table.toml; relative paths'
        " start at the config's folder)"
    )


def test_an_unreadable_table_and_registry_are_both_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    registry = tmp_path / "tags.json"
    registry.write_text("{not json")
    _replace(config, "[registry]\nsynthetic = true\n", f'[registry]\nfile = "{registry}"\n')
    table = tmp_path / "table.toml"
    table.write_text(table.read_text("utf-8") + "\n[heroes.broken\n", "utf-8")
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0].startswith(f"{table}: not valid TOML")
    assert err[-1] == f"{config}: 1 problem(s); nothing would run"
    table.write_text((ROOT / "examples" / "table.toml").read_text("utf-8"))
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0].startswith(f"{config}: registry.file: {registry}: not JSON")
    assert "rhuna-table enroll --config" in err[0]


def test_the_missing_registry_points_to_rhuna_table_enroll(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fix is the enrolment walk, not hand-written JSON (docs/enroll.md)."""
    config = write_config(tmp_path)
    _replace(config, "[registry]\nsynthetic = true\n", '[registry]\nfile = "tags.json"\n')
    for argv in (["check-config", str(config)], ["run", "--config", str(config)]):
        assert main(argv) == 2
        err = "\n".join(_errors(capsys))
        assert f"registry.file: {tmp_path / 'state' / 'tags.json'} does not exist yet" in err
        assert f"rhuna-table enroll --config {config} (docs/enroll.md)" in err
        assert '{"tags"' not in err


def test_readme_and_install_script_include_the_enrolment_step() -> None:
    root = ROOT
    readme = (root / "README.md").read_text("utf-8")
    running = readme.split("## Running at the table", 1)[1].split("\n## ", 1)[0]
    assert "rhuna-table enroll" in running
    install = (root / "systemd" / "install.sh").read_text("utf-8")
    closing = install[install.rindex("cat <<") :] if "cat <<" in install else install[-2500:]
    assert "rhuna-table enroll" in closing


def test_one_error_shape_for_every_section() -> None:
    """settings.checker: file, key, problem, fix — the shape every section's owner uses."""
    problems = Problems("rhuna.toml")
    section = Section("demo", {"count": Key("integer", "how many", 1, minimum=1, maximum=9)})
    assert section.read({"count": 0, "cuont": 2, "x": 1}, problems) == {"count": 1}
    assert problems.errors == [
        "rhuna.toml: demo.count: 0 is out of range — write a whole number from 1 to 9, without quotes",
        "rhuna.toml: demo.cuont: unknown key — did you mean count? [demo] takes: count",
        "rhuna.toml: demo.x: unknown key — [demo] takes: count",
    ]
    shape = re.compile(r"^[^:]+: [\w.\[\]]+: .+ — .+$")
    assert all(shape.match(e) for e in problems.errors), json.dumps(problems.errors)


def test_a_display_driver_whose_library_is_missing_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """waveshare-epaper is not installed here (it imports only on a Pi): check-config says so."""
    import importlib.util

    assert importlib.util.find_spec("epaper") is None, "this test needs epaper absent"
    config = write_config(tmp_path)
    _replace(
        config,
        'driver = "png"\npanel = "2.13"\n',
        'driver = "waveshare"\nmodel = "epd2in13_V4"\npanel = "2.13"\n',
    )
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0] == (
        f"{config}: display.driver: the waveshare driver needs the epaper library, not installed"
        " here — pip install 'rhuna-table[waveshare]' in the service's venv, or driver = \"png\""
    )


def test_a_password_file_that_is_not_utf8_says_save_it_as_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "mqtt.pass"
    secret.write_bytes("s\u00e9same\n".encode("latin-1"))
    config = write_config(tmp_path, f'[mqtt]\nusername = "t"\npassword_file = "{secret}"\n')
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert err[0] == (
        f"{config}: mqtt.password_file: {secret}:1: byte 0xE9 is not UTF-8 (Latin-1 or Windows"
        " text?) — save the file as UTF-8"
    )


def test_every_gpio_problem_is_listed_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path,
        "[gpio]\nenabled = false\npull_upp = true\nhero_ring = 1\n[gpio.encoder]\na = 99\n",
    )
    assert main(["check-config", str(config)]) == 2
    err = _errors(capsys)
    assert [line.split(": ")[1] for line in err[:-1]] == [
        "gpio.pull_upp",
        "gpio.encoder.a",
        "gpio.hero_ring",
    ]
    assert "did you mean pull_up?" in err[0]


def test_run_refuses_the_same_config_with_every_problem_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, '[log]\nlevel = "loud"\n')
    _replace(config, 'colour = "bwr"', 'colour = "red"')
    assert main(["run", "--config", str(config)]) == 2
    err = _errors(capsys)
    assert err == [
        f"rhuna-table: {config}: display.colour: 'red' is not allowed — use one of: bw, bwr, bwy",
        f"rhuna-table: {config}: log.level: 'loud' is not a log level — use one of: debug, info,"
        " warning, error",
    ]


_VALUES = st.one_of(
    st.integers(-3, 70000),
    st.floats(-2, 2, allow_nan=False),
    st.booleans(),
    st.sampled_from(["", "x", "2.13", "red", "hub", "line", "emulated-hub", "/dev/x", "mock"]),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "4", "ca"]), st.integers(0, 3), max_size=2),
)
_KEYS = {
    "table": ["file", "fiel"],
    "state": ["dir", "snapshot_every"],
    "registry": ["file", "synthetic"],
    "display": ["driver", "panel", "colour", "full_every", "out_dir", "keep", "model"],
    "gpio": ["enabled", "pin_factory", "pull_up", "hero_ring", "weight", "buttons"],
    "mqtt": ["enabled", "port", "host", "tls", "homeassistant", "password", "keepalive"],
    "log": ["level", "levle"],
}
_SECTIONS = st.fixed_dictionaries(
    {},
    optional={
        name: st.dictionaries(st.sampled_from(keys), _VALUES, max_size=4)
        for name, keys in _KEYS.items()
    }
    | {
        "readers": st.lists(
            st.dictionaries(
                st.sampled_from(["backend", "port", "channels", "roles", "name", "role"]),
                _VALUES,
                max_size=5,
            ),
            max_size=2,
        )
    },
)


@settings(max_examples=200, deadline=None)
@given(data=_SECTIONS)
def test_any_config_is_accepted_or_refused_with_file_key_and_fix_never_a_traceback(
    data: dict,
) -> None:
    from companion.config import _check

    try:
        _check(data, "r.toml", Path("/tmp"), {})
    except ConfigError as e:
        for line in str(e).splitlines():
            assert line.startswith("r.toml: ") and " — " in line, line


def test_an_empty_roles_table_means_every_channel_is_the_board_s() -> None:
    # hypothesis found it: ``roles = {}`` on an emulated hub raised "max() arg is an empty
    # sequence" while checking the roles against ``channels``
    from companion.config import _check

    for channels in (3, 0, "x"):
        spec = {"backend": "emulated-hub", "channels": channels, "roles": {}}
        try:
            _check({"readers": [spec]}, "r.toml", Path("/tmp"), {})
        except ConfigError as e:
            assert channels != 3, e
            assert "readers[0].channels" in str(e), e
