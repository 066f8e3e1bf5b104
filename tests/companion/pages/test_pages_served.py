"""``[web]``: the service serves the pages itself (companion/pages/server.py), as on the Pi.

Against the real service on the emulated config and a real Mosquitto; the browser is Debian's
Chromium. A page from the service paints the retained state like one from Mosquitto's
``http_dir``; the server gives only the folder's files (no listing, nothing outside it, no
writes), with a Content-Type, and the recaps when asked (its bounds: test_pages_bounds.py).
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.config import ConfigErrors, config_from_text
from companion.pages.server import PageServer
from tests.harness import ARIA, BEGIN, ROOT, missing_real_part
from tests.harness.broker import WAIT
from tests.harness.web import (
    built_pages,
    running_web_broker,
    screenshot,
    served_table,
)

try:
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright (pip package playwright, in the test extras)")

MS = WAIT * 1000


def get(port: int, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


@pytest.fixture
def server(tmp_path) -> Iterator[PageServer]:
    root = tmp_path / "web"
    shutil.copytree(built_pages(), root)
    recaps = tmp_path / "recaps"
    (recaps / "s1").mkdir(parents=True)
    (recaps / "s1" / "recap.html").write_text("<p>the recap</p>")
    (tmp_path / "secret.txt").write_text("outside")
    s = PageServer(root, "127.0.0.1", 0, recaps=recaps)
    s.start(None)
    assert s.server is not None
    yield s
    s.stop()


def test_the_pages_come_with_a_content_type_and_keep_alive(server):
    status, headers, body = get(server.port, "/overlay.html?table=x")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-store"
    assert headers["referrer-policy"] == "no-referrer"
    assert body == (server.root / "overlay.html").read_bytes()
    # HTTP/1.1: two requests on one connection
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    try:
        for page in ("table.html", "tables.html"):
            conn.request("GET", f"/{page}")
            r = conn.getresponse()
            assert r.status == 200 and r.read() == (server.root / page).read_bytes()
    finally:
        conn.close()


def test_the_recaps_are_served_when_asked(server):
    status, _, body = get(server.port, "/recaps/s1/recap.html")
    assert (status, body) == (200, b"<p>the recap</p>")


def test_no_listing_nothing_outside_the_folder_no_writes(server):
    assert get(server.port, "/")[0] == 404
    assert get(server.port, "/recaps/")[0] == 404
    assert get(server.port, "/nope.html")[0] == 404
    status, _, body = get(server.port, "/../secret.txt")
    assert status == 404 and b"outside" not in body
    assert get(server.port, "/%2e%2e/secret.txt")[0] == 404
    assert get(server.port, "/overlay.html", "POST")[0] == 501
    assert get(server.port, "/overlay.html", "PUT")[0] == 501


def test_a_taken_port_is_one_error_and_the_table_runs_on(server, caplog):
    other = PageServer(server.root, "127.0.0.1", server.port)
    other.start(None)
    assert other.server is None
    [record] = [r for r in caplog.records if r.name == "rhuna.web" and r.levelname == "ERROR"]
    assert "choose another web.port" in record.getMessage()
    other.stop()


def test_the_web_section_is_checked_like_the_rest(tmp_path):
    with pytest.raises(ConfigErrors) as e:
        config_from_text('[web]\ndir = "web"\nport = 0\nprot = 1\n', "rhuna.toml", base=tmp_path)
    text = str(e.value)
    assert "web.port: 0 is out of range" in text and "did you mean port?" in text
    c = config_from_text('[web]\ndir = "web"\n', "rhuna.toml", base=tmp_path)
    assert (c.web_dir, c.web_port, c.web_host) == (tmp_path / "web", 8080, "")
    assert config_from_text("", "rhuna.toml", base=tmp_path).web_dir is None


def test_the_overlay_from_the_service_paints_the_retained_state_p6(tmp_path: Path, browser):
    """The real service with ``[web]`` serves the overlay; opened mid-Performance it shows the
    retained draw (P6), the broker given in its URL as `accounts urls` prints it."""
    with (
        running_web_broker(tmp_path / "broker") as broker,
        served_table(tmp_path / "table", broker, serve_pages=True) as table,
    ):
        table.command(BEGIN)
        table.command(ARIA)
        table.lay("aria.ember.skill")
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        try:
            page.goto(table.page_url("overlay.html"))
            expect(page.locator("#status")).to_have_attribute("data-state", "live", timeout=MS)
            expect(
                page.locator('#performance .token[data-token="aria.ember.skill"]')
            ).to_have_count(1, timeout=MS)
            screenshot(page, "overlay-served-by-the-service")
        finally:
            page.close()


def test_accounts_urls_point_at_the_services_page_server(tmp_path, capsys):
    """`rhuna-table accounts urls` prints the pages on the service's port (8080) with the
    broker's WebSocket (9001) in each URL, but the overlay (an OBS source, which never retries)
    from Mosquitto's http_dir (9001); --web-port 0 gives Mosquitto's http_dir for all."""
    from urllib.parse import parse_qs, urlparse

    from companion.cli import main

    folder = tmp_path / "mqtt"
    assert main(["accounts", "--dir", str(folder), "add", "kitchen"]) == 0
    capsys.readouterr()
    assert main(["accounts", "--dir", str(folder), "urls", "kitchen", "--host", "rhuna.local"]) == 0
    urls = [urlparse(u) for u in capsys.readouterr().out.split() if u.startswith("http://")]
    assert urls and {u.netloc for u in urls if u.path != "/overlay.html"} == {"rhuna.local:8080"}
    assert {u.netloc for u in urls if u.path == "/overlay.html"} == {"rhuna.local:9001"}
    assert {parse_qs(u.fragment)["broker"][0] for u in urls} == {"ws://rhuna.local:9001"}
    argv = ["accounts", "--dir", str(folder), "urls", "kitchen", "--host", "rhuna.local"]
    assert main([*argv, "--web-port", "0"]) == 0
    urls = [urlparse(u) for u in capsys.readouterr().out.split() if u.startswith("http://")]
    assert {u.netloc for u in urls} == {"rhuna.local:9001"}


def install_dry_run(prefix: Path, config_dir: Path) -> str:
    result = subprocess.run(
        ["sh", str(ROOT / "systemd" / "install.sh"), "--dry-run", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        env={**os.environ, "CONFIG_DIR": str(config_dir), "SERVICE_USER": "rhuna-test-nobody"},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_install_sh_gives_a_new_config_and_an_old_one_the_pages(tmp_path):
    """A new rhuna.toml (install.sh's own sed edits of examples/rhuna.toml) serves
    $PREFIX/web, where install.sh copies the pages; an existing one without [web] gets it
    appended; one with [web] is left alone."""
    prefix, config_dir = tmp_path / "opt", tmp_path / "etc"
    out = install_dry_run(prefix, config_dir)
    m = re.search(r"\(examples/rhuna.toml with: (.+)\)$", out, re.M)
    assert m, out
    text = subprocess.run(
        ["sed", m.group(1), str(ROOT / "examples" / "rhuna.toml")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert tomllib.loads(text)["web"] == {
        "dir": f"{prefix}/web",
        "port": 8080,
        "host": "",
        "recaps": False,
        "max_connections": 64,
        "timeout": 10,
        "first_state": True,
    }
    assert f"would run: cp -R {ROOT}/web/dist/. {prefix}/web/" in out
    config_dir.mkdir()
    (config_dir / "rhuna.toml").write_text('[table]\nfile = "table.toml"\n')
    out = install_dry_run(prefix, config_dir)
    assert f'would append to {config_dir}/rhuna.toml: [web] dir = "{prefix}/web"' in out
    (config_dir / "rhuna.toml").write_text('[web]\ndir = "/srv/pages"\n')
    assert "would append" not in install_dry_run(prefix, config_dir)
