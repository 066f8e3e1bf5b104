"""The recap link works on the Pi: install.sh's layout, served by the Pi's own broker config.

install.sh writes a new config's ``[record]`` (``recaps`` inside Mosquitto's http_dir,
``recap_url`` a path on the pages' own origin) and makes that folder (group mosquitto,
setgid). The real service ends a session and writes its recap there under the unit's
``UMask=0027``; the href ``rhuna/<table>/history`` carries (``latest_recap``, what the bridge
publishes), fetched over HTTP from a real Mosquitto running systemd/mosquitto-rhuna.conf, is
the recap.html's bytes. Mosquitto 2.0 compares each file's realpath with http_dir
(src/websockets.c, ``callback_http``) and refuses one outside it: a symlink from http_dir to
the state directory is a 403, tested as the reason the recaps are written inside it.
"""

from __future__ import annotations

import grp
import os
import re
import subprocess
import threading
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from companion.config import load_config
from companion.record.session import latest_recap
from companion.service import Service
from tests.harness import ARIA, BEGIN, ROOT, wait_until
from tests.harness.broker import WAIT
from tests.harness.service import write_config

INSTALL = ROOT / "systemd" / "install.sh"
USER = "rhuna-test-nobody"


def installed_record(prefix: Path, config_dir: Path) -> tuple[dict, str]:
    """The ``[record]`` install.sh writes into a new rhuna.toml (its own sed edits, applied by
    sed to examples/rhuna.toml), and its dry run's whole output."""
    result = subprocess.run(
        ["sh", str(INSTALL), "--dry-run", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        env={**os.environ, "CONFIG_DIR": str(config_dir), "SERVICE_USER": USER},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    m = re.search(
        rf"would write: {re.escape(str(config_dir))}/rhuna.toml \(examples/rhuna.toml with: (.+)\)$",
        result.stdout,
        re.M,
    )
    assert m, result.stdout
    text = subprocess.run(
        ["sed", m.group(1), str(ROOT / "examples" / "rhuna.toml")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return tomllib.loads(text)["record"], result.stdout


def end_a_session(config_path: Path) -> dict:
    """Two commands, a stop, then ``run --new-session``: the service writes the ended
    session's recap in the background; returns the link it publishes once it is there."""
    config = load_config(config_path)
    assert config.recaps_dir is not None
    old = os.umask(0o027)  # the unit's UMask=
    try:
        for new_session in (False, True):
            service = Service(config, new_session=new_session)
            stop = threading.Event()
            thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
            thread.start()
            if not new_session:
                service.loop.submit(BEGIN, "worldkeeper")
                service.loop.submit(ARIA, "worldkeeper")
            else:
                wait_until(
                    lambda: latest_recap(config.recaps_dir, config.recap_url) is not None,
                    "the recap to be written",
                    timeout=60,
                )
            stop.set()
            thread.join(WAIT)
    finally:
        os.umask(old)
    info = latest_recap(config.recaps_dir, config.recap_url)
    assert info is not None
    return info


def test_the_recap_link_the_history_carries_is_served_by_the_pis_broker(
    tmp_path, pi_broker
) -> None:
    prefix = tmp_path  # $PREFIX/web is the broker's http_dir
    _, _, ws = pi_broker
    record, out = installed_record(prefix, tmp_path / "etc")
    recaps = prefix / "web" / "recaps"
    assert record["recaps"] == str(recaps)
    assert record["recap_url"] == "/recaps/"  # a path: the pages and the recaps share a host
    group = "mosquitto"
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        group, gid = USER, os.getgid()
    assert f"would run: install -d -o {USER} -g {group} -m 2750 {recaps}\n" in out
    # ... the folder as that line makes it (the owner stays this test's user)
    recaps.mkdir(mode=0o750)
    if os.getuid() == 0:
        os.chown(recaps, -1, gid)
    else:
        gid = recaps.stat().st_gid
    recaps.chmod(0o2750)
    extra = f'[record]\nrecaps = "{record["recaps"]}"\nrecap_url = "{record["recap_url"]}"\n'
    info = end_a_session(write_config(tmp_path / "table", extra))

    file = recaps / info["session"] / "recap.html"
    assert info == {
        "session": info["session"],
        "file": "recap.html",
        "href": f"/recaps/{info['session']}/recap.html",
    }
    # the table page's link, resolved against the page as the broker serves it
    page = f"http://127.0.0.1:{ws}/overlay.html"
    url = urllib.parse.urljoin(page, info["href"])
    assert url == f"http://127.0.0.1:{ws}/recaps/{info['session']}/recap.html"
    with urllib.request.urlopen(url, timeout=WAIT) as r:
        assert r.status == 200
        body = r.read()
    assert body == file.read_bytes()
    assert b"Aria declares Control" in body
    # readable by the broker's group, whoever writes: setgid hands the group down
    for path in (file.parent, file, file.parent / "draws.csv"):
        assert path.stat().st_gid == gid, path
    assert file.stat().st_mode & 0o777 == 0o640
    assert file.parent.stat().st_mode & 0o7777 == 0o2750


def test_a_symlink_out_of_http_dir_is_refused_by_mosquitto(tmp_path, pi_broker) -> None:
    """Why the recaps are written inside http_dir: the state directory linked in is a 403."""
    _, _, ws = pi_broker
    outside = tmp_path / "state" / "recaps" / "20261201T090000Z"
    outside.mkdir(parents=True)
    (outside / "recap.html").write_text("<!doctype html><title>recap</title>")
    (tmp_path / "web" / "linked").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(
            f"http://127.0.0.1:{ws}/linked/{outside.name}/recap.html", timeout=WAIT
        )
    assert e.value.code == 403
    # the same file inside http_dir is served
    inside = tmp_path / "web" / "recaps" / outside.name
    inside.mkdir(parents=True)
    (inside / "recap.html").write_bytes((outside / "recap.html").read_bytes())
    with urllib.request.urlopen(
        f"http://127.0.0.1:{ws}/recaps/{outside.name}/recap.html", timeout=WAIT
    ) as r:
        assert b"<title>recap</title>" in r.read()
