"""``doctor`` on a fresh install finds what the guide's next steps meet (issue 44, D1, D8, D11).

* the service would refuse to start (check-config's refusal: a missing ``registry.json``, which
  the unit meets as exit status 2 and does not retry): doctor said "all good";
* a state directory that does not exist and the service user cannot create (the unit's
  ``StateDirectory=`` makes it only at the first start, the guide enrols before that): doctor
  said "(created at the first start)" while ``sudo -u rhuna rhuna-table enroll`` failed;
* a Zero 2 W reads ``get_throttled=0x0`` with no under-voltage detection circuit: doctor said
  "no under-voltage".

The state directory is checked in a forked child that has dropped root for ``nobody``, as the
doctor's device checks run as the service's user.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest

from companion.config import config_from_text
from companion.ops import health
from companion.ops.doctor import Doctor
from firmware_bridge.emulator import HubEmulator
from tests.harness import EXAMPLE_TABLE, missing_real_part
from tests.harness.fake_pi import fake_pi

ZERO2 = "Raspberry Pi Zero 2 W Rev 1.0\x00"


def test_doctor_says_the_service_would_refuse_a_missing_registry(tmp_path):
    shutil.copy(EXAMPLE_TABLE, tmp_path / "table.toml")
    with HubEmulator(tmp_path / "by-id" / "hub") as hub:
        config = tmp_path / "rhuna.toml"
        config.write_text(
            f'[table]\nfile = "table.toml"\n[state]\ndir = "{tmp_path / "state"}"\n'
            f'[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "{hub.link}"\n'
            '[registry]\nfile = "registry.json"\n[display]\ndriver = "none"\n'
            '[gpio]\npin_factory = "mock"\n[mqtt]\nenabled = false\n'
        )
        machine = fake_pi(tmp_path / "pi")
        found = {c.name: c for c in Doctor(config, machine, timeout=3, as_user=[]).run()}
    start = found["service start"]
    assert not start.ok
    assert "the service would refuse to start: registry.file:" in start.detail
    assert "registry.json does not exist yet" in start.detail
    assert f"rhuna-table check-config {config}" in start.fix
    # and once the registry is there (empty, as install.sh writes it), it would start
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "registry.json").write_text('{"tags": {}}\n')
    cfg = config_from_text(config.read_text(), base=tmp_path)
    assert next(health.service_starts(cfg)).ok


def as_nobody(path: Path) -> dict[str, object]:
    """health.state_dir in a forked child that dropped root for ``nobody``."""
    if os.geteuid() != 0:
        missing_real_part("root (to drop to another user)")
    nobody = pwd.getpwnam("nobody")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no new imports, only the check
        try:
            os.close(read)
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            check = next(health.state_dir(path, "rhuna"))
            os.write(write, json.dumps(asdict(check)).encode())
        except BaseException as e:  # said to the parent, which fails on it
            os.write(write, json.dumps({"ok": None, "detail": repr(e)}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(text)


@pytest.fixture
def reachable():
    """A folder another user can reach (pytest's tmp_path is root's, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="rhuna-doctor-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_state_dir_the_service_user_cannot_create_is_a_problem(reachable):
    parent = reachable / "var-lib"
    parent.mkdir(mode=0o755)  # root's, as /var/lib is
    check = as_nobody(parent / "rhuna-table")
    assert check["ok"] is False, check
    assert "does not exist, and rhuna cannot create it" in str(check["detail"])
    assert "sudo install -d -o rhuna -g rhuna -m 0750" in str(check["fix"])
    # one it can create is fine, as before
    parent.chmod(0o777)
    assert as_nobody(parent / "rhuna-table")["ok"] is True, check


@pytest.mark.parametrize(
    ("model", "measured"), [(ZERO2, False), ("Raspberry Pi 4 Model B\x00", True)]
)
def test_a_zero_2_w_has_no_under_voltage_detection(tmp_path, model, measured):
    machine = fake_pi(tmp_path / "pi", model=model)
    d = Doctor(tmp_path / "x.toml", machine, throttled=lambda: "throttled=0x0\n")
    check = next(d.power_supply(config_from_text("[gpio]\nenabled = false\n", base=tmp_path)))
    assert check.ok
    if measured:
        assert check.detail.startswith("no under-voltage")
    else:
        assert "not measured" in check.detail and "no under-voltage detection" in check.detail


def test_no_power_tick_for_readers_no_hub_reported(tmp_path):
    """issue 44, D12: with no hub answering, the sum of the readers' draw was a guess with a ✓."""
    from firmware_bridge import health as readers_health

    cfg = config_from_text(
        '[[readers]]\nbackend = "hub"\nname = "draw-board"\nport = "/dev/null"\n'
        "[registry]\nsynthetic = true\n",
        base=tmp_path,
    )
    (unknown,) = readers_health.reader_power(cfg.readers, {})
    assert not unknown.ok
    assert unknown.detail.startswith("not measured: draw-board's hub did not answer")
    assert "6 readers" in unknown.detail and "connect the hub" in unknown.fix
    (known,) = readers_health.reader_power(cfg.readers, {"draw-board": (6, "1.2.0")})
    assert known.ok and "draw ≈141 mA" in known.detail
