"""``rhuna-table check-config`` says the page server and the MQTT login ``run`` would use, never
a password (issue 41 item 13): real config files in tmp_path, through ``companion.cli.main``."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main
from tests.harness.service import write_config

SECRET = "s3cret-never-printed"


def _summary(config: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    assert main(["check-config", str(config)]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out
    lines = [line.strip() for line in out.splitlines()[1:]]
    return {line[:10].strip(): line[10:] for line in lines if line[:10].strip()}


def test_check_config_says_the_page_server_and_the_mqtt_login_never_the_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "web").mkdir()
    config = write_config(
        tmp_path,
        '[mqtt]\nhost = "broker.lan"\nport = 1884\nusername = "example.service"\n'
        f'password = "{SECRET}"\n'
        '[web]\ndir = "web"\nhost = "127.0.0.1"\nport = 8181\n',
    )
    said = _summary(config, capsys)
    assert said["mqtt"].startswith(
        "broker.lan:1884, topics rhuna/example/…, login 'example.service' (its password in the"
        " config)"
    ), said
    assert said["pages"] == f"http://127.0.0.1:8181/ from {tmp_path / 'web'}", said


def test_a_password_file_is_named_an_anonymous_login_said_and_no_web_dir_means_no_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "service.password").write_text(f"{SECRET}\n")
    config = write_config(
        tmp_path,
        '[mqtt]\nusername = "example.service"\npassword_file = "service.password"\n'
        '[web]\ndir = "/opt/rhuna-table/web"\n',
    )
    said = _summary(config, capsys)
    assert said["mqtt"].startswith(
        "localhost:1883, topics rhuna/example/…, login 'example.service' (its password from"
        " service.password)"
    ), said
    assert said["pages"] == (
        "port 8080 on every interface (http://<this machine>:8080/) from /opt/rhuna-table/web"
    ), said
    config = write_config(tmp_path / "anonymous", "[mqtt]\n")
    said = _summary(config, capsys)
    assert ", no login (anonymous: a broker of rhuna-table accounts refuses it)" in said["mqtt"]
    assert said["pages"].startswith("none ([web] dir is not set"), said
