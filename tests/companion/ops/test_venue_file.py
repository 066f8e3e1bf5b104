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


def test_the_venue_command_writes_each_tables_game_and_worldkeeper_into_the_roster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``game`` and ``worldkeeper`` (optional, per [[table]]) go to tables.json, the wall's
    roster (web/src/pages/tables.ts reads them); a table without them has neither key."""
    (tmp_path / "venue.toml").write_text(
        '[venue]\nhost = "venue.local"\n[wall]\npassword = "w"\n[director]\npassword = "d"\n'
        '[[table]]\nid = "kitchen"\nname = "The kitchen table"\n'
        'game = "Rhuna: The Salt Road"\nworldkeeper = "Marguerite-Aurélie"\npassword = "k"\n'
        '[[table]]\nid = "hall"\npassword = "h"\n',
        "utf-8",
    )
    out = tmp_path / "out"
    assert main(["venue", str(tmp_path / "venue.toml"), "--out", str(out)]) == 0
    seats = json.loads((out / "venue" / "tables.json").read_text("utf-8"))["tables"]
    assert seats[0] == {
        "id": "kitchen",
        "name": "The kitchen table",
        "game": "Rhuna: The Salt Road",
        "worldkeeper": "Marguerite-Aurélie",
        "commands_from_venue": False,
        "uplink": "rhuna/uplink/kitchen",
    }
    assert seats[1]["name"] == "hall" and "game" not in seats[1] and "worldkeeper" not in seats[1]


def test_a_game_worldkeeper_or_name_that_is_not_one_line_of_plain_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bidi override, an escape, a newline (it would be a line of the venue's ACL: the name
    is in its comments), a long or empty game: each refused, naming its key and the fix."""
    (tmp_path / "venue.toml").write_text(
        '[venue]\nhost = "venue.local"\n[wall]\npassword = "w"\n[director]\npassword = "d"\n'
        '[[table]]\nid = "kitchen"\nworldkeeper = "Ines\\u202e"\npassword = "k"\n'
        '[[table]]\nid = "hall"\nname = "Hall\\ntopic readwrite #"\npassword = "h"\n'
        f'[[table]]\nid = "attic"\ngame = "{"x" * 61}"\npassword = "a"\n'
        '[[table]]\nid = "cellar"\ngame = "\\u001b]0;pwned\\u0007"\nworldkeeper = " "\n'
        'password = "c"\n',
        "utf-8",
    )
    out = tmp_path / "out"
    assert main(["venue", str(tmp_path / "venue.toml"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and not out.exists()
    assert (
        "table[1].worldkeeper: holds the control character \\u202e (a terminal escape, a bell,"
        " or a bidi override that reverses the text around it): text is text — write the"
        " WorldKeeper's name as plain text, on one line"
    ) in err
    assert "table[2].name: holds a newline — write the table's name on one line" in err
    assert (
        "table[3].game: is 61 characters long (at most 60: one line of the wall's card)"
        " — shorten the game's name to 60 characters"
    ) in err
    assert "table[4].game: holds the control character \\x1b" in err
    assert (
        "table[4].worldkeeper: is empty — give the WorldKeeper's name, or leave worldkeeper out"
        in err
    )
    assert "\x1b" not in err and "\u202e" not in err  # the refusal itself is plain text
    text = errors({**GOOD, "table": [{"id": "k", "password": "p", "game": 3}]})
    assert "table[1].game: 3 is not text — give the game's name as text" in text
