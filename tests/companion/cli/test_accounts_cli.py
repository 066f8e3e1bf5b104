"""`rhuna-table accounts`: files, modes, rotation, URLs, and passwords that never reach the output."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from companion.cli import main
from companion.ops import accounts as A
from tests.harness import EXAMPLE_TABLE


def run(capsys, folder: Path, *argv: str) -> tuple[int, str]:
    code = main(["accounts", "--dir", str(folder), *argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def secrets_in(folder: Path) -> list[str]:
    acc = A.load(folder)
    return [pw for _, pw in acc.logins()]


def test_add_writes_the_four_files_with_private_modes_and_prints_no_password(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    code, out = run(capsys, folder, "add", "kitchen")
    assert code == 0
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}
    assert modes == {
        "accounts.json": 0o600,
        "passwd": 0o640,
        "acl": 0o644,
        "service-kitchen.password": 0o640,
    }
    assert "kitchen.service" in out and "systemctl reload mosquitto" in out
    for pw in secrets_in(folder):
        assert pw not in out
        assert pw not in (folder / "passwd").read_text()  # hashes only
        assert pw not in (folder / "acl").read_text()
    users = [line.split(":")[0] for line in (folder / "passwd").read_text().splitlines()]
    assert users == ["kitchen.service", "kitchen.gm", "kitchen.display", "kitchen.overlay", "wall"]
    acc = A.load(folder)
    assert (folder / "service-kitchen.password").read_text() == acc.tables["kitchen"].service + "\n"


def test_add_again_keeps_the_passwords_and_adds_a_viewer(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen")
    before = A.load(folder)
    code, out = run(capsys, folder, "add", "kitchen", "--viewer", "wall-tv")
    after = A.load(folder)
    assert code == 0 and "kept" in out
    assert after.tables["kitchen"].gm == before.tables["kitchen"].gm
    assert after.tables["kitchen"].viewers["overlay"] == before.tables["kitchen"].viewers["overlay"]
    assert set(after.tables["kitchen"].viewers) == {"overlay", "display", "wall-tv"}


def test_add_from_the_services_config_takes_its_table_id(tmp_path, capsys):
    config = tmp_path / "rhuna.toml"
    config.write_text(f'[table]\nfile = "{EXAMPLE_TABLE}"\n[gpio]\nenabled = false\n')
    code, out = run(capsys, tmp_path / "mqtt", "add", "--config", str(config))
    assert code == 0, out
    assert set(A.load(tmp_path / "mqtt").tables) == {"example"}


def test_rotate_changes_only_the_named_account_and_says_which(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen")
    before = A.load(folder).tables["kitchen"]
    old_hashes = (folder / "passwd").read_text()
    code, out = run(capsys, folder, "rotate", "kitchen", "overlay")
    after = A.load(folder).tables["kitchen"]
    assert code == 0 and "kitchen.overlay" in out
    assert after.viewers["overlay"] != before.viewers["overlay"]
    assert (after.gm, after.service, after.viewers["display"]) == (
        before.gm,
        before.service,
        before.viewers["display"],
    )
    assert (folder / "passwd").read_text() != old_hashes
    for pw in secrets_in(folder):
        assert pw not in out


def test_rotate_everything_of_a_table_and_the_wall(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen")
    before = A.load(folder)
    code, out = run(capsys, folder, "rotate", "kitchen")
    assert code == 0 and "restart the table's service" in out
    after = A.load(folder)
    assert all(
        a != b
        for (_, a), (_, b) in zip(before.logins(), after.logins(), strict=True)
        if _ != "wall"
    )
    assert after.wall == before.wall
    run(capsys, folder, "rotate", "--wall")
    assert A.load(folder).wall != before.wall


def test_urls_carry_the_viewer_logins_and_the_gm_only_when_asked(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen")
    acc = A.load(folder)
    code, out = run(capsys, folder, "urls", "kitchen", "--host", "rhuna.local")
    assert code == 0
    found = re.findall(r"http://\S+", out)
    params = {
        urlparse(u).path: {
            k: v[0] for k, v in parse_qs(f"{urlparse(u).query}&{urlparse(u).fragment}").items()
        }
        for u in found
    }
    # the login (and the broker) in the fragment, never sent to a server (issue 29, item 2)
    for u in found:
        assert "password" not in urlparse(u).query and "username" not in urlparse(u).query
        assert set(parse_qs(urlparse(u).fragment)) == {"broker", "username", "password"}
    assert params["/overlay.html"] == {
        "broker": "ws://rhuna.local:9001",
        "table": "kitchen",
        "username": "kitchen.overlay",
        "password": acc.tables["kitchen"].viewers["overlay"],
    }
    assert params["/table.html"]["username"] == "kitchen.display"
    assert params["/tables.html"]["username"] == "wall"
    assert "/gm.html" not in params and acc.tables["kitchen"].gm not in out
    code, out = run(capsys, folder, "urls", "kitchen", "--host", "rhuna.local", "--gm")
    assert acc.tables["kitchen"].gm in out and "secret" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["add", "my table"], "'my table' cannot be an account"),
        (["add", "a.b"], "'a.b' cannot be an account"),
        (["add", "kitchen", "--viewer", "gm"], "viewer name 'gm' is taken"),
        (["rotate", "nowhere"], "no accounts for table 'nowhere'"),
        (["remove", "nowhere"], "fix: rhuna-table accounts add nowhere"),
        (["urls", "nowhere"], "no accounts for table 'nowhere'"),
        (["add"], "name the table"),
    ],
)
def test_bad_input_is_one_clear_error_and_writes_nothing(tmp_path, capsys, argv, message):
    folder = tmp_path / "mqtt"
    code, out = run(capsys, folder, *argv)
    assert code == 2
    assert message in out and "Traceback" not in out
    assert not folder.exists()


def test_a_damaged_accounts_file_is_named_without_showing_its_secrets(tmp_path, capsys):
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen")
    text = (folder / "accounts.json").read_text()
    (folder / "accounts.json").write_text(text[: len(text) // 2])
    code, out = run(capsys, folder, "list")
    assert code == 2 and "accounts.json: not an accounts file" in out
    assert json.loads(text)["tables"]["kitchen"]["gm"] not in out


def test_the_acl_never_lets_one_table_write_another(tmp_path):
    acc = A.add_table(A.add_table(A.Accounts(), "a"), "b")
    sections = A.acl_text(acc).split("\nuser ")[1:]
    for section in sections:
        name, *lines = section.strip().splitlines()
        rules = [r for r in lines if r.startswith("topic ")]
        writes = [r.split()[-1] for r in rules if r.split()[1] in ("write", "readwrite")]
        if name == "wall" or name.split(".")[1] not in ("service", "gm"):
            assert writes == [], name  # viewers and the wall publish nothing
        else:
            table = name.split(".")[0]
            assert all(f"/{table}/" in w or f"rhuna_{table}" in w for w in writes), (name, writes)


def test_each_service_reads_its_own_venue_uplink_flag_and_no_other():
    """doctor's bridge check logs in as the service and reads ``rhuna/uplink/<table>``
    (issue 33; docs/convention.md): the ACL lets it read its own flag, not another table's."""
    acc = A.add_table(A.add_table(A.Accounts(), "a"), "b")
    sections = {
        s.strip().splitlines()[0]: s.strip().splitlines()[1:]
        for s in A.acl_text(acc).split("\nuser ")[1:]
    }
    assert "topic read rhuna/uplink/a" in sections["a.service"]
    assert "topic read rhuna/uplink/b" not in sections["a.service"]
    assert not any("uplink" in r for r in sections["a.gm"])


def test_a_new_password_never_starts_with_a_dash(monkeypatch):
    """`rhuna-table note --password -x…` (and `mosquitto_pub -P -x…`) would read a password
    starting with '-' as an option: one of them failed a CI run (test_web_gm's note from the
    CLI). A password that would start with '-' is drawn again."""
    from types import SimpleNamespace

    from companion.ops import account_model

    drawn = iter(["-startsWithADash", "_fine-Inside-"])
    stand_in = SimpleNamespace(token_urlsafe=lambda n: next(drawn))
    monkeypatch.setattr(account_model, "secrets", stand_in)
    assert account_model.new_password() == "_fine-Inside-"


def test_the_obs_overlay_url_is_the_brokers_own_page_which_loads_with_the_service_down(
    tmp_path, capsys
):
    """Issue 42 item 6: an OBS browser source loads once and never retries. The overlay from the
    service's page server (8080), loaded while the service is down, stays blank for the night;
    from Mosquitto's http_dir (the WebSocket's port) it loads whenever the broker is up and goes
    live once the service is back. The other pages stay on the faster page server."""
    folder = tmp_path / "mqtt"
    run(capsys, folder, "add", "kitchen", "--viewer", "overlay", "--viewer", "stream2")
    code, out = run(capsys, folder, "urls", "kitchen", "--host", "rhuna.local", "--gm")
    assert code == 0
    where = {urlparse(u).path: urlparse(u).netloc for u in re.findall(r"http://\S+", out)}
    assert where["/overlay.html"] == "rhuna.local:9001"
    assert out.count("http://rhuna.local:9001/overlay.html") == 2  # the second viewer's too
    assert where["/table.html"] == where["/tables.html"] == where["/gm.html"] == "rhuna.local:8080"
    assert "while the service is down" in out
    # --http names one place for every page; --web-port 0 puts them all on the broker
    code, out = run(capsys, folder, "urls", "kitchen", "--http", "https://pages.example")
    assert {urlparse(u).netloc for u in re.findall(r"https?://\S+", out) if "html" in u} == {
        "pages.example"
    }
    assert "while the service is down" not in out
    code, out = run(capsys, folder, "urls", "kitchen", "--web-port", "0")
    assert {urlparse(u).netloc for u in re.findall(r"http://\S+", out)} == {"localhost:9001"}
