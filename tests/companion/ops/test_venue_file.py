"""``rhuna-table venue``'s checks: every mistake in a venue file named, with its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.ops import venue as V
from settings.errors import ConfigError

GOOD = {
    "venue": {"host": "venue.local"},
    "wall": {"password": "w"},
    "director": {"password": "d"},
    "table": [{"id": "kitchen", "name": "Kitchen", "password": "k"}],
}


def errors(data: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as e:
        V.parse(data, "venue.toml")
    return str(e.value)


def test_a_table_listed_twice_a_bad_id_and_a_missing_password_are_each_named() -> None:
    tables = [
        {"id": "kitchen", "password": "k"},
        {"id": "kitchen", "password": "k2"},
        {"id": "bad id", "password": "x"},
        {"id": "hall"},
    ]
    text = errors({**GOOD, "table": tables})
    assert "venue.toml: table[2].id: table 'kitchen' is listed twice (also table[1])" in text
    assert "table[3].id: table id 'bad id' cannot be an account" in text
    assert "table[4].password: missing" in text and 'set password = "…"' in text
    assert len(text.splitlines()) == 3


def test_commands_from_the_venue_need_an_organiser_and_open_only_that_table() -> None:
    tables = [
        {"id": "kitchen", "password": "k", "commands_from_venue": True},
        {"id": "hall", "password": "h"},
    ]
    assert "organiser: missing" in errors({**GOOD, "table": tables})
    v = V.parse({**GOOD, "table": tables, "organiser": {"password": "o"}}, "venue.toml")
    by_id = {t.id: t for t in v.tables}
    assert "topic rhuna/kitchen/command in 1" in V.bridge_text(v, by_id["kitchen"])
    assert " in 1" not in V.bridge_text(v, by_id["hall"])
    acl = V.acl_text(v)
    assert (
        "topic write rhuna/kitchen/command" in acl and "topic write rhuna/hall/command" not in acl
    )


def test_the_cli_writes_the_venue_and_each_bridge_and_reads_password_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k.pw").write_text("kitchen-secret\n")
    (tmp_path / "venue.toml").write_text(
        '[venue]\nhost = "venue.local"\n[wall]\npassword = "w"\n[director]\npassword = "d"\n'
        '[[table]]\nid = "kitchen"\nname = "Kitchen"\npassword_file = "k.pw"\n'
    )
    out = tmp_path / "out"
    assert main(["venue", str(tmp_path / "venue.toml"), "--out", str(out)]) == 0
    bridge = (out / "tables" / "kitchen" / V.BRIDGE_FILE).read_text()
    assert "remote_password kitchen-secret\n" in bridge and "cleansession false" in bridge
    assert "notification_topic rhuna/uplink/kitchen" in bridge
    conf = (out / "venue" / "mosquitto.conf").read_text()
    assert "protocol websockets" in conf and "allow_anonymous false" in conf
    roster = json.loads((out / "venue" / "tables.json").read_text())
    assert roster["tables"] == [
        {
            "id": "kitchen",
            "name": "Kitchen",
            "commands_from_venue": False,
            "uplink": "rhuna/uplink/kitchen",
        }
    ]
    assert "kitchen-secret" not in (out / "venue" / "tables.json").read_text()
    users = [line.split(":")[0] for line in (out / "venue" / "passwd").read_text().splitlines()]
    assert users == ["kitchen.bridge", "wall", "director"]
    (tmp_path / "k.pw").unlink()
    assert main(["venue", str(tmp_path / "venue.toml"), "--check"]) == 2
    err = capsys.readouterr().err
    assert "table[1].password_file:" in err and "cannot be read" in err and "Traceback" not in err


def test_http_dir_serves_the_pages_from_the_websockets_listener_and_must_be_absolute() -> None:
    v = V.parse({**GOOD, "venue": {"host": "v", "http_dir": "/srv/rhuna-venue/www"}}, "venue.toml")
    conf = V.venue_conf_text(v, Path("/etc/rhuna-venue")).splitlines()
    ws = conf.index("protocol websockets")
    assert conf[ws - 1] == "listener 9001" and conf[ws + 1] == "http_dir /srv/rhuna-venue/www"
    assert "http_dir" not in V.venue_conf_text(V.parse(GOOD, "venue.toml"), Path("/e"))
    text = errors({**GOOD, "venue": {"host": "v", "http_dir": "www"}})
    assert "venue.http_dir: 'www' is not an absolute path" in text
