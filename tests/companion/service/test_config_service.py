"""The service config (rhuna.toml) and ``rhuna-table check-config`` / ``run`` refusing to start:
every error names the file, the key and the fix; never a traceback."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from companion.cli import main
from companion.config import ConfigErrors, config_from_text, load_config
from companion.table.store import JOURNAL, Store
from engine import load_table
from hardware.config import GpioConfig
from settings.errors import ConfigError
from tests.harness import ROOT
from tests.harness.service import EXAMPLES, write_config

BASE = '[table]\nfile = "table.toml"\n[gpio]\nenabled = false\n'


def check(text: str, base: Path = EXAMPLES, env: dict | None = None):
    return config_from_text(text, "rhuna.toml", base=base, env=env or {})


def test_an_empty_config_is_every_default(tmp_path):
    cfg = check("", base=tmp_path, env={})
    assert cfg.table_file == tmp_path / "table.toml"
    assert cfg.state_dir == Path("/var/lib/rhuna-table") and cfg.snapshot_every == 1000
    assert cfg.readers == () and cfg.registry_file == Path("/var/lib/rhuna-table/registry.json")
    assert (cfg.display.driver, cfg.display.panel, cfg.display.colour) == ("png", "2.13", "bw")
    assert cfg.display.options["out_dir"] == Path("/var/lib/rhuna-table/panel")
    assert cfg.gpio == GpioConfig() and cfg.mqtt == {} and cfg.log_level == "info"


def test_systemds_state_directory_is_the_default_state_dir(tmp_path):
    cfg = check("", base=tmp_path, env={"STATE_DIRECTORY": "/var/lib/rhuna-table-2:/other"})
    assert cfg.state_dir == Path("/var/lib/rhuna-table-2")
    assert check('[state]\ndir = "here"', base=tmp_path).state_dir == tmp_path / "here"


def test_readers_with_channel_roles_become_reader_roles():
    cfg = check(
        BASE + '[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "/dev/ttyACM0"\n'
        'roles = { 4 = "favor", 5 = "time" }\n'
        '[[readers]]\nbackend = "pn532"\nname = "bag"\nport = "/dev/serial0"\nrole = "weather"\n'
        '[[readers]]\nbackend = "line"\nname = "time"\nport = "/dev/ttyUSB0"\n'
        'uid_format = "decimal"\nremoval_timeout = false\n'
    )
    hub, pn532, line = cfg.readers
    assert (hub.baudrate, hub.roles) == (115200, {4: "favor", 5: "time"})
    assert (pn532.options["channel"], line.baudrate, line.options["removal_timeout"]) == (
        0,
        9600,
        None,
    )
    roles = cfg.roles
    assert roles.role("draw-board", 4) == "favor" and roles.role("draw-board", 0) == "board"
    assert roles.role("bag", 3) == "weather" and roles.role("time", 0) == "board"


def test_mqtt_is_checked_with_the_rest_and_passed_on_as_written(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    section = f'[mqtt]\nhost = "broker"\nport = 8883\n[mqtt.tls]\nca = "{ca}"\n'
    cfg = check(BASE + section)
    assert cfg.mqtt == {"host": "broker", "port": 8883, "tls": {"ca": str(ca)}}
    # what the bridge would refuse at start, the config check refuses — with the rest
    with pytest.raises(ConfigErrors) as e:
        check(BASE + '[mqtt]\nenabeld = true\nport = "1883"\nkeepalive = 1\n[log]\nlevel = "x"\n')
    assert [m.split(": ")[1] for m in e.value.errors] == [
        "mqtt.enabeld",
        "mqtt.port",
        "mqtt.keepalive",
        "log.level",
    ]
    assert "did you mean enabled? [mqtt] takes: enabled, host, port" in e.value.errors[0]


@pytest.mark.parametrize(
    ("text", "key", "fix"),
    [
        ("[tabel]\n", "tabel: unknown section", "known sections: table, state"),
        (
            '[table]\nfiel = "t.toml"\n',
            "table.fiel: unknown key",
            "did you mean file? [table] takes: file",
        ),
        ("[state]\nsnapshot_every = -1\n", "state.snapshot_every", "e.g. 1000"),
        (
            '[[readers]]\nbackend = "nfc"\n',
            "readers[0].backend: 'nfc' is not a reader backend",
            "hub, pn532, line, emulated-hub",
        ),
        ('[[readers]]\nbackend = "hub"\n', "readers[0].port: missing", "ls /dev/serial/by-id"),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\nchannels = 4\n',
            "readers[0].channels: unknown key",
            '[[readers]] with backend = "hub" takes: backend, name, role, roles, port, baudrate',
        ),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\nrole = "bag"\n',
            "readers[0].role: 'bag' is not a role",
            "board, favor, time, weather",
        ),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\nroles = { x = "favor" }\n',
            "readers[0].roles.x: not a channel number",
            "0 to 15",
        ),
        (
            '[[readers]]\nbackend = "line"\nport = "/dev/x"\npattern = "([0-9]+)"\n',
            "readers[0].pattern",
            "(?P<uid>",
        ),
        (
            '[[readers]]\nbackend = "line"\nport = "/dev/x"\npattern = "(?P<uid>[0-9"\n',
            "is not a regular expression",
            "(?P<uid>",
        ),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\n[[readers]]\nbackend = "hub"\nport = "/dev/y"\n',
            "readers[1].name: 'hub' is already the name of another reader",
            "give every reader its own name",
        ),
        (
            '[[readers]]\nbackend = "hub"\nport = "/dev/x"\n[[readers]]\nbackend = "pn532"\nport = "/dev/x"\n',
            "readers[1].port: /dev/x is already reader 'hub'",
            "one reader per serial port",
        ),
        ("[readers]\n", "readers: written as [readers]", "write [[readers]]"),
        (
            '[registry]\nfile = "r.json"\nsynthetic = true\n',
            "registry: both file and synthetic",
            "not both",
        ),
        (
            '[display]\ndriver = "oled"\n',
            "display.driver: 'oled' is not a display driver",
            "png, inky, waveshare, none",
        ),
        ('[display]\npanel = "9.7"\n', "display.panel: 9.7 is not a panel", "2.13, 2.9, 4.2, 7.5"),
        ('[display]\ncolour = "red"\n', "display.colour: 'red' is not allowed", "bw, bwr, bwy"),
        ('[display]\ndriver = "waveshare"\n', "display.model: missing", "epd2in13_V4"),
        (
            '[display]\ndriver = "inky"\nout_dir = "x"\n',
            "display.out_dir: unknown key",
            "[display] takes: driver, panel, colour, full_every, full_refresh_s",
        ),
        ("[gpio]\nenabled = 1\n", "gpio.enabled: 1 is not true or false", "write true or false"),
        (
            "[gpio]\nenabled = false\n[gpio.buttons]\nresolve = 99\n",
            "gpio.buttons.resolve: GPIO 99",
            "BCM GPIO number",
        ),
        (
            '[log]\nlevel = "loud"\n',
            "log.level: 'loud' is not a log level",
            "debug, info, warning, error",
        ),
        ("[mqtt]\n[mqtt]\n", "not valid TOML", "fix the syntax"),
    ],
)
def test_each_error_names_the_file_the_key_and_the_fix(text, key, fix):
    with pytest.raises(ConfigError) as e:
        check(text)
    message = str(e.value)
    assert message.startswith("rhuna.toml: ") and key in message and fix in message


def test_every_section_is_checked_so_every_problem_is_listed_at_once():
    with pytest.raises(ConfigErrors) as e:
        check('[tabel]\n[display]\ncolour = "red"\n[log]\nlevel = 3\n[gpio.encoder]\na = 99\n')
    assert [m.split(": ")[1] for m in e.value.errors] == [
        "tabel",
        "display.colour",
        "gpio.encoder.a",
        "log.level",
    ]


# --- the CLI ------------------------------------------------------------------------------


def test_check_config_prints_what_it_would_run(tmp_path, capsys):
    config = write_config(tmp_path, '[mqtt]\nhost = "broker.lan"\nbase_topic = "table"\n')
    assert main(["check-config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{config}: OK")
    for line in (
        "table     ",
        "table 'example', 3 heroes",
        f"journal   {tmp_path / 'state' / JOURNAL}: none yet",
        "readers   draw-board: emulated-hub (in-process emulator, 6 channels); channels 4 favor,"
        " 5 time; the others board",
        "registry  synthetic",
        f'display   png 2.13" bwr → {tmp_path / "state" / "panel"}/latest.png',
        "wheel     off",
        "mqtt      broker.lan:1883, topics table/example/…",
    ):
        assert line in out


def test_a_bad_mqtt_section_fails_the_check(tmp_path, capsys):
    """[mqtt] is the MQTT bridge's to check (companion/mqtt/config.py); check-config asks it."""
    config = write_config(tmp_path, "[mqtt]\nport = 99999\n")
    assert main(["check-config", str(config)]) == 2
    assert "mqtt.port" in capsys.readouterr().err


def test_check_config_lists_every_error_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "rhuna.toml"
    bad.write_text('[display]\ncolour = "red"\n[log]\nlevel = "loud"\n')
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{bad}: display.colour") and err[1].startswith(f"{bad}: log.level")
    assert err[2] == f"{bad}: 2 problem(s); nothing would run"


def test_the_shipped_example_configs_check(tmp_path, capsys):
    """examples/rhuna.toml (a Pi) checks once its registry exists (and, off a Pi, with mock
    pins: lgpio cannot be imported here, which check-config says); the emulated one as is."""
    text = (EXAMPLES / "rhuna.toml").read_text().replace("/var/lib/rhuna-table", str(tmp_path))
    assert 'pin_factory = "lgpio"' in text
    if importlib.util.find_spec("lgpio") is None:
        (tmp_path / "pi.toml").write_text(text)
        shutil.copy(EXAMPLES / "table.toml", tmp_path / "table.toml")
        (tmp_path / "registry.json").write_text('{"tags": {"04A1B2C3": "aria.ember.skill"}}')
        assert main(["check-config", str(tmp_path / "pi.toml")]) == 2
        err = capsys.readouterr().err
        assert "gpio.pin_factory: 'lgpio' cannot be imported here" in err
        assert "apt install python3-lgpio" in err and "1 problem(s)" in err
        text = text.replace('pin_factory = "lgpio"', 'pin_factory = "mock"')
    (tmp_path / "registry.json").write_text('{"tags": {"04A1B2C3": "aria.ember.skill"}}')
    shutil.copy(EXAMPLES / "table.toml", tmp_path / "table.toml")
    (tmp_path / "rhuna.toml").write_text(text)
    assert main(["check-config", str(tmp_path / "rhuna.toml")]) == 0
    out = capsys.readouterr().out
    assert "registry.json: 1 enrolled tags" in out and "pins via " in out
    assert "mqtt      localhost:1883, topics rhuna/example/…" in out  # on unless enabled = false
    emulated = (
        (EXAMPLES / "rhuna-emulated.toml")
        .read_text()
        .replace("~/.local/state/rhuna/example", str(tmp_path / "emulated"))
    )
    assert str(tmp_path / "emulated") in emulated  # its journal here, not in the user's home
    (tmp_path / "emulated.toml").write_text(emulated)
    assert main(["check-config", str(tmp_path / "emulated.toml")]) == 0


def test_a_missing_registry_names_the_key_and_the_fix(tmp_path, capsys):
    config = write_config(tmp_path, readers='[[readers]]\nbackend = "hub"\nport = "/dev/null"\n')
    config.write_text(config.read_text().replace("synthetic = true", 'file = "tags.json"'))
    assert main(["check-config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "registry.file: " in err and "tags.json" in err and "synthetic = true" in err


def test_run_refuses_a_changed_table_until_new_session(tmp_path, capsys):
    config = write_config(tmp_path)
    cfg = load_config(config)
    with Store.open(cfg.state_dir) as store:
        store.restore(load_table(cfg.table_file), cfg.table_file)
    table = tmp_path / "table.toml"
    table.write_text(table.read_text().replace("favor = 2", "favor = 3", 1))
    assert main(["check-config", str(config)]) == 2
    assert "--new-session" in capsys.readouterr().err
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"rhuna-table: {table}: this table file is not the one")
        and "Traceback" not in err
    )
    from companion.service import Service

    service = Service(cfg, new_session=True)
    try:
        assert service.restored.new and service.loop.state.heroes["aria"].favor == 3
        assert len(list((cfg.state_dir / "archive").glob("journal-*.sqlite"))) == 1
    finally:
        service.stop()


def test_run_on_a_damaged_journal_says_so_and_exits_2(tmp_path, capsys):
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / JOURNAL).write_bytes(b"\x00not sqlite\x00" * 512)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "the journal is damaged" in err and "--new-session" in err and "Traceback" not in err


def test_run_without_a_config_file_names_it(tmp_path, capsys):
    assert main(["run", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: cannot read the config file" in capsys.readouterr().err


def test_the_example_documents_every_key_the_checker_knows():
    """examples/rhuna.toml shows every key (commented or not), so it is the reference."""
    from companion.config import BACKEND_KEYS, CONFIG_SECTIONS, DRIVER_KEYS

    text = (ROOT / "examples" / "rhuna.toml").read_text()
    keys = {"file", "dir", "snapshot_every", "backend", "name", "role", "roles", "synthetic"}
    keys |= {k for spec in BACKEND_KEYS.values() for k in spec}
    keys |= {k for spec in DRIVER_KEYS.values() for k in spec}
    keys |= {"driver", "panel", "colour", "full_every", "enabled", "level"}
    missing = [k for k in sorted(keys) if f"{k} =" not in text]
    assert missing == []
    assert all(f"[{s}]" in text or f"[[{s}]]" in text for s in CONFIG_SECTIONS)
